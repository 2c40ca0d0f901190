package e2e

import (
	"context"
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/SovereignCloudStack/scs-kaas/model"
)

// TestFunctionKilledAndRestarted: the function crashes (SIGKILL) and the claim changes
// while it is down. Crossplane cannot compose, and must not take that for "nothing
// desired": the Object and the Shoot stay, unchanged. Once the function is back,
// reconciling resumes on its own and the change lands on the same Shoot.
//
// Two outages: a short one, over before Crossplane's call to the function gives up (the
// call waits for the connection), and a long one, in which the reconcile fails (after
// about two minutes) and Crossplane backs off before it tries again.
func TestFunctionKilledAndRestarted(t *testing.T) {
	needEnv(t)
	ctx := testContext(t)
	const name = "restart"

	apply(ctx, t, newClaim(name, smallSpec("1.34", 1, 3)))
	xr, native, shoot := waitShoot(ctx, t, name)
	rendered(ctx, t, name)

	// Whatever happens below, later tests need the function.
	t.Cleanup(func() {
		if _, running := env.PIDs()["function"]; !running {
			if err := env.StartFunction(context.Background()); err != nil {
				t.Errorf("restarting the function: %v", err)
			}
		}
	})

	for _, outage := range []struct {
		name     string
		maxNodes int64
		// whileDown waits for what must have happened before the function comes back.
		whileDown func(ctx context.Context, t *testing.T)
	}{
		{"short", 4, func(context.Context, *testing.T) {}},
		{"long, reconcile failed", 5, func(ctx context.Context, t *testing.T) {
			waitFor(ctx, t, faultDeadline, "composite "+xr+" Synced=False (function unreachable)", func(ctx context.Context) (bool, error) {
				x, err := xrs().Get(ctx, xr, metav1.GetOptions{})
				if err != nil {
					return false, err
				}
				c := model.ConditionOf(x, "Synced")
				return c.Status == "False", fmt.Errorf("Synced is %v", c)
			})
		}},
	} {
		t.Run(outage.name, func(t *testing.T) {
			if err := env.KillFunction(); err != nil {
				t.Fatal(err)
			}
			apply(ctx, t, newClaim(name, smallSpec("1.34", 1, outage.maxNodes)))
			// The change reaches the composite resource without the function.
			waitFor(ctx, t, deadline, "composite "+xr+" has the claim's change", func(ctx context.Context) (bool, error) {
				x, err := xrs().Get(ctx, xr, metav1.GetOptions{})
				if err != nil {
					return false, err
				}
				return poolMax(x) == outage.maxNodes, nil
			})
			outage.whileDown(ctx, t)
			assertShootUntouched(ctx, t, native, shoot)

			start := time.Now()
			if err := env.StartFunction(ctx); err != nil {
				t.Fatal(err)
			}
			updated := waitShootMatches(ctx, t, faultDeadline, native, fmt.Sprintf("pool default max %d after the restart", outage.maxNodes), func(s *unstructured.Unstructured) bool {
				return workers(s)["default"]["maximum"] == outage.maxNodes
			})
			measure(t, "function restarted after a "+outage.name+" outage -> pending change on the Shoot", start)
			if updated.GetUID() != shoot.GetUID() {
				t.Errorf("the Shoot was replaced: UID %s, was %s", updated.GetUID(), shoot.GetUID())
			}
			rendered(ctx, t, name)
			shoot = updated
		})
	}
}

// poolMax is autoscaling.max of the only node pool of a claim or composite resource.
func poolMax(obj *unstructured.Unstructured) int64 {
	pools, _, _ := unstructured.NestedSlice(obj.Object, "spec", "nodePools")
	if len(pools) != 1 {
		return -1
	}
	pool, _ := pools[0].(map[string]any)
	v, _, _ := unstructured.NestedInt64(pool, "autoscaling", "max")
	return v
}
