package model

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
)

// object is a composed resource as observed: a provider-kubernetes Object (managed) or a
// plain local object, with a Synced condition when synced is not empty.
func object(kind, name string, managed bool, synced, message string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": kind, "metadata": map[string]any{"name": name}, "spec": map[string]any{},
	}}
	if managed {
		u.SetAPIVersion("kubernetes.crossplane.io/v1alpha2")
		u.Object["spec"] = map[string]any{"forProvider": map[string]any{"manifest": map[string]any{"kind": "Shoot"}}}
	}
	if synced != "" {
		u.Object["status"] = map[string]any{"conditions": []any{map[string]any{
			"type": "Synced", "status": synced, "reason": "ReconcileError", "message": message,
		}}}
	}
	return u
}

func TestSyncedCondition(t *testing.T) {
	rendered := []Resource{{Name: "gardener-shoot"}, {Name: "gardener-kubeconfig"}}
	cases := map[string]struct {
		observed map[string]ObservedResource
		want     Condition
	}{
		"AllApplied": {
			observed: map[string]ObservedResource{
				"gardener-shoot":      {Object: object("Object", "s", true, "True", "")},
				"gardener-kubeconfig": {Object: object("AdminKubeconfig", "k", true, "True", "")},
			},
			want: Condition{Type: kaasv1alpha1.ConditionBackendSynced, Status: ConditionTrue, Reason: kaasv1alpha1.ReasonSynced,
				Message: "every native object is applied as rendered"},
		},
		// The backend's admission refused the Shoot: its words reach the claim.
		"RefusedByTheBackend": {
			observed: map[string]ObservedResource{
				"gardener-shoot": {Object: object("Object", "s", true, "False",
					`create failed: cannot create object: shoots.core.gardener.cloud "s" is forbidden: spec.provider.workers[0].machine.type: Unsupported value: "SCS-99V-1"`)},
				"gardener-kubeconfig": {Object: object("AdminKubeconfig", "k", true, "True", "")},
			},
			want: Condition{Type: kaasv1alpha1.ConditionBackendSynced, Status: ConditionFalse, Reason: kaasv1alpha1.ReasonApplyFailed,
				Message: `the backend did not take the rendered objects: gardener-shoot (Object s): create failed: cannot create object: shoots.core.gardener.cloud "s" is forbidden: spec.provider.workers[0].machine.type: Unsupported value: "SCS-99V-1"`},
		},
		"NotReportedYet": {
			observed: map[string]ObservedResource{
				"gardener-shoot": {Object: object("Object", "s", true, "", "")},
			},
			want: Condition{Type: kaasv1alpha1.ConditionBackendSynced, Status: ConditionUnknown, Reason: kaasv1alpha1.ReasonApplyPending,
				Message: "waiting for gardener-kubeconfig, gardener-shoot to be reported applied"},
		},
		// A local object has no provider: observed means Crossplane applied it.
		"LocalObjectsNeedNoProvider": {
			observed: map[string]ObservedResource{
				"gardener-shoot":      {Object: object("Cluster", "c", false, "", "")},
				"gardener-kubeconfig": {Object: object("AdminKubeconfig", "k", true, "True", "")},
			},
			want: Condition{Type: kaasv1alpha1.ConditionBackendSynced, Status: ConditionTrue, Reason: kaasv1alpha1.ReasonSynced,
				Message: "every native object is applied as rendered"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, syncedCondition(rendered, tc.observed)); diff != "" {
				t.Errorf("-want, +got:\n%s", diff)
			}
		})
	}
}

// TestCreateFailedIsNotUnobserved: an Object whose remote create was refused has nothing
// behind it; it is not kept as last applied (the claim could never be corrected), while an
// Object not reported for any other reason is.
func TestCreateFailedIsNotUnobserved(t *testing.T) {
	observed := map[string]ObservedResource{
		"refused":      {Object: object("Object", "a", true, "False", "create failed: cannot create object: forbidden")},
		"unreachable":  {Object: object("Object", "b", true, "False", "observe failed: cannot get object: connection refused")},
		"not-reported": {Object: object("Object", "c", true, "", "")},
	}
	if diff := cmp.Diff([]string{"not-reported", "unreachable"}, Unobserved(observed)); diff != "" {
		t.Errorf("Unobserved: -want, +got:\n%s", diff)
	}
}
