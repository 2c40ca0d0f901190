package main

import (
	"context"

	"github.com/SovereignCloudStack/scs-kaas/test/e2e/controlplane"
)

// startAddons runs Flux and gives every environment the example add-ons and Argo CD
// registration: once make simulate has made a cluster Ready, Flux applies them to its
// workload API server with the kubeconfig it delivered.
func startAddons(ctx context.Context, env *controlplane.Env, namespaces []string) error {
	n, err := env.OfferExampleAddons(ctx, namespaces)
	if err != nil {
		return err
	}
	logf("Flux runs; %d environments offer the example add-ons hello (enforced) and web (default) from %s, and register their clusters in namespace %s",
		n, env.Registry().Address, controlplane.ArgoCDNamespace)
	return nil
}
