package provider

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	k8stesting "k8s.io/client-go/testing"
)

// TestWaitNudgesAnOpenCircuit: while Crossplane's circuit breaker drops a composite's
// events, the change the provider applied is never reconciled; the wait asks for a
// reconcile with crossplane.io/reconcile-requested-at, and only then.
func TestWaitNudgesAnOpenCircuit(t *testing.T) {
	for _, tc := range []struct {
		name        string
		circuitOpen bool
		wantErr     bool
		wantPatches int
	}{
		{name: "circuit open: nudged, reconciled, Ready", circuitOpen: true, wantPatches: 1},
		{name: "circuit closed: not nudged, times out", wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			conds := []any{
				map[string]any{"type": "Synced", "status": "True", "observedGeneration": int64(1)},
				map[string]any{"type": "Ready", "status": "True", "observedGeneration": int64(1)},
				map[string]any{"type": "Rendered", "status": "True"},
			}
			if tc.circuitOpen {
				conds = append(conds, map[string]any{"type": "Responsive", "status": "False", "reason": "WatchCircuitOpen"})
			}
			obj := &unstructured.Unstructured{Object: map[string]any{
				"apiVersion": "kaas.scs.community/v1alpha1", "kind": "SCSCluster",
				"metadata": map[string]any{"namespace": "team1", "name": "dev", "generation": int64(2)},
				"spec":     map[string]any{"crossplane": map[string]any{}},
				"status":   map[string]any{"conditions": conds},
			}}
			dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
				map[schema.GroupVersionResource]string{clusterGVR: "SCSClusterList"}, obj)
			patches := 0
			dyn.PrependReactor("patch", "scsclusters", func(a k8stesting.Action) (bool, runtime.Object, error) {
				if a.(k8stesting.PatchAction).GetPatchType() != types.MergePatchType {
					return false, nil, nil
				}
				patches++
				// Crossplane reconciles generation 2.
				done := obj.DeepCopy()
				for _, c := range done.Object["status"].(map[string]any)["conditions"].([]any) {
					c.(map[string]any)["observedGeneration"] = int64(2)
				}
				return true, done, dyn.Tracker().Update(clusterGVR, done, "team1")
			})
			c := &client{dyn: dyn, namespace: "team1", poll: time.Millisecond, nudgeEvery: time.Millisecond}
			_, err := c.waitUntil(context.Background(), "team1", "dev", 200*time.Millisecond, "Ready", observation.ready)
			if (err != nil) != tc.wantErr {
				t.Errorf("waitUntil: %v, want error %v", err, tc.wantErr)
			}
			if diff := cmp.Diff(tc.wantPatches, patches); diff != "" {
				t.Errorf("reconcile requests (-want +got):\n%s", diff)
			}
		})
	}
}
