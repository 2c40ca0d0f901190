package model

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	envv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/environment/v1alpha1"
	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
)

// TestCheckOwnership: a native object that carries another cluster's identity is never
// taken over.
func TestCheckOwnership(t *testing.T) {
	mine, theirs := Identity{"team1", "dev"}, Identity{"team2", "dev"}
	object := func(owner Identity) map[string]ObservedResource {
		return map[string]ObservedResource{"fake-cluster": {Object: &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "kubernetes.crossplane.io/v1alpha2", "kind": "Object", "metadata": map[string]any{"name": "dev-abc-cluster"},
			"status": map[string]any{"atProvider": map[string]any{"manifest": map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
				"metadata": map[string]any{"name": "dev-abc", "namespace": "ns", "labels": map[string]any{LabelIdentity: owner.Hash()}}}}},
		}}}}
	}
	if err := checkOwnership("fake", object(mine), mine); err != nil {
		t.Errorf("its own object: %v", err)
	}
	err := checkOwnership("fake", object(theirs), mine)
	if err == nil || ReasonOf(err) != kaasv1alpha1.ReasonReplacementRefused || !strings.Contains(err.Error(), "ConfigMap ns/dev-abc (composed resource fake-cluster) belongs to another cluster") {
		t.Errorf("another cluster's object: %v", err)
	}
}

func TestCheckObjectKeys(t *testing.T) {
	env := &Environment{Name: "regionone", ConfigName: "magnum-regionone", Environment: envv1alpha1.Environment{Magnum: &envv1alpha1.Magnum{ProviderConfigName: "other-cloud"}}}
	object := func(providerConfig, manifestNamespace string) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "kubernetes.crossplane.io/v1alpha2", "kind": "Object",
			"metadata": map[string]any{"name": "demo-shoot"},
			"spec": map[string]any{"providerConfigRef": map[string]any{"name": providerConfig},
				"forProvider": map[string]any{"manifest": map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "demo", "namespace": manifestNamespace}}}}}}
	}
	cases := map[string]struct {
		observed, rendered *unstructured.Unstructured
		want               string
	}{
		"Same":                   {observed: object("cloud", "a"), rendered: object("cloud", "a")},
		"ObservedWithoutAPart":   {observed: object("", ""), rendered: object("cloud", "a")},
		"AnotherProviderConfig":  {observed: object("cloud", "a"), rendered: object("other-cloud", "a"), want: "composed resource r (Object demo-shoot) would change its ProviderConfig from cloud to other-cloud: that would replace it, and with it what it holds, so nothing was changed; restore data.magnum.providerConfigName of environment regionone (EnvironmentConfig magnum-regionone)"},
		"ManagedObjectMovesAway": {observed: object("cloud", "a"), rendered: object("cloud", "b"), want: "composed resource r (Object demo-shoot) would change its managed object's namespace from a to b: that would replace it, and with it what it holds, so nothing was changed; restore what moved it (an environment setting, or the spec)"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			err := checkObjectKeys([]Resource{{Name: "r", Object: tc.rendered}},
				map[string]ObservedResource{"r": {Object: tc.observed}}, env, []Setting{magnumPlacement}, "1.34")
			got := ""
			if err != nil {
				got = err.Error()
				if ReasonOf(err) != kaasv1alpha1.ReasonReplacementRefused {
					t.Errorf("reason %s, want %s", ReasonOf(err), kaasv1alpha1.ReasonReplacementRefused)
				}
			}
			if got != tc.want {
				t.Errorf("got %q\nwant %q", got, tc.want)
			}
		})
	}
}

// TestCheckBackendKept: an environment that now names another backend than the one that
// built the cluster would replace it; a new cluster takes any.
func TestCheckBackendKept(t *testing.T) {
	env := &Environment{Name: "regionone", ConfigName: "regionone", Environment: envv1alpha1.Environment{Backend: kaasv1alpha1.BackendMagnum}}
	cases := map[string]struct {
		pinned kaasv1alpha1.BackendType
		want   string
	}{
		"NewCluster":  {},
		"SameBackend": {pinned: kaasv1alpha1.BackendMagnum},
		"Switched": {pinned: kaasv1alpha1.BackendGardener,
			want: `environment "regionone" (EnvironmentConfig regionone) now names backend "magnum", but this cluster was built by backend "gardener": switching backends would replace the cluster, so nothing was changed; restore data.backend`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			checkRefusal(t, checkBackendKept(env, tc.pinned), kaasv1alpha1.ReasonReplacementRefused, tc.want)
		})
	}
}

// TestCheckObservedBackends: resources of another backend than the environment's, even one
// this program does not run, would be deleted with the cluster they hold.
func TestCheckObservedBackends(t *testing.T) {
	r := NewRegistry(fakeBackend{})
	observed := func(names ...string) map[string]ObservedResource {
		out := map[string]ObservedResource{}
		for _, n := range names {
			out[n] = ObservedResource{Object: &unstructured.Unstructured{Object: map[string]any{"kind": "Object"}}}
		}
		return out
	}
	cases := map[string]struct {
		observed map[string]ObservedResource
		want     string
	}{
		"Nothing":                 {},
		"ItsOwn":                  {observed: observed("fake-cluster", "kubeconfig-secret", "platform-extra")},
		"OfABackendOfTheAPI":      {observed: observed("fake-cluster", "magnum-cluster", "gardener-shoot"), want: `the cluster has resources of another backend than "fake", which its environment names now: gardener-shoot (backend gardener), magnum-cluster (backend magnum); switching backends would delete them and replace the cluster, so nothing was changed`},
		"OfARegisteredBackendToo": {observed: observed("other-x"), want: ""},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			checkRefusal(t, r.checkObservedBackends(fakeBackend{}, tc.observed), kaasv1alpha1.ReasonReplacementRefused, tc.want)
		})
	}
	withOther := NewRegistry(fakeBackend{}, otherBackend{})
	checkRefusal(t, withOther.checkObservedBackends(fakeBackend{}, observed("other-x")), kaasv1alpha1.ReasonReplacementRefused,
		`the cluster has resources of another backend than "fake", which its environment names now: other-x (backend other); switching backends would delete them and replace the cluster, so nothing was changed`)
}

