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
