package model

import (
	stdcmp "cmp"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
)

// fakeBackend renders one ConfigMap and reports what it is told to.
type fakeBackend struct {
	requirements map[string]Selector
	validateErrs field.ErrorList
	renderErr    error
	observed     string // running Kubernetes version
	kind         string // kind of the rendered object
	apiVersion   string // of the rendered object; v1 when empty
	ready        bool   // the cluster is Ready and its kubeconfig delivered
	kubeconfig   string // the delivered kubeconfig; a minimal one when empty
}

func (fakeBackend) Type() kaasv1alpha1.BackendType                   { return "fake" }
func (fakeBackend) ValidateEnvironment(*Environment) field.ErrorList { return nil }
func (b fakeBackend) Requirements(*Request) map[string]Selector      { return b.requirements }
func (fakeBackend) Capabilities() Capabilities                       { return Capabilities{} }
func (fakeBackend) NameLength(*Environment) int                      { return 20 }
func (fakeBackend) Settings() []Setting                              { return nil }

// Lookout looks for the object render composes, by name: it depends on nothing else.
func (b fakeBackend) Lookout(req *Request) []Resource {
	return []Resource{{Name: "fake-cluster", Object: &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": stdcmp.Or(b.apiVersion, "v1"), "kind": stdcmp.Or(b.kind, "ConfigMap"), "metadata": map[string]any{"name": req.NativeName},
	}}}}
}

func (fakeBackend) Import([]*unstructured.Unstructured, *Environment) (*Imported, error) {
	return nil, nil
}

func (b fakeBackend) Translate(req *Request) (*Translation, error) {
	if errs := b.validate(req); len(errs) > 0 {
		return &Translation{Invalid: errs}, nil
	}
	r, err := b.render(req)
	if err != nil {
		return nil, err
	}
	obs, err := b.observe(req)
	if err != nil {
		return nil, err
	}
	return &Translation{Rendering: r, Observation: obs}, nil
}

// Validate relies on what the model's validation guarantees, as real backends do: it
// dereferences the first pool's size, which is only there in a valid spec.
func (b fakeBackend) validate(req *Request) field.ErrorList {
	if p := req.Cluster.Spec.NodePools[0]; p.Count == nil && p.Autoscaling.Max < 0 {
		return field.ErrorList{field.Invalid(field.NewPath("spec"), nil, "unreachable")}
	}
	return b.validateErrs
}

func (b fakeBackend) render(req *Request) (*Rendering, error) {
	if b.renderErr != nil {
		return nil, b.renderErr
	}
	kind, apiVersion := b.kind, b.apiVersion
	if kind == "" {
		kind = "ConfigMap"
	}
	if apiVersion == "" {
		apiVersion = "v1"
	}
	return &Rendering{
		Resources: []Resource{{Name: "fake-cluster", Object: &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": apiVersion, "kind": kind, "metadata": map[string]any{"name": req.NativeName},
		}}}},
		NativeRef: &kaasv1alpha1.ObjectReference{APIVersion: "v1", Kind: kind, Name: req.NativeName},
	}, nil
}

func (b fakeBackend) observe(*Request) (*Observation, error) {
	obs := &Observation{Status: kaasv1alpha1.ClusterStatus{Phase: kaasv1alpha1.PhaseProvisioning}}
	if b.ready {
		obs.Status.Phase, obs.Ready = kaasv1alpha1.PhaseReady, true
		obs.ConnectionDetails = map[string][]byte{ConnectionKeyKubeconfig: []byte(stdcmp.Or(b.kubeconfig, "apiVersion: v1\nkind: Config\n"))}
	}
	if b.observed != "" {
		obs.Status.Kubernetes = &kaasv1alpha1.KubernetesStatus{Version: b.observed}
	}
	return obs, nil
}

type otherBackend struct{ fakeBackend }

func (otherBackend) Type() kaasv1alpha1.BackendType { return "other" }

