package model

import (
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
)

// adoptingBackend composes a native Cluster where the environment's placement puts it and a
// managed resource of a cloud provider beside it, as real backends do, and reads a Cluster
// back: its region is the only setting, its zones the first pool's.
type adoptingBackend struct {
	fakeBackend
	cluster   string // "local" or a ProviderConfig name
	importErr error
}

func (b adoptingBackend) Translate(req *Request) (*Translation, error) {
	native := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "example.org/v1", "kind": "Cluster", "metadata": map[string]any{"name": req.NativeName, "namespace": "clusters"},
		"spec": map[string]any{"region": req.Environment.Region, "zones": toAnySlice(req.Cluster.Spec.NodePools[0].Zones)},
	}}
	return &Translation{
		Rendering: &Rendering{Resources: []Resource{
			req.Place(b.cluster).Compose(Native{Resource: "fake-cluster", Object: native, Wrapper: req.NativeName + "-cluster"}),
			req.Managed(Managed{Resource: "fake-cloud", APIVersion: "cloud.example.org/v1", Kind: "CloudCluster", Name: req.NativeName, ProviderConfig: "cloud"}),
		}},
		Observation: &Observation{Status: kaasv1alpha1.ClusterStatus{Phase: kaasv1alpha1.PhaseProvisioning}},
	}, nil
}

func (b adoptingBackend) Lookout(req *Request) []Resource {
	native := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "example.org/v1", "kind": "Cluster", "metadata": map[string]any{"name": req.NativeName, "namespace": "clusters"}}}
	return []Resource{
		req.Place(b.cluster).Compose(Native{Resource: "fake-cluster", Object: native, Wrapper: req.NativeName + "-cluster"}),
		req.Managed(Managed{Resource: "fake-cloud", APIVersion: "cloud.example.org/v1", Kind: "CloudCluster", Name: req.NativeName, ProviderConfig: "cloud"}),
	}
}

func (b adoptingBackend) Import(natives []*unstructured.Unstructured, _ *Environment) (*Imported, error) {
	if b.importErr != nil {
		return nil, b.importErr
	}
	for _, u := range natives {
		region, _, _ := unstructured.NestedString(u.Object, "spec", "region")
		switch u.GetKind() {
		case "CloudCluster":
			// A cloud's cluster made outside this API, as a Magnum ClusterV1 is.
			region, _, _ = unstructured.NestedString(u.Object, "spec", "forProvider", "region")
		case "Cluster":
		default:
			continue
		}
		zones, _, _ := unstructured.NestedStringSlice(u.Object, "spec", "zones")
		return &Imported{Name: u.GetName(), Settings: map[string]string{"data.region": region}, Spec: kaasv1alpha1.ClusterSpec{
			Kubernetes: kaasv1alpha1.KubernetesSpec{Version: "1.34"},
			NodePools:  []kaasv1alpha1.NodePool{{Name: "a", MachineType: "SCS-4V-8", Count: ptrTo[int32](1), Zones: zones}},
		}}, nil
	}
	return nil, errors.New("no Cluster")
}

func toAnySlice(in []string) []any {
	out := make([]any, 0, len(in))
	for _, s := range in {
		out = append(out, s)
	}
	return out
}

// adoptionEnvironments offer three zones; a new cluster's one-node pool gets the first.
func adoptionEnvironments() map[string][]*unstructured.Unstructured {
	return map[string][]*unstructured.Unstructured{EnvironmentsRequirement: {environmentConfig("cfg",
		map[string]string{"kaas.scs.community/environment": "regionone", "kaas.scs.community/default": "true"},
		map[string]any{
			"backend": "fake", "region": "RegionOne",
			"catalog": map[string]any{"kubernetesVersions": []any{"1.34"}, "zones": []any{"az1", "az2", "az3"}},
		})}}
}

