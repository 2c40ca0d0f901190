package gardener

import (
	"strings"
	"testing"

	gardencorev1beta1 "github.com/gardener/gardener/pkg/apis/core/v1beta1"
	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/model"
)

func TestObserve(t *testing.T) {
	cases := map[string]struct {
		shoot      func(s *gardencorev1beta1.Shoot) // nil: the Shoot does not exist yet
		wantReady  bool
		wantPhase  kaasv1alpha1.Phase
		wantReason string
		wantMsg    string
		wantURL    string
	}{
		"NotCreatedYet": {
			wantPhase: kaasv1alpha1.PhaseProvisioning, wantReason: "Creating", wantMsg: "does not exist in the garden cluster yet",
		},
		"CreatedButNotPickedUp": {
			shoot:     func(*gardencorev1beta1.Shoot) {},
			wantPhase: kaasv1alpha1.PhaseProvisioning, wantReason: "Pending", wantMsg: "Gardener has not started",
		},
		"Creating": {
			shoot: func(s *gardencorev1beta1.Shoot) {
				s.Status.LastOperation = &gardencorev1beta1.LastOperation{Type: "Create", State: "Processing", Progress: 42, Description: "Waiting for infrastructure"}
			},
			wantPhase: kaasv1alpha1.PhaseProvisioning, wantReason: "CreateProcessing", wantMsg: "create operation is Processing at 42%: Waiting for infrastructure",
		},
		"SucceededAndHealthy": {
			shoot:     healthyStatus,
			wantReady: true, wantPhase: kaasv1alpha1.PhaseReady, wantReason: "Healthy",
			wantURL: "https://api.shop-x7k2p.team1.example",
		},
		"QuotaExceeded": {
			shoot: func(s *gardencorev1beta1.Shoot) {
				s.Status.LastOperation = &gardencorev1beta1.LastOperation{Type: "Create", State: "Error", Progress: 10}
				s.Status.LastErrors = []gardencorev1beta1.LastError{{
					Description: "Quota exceeded for instances: requested 3, available 1",
					Codes:       []gardencorev1beta1.ErrorCode{gardencorev1beta1.ErrorInfraQuotaExceeded},
				}}
			},
			wantPhase: kaasv1alpha1.PhaseProvisioning, wantReason: "ERR_INFRA_QUOTA_EXCEEDED",
			wantMsg: "Gardener reports: Quota exceeded for instances: requested 3, available 1",
		},
		"FailedForGood": {
			shoot: func(s *gardencorev1beta1.Shoot) {
				s.Status.LastOperation = &gardencorev1beta1.LastOperation{Type: "Reconcile", State: "Failed", Description: "retry limit reached"}
				s.Status.LastErrors = []gardencorev1beta1.LastError{{Description: "unauthorized", Codes: []gardencorev1beta1.ErrorCode{"ERR_INFRA_UNAUTHORIZED", "ERR_CONFIGURATION_PROBLEM"}}}
			},
			wantPhase: kaasv1alpha1.PhaseFailed, wantReason: "ERR_INFRA_UNAUTHORIZED,ERR_CONFIGURATION_PROBLEM", wantMsg: "unauthorized",
		},
		"UnhealthyNodes": {
			shoot: func(s *gardencorev1beta1.Shoot) {
				healthyStatus(s)
				s.Status.Conditions[2].Status = gardencorev1beta1.ConditionFalse
				s.Status.Conditions[2].Reason = "NodesUnhealthy"
				s.Status.Conditions[2].Message = "node x is NotReady"
			},
			wantPhase: kaasv1alpha1.PhaseDegraded, wantReason: "EveryNodeReadyFalse",
			wantMsg: "EveryNodeReady is False: NodesUnhealthy: node x is NotReady", wantURL: "https://api.shop-x7k2p.team1.example",
		},
		"SpecChangedNotYetReconciled": {
			shoot: func(s *gardencorev1beta1.Shoot) {
				healthyStatus(s)
				s.Generation++
			},
			wantPhase: kaasv1alpha1.PhaseUpdating, wantReason: "Reconciling", wantURL: "https://api.shop-x7k2p.team1.example",
		},
		"Upgrading": {
			shoot: func(s *gardencorev1beta1.Shoot) {
				healthyStatus(s)
				s.Status.LastOperation.State = "Processing"
			},
			wantPhase: kaasv1alpha1.PhaseUpdating, wantReason: "ReconcileProcessing", wantURL: "https://api.shop-x7k2p.team1.example",
		},
		"Hibernated": {
			shoot: func(s *gardencorev1beta1.Shoot) {
				healthyStatus(s)
				s.Status.IsHibernated = true
				s.Status.LastOperation.Type = "Reconcile"
			},
			wantReady: true, wantPhase: kaasv1alpha1.PhaseHibernated, wantReason: "Healthy", wantURL: "https://api.shop-x7k2p.team1.example",
		},
		"Deleting": {
			shoot: func(s *gardencorev1beta1.Shoot) {
				s.DeletionTimestamp = &metav1.Time{}
				s.Status.LastOperation = &gardencorev1beta1.LastOperation{Type: "Delete", State: "Processing"}
			},
			wantPhase: kaasv1alpha1.PhaseDeleting, wantReason: "DeleteProcessing",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var shoot *gardencorev1beta1.Shoot
			if tc.shoot != nil {
				shoot = existingShoot()
				tc.shoot(shoot)
			}
			obs, err := observeOf(withKubeconfig(request(fullSpec(), environment(), shoot)))
			if err != nil {
				t.Fatalf("Observe: %v", err)
			}
			if obs.Ready != tc.wantReady || obs.ResourceReady[ResourceShoot] != tc.wantReady {
				t.Errorf("ready = %v (resource %v), want %v", obs.Ready, obs.ResourceReady[ResourceShoot], tc.wantReady)
			}
			if obs.Status.Phase != tc.wantPhase {
				t.Errorf("phase = %q, want %q", obs.Status.Phase, tc.wantPhase)
			}
			if len(obs.Conditions) != 2 || obs.Conditions[0].Type != kaasv1alpha1.ConditionBackendReady || obs.Conditions[1].Type != kaasv1alpha1.ConditionKubeconfigReady {
				t.Fatalf("want the BackendReady and KubeconfigReady conditions, got %+v", obs.Conditions)
			}
			c := obs.Conditions[0]
			wantStatus := model.ConditionFalse
			if tc.wantReady {
				wantStatus = model.ConditionTrue
			}
			if c.Status != wantStatus || c.Reason != tc.wantReason || !strings.Contains(c.Message, tc.wantMsg) {
				t.Errorf("condition = %+v, want status %s reason %q message containing %q", c, wantStatus, tc.wantReason, tc.wantMsg)
			}
			if obs.Status.APIServerURL != tc.wantURL {
				t.Errorf("apiServerURL = %q, want %q", obs.Status.APIServerURL, tc.wantURL)
			}
			if tc.shoot != nil && string(obs.ConnectionDetails[model.ConnectionKeyKubeconfig]) != testKubeconfig {
				t.Errorf("the kubeconfig provider-gardener-kubeconfig published is not passed on")
			}
		})
	}
}

