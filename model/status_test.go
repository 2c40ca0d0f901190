package model

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
)

// placingBackend composes what real backends compose, through the placement layer: the
// native object where the environment's setting puts it, a managed resource that holds the
// cluster, and one whose loss costs nothing.
type placingBackend struct {
	fakeBackend
	cluster string // "local" or a ProviderConfig name
}

func (b placingBackend) Lookout(req *Request) []Resource {
	native := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "example.org/v1", "kind": "Cluster", "metadata": map[string]any{"name": req.NativeName, "namespace": "clusters"},
	}}
	return []Resource{req.Place(b.cluster).Compose(Native{Resource: "fake-native", Object: native, Wrapper: req.NativeName + "-native"})}
}

func (b placingBackend) Translate(req *Request) (*Translation, error) {
	native := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "example.org/v1", "kind": "Cluster", "metadata": map[string]any{"name": req.NativeName, "namespace": "clusters"},
	}}
	managed := func(resource string, nothingToKeep bool) Resource {
		m := Managed{Resource: resource, APIVersion: "example.org/v1", Kind: "Thing", Name: req.NativeName + "-" + resource,
			ProviderConfig: "cloud", NothingToKeep: nothingToKeep}
		if req.Namespaced() {
			m.Namespace = req.Cluster.Namespace
		}
		return req.Managed(m)
	}
	return &Translation{
		Rendering: &Rendering{Resources: []Resource{
			req.Place(b.cluster).Compose(Native{Resource: "fake-native", Object: native, Wrapper: req.NativeName + "-native"}),
			managed("fake-holds-cluster", false),
			managed("fake-expires-anyway", true),
		}},
		Observation: &Observation{Status: kaasv1alpha1.ClusterStatus{Phase: kaasv1alpha1.PhaseProvisioning}},
	}, nil
}