// remoteCluster is the Cluster as provider-kubernetes reports it through an observe-only
// Object: found, with the labels given, or not there.
func remoteCluster(labels map[string]any, zones ...any) *unstructured.Unstructured {
	o := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "kubernetes.crossplane.io/v1alpha2", "kind": "Object",
		"metadata": map[string]any{"name": "demo-fklvc3-cluster", "labels": map[string]any{LabelCluster: "demo-fklvc3", LabelIdentity: Identity{Name: "demo"}.Hash()}},
		"spec":     map[string]any{"managementPolicies": []any{"Observe"}},
	}}
	if labels == nil {
		o.Object["status"] = map[string]any{"conditions": []any{map[string]any{"type": "Synced", "status": "False", "reason": "ReconcileError",
			"message": "observe failed: external resource does not exist"}}}
		return o
	}
	o.Object["status"] = map[string]any{"atProvider": map[string]any{"manifest": map[string]any{
		"apiVersion": "example.org/v1", "kind": "Cluster",
		"metadata": map[string]any{"name": "demo-fklvc3", "namespace": "clusters", "labels": labels, "uid": "9f1c"},
		"spec":     map[string]any{"region": "RegionOne", "zones": zones},
	}}}
	return o
}

// ours are the labels this test's cluster (composite demo) puts on its natives.
func ours() map[string]any {
	return map[string]any{LabelCluster: "demo-fklvc3", LabelIdentity: Identity{Name: "demo"}.Hash()}
}

// policiesOf is each desired resource's management policies ("*": the default, all).
func policiesOf(out *Output) map[string]string {
	got := map[string]string{}
	for _, r := range out.Rendering.Resources {
		p, found, _ := unstructured.NestedStringSlice(r.Object.Object, "spec", "managementPolicies")
		if !found {
			p = []string{"*"}
		}
		got[r.Name] = strings.Join(p, ",")
	}
	return got
}

func backendReady(out *Output) Condition {
	for _, c := range out.Conditions {
		if c.Type == kaasv1alpha1.ConditionBackendReady {
			return c
		}
	}
	return Condition{}
}

