package e2e

import (
	"context"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/model"
	"github.com/SovereignCloudStack/scs-kaas/test/e2e/controlplane"
	"github.com/SovereignCloudStack/scs-kaas/test/e2e/gardensim"
)

// Resources the tests touch.
var (
	claimGVR  = schema.GroupVersionResource{Group: "kaas.scs.community", Version: "v1alpha1", Resource: "scsclusters"}
	xrGVR     = schema.GroupVersionResource{Group: "kaas.scs.community", Version: "v1alpha1", Resource: "xscsclusters"}
	objectGVR = schema.GroupVersionResource{Group: "kubernetes.crossplane.io", Version: "v1alpha2", Resource: "objects"}
	envGVR    = schema.GroupVersionResource{Group: "apiextensions.crossplane.io", Version: "v1beta1", Resource: "environmentconfigs"}
	// AdminKubeconfigs of provider-gardener-kubeconfig: one per Shoot, named <xr>-kubeconfig.
	adminKubeconfigGVR = schema.GroupVersionResource{Group: "gardener.kaas.scs.community", Version: "v1alpha1", Resource: "adminkubeconfigs"}
	shootGVR           = gardensim.ShootGVR
)

// Deadlines. Everything here normally happens within seconds; the deadlines are minutes so
// that a slow, shared CI machine never makes a test flaky. Crossplane backs off up to a
// minute after errors, hence the longer ones after faults.
const (
	deadline      = 2 * time.Minute
	faultDeadline = 5 * time.Minute
)

// Clients for the resources the tests touch.
func claims() dynamic.ResourceInterface { return claimsIn(claimNamespace) }
func claimsIn(namespace string) dynamic.ResourceInterface {
	return cp.Dynamic.Resource(claimGVR).Namespace(namespace)
}
func xrs() dynamic.ResourceInterface              { return cp.Dynamic.Resource(xrGVR) }
func objects() dynamic.ResourceInterface          { return cp.Dynamic.Resource(objectGVR) }
func adminKubeconfigs() dynamic.ResourceInterface { return cp.Dynamic.Resource(adminKubeconfigGVR) }
func shoots() dynamic.ResourceInterface {
	return garden.Dynamic.Resource(shootGVR).Namespace(gardenNamespace)
}

// testContext bounds a whole test.
func testContext(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 15*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// newClaim is an SCSCluster claim in claimNamespace.
func newClaim(name string, spec map[string]any) *unstructured.Unstructured {
	return newClaimIn(claimNamespace, name, spec)
}

// newClaimIn is an SCSCluster claim in a namespace.
func newClaimIn(namespace, name string, spec map[string]any) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "kaas.scs.community/v1alpha1",
		"kind":       "SCSCluster",
		"metadata":   map[string]any{"name": name, "namespace": namespace},
		"spec":       spec,
	}}
}

// smallSpec is a minimal spec in the example environment: one autoscaled pool.
func smallSpec(version string, minNodes, maxNodes int64) map[string]any {
	return map[string]any{
		"kubernetes": map[string]any{"version": version},
		"nodePools": []any{map[string]any{
			"name": "default", "machineType": "SCS-4V-8",
			"autoscaling": map[string]any{"min": minNodes, "max": maxNodes},
		}},
	}
}

// apply server-side-applies a claim (create or update).
func apply(ctx context.Context, t *testing.T, claim *unstructured.Unstructured) {
	t.Helper()
	if err := cp.ApplyObjects(ctx, claim); err != nil {
		t.Fatalf("applying claim %s: %v", claim.GetName(), err)
	}
}

// waitFor polls cond until it holds, failing the test after timeout with what was awaited
// and the last error cond returned.
func waitFor(ctx context.Context, t *testing.T, timeout time.Duration, what string, cond func(context.Context) (bool, error)) {
	t.Helper()
	if err := controlplane.WaitFor(ctx, timeout, what, cond); err != nil {
		t.Fatal(err)
	}
}

