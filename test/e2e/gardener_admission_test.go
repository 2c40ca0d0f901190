package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/model"
)

// TestStaleCatalogShowsGardenersRefusalOnClaim: an environment whose catalog offers a machine
// type the landscape's CloudProfile no longer has (the platform team forgot to update it)
// lets the claim through our validation; gardener-apiserver's admission refuses the Shoot,
// and the claim says so in Gardener's words, naming the field and what the CloudProfile
// offers. No Shoot exists. With the machine type fixed in the claim, the Shoot is created.
func TestStaleCatalogShowsGardenersRefusalOnClaim(t *testing.T) {
	needEnv(t)
	ctx := testContext(t)
	const name, environment, retired = "stale", "gardener-stale-catalog", "SCS-2V-8"

	offered, _, _ := unstructured.NestedStringSlice(exampleEnvironmentConfig(t).Object, "data", "catalog", "machineTypes")
	machineTypes := []any{retired}
	for _, mt := range offered {
		machineTypes = append(machineTypes, mt)
	}
	environmentVariant(ctx, t, "gardener-regionone.yaml", environment, map[string]any{"catalog.machineTypes": machineTypes})

	spec := smallSpec("1.34", 1, 3)
	spec["environment"] = environment
	spec["nodePools"].([]any)[0].(map[string]any)["machineType"] = retired
	start := time.Now()
	apply(ctx, t, newClaim(name, spec))
	// Gardener's message, after provider-kubernetes' "cannot create object".
	want := []string{
		`spec.provider.workers[0].machine.type: Unsupported value: "` + retired + `"`,
		`supported values: "SCS-16V-32", "SCS-2V-4"`,
	}
	claim := waitClaim(ctx, t, deadline, name, "BackendSynced False with gardener-apiserver's refusal", func(c *unstructured.Unstructured) error {
		cond := model.ConditionOf(c, kaasv1alpha1.ConditionBackendSynced)
		if cond.Status != "False" || cond.Reason != kaasv1alpha1.ReasonApplyFailed {
			return fmt.Errorf("BackendSynced %v", cond)
		}
		for _, w := range want {
			if !strings.Contains(cond.Message, w) {
				return fmt.Errorf("BackendSynced message lacks %q: %s", w, cond.Message)
			}
		}
		return nil
	})
	measure(t, "claim with a machine type the CloudProfile lacks -> Gardener's refusal on the claim", start)
	t.Logf("BackendSynced: %s", model.ConditionOf(claim, kaasv1alpha1.ConditionBackendSynced).Message)
	if got := model.ConditionOf(claim, "Ready"); got.Status == "True" {
		t.Errorf("claim Ready with its Shoot refused: %v", got)
	}
	native := str(claim, "status", "backend", "name")
	if native == "" {
		t.Fatal("claim does not name its Shoot")
	}
	if _, err := shoots().Get(ctx, native, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("Shoot %s after Gardener's refusal: %v, want NotFound", native, err)
	}

	// The team picks an offered type; the same claim gets its Shoot.
	spec["nodePools"].([]any)[0].(map[string]any)["machineType"] = "SCS-2V-4"
	apply(ctx, t, newClaim(name, spec))
	waitShootMatches(ctx, t, deadline, native, "created with machine type SCS-2V-4", func(s *unstructured.Unstructured) bool {
		pool, ok := workers(s)["default"]
		return ok && str(&unstructured.Unstructured{Object: pool}, "machine", "type") == "SCS-2V-4"
	})
	waitClaim(ctx, t, deadline, name, "BackendSynced True", hasCondition(kaasv1alpha1.ConditionBackendSynced, "True", ""))
	if err := claims().Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(ctx, t, deadline, "Shoot "+native+" deleted", gone(shoots(), native))
}