func fakeEnvironmentConfig() *unstructured.Unstructured {
	return environmentConfig("cfg", map[string]string{"kaas.scs.community/environment": "regionone", "kaas.scs.community/default": "true"},
		map[string]any{
			"backend": "fake", "region": "RegionOne",
			"catalog": map[string]any{"kubernetesVersions": []any{"1.33", "1.34", "1.35"}, "zones": []any{"az1"}},
		})
}

func testCluster() *kaasv1alpha1.XSCSCluster {
	xr := &kaasv1alpha1.XSCSCluster{Spec: kaasv1alpha1.ClusterSpec{
		Kubernetes: kaasv1alpha1.KubernetesSpec{Version: "1.34"},
		NodePools:  []kaasv1alpha1.NodePool{{Name: "a", MachineType: "SCS-4V-8", Count: ptrTo[int32](1)}},
	}}
	xr.Name = "demo"
	return xr
}

func TestReconcile(t *testing.T) {
	environments := map[string][]*unstructured.Unstructured{EnvironmentsRequirement: {fakeEnvironmentConfig()},
		// Looked for before it is managed: not there, a new cluster.
		LookupRequirementPrefix + "fake-cluster": nil}
	pinnedTo := func(backend kaasv1alpha1.BackendType, env string) *kaasv1alpha1.XSCSCluster {
		xr := testCluster()
		xr.Status.Backend = &kaasv1alpha1.BackendStatus{Type: backend, Environment: env}
		return xr
	}
	observed := func(name, kind string) map[string]ObservedResource {
		return map[string]ObservedResource{name: {Object: &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": kind}}}}
	}
	labelled := func(o map[string]ObservedResource, labels map[string]string) map[string]ObservedResource {
		for _, r := range o {
			r.Object.SetLabels(labels)
		}
		return o
	}

	cases := map[string]struct {
		backend      fakeBackend
		in           Input
		wantComplete bool
		wantReqs     []string
		wantErr      []string
		wantReason   string
		// wantName is the cluster's name when it is not a new one's (demo-fklvc3).
		wantName string
		// wantCreated: something of the cluster that writes is composed.
		wantCreated bool
	}{
		"FirstCallAsksForEnvironments": {
			in:       Input{Cluster: testCluster()},
			wantReqs: []string{EnvironmentsRequirement},
		},
		"BackendRequirementsAreFetchedBeforeRendering": {
			backend:  fakeBackend{requirements: map[string]Selector{"releases": {APIVersion: "v1", Kind: "ConfigMap"}}},
			in:       Input{Cluster: testCluster(), Required: environments},
			wantReqs: []string{EnvironmentsRequirement, LookupRequirementPrefix + "fake-cluster", "releases"},
		},
		"Renders": {
			in:           Input{Cluster: testCluster(), Required: environments},
			wantComplete: true,
			wantReqs:     []string{EnvironmentsRequirement, LookupRequirementPrefix + "fake-cluster"},
		},
		"PinnedToAnotherBackend": {
			in:         Input{Cluster: pinnedTo("other", "regionone"), Required: environments},
			wantReason: kaasv1alpha1.ReasonReplacementRefused,
			wantErr:    []string{`environment "regionone" (EnvironmentConfig cfg) now names backend "fake", but this cluster was built by backend "other"`},
		},
		"PinnedToAnEnvironmentThatIsGone": {
			in:         Input{Cluster: pinnedTo("fake", "regiontwo"), Required: environments},
			wantReason: kaasv1alpha1.ReasonEnvironmentUnavailable,
			wantErr:    []string{`environment "regiontwo", where this cluster runs, does not exist any more`, "environments that exist: regionone"},
		},
		"ObservedResourcesOfAnotherBackend": {
			in:         Input{Cluster: testCluster(), Required: environments, Observed: observed("other-cluster", "ConfigMap")},
			wantReason: kaasv1alpha1.ReasonReplacementRefused,
			wantErr:    []string{"the cluster has resources of another backend than \"fake\"", "other-cluster (backend other)"},
		},
		"InvalidSpec": {
			in: Input{Cluster: func() *kaasv1alpha1.XSCSCluster {
				xr := testCluster()
				xr.Spec.Kubernetes.Version = "1.20"
				xr.Spec.NodePools[0].Count = nil
				return xr
			}(), Required: environments},
			wantReason: kaasv1alpha1.ReasonInvalidSpec,
			wantErr:    []string{`XSCSCluster "demo" is invalid (2 problems)`, "spec.kubernetes.version", "spec.nodePools[0]"},
		},
		"BackendValidation": {
			backend:    fakeBackend{validateErrs: field.ErrorList{field.Invalid(field.NewPath("metadata", "name"), "demo", "too long")}},
			in:         Input{Cluster: testCluster(), Required: environments},
			wantReason: kaasv1alpha1.ReasonInvalidSpec,
			wantErr:    []string{"metadata.name: Invalid value: \"demo\": too long"},
		},
		"RenderError": {
			backend:    fakeBackend{renderErr: errors.New("boom")},
			in:         Input{Cluster: testCluster(), Required: environments},
			wantReason: kaasv1alpha1.ReasonRenderFailed,
			wantErr:    []string{"boom"},
		},
		"UpgradeTwoMinorsAboveWhatRuns": {
			backend: fakeBackend{observed: "1.33.4"},
			in: Input{Cluster: func() *kaasv1alpha1.XSCSCluster {
				xr := testCluster()
				xr.Spec.Kubernetes.Version = "1.35"
				return xr
			}(), Required: environments},
			wantReason: kaasv1alpha1.ReasonInvalidSpec,
			wantErr:    []string{"spec.kubernetes.version: Forbidden: the cluster runs 1.33.4; upgrade one minor at a time (next: 1.34), not to 1.35"},
		},
		"DowngradeBelowWhatRuns": {
			backend:    fakeBackend{observed: "1.35.0"},
			in:         Input{Cluster: testCluster(), Required: environments},
			wantReason: kaasv1alpha1.ReasonInvalidSpec,
			wantErr:    []string{"spec.kubernetes.version: Forbidden: the cluster runs 1.35.0; downgrading to 1.34 is not supported"},
		},
		// A pool without a size reaches no backend: its Validate would crash on it.
		"InvalidSpecNeverReachesTheBackend": {
			in: Input{Cluster: func() *kaasv1alpha1.XSCSCluster {
				xr := testCluster()
				xr.Spec.NodePools[0].Count = nil
				return xr
			}(), Required: environments},
			wantReason: kaasv1alpha1.ReasonInvalidSpec,
			wantErr:    []string{"spec.nodePools[0]: Required value: set exactly one of count"},
		},
		"DroppingAnExistingResource": {
			in: Input{Cluster: testCluster(), Required: environments,
				Observed: labelled(observed("fake-nodegroup-a-az2", "ConfigMap"), map[string]string{LabelNodePool: "a"})},
			wantReason: kaasv1alpha1.ReasonDeletionRefused,
			wantErr:    []string{"fake-nodegroup-a-az2 (ConfigMap ; it belongs to node pool a, which the spec still has)", "nothing was changed"},
		},
		"DroppingAnUnlabelledResource": {
			in:         Input{Cluster: testCluster(), Required: environments, Observed: observed("fake-releases", "ConfigMap")},
			wantReason: kaasv1alpha1.ReasonDeletionRefused,
			wantErr:    []string{"fake-releases (ConfigMap ; it is not labelled kaas.scs.community/node-pool as the node group of a pool the spec removed)"},
		},
		// Removing a pool removes its node groups: the one removal that is a normal operation.
		"RemovedPoolsResourcesGo": {
			in: Input{Cluster: testCluster(), Required: environments,
				Observed: labelled(observed("fake-nodegroup-b-az1", "ConfigMap"), map[string]string{LabelNodePool: "b"})},
			wantComplete: true,
			wantReqs:     []string{EnvironmentsRequirement},
			// Objects exist that carry no name: the cluster was built with the composite's.
			wantName:    "demo",
			wantCreated: true,
		},
		// What other pipeline steps compose is theirs, not the backend's.
		"OtherStepsResourcesAreNotChecked": {
			in:           Input{Cluster: testCluster(), Required: environments, Observed: observed("platform-extra", "ConfigMap")},
			wantComplete: true,
			wantReqs:     []string{EnvironmentsRequirement, LookupRequirementPrefix + "fake-cluster"},
		},
		"SecretDataInAnObjectsStatus": {
			in: Input{Cluster: testCluster(), Required: environments, Observed: map[string]ObservedResource{"fake-kubeconfig": {Object: &unstructured.Unstructured{Object: map[string]any{
				"apiVersion": "kubernetes.crossplane.io/v1alpha2", "kind": "Object", "metadata": map[string]any{"name": "demo-kubeconfig"},
				"spec":   map[string]any{"managementPolicies": []any{"Observe"}},
				"status": map[string]any{"atProvider": map[string]any{"manifest": map[string]any{"apiVersion": "v1", "kind": "Secret", "data": map[string]any{"value": "c2VjcmV0"}}}},
			}}}}},
			wantReason: kaasv1alpha1.ReasonSecretExposed,
			wantErr:    []string{"fake-kubeconfig (Object demo-kubeconfig) carries the data of the Secret", "--sanitize-secrets"},
		},
		"RenamingAnExistingObject": {
			in: Input{Cluster: testCluster(), Required: environments, Observed: map[string]ObservedResource{"fake-cluster": {Object: &unstructured.Unstructured{Object: map[string]any{
				"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "old", "labels": map[string]any{LabelCluster: "demo-fklvc3"}},
			}}}}},
			wantReason: kaasv1alpha1.ReasonReplacementRefused,
			wantErr:    []string{"composed resource fake-cluster (ConfigMap old) would change its name from old to demo-fklvc3: that would replace it"},
		},
		"KindChangeUnderAnExistingName": {
			backend:    fakeBackend{kind: "Secret"},
			in:         Input{Cluster: testCluster(), Required: environments, Observed: observed("fake-cluster", "ConfigMap")},
			wantReason: kaasv1alpha1.ReasonReplacementRefused,
			wantErr:    []string{"composed resource fake-cluster (ConfigMap) would change its kind from ConfigMap to Secret: that would replace it"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r := NewRegistry(tc.backend, otherBackend{})
			out, err := r.Reconcile(tc.in)
			if len(tc.wantErr) > 0 {
				if err == nil {
					t.Fatalf("want an error containing %q, got none", tc.wantErr)
				}
				if out != nil {
					t.Errorf("an error must come without a partial output, got %+v", out)
				}
				for _, w := range tc.wantErr {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error %q should contain %q", err, w)
					}
				}
				if strings.Contains(err.Error(), "c2VjcmV0") || strings.Contains(err.Error(), "secret\"") {
					t.Errorf("the error shows secret data: %q", err)
				}
				if got := ReasonOf(err); got != tc.wantReason {
					t.Errorf("reason = %q, want %q", got, tc.wantReason)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			var reqs []string
			for name := range out.Requirements {
				reqs = append(reqs, name)
			}
			if diff := cmp.Diff(tc.wantReqs, reqs, cmpSortStrings); diff != "" {
				t.Errorf("requirements: -want, +got:\n%s", diff)
			}
			if out.Complete != tc.wantComplete {
				t.Fatalf("Complete = %v, want %v", out.Complete, tc.wantComplete)
			}
			if !out.Complete {
				if out.Rendering != nil {
					t.Errorf("an incomplete output must not carry a rendering")
				}
				return
			}
			// A new cluster without a claim: its name is the composite's, with a hash.
			name := "demo-fklvc3"
			if tc.wantName != "" {
				name = tc.wantName
			}
			want := &kaasv1alpha1.BackendStatus{Type: "fake", Environment: "regionone", Region: "RegionOne", Name: name,
				NativeRef: &kaasv1alpha1.ObjectReference{APIVersion: "v1", Kind: "ConfigMap", Name: name},
				// The fake backend composes a plain object: deleting the composite deletes it.
				DeletionPolicy: kaasv1alpha1.DeletionDelete,
				// The region is kept for every backend; the fake one has no settings of its own.
				Pinned:  map[string]string{"data.region": "RegionOne"},
				Created: tc.wantCreated}
			if diff := cmp.Diff(want, out.Status.Backend); diff != "" {
				t.Errorf("status.backend: -want, +got:\n%s", diff)
			}
		})
	}
}

var cmpSortStrings = cmp.Transformer("sort", func(in []string) []string {
	out := append([]string(nil), in...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
})

// TestReconcileKeepsAnUnobservedObject: an Object that manages a native object its provider
// has not reported yet is desired exactly as last applied, whatever the backend renders,
// and the cluster keeps the status it had, with the backend's verdict Unknown.
func TestReconcileKeepsAnUnobservedObject(t *testing.T) {
	applied := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "kubernetes.crossplane.io/v1alpha2", "kind": "Object",
		"metadata": map[string]any{"name": "demo-cluster", "uid": "1234", "resourceVersion": "7", "labels": map[string]any{LabelCluster: "demo"}},
		"spec": map[string]any{"forProvider": map[string]any{"manifest": map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": map[string]any{"name": "demo"}, "data": map[string]any{"chosen": "by the backend"}}}},
		"status": map[string]any{"conditions": []any{map[string]any{"type": "Synced", "status": "False"}}},
	}}
	xr := testCluster()
	xr.Status = kaasv1alpha1.ClusterStatus{Phase: kaasv1alpha1.PhaseReady, Kubernetes: &kaasv1alpha1.KubernetesStatus{Version: "1.34.2"},
		Backend: &kaasv1alpha1.BackendStatus{Type: "fake", Environment: "regionone"}}
	out, err := NewRegistry(fakeBackend{kind: "Object", apiVersion: "kubernetes.crossplane.io/v1alpha2"}).Reconcile(Input{Cluster: xr,
		Required: map[string][]*unstructured.Unstructured{EnvironmentsRequirement: {fakeEnvironmentConfig()}},
		Observed: map[string]ObservedResource{"fake-cluster": {Object: applied}}})
	if err != nil {
		t.Fatal(err)
	}
	want := []Resource{{Name: "fake-cluster", Object: &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "kubernetes.crossplane.io/v1alpha2", "kind": "Object",
		"metadata": map[string]any{"name": "demo-cluster", "labels": map[string]any{LabelCluster: "demo"}},
		"spec":     applied.Object["spec"],
	}}}}
	if diff := cmp.Diff(want, out.Rendering.Resources); diff != "" {
		t.Errorf("resources: -want, +got:\n%s", diff)
	}
	if out.Status.Phase != kaasv1alpha1.PhaseReady || out.Status.Kubernetes.Version != "1.34.2" || out.Observation.Ready || out.Observation.ResourceReady["fake-cluster"] {
		t.Errorf("status = %+v, ready = %v %v; want the last status kept and nothing ready", out.Status, out.Observation.Ready, out.Observation.ResourceReady)
	}
	if c := out.Observation.Conditions[0]; c.Type != kaasv1alpha1.ConditionBackendReady || c.Status != ConditionUnknown || c.Reason != "NotObservedYet" {
		t.Errorf("first condition = %+v, want BackendReady Unknown NotObservedYet", c)
	}
}

// TestDecodeObservedNamesTheSameBadValue: of several bad values in a map, the error names
// the same one on every call, whatever order the map gives, and says where it is.
func TestDecodeObservedNamesTheSameBadValue(t *testing.T) {
	m := map[string]any{"metadata": map[string]any{"labels": map[string]any{"d": true, "b": 2.0, "c": []any{}, "a": 1.0}}}
	first := DecodeObserved(m, &kaasv1alpha1.XSCSCluster{})
	if first == nil || !strings.Contains(first.Error(), "metadata.labels") || !strings.Contains(first.Error(), "number") {
		t.Fatalf("error = %v, want one that names metadata.labels and the number of label a", first)
	}
	for range 20 {
		if err := DecodeObserved(m, &kaasv1alpha1.XSCSCluster{}); fmt.Sprint(err) != first.Error() {
			t.Fatalf("error = %v, then %v", first, err)
		}
	}
	if err := DecodeObserved(map[string]any{"metadata": map[string]any{"name": "a"}}, &kaasv1alpha1.XSCSCluster{}); err != nil {
		t.Errorf("a good object: %v", err)
	}
}