// TestDeletionPolicy: what deleting the composite does to the cluster follows deletion
// protection and the kaas.scs.community/deletion-policy annotation, is composed on every
// resource that holds the cluster in the way of each flavour, and is reported only as far
// as it is true of what is composed.
func TestDeletionPolicy(t *testing.T) {
	type want struct {
		status kaasv1alpha1.DeletionPolicy
		// per resource: spec.deletionPolicy (legacy) or spec.managementPolicies (namespaced)
		resources map[string]string
	}
	cases := map[string]struct {
		annotation string
		protected  bool
		namespaced bool
		cluster    string
		want       want
		wantErr    string
	}{
		"UnprotectedLegacyDeletes": {
			cluster: "garden",
			want: want{status: kaasv1alpha1.DeletionDelete, resources: map[string]string{
				"fake-native": "Delete", "fake-holds-cluster": "Delete", "fake-expires-anyway": "Delete"}},
		},
		"ProtectedLegacyOrphans": {
			protected: true, cluster: "garden",
			want: want{status: kaasv1alpha1.DeletionOrphan, resources: map[string]string{
				"fake-native": "Orphan", "fake-holds-cluster": "Orphan", "fake-expires-anyway": "Delete"}},
		},
		"AnnotationOrphansAnUnprotectedCluster": {
			annotation: "Orphan", cluster: "garden",
			want: want{status: kaasv1alpha1.DeletionOrphan, resources: map[string]string{
				"fake-native": "Orphan", "fake-holds-cluster": "Orphan", "fake-expires-anyway": "Delete"}},
		},
		"AnnotationDeleteKeepsProtection": {
			annotation: "Delete", protected: true, cluster: "garden",
			want: want{status: kaasv1alpha1.DeletionOrphan, resources: map[string]string{
				"fake-native": "Orphan", "fake-holds-cluster": "Orphan", "fake-expires-anyway": "Delete"}},
		},
		"NamespacedOrphanDropsTheDeletePolicy": {
			annotation: "Orphan", namespaced: true, cluster: "garden",
			want: want{status: kaasv1alpha1.DeletionOrphan, resources: map[string]string{
				"fake-native": "Observe,Create,Update,LateInitialize", "fake-holds-cluster": "Observe,Create,Update,LateInitialize", "fake-expires-anyway": "*"}},
		},
		"NamespacedUnprotectedDeletes": {
			namespaced: true, cluster: "garden",
			want: want{status: kaasv1alpha1.DeletionDelete, resources: map[string]string{
				"fake-native": "*", "fake-holds-cluster": "*", "fake-expires-anyway": "*"}},
		},
		// A local native object is deleted with its composite whatever is asked: the status
		// says so, and the admission policy then keeps refusing to delete a protected one.
		"LocalObjectCannotBeOrphaned": {
			annotation: "Orphan", cluster: "local",
			want: want{status: kaasv1alpha1.DeletionDelete, resources: map[string]string{
				"fake-native": "", "fake-holds-cluster": "Orphan", "fake-expires-anyway": "Delete"}},
		},
		"UnknownAnnotationValueRefused": {
			annotation: "Keep", cluster: "garden",
			wantErr: `annotation kaas.scs.community/deletion-policy: "Keep" is not a deletion policy; allowed: [Delete Orphan]`,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			xr := testCluster()
			if tc.annotation != "" {
				xr.SetAnnotations(map[string]string{kaasv1alpha1.AnnotationDeletionPolicy: tc.annotation})
			}
			if tc.protected {
				xr.Spec.DeletionProtection = ptrTo(true)
			}
			env := fakeEnvironmentConfig()
			if tc.namespaced {
				xr.Namespace = "team1"
				_ = unstructured.SetNestedField(env.Object, map[string]any{"namespaces": []any{"team1"}}, "data", "access")
			}
			out, err := NewRegistry(placingBackend{cluster: tc.cluster}).Reconcile(Input{Cluster: xr,
				// Looked for before it is managed, the native object is not there: a new cluster.
				Required: map[string][]*unstructured.Unstructured{EnvironmentsRequirement: {env}, LookupRequirementPrefix + "fake-native": nil},
				Observed: lookedFor(xr, tc.cluster),
				Options:  Options{ConnectionSecretNamespace: "crossplane-system"}})
			if tc.wantErr != "" {
				var me *Error
				if !errors.As(err, &me) || me.Reason != kaasv1alpha1.ReasonInvalidSpec || !strings.Contains(me.Message, tc.wantErr) {
					t.Fatalf("Reconcile: want %s error %q, got %v", kaasv1alpha1.ReasonInvalidSpec, tc.wantErr, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := want{status: out.Status.Backend.DeletionPolicy, resources: map[string]string{}}
			for _, r := range out.Rendering.Resources {
				spec, _ := r.Object.Object["spec"].(map[string]any)
				switch {
				case tc.namespaced:
					policies, _, _ := unstructured.NestedStringSlice(spec, "managementPolicies")
					if policies == nil {
						policies = []string{"*"} // the CRD's default
					}
					got.resources[r.Name] = strings.Join(policies, ",")
				default:
					p, _ := spec["deletionPolicy"].(string)
					got.resources[r.Name] = p
				}
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("-want, +got:\n%s", diff)
			}
		})
	}
}

// TestDeletionPolicyOfKeptResources: an Object kept as it was last applied (its provider
// has not reported it) still has the policy it was applied with, and the status says what
// that policy does, not what was asked for.
func TestDeletionPolicyOfKeptResources(t *testing.T) {
	applied := func(policy string) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "kubernetes.crossplane.io/v1alpha2", "kind": "Object",
			"spec": map[string]any{"deletionPolicy": policy},
		}}
	}
	asked := []Resource{{Name: "native", Object: applied("Orphan")}}
	kept := keepUnobserved(asked, map[string]ObservedResource{"native": {Object: applied("Delete")}}, []string{"native"})
	if got := deletionPolicy(kept); got != kaasv1alpha1.DeletionDelete {
		t.Errorf("deletion policy with the Object kept as applied with Delete = %s, want Delete", got)
	}
	observeOnly := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{
		"deletionPolicy": "Delete", "managementPolicies": []any{"Observe"}}}}
	if !orphans(observeOnly) {
		t.Errorf("an observe-only managed resource deletes nothing")
	}
}

// lookedFor is what looking for the native object observed: remotely an observe-only
// Object that reports it is not there, locally nothing (a required resource says so).
func lookedFor(xr *kaasv1alpha1.XSCSCluster, cluster string) map[string]ObservedResource {
	if cluster == "local" {
		return nil
	}
	return map[string]ObservedResource{"fake-native": {Object: notThere(NativeName(IdentityOf(xr), 20)+"-native", xr.Namespace != "")}}
}

// notThere is an observe-only Object as provider-kubernetes reports it when what it
// observes does not exist (crossplane-runtime's words).
func notThere(name string, namespaced bool) *unstructured.Unstructured {
	apiVersion := "kubernetes.crossplane.io/v1alpha2"
	if namespaced {
		apiVersion = "kubernetes.m.crossplane.io/v1alpha1"
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": apiVersion, "kind": "Object", "metadata": map[string]any{"name": name},
		"spec": map[string]any{"managementPolicies": []any{"Observe"}},
		"status": map[string]any{"conditions": []any{map[string]any{"type": "Synced", "status": "False", "reason": "ReconcileError",
			"message": "observe failed: external resource does not exist"}}},
	}}
}
