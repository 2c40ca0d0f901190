package main

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/model"
	"github.com/SovereignCloudStack/scs-kaas/model/all"
	"github.com/SovereignCloudStack/scs-kaas/model/input"
)

// TestPreviewSaysWhatAnEditDoes: for a Ready cluster of every backend in both flavours, an
// edit of each class is previewed from the same translation the function renders with:
// its effect is the one each backend is known to have (written here, not read from the
// declarations), a refused edit carries the function's message naming the field, and an
// accepted one changes the native object at the field that carries it.
func TestPreviewSaysWhatAnEditDoes(t *testing.T) {
	type want struct {
		effect model.Effect
		// native is a path the backend's native object changes at, per backend; a
		// refusal names it in its message instead.
		native string
	}
	edits := []struct {
		name  string
		field model.Field
		edit  func(s *kaasv1alpha1.ClusterSpec)
		want  map[string]want
	}{
		{
			name: "scale", field: model.FieldPoolCount,
			edit: func(s *kaasv1alpha1.ClusterSpec) { n := *s.NodePools[0].Count + 1; s.NodePools[0].Count = &n },
			want: map[string]want{
				"gardener":     {model.EffectInPlace, "spec.provider.workers[system].maximum"},
				"clusterstack": {model.EffectInPlace, "spec.topology.workers.machineDeployments[system-"},
				"magnum":       {model.EffectInPlace, "spec.forProvider.nodeCount"},
			},
		},
		{
			name: "minor upgrade", field: model.FieldVersionMinor,
			edit: func(s *kaasv1alpha1.ClusterSpec) { s.Kubernetes.Version = "1.35" },
			want: map[string]want{
				"gardener":     {model.EffectRollsControlPlane, "spec.kubernetes.version"},
				"clusterstack": {model.EffectRollsControlPlane, "spec.topology.version"},
				"magnum":       {model.EffectRollsControlPlane, "spec.forProvider.clusterTemplateId"},
			},
		},
		{
			name: "machine type", field: model.FieldPoolMachineType,
			edit: func(s *kaasv1alpha1.ClusterSpec) { s.NodePools[0].MachineType = "SCS-8V-32" },
			want: map[string]want{
				"gardener":     {model.EffectRollsNodes, "spec.provider.workers[system].machine.type"},
				"clusterstack": {model.EffectRollsNodes, "spec.topology.workers.machineDeployments[system-"},
				"magnum":       {model.EffectRefused, "spec.nodePools[0].machineType"},
			},
		},
		{
			name: "label", field: model.FieldPoolLabels,
			edit: func(s *kaasv1alpha1.ClusterSpec) {
				s.NodePools[0].Labels = map[string]string{"node-role.kubernetes.io/edge": "", "team": "payments"}
			},
			want: map[string]want{
				"gardener":     {model.EffectInPlace, "spec.provider.workers[system].labels.team"},
				"clusterstack": {model.EffectInPlace, "spec.topology.workers.machineDeployments[system-"},
				"magnum":       {model.EffectNotHonoured, ""},
			},
		},
		{
			name: "zones", field: model.FieldPoolZones,
			edit: func(s *kaasv1alpha1.ClusterSpec) { s.NodePools[0].Zones = []string{"az9"} },
			want: map[string]want{
				"gardener":     {model.EffectRefused, "spec.nodePools[0].zones"},
				"clusterstack": {model.EffectRefused, "spec.nodePools[0].zones"},
				"magnum":       {model.EffectRefused, "spec.nodePools[0].zones"},
			},
		},
	}
	for _, c := range readyClusters(t) {
		backend, _, _ := strings.Cut(strings.TrimSuffix(c.name, "-remote"), "/")
		backend = strings.TrimSuffix(backend, "-remote")
		for _, e := range edits {
			t.Run(c.name+"/"+e.name, func(t *testing.T) {
				in, err := decodeInput(c.req, model.Options{ConnectionSecretNamespace: defaultConnectionSecretNamespace})
				if err != nil {
					t.Fatal(err)
				}
				offerNextMinor(t, in)
				edited := *in.Cluster.Spec.DeepCopy()
				e.edit(&edited)
				p, err := input.Preview(all.Registry(), in, &kaasv1alpha1.XSCSCluster{ObjectMeta: in.Cluster.ObjectMeta, Spec: edited}, noFetch)
				if err != nil {
					t.Fatal(err)
				}
				w := e.want[backend]
				if w.effect == model.EffectRefused {
					if p.Refused == nil {
						t.Fatalf("the edit is not refused: %+v", p.Edits)
					}
					if !strings.Contains(p.Refused.Message, w.native) {
						t.Errorf("the refusal does not name %s: %s", w.native, p.Refused.Message)
					}
					if p.Changes() || len(p.Objects) > 0 {
						t.Errorf("a refused edit previews changes: %+v", p.Objects)
					}
					return
				}
				if p.Refused != nil {
					t.Fatalf("refused: %s", p.Refused.Message)
				}
				i := slices.IndexFunc(p.Edits, func(x model.Edit) bool { return x.Field == e.field })
				if i < 0 {
					t.Fatalf("no edit of %s among %+v", e.field, p.Edits)
				}
				if got := p.Edits[i].Effect; got != w.effect {
					t.Errorf("effect %q, want %q (%s)", got, w.effect, p.Edits[i].Summary())
				}
				if w.native == "" {
					return
				}
				if !changesAt(p.Objects, w.native) {
					t.Errorf("no native object changes at %s; the changes: %s", w.native, describeDiffs(p.Objects))
				}
			})
		}
	}
}