// TestObserveBeforeManaging walks a cluster whose composite lost its memory (its control
// plane was restored from Git) through the lookout: first observe-only, then its memory read
// back from what runs, then managed as what runs, not as the environment would make it now.
func TestObserveBeforeManaging(t *testing.T) {
	r := NewRegistry(adoptingBackend{cluster: "garden"})

	// First call: nothing is composed; the Cluster is looked for, observe-only, and the
	// cloud resource, which its provider could not find without a name, waits.
	out, err := r.Reconcile(Input{Cluster: testCluster(), Required: adoptionEnvironments()})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]string{"fake-cluster": "Observe"}, policiesOf(out)); diff != "" {
		t.Errorf("looking: management policies -want, +got:\n%s", diff)
	}
	wantLooking := Condition{Type: kaasv1alpha1.ConditionBackendReady, Status: ConditionFalse, Reason: kaasv1alpha1.ReasonAdopting,
		Message: "observing before managing: whether Cluster clusters/demo-fklvc3 (composed resource fake-cluster) exists is not reported yet; nothing is written to the backend until it is"}
	if diff := cmp.Diff(wantLooking, backendReady(out)); diff != "" {
		t.Errorf("looking: BackendReady -want, +got:\n%s", diff)
	}
	if out.Status.Backend.Created {
		t.Error("looking: status.backend.created is true, but nothing was created")
	}

	// Second call: the Cluster exists, in az2 (the environment would default az1 now).
	// Its memory is read back; still nothing is written.
	observed := map[string]ObservedResource{"fake-cluster": {Object: remoteCluster(ours(), "az2")}}
	out, err = r.Reconcile(Input{Cluster: testCluster(), Required: adoptionEnvironments(), Observed: observed})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]string{"fake-cluster": "Observe"}, policiesOf(out)); diff != "" {
		t.Errorf("read back: management policies -want, +got:\n%s", diff)
	}
	wantRead := Condition{Type: kaasv1alpha1.ConditionBackendReady, Status: ConditionFalse, Reason: kaasv1alpha1.ReasonAdopting,
		Message: "Cluster clusters/demo-fklvc3 exists: its settings and defaults were read back into status.backend.pinned and status.defaulted, and it is managed from the next reconcile on, rendered from them"}
	if diff := cmp.Diff(wantRead, backendReady(out)); diff != "" {
		t.Errorf("read back: BackendReady -want, +got:\n%s", diff)
	}
	if diff := cmp.Diff([]Event{{Type: EventNormal, Reason: kaasv1alpha1.ReasonAdopting, Message: wantRead.Message}}, out.Events); diff != "" {
		t.Errorf("read back: events -want, +got:\n%s", diff)
	}
	if !out.Status.Backend.Created || out.Status.Backend.Pinned["data.region"] != "RegionOne" {
		t.Errorf("read back: status.backend = %+v, want created with region RegionOne pinned", out.Status.Backend)
	}
	wantDefaulted := []kaasv1alpha1.DefaultedNodePool{{Name: "a", Zones: []string{"az2"}}}
	if diff := cmp.Diff(wantDefaulted, out.Status.Defaulted.NodePools); diff != "" {
		t.Errorf("read back: status.defaulted.nodePools -want, +got:\n%s", diff)
	}

	// Third call, with the status written: managed, rendered from the memory (az2).
	xr := testCluster()
	xr.Status = out.Status
	out, err = r.Reconcile(Input{Cluster: xr, Required: adoptionEnvironments(), Observed: observed})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]string{"fake-cluster": "*", "fake-cloud": "*"}, policiesOf(out)); diff != "" {
		t.Errorf("managed: management policies -want, +got:\n%s", diff)
	}
	zones, _, _ := unstructured.NestedStringSlice(out.Rendering.Resources[0].Object.Object, "spec", "forProvider", "manifest", "spec", "zones")
	if diff := cmp.Diff([]string{"az2"}, zones); diff != "" {
		t.Errorf("managed: the Cluster's zones -want, +got:\n%s", diff)
	}
}

// TestObserveBeforeManagingKeepsWhatWasDelivered: a cluster whose native objects are gone
// from the observed state (lost, or not reported yet) is looked for, and meanwhile what it
// delivered stays as last applied: its add-ons' Flux objects and its Argo CD registration.
// Crossplane deletes what the function does not return.
func TestObserveBeforeManagingKeepsWhatWasDelivered(t *testing.T) {
	source := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "source.toolkit.fluxcd.io/v1", "kind": "OCIRepository",
		"metadata": map[string]any{"name": "demo-dfqog7-base", "namespace": "team-a", "uid": "u2"},
		"spec":     map[string]any{"url": "oci://registry.example/base"}, "status": map[string]any{"artifact": map[string]any{"revision": "v1"}}}}
	registration := argoCDSecret("demo-dfqog7", "argocd", "", "https://demo.example:6443", `{"bearerToken":"T"}`)
	observed := map[string]ObservedResource{
		"addon-kustomization-base": kustomization("base", "Orphan", "True", "ReconciliationSucceeded"),
		"addon-source-base":        {Object: source},
		ResourceArgoCDCluster:      {Object: registration},
	}
	out, err := NewRegistry(adoptingBackend{cluster: "garden"}).Reconcile(Input{Cluster: testCluster(), Required: adoptionEnvironments(), Observed: observed})
	if err != nil {
		t.Fatal(err)
	}
	if c := backendReady(out); c.Reason != kaasv1alpha1.ReasonAdopting {
		t.Fatalf("BackendReady %+v, want the cluster looked for (%s)", c, kaasv1alpha1.ReasonAdopting)
	}
	got := map[string]*unstructured.Unstructured{}
	for _, r := range out.Rendering.Resources {
		got[r.Name] = r.Object
	}
	want := map[string]*unstructured.Unstructured{
		"addon-kustomization-base": {Object: map[string]any{"apiVersion": FluxKustomizeAPIVersion, "kind": "Kustomization",
			"metadata": map[string]any{"name": "demo-dfqog7-base", "namespace": "team-a"},
			"spec":     map[string]any{"deletionPolicy": "Orphan", "prune": true}}},
		"addon-source-base": {Object: map[string]any{"apiVersion": "source.toolkit.fluxcd.io/v1", "kind": "OCIRepository",
			"metadata": map[string]any{"name": "demo-dfqog7-base", "namespace": "team-a"},
			"spec":     map[string]any{"url": "oci://registry.example/base"}}},
		ResourceArgoCDCluster: LastApplied(registration),
	}
	for name, w := range want {
		if diff := cmp.Diff(w, got[name]); diff != "" {
			t.Errorf("%s while the cluster is looked for -want, +got:\n%s", name, diff)
		}
	}
	if _, looked := got["fake-cluster"]; !looked {
		t.Errorf("desired %v: the Cluster is not looked for", slices.Sorted(maps.Keys(got)))
	}
}

