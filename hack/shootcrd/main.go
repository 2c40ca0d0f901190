// Command shootcrd writes a CustomResourceDefinition for Gardener's Shoot
// (core.gardener.cloud/v1beta1), generated from Gardener's Go types.
//
//	cd hack/shootcrd && go run . -o ../../_output/crds/core.gardener.cloud_shoots.yaml
package main

import (
	"flag"
	"fmt"
	"os"
)

func main() {
	out := flag.String("o", "crds/core.gardener.cloud_shoots.yaml", "output file (`-` for stdout)")
	dir := flag.String("module-dir", ".", "directory of the shootcrd module (the Go package loader runs there)")
	flag.Parse()

	data, err := Generate(*dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "shootcrd:", err)
		os.Exit(1)
	}
	if *out == "-" {
		_, err = os.Stdout.Write(data)
	} else {
		err = writeAtomically(*out, data)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "shootcrd:", err)
		os.Exit(1)
	}
}
