package cli

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clienttesting "k8s.io/client-go/testing"
	"sigs.k8s.io/yaml"
)

// The EnvironmentUpToDate conditions the function writes for the cluster of
// testdata/environment-edit/clusters/shop.yaml: its environment as it is, edited (another
// load balancer provider and floating IP network), and with the floating IP network alone.
const (
	conditionUpToDate = `{type: EnvironmentUpToDate, status: "True", reason: UpToDate, message: "the cluster uses what environment gardener-regionone offers and defaults"}`
	conditionEdited   = `{type: EnvironmentUpToDate, status: "False", reason: EnvironmentChanged, message: "environment gardener-regionone changed since the cluster was created; the cluster is left as it is: ` +
		`data.gardener.floatingPoolName: the cluster stays on ext-net; the environment names ext-net-2 now, which applies to new clusters (it cannot be adopted: the OpenStack extension does not move a Shoot's floating IPs to another network); ` +
		`data.gardener.loadBalancerProvider: the cluster stays on amphora; the environment names ovn now, which applies to new clusters (adopting it: in place)"}`
	conditionFloatingPool = `{type: EnvironmentUpToDate, status: "False", reason: EnvironmentChanged, message: "environment gardener-regionone changed since the cluster was created; the cluster is left as it is: ` +
		`data.gardener.floatingPoolName: the cluster stays on ext-net; the environment names ext-net-2 now, which applies to new clusters (it cannot be adopted: the OpenStack extension does not move a Shoot's floating IPs to another network)"}`
)

// adoptionHarness serves the example Gardener cluster team1/shop of a flavour, Ready, with its
// composed resources, the example environments with gardener-regionone as given, and the
// EnvironmentUpToDate condition the function wrote.
func adoptionHarness(t *testing.T, f flavour, gardenerEnvironment, condition string) *harness {
	t.Helper()
	read := func(path string) []*unstructured.Unstructured {
		objs, err := readManifests(nil, path)
		if err != nil {
			t.Fatal(err)
		}
		return objs
	}
	xr := read(editTestdata + "/clusters/shop.yaml")[0]
	conditions, _, _ := unstructured.NestedSlice(xr.Object, "status", "conditions")
	var c map[string]any
	must(t, yaml.Unmarshal([]byte(condition), &c))
	conditions[2] = c
	must(t, unstructured.SetNestedSlice(xr.Object, conditions, "status", "conditions"))
	observed := read(repo + "/examples/render/gardener/observed-ready.yaml")
	var refs []any
	refOf := func(o *unstructured.Unstructured) map[string]any {
		return map[string]any{"apiVersion": o.GetAPIVersion(), "kind": o.GetKind(), "name": o.GetName()}
	}
	var objs []*unstructured.Unstructured
	kinds := []*metav1.APIResourceList{
		{GroupVersion: "apiextensions.crossplane.io/v1beta1", APIResources: []metav1.APIResource{{Name: "environmentconfigs", Kind: "EnvironmentConfig"}}},
		{GroupVersion: "v1", APIResources: []metav1.APIResource{{Name: "namespaces", Kind: "Namespace"}, {Name: "secrets", Kind: "Secret", Namespaced: true}}},
	}
	switch f {
	case flavourLegacy:
		for _, o := range observed {
			refs = append(refs, refOf(o))
		}
		must(t, unstructured.SetNestedSlice(xr.Object, refs, "spec", "resourceRefs"))
		// The claim, bound to the composite, with the status Crossplane copies from it.
		claim := xr.DeepCopy()
		claim.SetKind("SCSCluster")
		claim.SetNamespace("team1")
		claim.SetName("shop")
		claim.SetLabels(nil)
		unstructured.RemoveNestedField(claim.Object, "spec", "resourceRefs")
		must(t, unstructured.SetNestedField(claim.Object, map[string]any{"name": xr.GetName()}, "spec", "resourceRef"))
		objs = append(objs, claim, xr)
		kinds = append(kinds,
			&metav1.APIResourceList{GroupVersion: "kubernetes.crossplane.io/v1alpha2", APIResources: []metav1.APIResource{{Name: "objects", Kind: "Object"}}},
			&metav1.APIResourceList{GroupVersion: "gardener.kaas.scs.community/v1alpha1", APIResources: []metav1.APIResource{{Name: "adminkubeconfigs", Kind: "AdminKubeconfig"}}})
	default:
		for _, o := range observed {
			o.SetAPIVersion(strings.Replace(strings.Replace(o.GetAPIVersion(), "kubernetes.crossplane.io/v1alpha2", "kubernetes.m.crossplane.io/v1alpha1", 1),
				"gardener.kaas.scs.community", "gardener.m.kaas.scs.community", 1))
			o.SetNamespace("team1")
			refs = append(refs, refOf(o))
		}
		cluster := xr.DeepCopy()
		cluster.SetKind("SCSCluster")
		cluster.SetNamespace("team1")
		cluster.SetName("shop")
		cluster.SetLabels(nil)
		must(t, unstructured.SetNestedField(cluster.Object, map[string]any{"name": "shop-kubeconfig"}, "spec", "writeConnectionSecretToRef"))
		must(t, unstructured.SetNestedSlice(cluster.Object, refs, "spec", "crossplane", "resourceRefs"))
		objs = append(objs, cluster)
		kinds = append(kinds,
			&metav1.APIResourceList{GroupVersion: "kubernetes.m.crossplane.io/v1alpha1", APIResources: []metav1.APIResource{{Name: "objects", Kind: "Object", Namespaced: true}}},
			&metav1.APIResourceList{GroupVersion: "gardener.m.kaas.scs.community/v1alpha1", APIResources: []metav1.APIResource{{Name: "adminkubeconfigs", Kind: "AdminKubeconfig", Namespaced: true}}})
	}
	objs = append(objs, observed...)
	for _, e := range read(repo + "/examples/environments") {
		if e.GetName() != "gardener-regionone" {
			objs = append(objs, e)
		}
	}
	objs = append(objs, read(gardenerEnvironment)...)
	h := newHarness(t, f, objs...)
	h.disco.Resources = append(h.disco.Resources, kinds...)
	return h
}