// TestObserveBeforeManagingANewCluster: a cluster found nowhere is created at once once
// the lookout says so; locally that takes no extra call (a required resource by name).
func TestObserveBeforeManagingANewCluster(t *testing.T) {
	t.Run("Remote", func(t *testing.T) {
		out, err := NewRegistry(adoptingBackend{cluster: "garden"}).Reconcile(Input{Cluster: testCluster(), Required: adoptionEnvironments(),
			Observed: map[string]ObservedResource{"fake-cluster": {Object: remoteCluster(nil)}}})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(map[string]string{"fake-cluster": "*", "fake-cloud": "*"}, policiesOf(out)); diff != "" {
			t.Errorf("management policies -want, +got:\n%s", diff)
		}
		if c := backendReady(out); c.Reason == kaasv1alpha1.ReasonAdopting {
			t.Errorf("BackendReady %+v: nothing to adopt", c)
		}
	})
	t.Run("Local", func(t *testing.T) {
		r := NewRegistry(adoptingBackend{cluster: "local"})
		out, err := r.Reconcile(Input{Cluster: testCluster(), Required: adoptionEnvironments()})
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]Selector{LookupRequirementPrefix + "fake-cluster": {APIVersion: "example.org/v1", Kind: "Cluster", Namespace: "clusters", MatchName: "demo-fklvc3"}}
		if out.Complete || out.Rendering != nil || cmp.Diff(want[LookupRequirementPrefix+"fake-cluster"], out.Requirements[LookupRequirementPrefix+"fake-cluster"]) != "" {
			t.Fatalf("first call: complete %v, requirements %+v; want the Cluster looked for by name before anything is decided", out.Complete, out.Requirements)
		}
		required := adoptionEnvironments()
		required[LookupRequirementPrefix+"fake-cluster"] = nil
		out, err = r.Reconcile(Input{Cluster: testCluster(), Required: required})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(map[string]string{"fake-cluster": "*", "fake-cloud": "*"}, policiesOf(out)); diff != "" {
			t.Errorf("management policies -want, +got:\n%s", diff)
		}
	})
}

