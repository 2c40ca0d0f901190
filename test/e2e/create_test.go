package e2e

import (
	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
	"reflect"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestClaimCreatesShoot applies a claim that sets most portable fields and checks that the
// Shoot provider-kubernetes creates in the garden cluster carries each of them, and that
// the claim points at it.
func TestClaimCreatesShoot(t *testing.T) {
	needEnv(t)
	ctx := testContext(t)
	const name = "create"

	start := time.Now()
	apply(ctx, t, newClaim(name, map[string]any{
		"purpose":    "evaluation",
		"kubernetes": map[string]any{"version": "1.33"},
		"network": map[string]any{
			"podCIDR": "100.96.0.0/11", "serviceCIDR": "100.88.0.0/13", "nodeCIDR": "10.42.0.0/16", "cni": "calico",
		},
		"maintenance": map[string]any{"window": map[string]any{"begin": "030000+0000", "end": "040000+0000"}},
		"nodePools": []any{
			map[string]any{
				"name": "workers", "machineType": "SCS-4V-16",
				"autoscaling": map[string]any{"min": int64(2), "max": int64(5)},
				"zones":       []any{"az2"},
				"labels":      map[string]any{"tier": "app"},
				"taints":      []any{map[string]any{"key": "dedicated", "value": "app", "effect": "NoSchedule"}},
				"rootDiskGiB": int64(80),
			},
			// A fixed size; Gardener needs a node per zone in pools that may run system
			// components, so three over the environment's three zones.
			map[string]any{"name": "fixed", "machineType": "SCS-2V-4", "count": int64(3)},
		},
	}))
	_, native, shoot := waitShoot(ctx, t, name)
	measure(t, "claim apply -> Shoot in the garden cluster", start)

	// The Shoot: named after the claim (its name and a hash of its namespace and name), in
	// the project's namespace, with the claim's fields and the environment's.
	if !strings.HasPrefix(native, name+"-") || shoot.GetName() != native || shoot.GetNamespace() != gardenNamespace {
		t.Errorf("Shoot is %s/%s, want %s/%s-<hash>", shoot.GetNamespace(), shoot.GetName(), gardenNamespace, name)
	}
	for _, f := range []struct {
		path []string
		want string
	}{
		// The function renders the minor; gardener-apiserver picks the CloudProfile's
		// supported patch of it.
		{[]string{"spec", "kubernetes", "version"}, gardenerPatch["1.33"]},
		{[]string{"spec", "purpose"}, "evaluation"},
		{[]string{"spec", "region"}, "RegionOne"},
		{[]string{"spec", "cloudProfile", "name"}, "openstack"},
		{[]string{"spec", "credentialsBindingName"}, "openstack-credentials"},
		{[]string{"spec", "networking", "pods"}, "100.96.0.0/11"},
		{[]string{"spec", "networking", "services"}, "100.88.0.0/13"},
		{[]string{"spec", "networking", "nodes"}, "10.42.0.0/16"},
		{[]string{"spec", "networking", "type"}, "calico"},
		{[]string{"spec", "maintenance", "timeWindow", "begin"}, "030000+0000"},
		{[]string{"spec", "maintenance", "timeWindow", "end"}, "040000+0000"},
		{[]string{"spec", "provider", "infrastructureConfig", "networks", "workers"}, "10.42.0.0/16"},
		{[]string{"metadata", "labels", "kaas.scs.community/cluster"}, native},
		// Not protected (purpose evaluation): Gardener may delete it.
		{[]string{"metadata", "annotations", "confirmation.gardener.cloud/deletion"}, "true"},
	} {
		if got := str(shoot, f.path...); got != f.want {
			t.Errorf("Shoot %v = %q, want %q", f.path, got, f.want)
		}
	}
	ws := workers(shoot)
	if len(ws) != 2 {
		t.Fatalf("Shoot has %d workers, want 2: %v", len(ws), ws)
	}
	for _, w := range []struct {
		pool, field string
		want        any
	}{
		{"workers", "minimum", int64(2)},
		{"workers", "maximum", int64(5)},
		{"workers", "zones", []any{"az2"}},
		{"workers", "labels", map[string]any{"tier": "app"}},
		{"workers", "taints", []any{map[string]any{"key": "dedicated", "value": "app", "effect": "NoSchedule"}}},
		// gardener-apiserver adds the CloudProfile's machine image and the architecture.
		{"workers", "machine", map[string]any{"type": "SCS-4V-16", "architecture": "amd64",
			"image": map[string]any{"name": "gardenlinux", "version": "1877.3.0"}}},
		{"workers", "volume", map[string]any{"size": "80Gi"}},
		{"fixed", "minimum", int64(3)},
		{"fixed", "maximum", int64(3)},
		{"fixed", "machine", map[string]any{"type": "SCS-2V-4", "architecture": "amd64",
			"image": map[string]any{"name": "gardenlinux", "version": "1877.3.0"}}},
		// No zones asked for: the environment's.
		{"fixed", "zones", []any{"az1", "az2", "az3"}},
	} {
		if got := ws[w.pool][w.field]; !reflect.DeepEqual(got, w.want) {
			t.Errorf("worker %s: %s = %#v, want %#v", w.pool, w.field, got, w.want)
		}
	}

	// The Object around it: aimed at the garden, deletable.
	obj, err := objects().Get(ctx, native+"-shoot", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := str(obj, "spec", "providerConfigRef", "name"); got != "garden" {
		t.Errorf("Object providerConfigRef = %q, want garden", got)
	}
	if got := str(obj, "spec", "deletionPolicy"); got != "Delete" {
		t.Errorf("Object deletionPolicy = %q, want Delete", got)
	}

	// No AdminKubeconfig yet: the garden issues admin kubeconfigs only once the Shoot
	// advertises its API server, and nothing reports on this one.
	if _, err := adminKubeconfigs().Get(ctx, native+"-kubeconfig", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("AdminKubeconfig for a Shoot without an advertised API server: %v, want NotFound", err)
	}

	// The claim: rendered, pointing at the Shoot, waiting for Gardener.
	claim := waitClaim(ctx, t, deadline, name, "Rendered, BackendReady=False/Pending, Provisioning", allOf(
		hasCondition(kaasv1alpha1.ConditionRendered, "True", kaasv1alpha1.ReasonRendered),
		hasCondition(kaasv1alpha1.ConditionBackendReady, "False", kaasv1alpha1.ReasonPending),
		hasCondition(kaasv1alpha1.ConditionKubeconfigReady, "False", kaasv1alpha1.ReasonKubeconfigPending),
		fieldIs("Provisioning", "status", "phase"),
	))
	for _, f := range []struct {
		path []string
		want string
	}{
		{[]string{"status", "backend", "type"}, "gardener"},
		{[]string{"status", "backend", "environment"}, exampleEnvironment},
		{[]string{"status", "backend", "nativeRef", "kind"}, "Shoot"},
		{[]string{"status", "backend", "nativeRef", "namespace"}, gardenNamespace},
		{[]string{"status", "backend", "nativeRef", "name"}, native},
	} {
		if got := str(claim, f.path...); got != f.want {
			t.Errorf("claim %v = %q, want %q", f.path, got, f.want)
		}
	}
}