// TestUpgradeEnvironment: upgrade --environment previews what adopting the environment's
// values does (each value with its effect, those kept for good, the native objects' diffs),
// then sets kaas.scs.community/adopt-environment to the time on the SCSCluster (the claim in
// the legacy flavour); a team that cannot read what the preview needs gets the condition's
// words; nothing is sent when there is nothing to adopt or only values kept for good.
func TestUpgradeEnvironment(t *testing.T) {
	const (
		adopting = `SCSCluster team1/shop on gardener, adopting environment gardener-regionone:
  in place: data.gardener.loadBalancerProvider amphora -> ovn (every Service of type LoadBalancer gets a new load balancer, and with it a new address)
  kept for good: data.gardener.floatingPoolName ext-net -> ext-net-2 (the OpenStack extension does not move a Shoot's floating IPs to another network)

Shoot shop-6bru6k (gardener-shoot): update
--- Shoot shop-6bru6k (now)
+++ Shoot shop-6bru6k (adopted)
@@ -33,7 +33,7 @@
     controlPlaneConfig:
       apiVersion: openstack.provider.extensions.gardener.cloud/v1alpha1
       kind: ControlPlaneConfig
-      loadBalancerProvider: amphora
+      loadBalancerProvider: ovn
     infrastructureConfig:
       apiVersion: openstack.provider.extensions.gardener.cloud/v1alpha1
       floatingPoolName: ext-net

`
		sent   = "scscluster.kaas.scs.community/shop adopting environment gardener-regionone: kaas.scs.community/adopt-environment=2026-12-01T12:00:00Z\n"
		follow = "Follow it with: kubectl scs wait shop -n team1 --for=ready\n"
		patch  = `{"metadata":{"annotations":{"kaas.scs.community/adopt-environment":"2026-12-01T12:00:00Z"}}}`
	)
	edited := editTestdata + "/gardener-regionone.yaml"
	for _, tc := range []struct {
		name      string
		flavour   flavour
		env       func(t *testing.T) string
		condition string
		// forbidden, when set, is a resource the user may not list.
		forbidden string
		args      []string
		stdout    string
		stderr    string
		code      int
		patch     string
	}{
		{
			name: "legacy: previewed, then the claim annotated", flavour: flavourLegacy, condition: conditionEdited,
			args:   []string{"upgrade", "shop", "--environment"},
			stdout: adopting + sent, stderr: follow, patch: patch,
		},
		{
			name: "namespaced: previewed, then the SCSCluster annotated", flavour: flavourNamespaced, condition: conditionEdited,
			args:   []string{"upgrade", "shop", "--environment"},
			stdout: adopting + sent, stderr: follow, patch: patch,
		},
		{
			name: "a client dry run previews and sends nothing", flavour: flavourLegacy, condition: conditionEdited,
			args:   []string{"upgrade", "shop", "--environment", "--dry-run=client"},
			stdout: adopting + strings.Replace(sent, "\n", " (dry run)\n", 1),
		},
		{
			name: "a team that may not read EnvironmentConfigs: the condition's words, then annotated", flavour: flavourLegacy, condition: conditionEdited,
			forbidden: "environmentconfigs",
			args:      []string{"upgrade", "shop", "--environment"},
			stdout: `SCSCluster team1/shop on gardener, adopting environment gardener-regionone:
  kept for good: data.gardener.floatingPoolName ext-net -> ext-net-2 (the OpenStack extension does not move a Shoot's floating IPs to another network)
  in place: data.gardener.loadBalancerProvider amphora -> ovn
` + sent,
			stderr: `Warning: cannot preview what adopting does in the backend (the cluster as it is cannot be rendered, so no edit of it can be previewed: cannot fetch the resources of requirement environments: listing apiextensions.crossplane.io/v1beta1 EnvironmentConfig: environmentconfigs.apiextensions.crossplane.io is forbidden: User "team1-dev" cannot list resource "environmentconfigs" in API group "apiextensions.crossplane.io" at the cluster scope); what the cluster's EnvironmentUpToDate condition says instead:
` + follow,
			patch: patch,
		},
		{
			name: "only values kept for good: refused, nothing sent", flavour: flavourNamespaced, condition: conditionFloatingPool,
			env: func(t *testing.T) string {
				return editedEnvironment(t, "loadBalancerProvider: ovn", "loadBalancerProvider: amphora")
			},
			args: []string{"upgrade", "shop", "--environment"},
			stdout: `SCSCluster team1/shop on gardener, adopting environment gardener-regionone:
  kept for good: data.gardener.floatingPoolName ext-net -> ext-net-2 (the OpenStack extension does not move a Shoot's floating IPs to another network)
`,
			stderr: "error: refused: SCSCluster team1/shop can adopt nothing: it keeps data.gardener.floatingPoolName for good, which its backend cannot change without replacing the cluster\n",
			code:   ExitRefused,
		},
		{
			name: "the environment as the cluster has it: nothing to adopt, nothing sent", flavour: flavourLegacy, condition: conditionUpToDate,
			env:    func(*testing.T) string { return repo + "/examples/environments/gardener-regionone.yaml" },
			args:   []string{"upgrade", "shop", "--environment"},
			stdout: "scscluster.kaas.scs.community/shop has nothing to adopt: it uses what environment gardener-regionone offers and defaults\n",
		},
		{
			name: "--to and --environment at once", flavour: flavourLegacy, condition: conditionEdited,
			args:   []string{"upgrade", "shop", "--environment", "--to", "1.35"},
			stderr: "error: --to and --environment are two requests: upgrade the version, wait until the cluster runs it, then adopt the environment\n",
			code:   ExitUsage,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := edited
			if tc.env != nil {
				env = tc.env(t)
			}
			h := adoptionHarness(t, tc.flavour, env, tc.condition)
			if tc.forbidden != "" {
				h.dyn.PrependReactor("list", tc.forbidden, func(a clienttesting.Action) (bool, runtime.Object, error) {
					gr := schema.GroupResource{Group: a.GetResource().Group, Resource: a.GetResource().Resource}
					return true, nil, apierrors.NewForbidden(gr, "", fmt.Errorf(`User "team1-dev" cannot list resource %q in API group %q at the cluster scope`, gr.Resource, gr.Group))
				})
			}
			stdout, stderr, code := h.run("", tc.args...)
			if d := cmp.Diff(tc.stdout, stdout); d != "" {
				t.Errorf("stdout (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.stderr, stderr); d != "" {
				t.Errorf("stderr (-want +got):\n%s", d)
			}
			if code != tc.code {
				t.Errorf("exit code %d, want %d", code, tc.code)
			}
			if d := cmp.Diff(tc.patch, sentPatch(t, h)); d != "" {
				t.Errorf("patch sent (-want +got):\n%s", d)
			}
			for _, p := range h.actions("patch") {
				if got := p.GetResource().Resource; got != "scsclusters" {
					t.Errorf("patched %s, want the SCSCluster", got)
				}
			}
		})
	}
}