// TestPreviewOfNoEditChangesNothing: the cluster as it is, previewed against itself,
// changes nothing on any backend: the preview compares like with like.
func TestPreviewOfNoEditChangesNothing(t *testing.T) {
	for _, c := range readyClusters(t) {
		in, err := decodeInput(c.req, model.Options{ConnectionSecretNamespace: defaultConnectionSecretNamespace})
		if err != nil {
			t.Fatal(err)
		}
		p, err := input.Preview(all.Registry(), in, in.Cluster, noFetch)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if p.Changes() || p.Refused != nil {
			t.Errorf("%s: an unchanged spec previews %+v, %s", c.name, p.Edits, describeDiffs(p.Objects))
		}
	}
}

// offerNextMinor has the environments offer 1.35 as a platform team does before its
// clusters upgrade: the Cluster Stack release of 1.35 ready, a Magnum template for it.
func offerNextMinor(t *testing.T, in model.Input) {
	t.Helper()
	for _, r := range in.Required["clusterstack-releases"] {
		if !strings.Contains(r.GetName(), "-1-35-") {
			continue
		}
		if _, remote, _ := unstructured.NestedMap(r.Object, "status", "atProvider", "manifest"); remote {
			// A remote management cluster's release, as provider-kubernetes observes it.
			must(t, unstructured.SetNestedField(r.Object, true, "status", "atProvider", "manifest", "status", "ready"))
			continue
		}
		must(t, unstructured.SetNestedField(r.Object, true, "status", "ready"))
	}
	for _, env := range in.Required[model.EnvironmentsRequirement] {
		if b, _, _ := unstructured.NestedString(env.Object, "data", "backend"); b != "magnum" {
			continue
		}
		versions, _, _ := unstructured.NestedStringSlice(env.Object, "data", "catalog", "kubernetesVersions")
		templates, _, _ := unstructured.NestedSlice(env.Object, "data", "magnum", "templates")
		if len(versions) == 0 || len(templates) == 0 {
			t.Fatalf("environment %s has no versions or templates to extend", env.GetName())
		}
		next := deepCopy(templates[len(templates)-1].(map[string]any))
		next["kubernetesVersion"], next["kubeTag"] = "1.35", "v1.35.1"
		next["id"] = "5d1e2f3a-4b5c-4d6e-8f70-8192a3b4c5d6"
		must(t, unstructured.SetNestedStringSlice(env.Object, append(versions, "1.35"), "data", "catalog", "kubernetesVersions"))
		must(t, unstructured.SetNestedSlice(env.Object, append(templates, next), "data", "magnum", "templates"))
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// noFetch answers no requirement: a Ready cluster's request carries every one.
func noFetch(name string, _ model.Selector) ([]*unstructured.Unstructured, error) {
	return nil, fmt.Errorf("requirement %s was not in the request", name)
}

func changesAt(objs []model.ObjectDiff, prefix string) bool {
	for _, o := range objs {
		for _, f := range o.Fields {
			if strings.HasPrefix(f.Path, prefix) {
				return true
			}
		}
	}
	return false
}

func describeDiffs(objs []model.ObjectDiff) string {
	var b strings.Builder
	for _, o := range objs {
		fmt.Fprintf(&b, "\n  %s %s %s:", o.Action, o.Kind, o.Name)
		for _, f := range o.Fields {
			fmt.Fprintf(&b, " %s", f.Path)
		}
	}
	return b.String()
}