// TestObserveBeforeManagingRefuses: what is found must be this cluster's and manageable;
// otherwise nothing is written and the message says why.
func TestObserveBeforeManagingRefuses(t *testing.T) {
	local := func(labels map[string]string, owner string) map[string][]*unstructured.Unstructured {
		required := adoptionEnvironments()
		u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "example.org/v1", "kind": "Cluster",
			"metadata": map[string]any{"name": "demo-fklvc3", "namespace": "clusters"}}}
		u.SetLabels(labels)
		if owner != "" {
			u.Object["metadata"].(map[string]any)["ownerReferences"] = []any{map[string]any{"apiVersion": "infra.example.org/v1", "kind": "Fleet", "name": owner, "uid": "1", "controller": true}}
		}
		required[LookupRequirementPrefix+"fake-cluster"] = []*unstructured.Unstructured{u}
		return required
	}
	oursLocal := map[string]string{LabelCluster: "demo-fklvc3", LabelIdentity: Identity{Name: "demo"}.Hash()}
	cases := map[string]struct {
		backend    adoptingBackend
		in         Input
		wantReason string
		wantErr    string
	}{
		"AnotherClustersObject": {
			backend: adoptingBackend{cluster: "garden"},
			in: Input{Cluster: testCluster(), Required: adoptionEnvironments(), Observed: map[string]ObservedResource{
				"fake-cluster": {Object: remoteCluster(map[string]any{LabelIdentity: "0123"}, "az1")}}},
			// The guard of what is observed refuses it first, as any collision.
			wantReason: kaasv1alpha1.ReasonReplacementRefused,
			wantErr:    "Cluster clusters/demo-fklvc3 (composed resource fake-cluster) belongs to another cluster (label kaas.scs.community/identity=0123, this cluster is " + Identity{Name: "demo"}.Hash() + ")",
		},
		"MadeOutsideTheAPI": {
			backend:    adoptingBackend{cluster: "local"},
			in:         Input{Cluster: testCluster(), Required: local(nil, "")},
			wantReason: kaasv1alpha1.ReasonTakeoverRefused,
			wantErr:    "Cluster clusters/demo-fklvc3 exists but was not made for this cluster (it has no label kaas.scs.community/identity): to adopt it, whoever may write it labels it kaas.scs.community/identity=" + Identity{Name: "demo"}.Hash(),
		},
		"ControlledByAnotherController": {
			backend:    adoptingBackend{cluster: "local"},
			in:         Input{Cluster: testCluster(), Required: local(oursLocal, "fleet-1")},
			wantReason: kaasv1alpha1.ReasonTakeoverRefused,
			wantErr:    "Cluster clusters/demo-fklvc3 exists and is controlled by Fleet fleet-1: this cluster must not take it over; nothing was changed",
		},
		"NotManageable": {
			backend:    adoptingBackend{cluster: "local", importErr: errors.New("spec.provider.type: it is vsphere, this API manages openstack")},
			in:         Input{Cluster: testCluster(), Required: local(oursLocal, "")},
			wantReason: kaasv1alpha1.ReasonImportRefused,
			wantErr:    "Cluster clusters/demo-fklvc3 exists, but this API cannot manage it: spec.provider.type: it is vsphere, this API manages openstack; nothing was changed",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := NewRegistry(tc.backend).Reconcile(tc.in)
			var me *Error
			if !errors.As(err, &me) || me.Reason != tc.wantReason || !strings.Contains(me.Message, tc.wantErr) {
				t.Fatalf("Reconcile: want %s error containing %q, got %v", tc.wantReason, tc.wantErr, err)
			}
		})
	}
}