func TestObserveReportsWhatRuns(t *testing.T) {
	shoot := existingShoot()
	healthyStatus(shoot)
	obs, err := observeOf(request(fullSpec(), environment(), shoot))
	if err != nil {
		t.Fatal(err)
	}
	want := kaasv1alpha1.ClusterStatus{
		Phase:        kaasv1alpha1.PhaseReady,
		Kubernetes:   &kaasv1alpha1.KubernetesStatus{Version: "1.34.5"},
		APIServerURL: "https://api.shop-x7k2p.team1.example",
		ControlPlane: &kaasv1alpha1.ControlPlaneStatus{HighAvailability: true},
		NodePools: []kaasv1alpha1.NodePoolStatus{
			{Name: "system", MachineType: "SCS-4V-8", Zones: []string{"az1", "az2", "az3"}, Min: ptrTo[int32](3), Max: ptrTo[int32](3)},
			{Name: "general", MachineType: "SCS-8V-32", Zones: []string{"az1"}, Min: ptrTo[int32](1), Max: ptrTo[int32](9)},
		},
	}
	if diff := cmp.Diff(want, obs.Status); diff != "" {
		t.Errorf("status: -want, +got:\n%s", diff)
	}
}

// TestUndecodableObservedState: a Shoot that cannot be read is an error, never a guess.
func TestUndecodableObservedState(t *testing.T) {
	cases := map[string]*unstructured.Unstructured{
		"ManifestNotAnObject": {Object: map[string]any{
			"apiVersion": "kubernetes.crossplane.io/v1alpha2", "kind": "Object",
			"metadata": map[string]any{"name": "x"},
			"status":   map[string]any{"atProvider": map[string]any{"manifest": "not an object"}},
		}},
		"NotAShoot": {Object: map[string]any{
			"apiVersion": "kubernetes.crossplane.io/v1alpha2", "kind": "Object",
			"metadata": map[string]any{"name": "x"},
			"status":   map[string]any{"atProvider": map[string]any{"manifest": map[string]any{"apiVersion": "v1", "kind": "ConfigMap"}}},
		}},
		"ShootWithWrongTypes": {Object: map[string]any{
			"apiVersion": "core.gardener.cloud/v1beta1", "kind": "Shoot",
			"metadata": map[string]any{"name": "x"},
			"spec":     map[string]any{"provider": map[string]any{"workers": "three"}},
		}},
	}
	for name, obj := range cases {
		t.Run(name, func(t *testing.T) {
			req := request(fullSpec(), environment(), nil)
			req.Observed[ResourceShoot] = model.ObservedResource{Object: obj}
			if _, err := observeOf(req); err == nil {
				t.Error("Observe: want an error")
			}
			if _, err := renderOf(req); err == nil {
				t.Error("Render: want an error")
			}
		})
	}
}

