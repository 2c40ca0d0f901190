package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/SovereignCloudStack/scs-kaas/test/e2e/gitops"
)

// TestGitOpsHealthOfLiveClaims: what Argo CD's health check (package/gitops/health.lua, run
// by the Lua interpreter Argo CD embeds) and Flux's kstatus make of a live claim as it goes
// from provisioning to Ready, to refused by the function, and back: Progressing/InProgress,
// Healthy/Current, Degraded/Failed, Healthy/Current. A Magnum claim, whose provider the
// test plays.
func TestGitOpsHealthOfLiveClaims(t *testing.T) {
	needEnv(t)
	ctx := testContext(t)
	script, err := os.ReadFile(filepath.Join(repoRoot, gitops.ScriptPath))
	if err != nil {
		t.Fatal(err)
	}
	const name = "gitops"
	healthIs := func(argo, kstatus string) func(*unstructured.Unstructured) error {
		return func(c *unstructured.Unstructured) error {
			h, err := gitops.ArgoCDHealth(string(script), c)
			if err != nil {
				t.Fatalf("Argo CD health check on the live claim: %v", err)
			}
			ks, msg, err := gitops.Kstatus(c)
			if err != nil {
				t.Fatalf("kstatus on the live claim: %v", err)
			}
			if h.Status != argo || ks != kstatus {
				return fmt.Errorf("Argo CD %s (%s), kstatus %s (%s)", h.Status, h.Message, ks, msg)
			}
			t.Logf("Argo CD %s (%s); kstatus %s (%s)", h.Status, h.Message, ks, msg)
			return nil
		}
	}

	apply(ctx, t, newClaim(name, magnumSpec("1.34", "SCS-4V-8", false)))
	_, native, _ := waitClusterV1(ctx, t, name)
	waitClaim(ctx, t, deadline, name, "Progressing to Argo CD, InProgress to Flux", healthIs("Progressing", "InProgress"))

	magnumReady(ctx, t, native)
	waitClaim(ctx, t, deadline, name, "Healthy to Argo CD, Current to Flux", healthIs("Healthy", "Current"))

	// A machine type the environment does not offer: the function refuses.
	apply(ctx, t, newClaim(name, magnumSpec("1.34", "SCS-99V-1", false)))
	waitClaim(ctx, t, deadline, name, "Degraded to Argo CD, Failed to Flux", healthIs("Degraded", "Failed"))

	apply(ctx, t, newClaim(name, magnumSpec("1.34", "SCS-4V-8", false)))
	waitClaim(ctx, t, deadline, name, "Healthy and Current again", healthIs("Healthy", "Current"))
}