// TestRestoredMemoryDecides: a composite restored with its status (a backup) while nothing
// of it is composed renders from what it recorded, not from the environment as it is now,
// and gives a managed resource the external name its provider knows it by, observe-only
// until it is found.
func TestRestoredMemoryDecides(t *testing.T) {
	xr := testCluster()
	xr.Status.Backend = &kaasv1alpha1.BackendStatus{Type: "fake", Environment: "regionone", Name: "demo-fklvc3", Created: true,
		Pinned: map[string]string{"data.region": "RegionOne"}, ExternalNames: map[string]string{"fake-cloud": "5d2f8c1a"}}
	xr.Status.Defaulted = &kaasv1alpha1.DefaultedValues{NodePools: []kaasv1alpha1.DefaultedNodePool{{Name: "a", Zones: []string{"az3"}}}}
	r := NewRegistry(adoptingBackend{cluster: "garden"})

	out, err := r.Reconcile(Input{Cluster: xr, Required: adoptionEnvironments()})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]string{"fake-cluster": "Observe", "fake-cloud": "Observe"}, policiesOf(out)); diff != "" {
		t.Errorf("looking: management policies -want, +got:\n%s", diff)
	}
	if got := out.Rendering.Resources[1].Object.GetAnnotations()[ExternalNameAnnotation]; got != "5d2f8c1a" {
		t.Errorf("looking: the cloud resource's external name is %q, want 5d2f8c1a", got)
	}
	if diff := cmp.Diff(map[string]string{"fake-cloud": "5d2f8c1a"}, out.Status.Backend.ExternalNames); diff != "" {
		t.Errorf("looking: status.backend.externalNames -want, +got:\n%s", diff)
	}

	// Found, both: managed at once, as recorded.
	cloud := out.Rendering.Resources[1].Object.DeepCopy()
	cloud.Object["status"] = map[string]any{"conditions": []any{map[string]any{"type": "Synced", "status": "True", "reason": "ReconcileSuccess"}}}
	observed := map[string]ObservedResource{"fake-cluster": {Object: remoteCluster(ours(), "az3")}, "fake-cloud": {Object: cloud}}
	out, err = r.Reconcile(Input{Cluster: xr, Required: adoptionEnvironments(), Observed: observed})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]string{"fake-cluster": "*", "fake-cloud": "*"}, policiesOf(out)); diff != "" {
		t.Errorf("managed: management policies -want, +got:\n%s", diff)
	}
	zones, _, _ := unstructured.NestedStringSlice(out.Rendering.Resources[0].Object.Object, "spec", "forProvider", "manifest", "spec", "zones")
	if diff := cmp.Diff([]string{"az3"}, zones); diff != "" {
		t.Errorf("managed: the Cluster's zones -want, +got:\n%s", diff)
	}
	if got := out.Rendering.Resources[1].Object.GetAnnotations()[ExternalNameAnnotation]; got != "5d2f8c1a" {
		t.Errorf("managed: the cloud resource's external name is %q, want 5d2f8c1a", got)
	}
}

