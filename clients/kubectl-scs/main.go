// Command kubectl-scs is a kubectl plugin for the SCS cluster API (kind SCSCluster in
// kaas.scs.community/v1alpha1): `kubectl scs get`, `kubectl scs wait`, `kubectl scs render`
// and so on; it works alone as well. docs/cli.md describes every command and its exit codes.
package main

import (
	"os"

	"github.com/SovereignCloudStack/scs-kaas/clients/kubectl-scs/internal/cli"
)

func main() { os.Exit(cli.Main(os.Args[1:])) }
