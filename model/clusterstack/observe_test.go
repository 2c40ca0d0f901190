package clusterstack

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/model"
)

func availableTrue() metav1.Condition {
	return metav1.Condition{Type: "Available", Status: metav1.ConditionTrue, Reason: "Available"}
}

func TestObserve(t *testing.T) {
	cases := map[string]struct {
		cluster    func(c *clusterv1.Cluster) // nil: no Cluster yet
		wantReady  bool
		wantPhase  kaasv1alpha1.Phase
		wantReason string
		wantMsg    string
	}{
		"NotCreatedYet": {wantPhase: kaasv1alpha1.PhaseProvisioning, wantReason: "Creating", wantMsg: "does not exist"},
		"NoConditionsYet": {
			cluster:   func(*clusterv1.Cluster) {},
			wantPhase: kaasv1alpha1.PhaseProvisioning, wantReason: "Pending",
		},
		"Available": {
			cluster: func(c *clusterv1.Cluster) {
				c.Status.Conditions = []metav1.Condition{availableTrue()}
				c.Status.Initialization.ControlPlaneInitialized = ptrTo(true)
			},
			wantReady: true, wantPhase: kaasv1alpha1.PhaseReady, wantReason: "Available",
		},
		"AvailableButRollingOut": {
			cluster: func(c *clusterv1.Cluster) {
				c.Status.Conditions = []metav1.Condition{availableTrue(), {Type: "RollingOut", Status: metav1.ConditionTrue, Reason: "RollingOut"}}
			},
			wantReady: true, wantPhase: kaasv1alpha1.PhaseUpdating, wantReason: "Available",
		},
		"OnlyV1Beta1Ready": {
			cluster: func(c *clusterv1.Cluster) {
				c.Status.Deprecated = &clusterv1.ClusterDeprecatedStatus{V1Beta1: &clusterv1.ClusterV1Beta1DeprecatedStatus{
					Conditions: clusterv1.Conditions{{Type: "Ready", Status: "True"}}, //nolint:staticcheck // a Cluster of a Cluster API before v1beta2 conditions
				}}
			},
			wantReady: true, wantPhase: kaasv1alpha1.PhaseReady, wantReason: "Available",
		},
		"NotAvailableWithCAPIsWords": {
			cluster: func(c *clusterv1.Cluster) {
				c.Status.Phase = "Provisioning"
				c.Status.Conditions = []metav1.Condition{{Type: "Available", Status: metav1.ConditionFalse, Reason: "NotAvailable",
					Message: "* InfrastructureReady: failed to create load balancer: Quota exceeded"}}
			},
			wantPhase: kaasv1alpha1.PhaseProvisioning, wantReason: "NotAvailable", wantMsg: "Quota exceeded",
		},
		"DegradedAfterInitialisation": {
			cluster: func(c *clusterv1.Cluster) {
				c.Status.Initialization.ControlPlaneInitialized = ptrTo(true)
				c.Status.Conditions = []metav1.Condition{{Type: "Available", Status: metav1.ConditionFalse, Reason: "NotAvailable", Message: "* WorkersAvailable: 0 of 3"}}
			},
			wantPhase: kaasv1alpha1.PhaseDegraded, wantReason: "NotAvailable",
		},
		"SpecNotObservedYet": {
			cluster: func(c *clusterv1.Cluster) {
				c.Status.ObservedGeneration = 1
				c.Status.Conditions = []metav1.Condition{availableTrue()}
			},
			wantPhase: kaasv1alpha1.PhaseUpdating, wantReason: "Reconciling",
		},
		"Failed": {
			cluster: func(c *clusterv1.Cluster) {
				c.Status.Phase = "Failed"
				c.Status.Conditions = []metav1.Condition{{Type: "Available", Status: metav1.ConditionFalse, Reason: "NotAvailable"}}
			},
			wantPhase: kaasv1alpha1.PhaseFailed, wantReason: "NotAvailable",
		},
		"Deleting": {
			cluster: func(c *clusterv1.Cluster) {
				c.Status.Phase = "Deleting"
				c.Status.Conditions = []metav1.Condition{{Type: "Available", Status: metav1.ConditionFalse, Reason: "Deleting"}}
			},
			wantPhase: kaasv1alpha1.PhaseDeleting, wantReason: "Deleting",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var c *clusterv1.Cluster
			if tc.cluster != nil {
				c = existingCluster()
				tc.cluster(c)
			}
			req := request(spec(), environment("local"), standardReleases(), c)
			req.Required[RequirementKubeconfig] = []*unstructured.Unstructured{kubeconfigSecret()}
			obs, err := observeOf(req)
			if err != nil {
				t.Fatal(err)
			}
			if obs.Ready != tc.wantReady || obs.ResourceReady[ResourceCluster] != tc.wantReady {
				t.Errorf("ready = %v (resource %v), want %v", obs.Ready, obs.ResourceReady[ResourceCluster], tc.wantReady)
			}
			if obs.Status.Phase != tc.wantPhase {
				t.Errorf("phase = %s, want %s", obs.Status.Phase, tc.wantPhase)
			}
			cond := obs.Conditions[0]
			if cond.Type != kaasv1alpha1.ConditionBackendReady || cond.Reason != tc.wantReason || !strings.Contains(cond.Message, tc.wantMsg) {
				t.Errorf("condition = %+v, want reason %s and a message with %q", cond, tc.wantReason, tc.wantMsg)
			}
		})
	}
}