// TestNamedByTheTeam: a cluster whose team named it (kaas.scs.community/native-name, what
// kubectl scs import prints) reads every object of that name before it composes anything,
// because Crossplane's server-side apply would take over an object nobody controls: a name
// of the team's choosing must not reach what the platform keeps. What it finds must be
// handed over; nothing found is refused, not created.
func TestNamedByTheTeam(t *testing.T) {
	const name = "legacy-demo"
	named := func() *kaasv1alpha1.XSCSCluster {
		xr := testCluster()
		xr.SetAnnotations(map[string]string{kaasv1alpha1.AnnotationNativeName: name})
		return xr
	}
	oursNamed := map[string]any{LabelCluster: name, LabelIdentity: Identity{Name: "demo"}.Hash()}
	// notThere is the lookout's own observe-only Object, reporting that the Cluster it
	// observes does not exist.
	notThere := func() map[string]ObservedResource {
		o := remoteCluster(nil)
		o.SetName(name + "-cluster")
		o.SetLabels(map[string]string{LabelCluster: name, LabelIdentity: Identity{Name: "demo"}.Hash()})
		return map[string]ObservedResource{"fake-cluster": {Object: o}}
	}
	required := func(objects map[string]*unstructured.Unstructured) map[string][]*unstructured.Unstructured {
		r := adoptionEnvironments()
		for _, res := range []string{"fake-cluster", "fake-cloud"} {
			r[LookupRequirementPrefix+res] = nil
			if u := objects[res]; u != nil {
				r[LookupRequirementPrefix+res] = []*unstructured.Unstructured{u}
			}
		}
		return r
	}
	cloudCluster := func(labels map[string]any) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "cloud.example.org/v1", "kind": "CloudCluster",
			"metadata": map[string]any{"name": name, "labels": labels, "annotations": map[string]any{ExternalNameAnnotation: "7c3e"}},
			"spec":     map[string]any{"forProvider": map[string]any{"region": "RegionOne"}, "providerConfigRef": map[string]any{"name": "cloud"}}}}
	}
	r := NewRegistry(adoptingBackend{cluster: "garden"})

	t.Run("ReadsTheNamesFirst", func(t *testing.T) {
		out, err := r.Reconcile(Input{Cluster: named(), Required: adoptionEnvironments()})
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]Selector{
			LookupRequirementPrefix + "fake-cluster": {APIVersion: "kubernetes.crossplane.io/v1alpha2", Kind: "Object", MatchName: name + "-cluster"},
			LookupRequirementPrefix + "fake-cloud":   {APIVersion: "cloud.example.org/v1", Kind: "CloudCluster", MatchName: name},
		}
		for k, sel := range want {
			if diff := cmp.Diff(sel, out.Requirements[k]); diff != "" || out.Complete {
				t.Errorf("complete %v; requirement %s -want, +got:\n%s", out.Complete, k, diff)
			}
		}
		if out.Rendering != nil && len(out.Rendering.Resources) > 0 {
			t.Errorf("composed %v before the names were read", policiesOf(out))
		}
	})
	t.Run("NothingOfThatName", func(t *testing.T) {
		_, err := r.Reconcile(Input{Cluster: named(), Required: required(nil), Observed: notThere()})
		wantErr(t, err, kaasv1alpha1.ReasonImportRefused, `annotation kaas.scs.community/native-name names the cluster "legacy-demo", but nothing of that name was found (looked for Cluster clusters/legacy-demo and CloudCluster legacy-demo): the annotation adopts a cluster that runs; remove it to create a new cluster`)
	})
	t.Run("AnObjectNobodyControls", func(t *testing.T) {
		object := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "kubernetes.crossplane.io/v1alpha2", "kind": "Object",
			"metadata": map[string]any{"name": name + "-cluster"}}}
		_, err := r.Reconcile(Input{Cluster: named(), Required: required(map[string]*unstructured.Unstructured{"fake-cluster": object})})
		wantErr(t, err, kaasv1alpha1.ReasonTakeoverRefused, "Object legacy-demo-cluster exists but was not made for this cluster (it has no label kaas.scs.community/identity)")
	})
	t.Run("AManagedResourceNotHandedOver", func(t *testing.T) {
		_, err := r.Reconcile(Input{Cluster: named(), Required: required(map[string]*unstructured.Unstructured{"fake-cloud": cloudCluster(nil)}), Observed: notThere()})
		wantErr(t, err, kaasv1alpha1.ReasonTakeoverRefused, "CloudCluster legacy-demo exists but was not made for this cluster (it has no label kaas.scs.community/identity)")
	})
	t.Run("AManagedResourceHandedOver", func(t *testing.T) {
		out, err := r.Reconcile(Input{Cluster: named(), Required: required(map[string]*unstructured.Unstructured{"fake-cloud": cloudCluster(oursNamed)}), Observed: notThere()})
		if err != nil {
			t.Fatal(err)
		}
		if c := backendReady(out); c.Reason != kaasv1alpha1.ReasonAdopting || !strings.HasPrefix(c.Message, "CloudCluster legacy-demo exists: its settings and defaults were read back") {
			t.Errorf("BackendReady %+v, want the CloudCluster read back", c)
		}
		if b := out.Status.Backend; b.Name != name || !b.Created || b.Pinned["data.region"] != "RegionOne" {
			t.Errorf("status.backend = %+v, want %s created with region RegionOne pinned", b, name)
		}
		if diff := cmp.Diff(map[string]string{"fake-cluster": "Observe"}, policiesOf(out)); diff != "" {
			t.Errorf("management policies -want, +got:\n%s", diff)
		}
	})
}

// wantErr fails unless err is a model Error of reason whose message contains want.
func wantErr(t *testing.T, err error, reason, want string) {
	t.Helper()
	var me *Error
	if !errors.As(err, &me) || me.Reason != reason || !strings.Contains(me.Message, want) {
		t.Fatalf("Reconcile: want %s error containing %q, got %v", reason, want, err)
	}
}