// TestCheckSecretsSanitized: an Object that shows a Secret's data in its status is refused,
// naming the Object and never the data; a sanitized one passes.
func TestCheckSecretsSanitized(t *testing.T) {
	object := func(data any) map[string]ObservedResource {
		secret := map[string]any{"apiVersion": "v1", "kind": "Secret", "metadata": map[string]any{"name": "kc"}}
		if data != nil {
			secret["data"] = data
		}
		return map[string]ObservedResource{"fake-kubeconfig": {Object: &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "kubernetes.crossplane.io/v1alpha2", "kind": "Object", "metadata": map[string]any{"name": "dev-kubeconfig"},
			"spec":   map[string]any{"managementPolicies": []any{"Observe"}},
			"status": map[string]any{"atProvider": map[string]any{"manifest": secret}}}}}}
	}
	cases := map[string]struct {
		observed map[string]ObservedResource
		want     string
	}{
		"NoData":    {observed: object(nil)},
		"Sanitized": {observed: object(map[string]any{"redacted": nil})},
		"Exposed": {observed: object(map[string]any{"value": "c2VjcmV0"}),
			want: "fake-kubeconfig (Object dev-kubeconfig) carries the data of the Secret it observes in its status, readable by anyone who may read Objects: provider-kubernetes runs without --sanitize-secrets. Start it with --sanitize-secrets (a DeploymentRuntimeConfig argument); until then nothing is changed"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			err := checkSecretsSanitized(tc.observed)
			checkRefusal(t, err, kaasv1alpha1.ReasonSecretExposed, tc.want)
			if err != nil && strings.Contains(err.Error(), "c2VjcmV0") {
				t.Error("the refusal shows the Secret's data")
			}
		})
	}
}

// TestCheckNothingDropped: a desired state without a resource of the backend that exists
// is refused, but for the node groups of a pool the spec removed.
func TestCheckNothingDropped(t *testing.T) {
	object := func(kind, name, pool string) *unstructured.Unstructured {
		u := &unstructured.Unstructured{Object: map[string]any{"kind": kind, "metadata": map[string]any{"name": name}}}
		if pool != "" {
			u.SetLabels(map[string]string{LabelNodePool: pool})
		}
		return u
	}
	observed := map[string]ObservedResource{
		"fake-cluster":         {Object: object("Cluster", "dev", "")},
		"fake-group-workers-a": {Object: object("Group", "dev-workers-a", "workers")},
		"platform-extra":       {Object: object("ConfigMap", "extra", "")},
	}
	spec := func(pools ...string) *kaasv1alpha1.ClusterSpec {
		s := &kaasv1alpha1.ClusterSpec{}
		for _, p := range pools {
			s.NodePools = append(s.NodePools, kaasv1alpha1.NodePool{Name: p})
		}
		return s
	}
	desired := func(names ...string) []Resource {
		var out []Resource
		for _, n := range names {
			out = append(out, Resource{Name: n})
		}
		return out
	}
	cases := map[string]struct {
		desired []Resource
		spec    *kaasv1alpha1.ClusterSpec
		want    string
	}{
		"Everything":              {desired: desired("fake-cluster", "fake-group-workers-a"), spec: spec("default", "workers")},
		"ThePoolIsRemoved":        {desired: desired("fake-cluster"), spec: spec("default")},
		"OtherStepsAreNotChecked": {desired: desired("fake-cluster", "fake-group-workers-a"), spec: spec("default", "workers")},
		"TheClusterGoes": {desired: desired("fake-group-workers-a"), spec: spec("default", "workers"),
			want: "composed resources exist that the fake backend would no longer compose, so Crossplane would delete them: fake-cluster (Cluster dev; it is not labelled kaas.scs.community/node-pool as the node group of a pool the spec removed); nothing was changed: restore what removed them (a zone, the environment setting, the observed state)"},
		"ThePoolStays": {desired: desired("fake-cluster"), spec: spec("default", "workers"),
			want: "composed resources exist that the fake backend would no longer compose, so Crossplane would delete them: fake-group-workers-a (Group dev-workers-a; it belongs to node pool workers, which the spec still has); nothing was changed: restore what removed them (a zone, the environment setting, the observed state)"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			checkRefusal(t, checkNothingDropped("fake", tc.desired, observed, tc.spec), kaasv1alpha1.ReasonDeletionRefused, tc.want)
		})
	}
}

// checkRefusal compares a rule's verdict with the refusal a case expects ("" for none).
func checkRefusal(t *testing.T, err error, reason, want string) {
	t.Helper()
	got := ""
	if err != nil {
		got = err.Error()
		if ReasonOf(err) != reason {
			t.Errorf("reason %s, want %s", ReasonOf(err), reason)
		}
	}
	if got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}