// getClaim returns a claim.
func getClaim(ctx context.Context, name string) (*unstructured.Unstructured, error) {
	return claims().Get(ctx, name, metav1.GetOptions{})
}

// clusterOf waits until a claim is bound and rendered, and returns its composite resource's
// name and the cluster's name in the backend (status.backend.name), which every native
// object is named after.
func clusterOf(ctx context.Context, t *testing.T, claimName string) (xr, native string) {
	t.Helper()
	return clusterOfIn(ctx, t, claimNamespace, claimName)
}

// clusterOfIn is clusterOf for a claim in another namespace.
func clusterOfIn(ctx context.Context, t *testing.T, namespace, claimName string) (xr, native string) {
	t.Helper()
	return clusterOfWithin(ctx, t, deadline, namespace, claimName)
}

// clusterOfWithin is clusterOfIn with another deadline.
func clusterOfWithin(ctx context.Context, t *testing.T, timeout time.Duration, namespace, claimName string) (xr, native string) {
	t.Helper()
	waitFor(ctx, t, timeout, "claim "+namespace+"/"+claimName+" bound to a composite resource with a name in the backend", func(ctx context.Context) (bool, error) {
		c, err := claimsIn(namespace).Get(ctx, claimName, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		x := c
		if _, v2, _ := unstructured.NestedMap(c.Object, "spec", "crossplane"); v2 || flavour == flavourNamespaced {
			// A namespaced SCSCluster is the composite itself (Crossplane v2 gives
			// composites spec.crossplane; the migration meets both kinds in one run).
			xr = claimName
		} else {
			if xr, _, _ = unstructured.NestedString(c.Object, "spec", "resourceRef", "name"); xr == "" {
				return false, nil
			}
			if x, err = xrs().Get(ctx, xr, metav1.GetOptions{}); err != nil {
				return false, err
			}
		}
		native = str(x, "status", "backend", "name")
		return native != "", fmt.Errorf("claim Rendered is %v", model.ConditionOf(c, kaasv1alpha1.ConditionRendered))
	})
	return xr, native
}

// waitShoot waits until the Shoot of a claim exists in the garden cluster and returns it
// with the composite resource's name and the Shoot's.
func waitShoot(ctx context.Context, t *testing.T, claimName string) (string, string, *unstructured.Unstructured) {
	t.Helper()
	xr, native := clusterOf(ctx, t, claimName)
	var shoot *unstructured.Unstructured
	waitFor(ctx, t, deadline, "Shoot "+gardenNamespace+"/"+native+" in the garden cluster", func(ctx context.Context) (bool, error) {
		var err error
		if shoot, err = shoots().Get(ctx, native, metav1.GetOptions{}); err == nil {
			return true, nil
		}
		// Say why, when the claim knows: the function may have refused the spec.
		if c, cerr := getClaim(ctx, claimName); cerr == nil {
			return false, fmt.Errorf("%w; claim Rendered is %v, Synced is %v", err, model.ConditionOf(c, kaasv1alpha1.ConditionRendered), model.ConditionOf(c, "Synced"))
		}
		return false, err
	})
	return xr, native, shoot
}

// waitShootMatches waits until the claim's Shoot satisfies cond and returns it.
func waitShootMatches(ctx context.Context, t *testing.T, timeout time.Duration, name, what string, cond func(*unstructured.Unstructured) bool) *unstructured.Unstructured {
	t.Helper()
	var shoot *unstructured.Unstructured
	waitFor(ctx, t, timeout, "Shoot "+name+": "+what, func(ctx context.Context) (bool, error) {
		var err error
		if shoot, err = shoots().Get(ctx, name, metav1.GetOptions{}); err != nil {
			return false, err
		}
		return cond(shoot), nil
	})
	return shoot
}

// waitClaim waits until the claim satisfies cond and returns it. cond explains what it saw
// when it is not satisfied, so that a timeout says more than "timed out".
func waitClaim(ctx context.Context, t *testing.T, timeout time.Duration, name, what string, cond func(*unstructured.Unstructured) error) *unstructured.Unstructured {
	t.Helper()
	return waitClaimIn(ctx, t, timeout, claimNamespace, name, what, cond)
}

// waitClaimIn is waitClaim for a claim in another namespace.
func waitClaimIn(ctx context.Context, t *testing.T, timeout time.Duration, namespace, name, what string, cond func(*unstructured.Unstructured) error) *unstructured.Unstructured {
	t.Helper()
	var claim *unstructured.Unstructured
	waitFor(ctx, t, timeout, "claim "+name+": "+what, func(ctx context.Context) (bool, error) {
		var err error
		if claim, err = claimsIn(namespace).Get(ctx, name, metav1.GetOptions{}); err != nil {
			return false, err
		}
		err = cond(claim)
		return err == nil, err
	})
	return claim
}

// hasCondition is a waitClaim condition: condition typ has status and reason (any reason
// when empty).
func hasCondition(typ, status, reason string) func(*unstructured.Unstructured) error {
	return func(obj *unstructured.Unstructured) error {
		c := model.ConditionOf(obj, typ)
		if c.Status != status || (reason != "" && c.Reason != reason) {
			return fmt.Errorf("%s is %v", typ, c)
		}
		return nil
	}
}

// allOf combines waitClaim conditions.
func allOf(conds ...func(*unstructured.Unstructured) error) func(*unstructured.Unstructured) error {
	return func(obj *unstructured.Unstructured) error {
		for _, c := range conds {
			if err := c(obj); err != nil {
				return err
			}
		}
		return nil
	}
}

// fieldIs is a waitClaim condition: the string field at path is want.
func fieldIs(want string, path ...string) func(*unstructured.Unstructured) error {
	return func(obj *unstructured.Unstructured) error {
		if got := str(obj, path...); got != want {
			return fmt.Errorf("%s is %q, want %q", strings.Join(path, "."), got, want)
		}
		return nil
	}
}

// rendered waits until the function has rendered the claim's current spec: Synced and
// Rendered True.
func rendered(ctx context.Context, t *testing.T, name string) *unstructured.Unstructured {
	t.Helper()
	return waitClaim(ctx, t, deadline, name, "Synced and Rendered", allOf(
		hasCondition("Synced", "True", ""), hasCondition(kaasv1alpha1.ConditionRendered, "True", "")))
}

// str reads a string field.
func str(obj *unstructured.Unstructured, path ...string) string {
	v, _, _ := unstructured.NestedFieldNoCopy(obj.Object, path...)
	if s, ok := v.(string); ok {
		return s
	}
	if v == nil {
		return ""
	}
	return fmt.Sprint(v)
}

// workers returns the Shoot's worker pools by name.
func workers(shoot *unstructured.Unstructured) map[string]map[string]any {
	ws, _, _ := unstructured.NestedSlice(shoot.Object, "spec", "provider", "workers")
	out := map[string]map[string]any{}
	for _, w := range ws {
		if m, ok := w.(map[string]any); ok {
			out[fmt.Sprint(m["name"])] = m
		}
	}
	return out
}

// assertUntouched fails unless now is the same object as before (same UID, not being
// deleted) with the same spec and generation: nothing changed it.
func assertUntouched(t *testing.T, before, now *unstructured.Unstructured) {
	t.Helper()
	what := now.GetKind() + " " + now.GetName()
	if now.GetUID() != before.GetUID() {
		t.Errorf("%s was replaced: UID %s, before %s", what, now.GetUID(), before.GetUID())
	}
	if now.GetDeletionTimestamp() != nil {
		t.Errorf("%s is being deleted (deletionTimestamp %v)", what, now.GetDeletionTimestamp())
	}
	if now.GetGeneration() != before.GetGeneration() || !reflect.DeepEqual(now.Object["spec"], before.Object["spec"]) {
		t.Errorf("%s spec changed: generation %d -> %d", what, before.GetGeneration(), now.GetGeneration())
	}
}

// assertShootUntouched re-reads the Shoot and the Object around it and fails unless both
// are still there, unchanged. native is the cluster's name in the backend.
func assertShootUntouched(ctx context.Context, t *testing.T, native string, before *unstructured.Unstructured) {
	t.Helper()
	now, err := shoots().Get(ctx, native, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("Shoot %s: %v", native, err)
	}
	assertUntouched(t, before, now)
	obj, err := objects().Get(ctx, native+"-shoot", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("Object %s-shoot: %v", native, err)
	}
	if obj.GetDeletionTimestamp() != nil {
		t.Errorf("Object %s is being deleted", obj.GetName())
	}
}

// gardenerPatch is the patch version gardener-apiserver gives a Shoot that names only a minor:
// the CloudProfile's supported patch of it (test/e2e/controlplane/landscape).
var gardenerPatch = map[string]string{"1.33": "1.33.6", "1.34": "1.34.2", "1.35": "1.35.0"}

// gone is a waitFor condition: the object does not exist.
func gone(ri dynamic.ResourceInterface, name string) func(context.Context) (bool, error) {
	return func(ctx context.Context) (bool, error) {
		_, err := ri.Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return true, nil
		}
		return false, err
	}
}

