package main

import (
	"context"
	"errors"
	"flag"
	"os"
	"os/signal"
	"syscall"

	"github.com/SovereignCloudStack/scs-kaas/test/e2e/controlplane"
)

// packageRuntime is the package runtime's process of a playground installed through
// packages (up --configuration): it plays what Crossplane's External package runtime leaves
// to a controller, until it is stopped.
func packageRuntime(args []string) error {
	fs := flag.NewFlagSet("package-runtime", flag.ExitOnError)
	kubeconfig := fs.String("kubeconfig", "", "kubeconfig of the Crossplane cluster")
	function := fs.String("function", controlplane.DefaultFunctionName, "the Function whose revisions get --function-endpoint")
	endpoint := fs.String("function-endpoint", "", "gRPC target of the function, for its FunctionRevisions")
	_ = fs.Parse(args)
	if *kubeconfig == "" || *endpoint == "" {
		return errors.New("package-runtime needs --kubeconfig and --function-endpoint (playground up --configuration starts it with them)")
	}
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	logf("playing the package runtime for %s", *kubeconfig)
	return controlplane.RunPackageRuntime(ctx, *kubeconfig, *function, *endpoint, logf)
}