// TestReadyNeedsTheKubeconfig: a healthy Shoot without its admin kubeconfig yet is not
// ready for the claim, and the AdminKubeconfig is not ready either.
func TestReadyNeedsTheKubeconfig(t *testing.T) {
	shoot := existingShoot()
	healthyStatus(shoot)
	obs, err := observeOf(request(fullSpec(), environment(), shoot))
	if err != nil {
		t.Fatal(err)
	}
	if obs.Ready || obs.ResourceReady[ResourceKubeconfig] || !obs.ResourceReady[ResourceShoot] {
		t.Errorf("ready = %v, resources = %v; want the Shoot ready, the kubeconfig and the cluster not", obs.Ready, obs.ResourceReady)
	}
	if got := string(obs.ConnectionDetails[model.ConnectionKeyEndpoint]); got != "https://api.shop-x7k2p.team1.example" {
		t.Errorf("endpoint = %q; the API server URL is delivered even before the kubeconfig", got)
	}
	if _, ok := obs.ConnectionDetails[model.ConnectionKeyKubeconfig]; ok {
		t.Error("a kubeconfig appeared from nowhere")
	}
}

// TestKubeconfigThatStoppedWorking: an admin kubeconfig that expired, or that
// provider-gardener-kubeconfig cannot renew, makes neither the kubeconfig resource nor the
// claim ready, though the Shoot is healthy; KubeconfigReady says why in the provider's words.
func TestKubeconfigThatStoppedWorking(t *testing.T) {
	conditions := func(c ...map[string]any) map[string]any {
		items := make([]any, len(c))
		for i := range c {
			items[i] = c[i]
		}
		return map[string]any{"conditions": items, "atProvider": map[string]any{"expirationTimestamp": "2026-11-30T10:00:00Z"}}
	}
	ready := map[string]any{"type": "Ready", "status": "True", "reason": "Available"}
	synced := map[string]any{"type": "Synced", "status": "True", "reason": "ReconcileSuccess"}
	expired := map[string]any{"type": "Ready", "status": "False", "reason": "Expired",
		"message": "the admin kubeconfig in the connection secret expired at 2026-11-30T10:00:00Z; renewing it fails, see the Synced condition"}
	failing := map[string]any{"type": "Synced", "status": "False", "reason": "ReconcileError",
		"message": "update failed: shoots/adminkubeconfig: forbidden"}
	cases := map[string]struct {
		status     map[string]any
		wantReady  bool
		wantReason string
		wantMsg    string
	}{
		"Working":        {status: conditions(ready, synced), wantReady: true, wantReason: "Delivered", wantMsg: "valid until 2026-11-30T10:00:00Z"},
		"Expired":        {status: conditions(expired, failing), wantReason: "Expired", wantMsg: "expired at 2026-11-30T10:00:00Z"},
		"RenewalFailing": {status: conditions(ready, failing), wantReason: "RenewalFailing", wantMsg: "shoots/adminkubeconfig: forbidden"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			shoot := existingShoot()
			healthyStatus(shoot)
			req := withKubeconfig(request(fullSpec(), environment(), shoot))
			req.Observed[ResourceKubeconfig].Object.Object["status"] = tc.status
			obs, err := observeOf(req)
			if err != nil {
				t.Fatal(err)
			}
			if obs.Ready != tc.wantReady || obs.ResourceReady[ResourceKubeconfig] != tc.wantReady || !obs.ResourceReady[ResourceShoot] {
				t.Errorf("ready = %v, resources = %v; want the cluster and the kubeconfig ready: %v, the Shoot ready", obs.Ready, obs.ResourceReady, tc.wantReady)
			}
			var c model.Condition
			for _, x := range obs.Conditions {
				if x.Type == kaasv1alpha1.ConditionKubeconfigReady {
					c = x
				}
			}
			if c.Reason != tc.wantReason || !strings.Contains(c.Message, tc.wantMsg) || (c.Status == model.ConditionTrue) != tc.wantReady {
				t.Errorf("KubeconfigReady = %+v, want reason %s and a message with %q", c, tc.wantReason, tc.wantMsg)
			}
		})
	}
}
