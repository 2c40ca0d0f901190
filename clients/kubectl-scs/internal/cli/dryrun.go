package cli

import (
	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Dry-run modes, as kubectl's --dry-run: client only checks and prints, server sends the
// request with dryRun=All so that the API server's validation and admission run without
// persisting anything.
const (
	dryRunNone   = "none"
	dryRunClient = "client"
	dryRunServer = "server"
)

func addDryRunFlag(cmd *cobra.Command, target *string) {
	cmd.Flags().StringVar(target, "dry-run", dryRunNone, `"none", "client" (check and print only) or "server" (the API server checks, nothing is persisted)`)
	_ = cmd.RegisterFlagCompletionFunc("dry-run", cobra.FixedCompletions([]string{dryRunNone, dryRunClient, dryRunServer}, cobra.ShellCompDirectiveNoFileComp))
}

func checkDryRun(mode string) error {
	switch mode {
	case dryRunNone, dryRunClient, dryRunServer:
		return nil
	}
	return usage(`--dry-run must be "none", "client" or "server", not %q`, mode)
}

// serverDryRun is the dryRun option of a request.
func serverDryRun(mode string) []string {
	if mode == dryRunServer {
		return []string{metav1.DryRunAll}
	}
	return nil
}

// dryRunSuffix is what kubectl appends to its messages in a dry run.
func dryRunSuffix(mode string) string {
	switch mode {
	case dryRunClient:
		return " (dry run)"
	case dryRunServer:
		return " (server dry run)"
	}
	return ""
}