// refusals counts the function's "Refusing to render" log lines for a composite resource:
// one per reconcile in which the function refused. The log file survives function
// restarts (it is appended to).
func refusals(t *testing.T, xr string) int {
	t.Helper()
	data, err := os.ReadFile(env.LogFile("function"))
	if err != nil {
		t.Fatalf("reading the function log: %v", err)
	}
	n := 0
	for _, line := range strings.Split(string(data), "\n") {
		if strings.Contains(line, "Refusing to render") && strings.Contains(line, fmt.Sprintf(`"xr": %q`, xr)) {
			n++
		}
	}
	return n
}

// minRefusals is how many reconciles in a row must refuse before a test accepts that the
// native objects survive them: the first refusal alone would not show that later reconciles
// (the ones after Crossplane's backoff, the periodic ones) keep their hands off too.
const minRefusals = 6

// waitRefusals waits, as evidence of several reconciles rather than a sleep, until the
// function has refused to render the composite resource minRefusals more times than the
// count before.
func waitRefusals(ctx context.Context, t *testing.T, xr string, before int) {
	t.Helper()
	waitFor(ctx, t, faultDeadline, fmt.Sprintf("%d reconciles of %s refused by the function", minRefusals, xr), func(context.Context) (bool, error) {
		n := refusals(t, xr) - before
		return n >= minRefusals, fmt.Errorf("%d so far", n)
	})
}

// assertFields fails for each dotted path of obj whose value (as a string) is not the one
// wanted.
func assertFields(t *testing.T, obj *unstructured.Unstructured, want map[string]string) {
	t.Helper()
	for path, w := range want {
		if got := str(obj, strings.Split(path, ".")...); got != w {
			t.Errorf("%s %s: %s = %q, want %q", obj.GetKind(), obj.GetName(), path, got, w)
		}
	}
}

// measure logs a latency in a form docs/e2e.md quotes.
func measure(t *testing.T, what string, since time.Time) {
	t.Helper()
	t.Logf("MEASURE %s: %.2fs", what, time.Since(since).Seconds())
}

// getClaimOrFail reads a claim or fails the test.
func getClaimOrFail(ctx context.Context, t *testing.T, name string) *unstructured.Unstructured {
	t.Helper()
	c, err := getClaim(ctx, name)
	if err != nil {
		t.Fatalf("claim %s: %v", name, err)
	}
	return c
}