func TestObserveReportsWhatRuns(t *testing.T) {
	c := existingCluster()
	c.Spec.ControlPlaneEndpoint = clusterv1.APIEndpoint{Host: "203.0.113.10", Port: 6443}
	c.Status.Conditions = []metav1.Condition{availableTrue()}
	c.Status.ControlPlane = &clusterv1.ClusterControlPlaneStatus{Replicas: ptrTo[int32](3), ReadyReplicas: ptrTo[int32](2),
		Versions: []clusterv1.StatusVersion{{Version: "v1.34.7", Replicas: 2}, {Version: "v1.34.6", Replicas: 1}}}
	// The Cluster as this backend rendered it, with its node pools.
	rendered, _ := renderedCluster(t, request(spec(), environment("local"), standardReleases(), nil))
	c.Spec.Topology.Workers = rendered.Spec.Topology.Workers

	obs, err := observeOf(request(spec(), environment("local"), standardReleases(), c))
	if err != nil {
		t.Fatal(err)
	}
	want := kaasv1alpha1.ClusterStatus{
		Phase:        kaasv1alpha1.PhaseReady,
		Kubernetes:   &kaasv1alpha1.KubernetesStatus{Version: "1.34.6"},
		APIServerURL: "https://203.0.113.10:6443",
		ControlPlane: &kaasv1alpha1.ControlPlaneStatus{HighAvailability: true, Replicas: ptrTo[int32](3), ReadyReplicas: ptrTo[int32](2)},
		NodePools: []kaasv1alpha1.NodePoolStatus{
			{Name: "system", MachineType: "SCS-4V-8", Zones: []string{"az1", "az2", "az3"}, Min: ptrTo[int32](4), Max: ptrTo[int32](4)},
			{Name: "general", MachineType: "SCS-8V-32", Zones: []string{"az1", "az2"}, Min: ptrTo[int32](1), Max: ptrTo[int32](5)},
		},
	}
	if diff := cmp.Diff(want, obs.Status); diff != "" {
		t.Errorf("status: -want, +got:\n%s", diff)
	}
	// Without its kubeconfig a local Cluster is not ready yet.
	if obs.Ready || obs.ResourceReady[ResourceCluster] {
		t.Errorf("ready without a kubeconfig Secret")
	}
	if string(obs.ConnectionDetails[model.ConnectionKeyEndpoint]) != "https://203.0.113.10:6443" {
		t.Errorf("endpoint connection detail = %q", obs.ConnectionDetails[model.ConnectionKeyEndpoint])
	}
}

func TestUndecodableObservedState(t *testing.T) {
	req := request(spec(), environment("local"), standardReleases(), nil)
	req.Observed[ResourceCluster] = model.ObservedResource{Object: &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "cluster.x-k8s.io/v1beta2", "kind": "Cluster", "metadata": map[string]any{"name": "x"},
		"spec": map[string]any{"topology": "not an object"},
	}}}
	if _, err := observeOf(req); err == nil {
		t.Error("Observe: want an error")
	}
	if _, err := renderOf(req); err == nil {
		t.Error("Render: want an error")
	}
	req.Required[RequirementKubeconfig] = []*unstructured.Unstructured{{Object: map[string]any{
		"apiVersion": "v1", "kind": "Secret", "metadata": map[string]any{"name": "shop-9q8rz-kubeconfig"},
		"data": map[string]any{"value": "%%%"},
	}}}
	delete(req.Observed, ResourceCluster)
	req2 := request(spec(), environment("local"), standardReleases(), nil)
	req2.Required[RequirementKubeconfig] = req.Required[RequirementKubeconfig]
	if _, err := observeOf(req2); err == nil || strings.Contains(err.Error(), "%%%") {
		t.Errorf("a kubeconfig Secret that is not base64 must be an error that does not quote it, got %v", err)
	}
}
