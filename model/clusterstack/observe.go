package clusterstack

import (
	"cmp"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	envv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/environment/v1alpha1"
	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/model"
)

// Reasons of the BackendReady condition that only this backend gives.
const (
	// ReasonWaitingForReleases: the Cluster does not exist yet, and the management cluster's
	// ClusterStackReleases, from which its version is resolved, have not been observed.
	ReasonWaitingForReleases = "WaitingForReleases"
	// ReasonNotAvailable: Cluster API reports the Cluster not available without a reason.
	ReasonNotAvailable = "NotAvailable"
)

// observe reads the Cluster's status: Available (v1beta2), or Ready where only v1beta1
// conditions are reported, decides readiness; phase, replica counts and the endpoint come
// from the status; the kubeconfig from the Secret Cluster API writes.
func observe(req *model.Request, s *state) (*model.Observation, error) {
	c, details := s.cluster, s.kubeconfig
	local := s.mgmt.Local()
	obs := &model.Observation{ResourceReady: map[string]bool{}}
	if !local {
		obs.ResourceReady[ResourceReleases] = !s.pending
		obs.ResourceReady[ResourceKubeconfig] = details != nil
	}
	if c == nil {
		obs.Status.Phase = kaasv1alpha1.PhaseProvisioning
		cond := model.NotCreated("the Cluster", "in the management cluster")
		if s.pending {
			cond.Reason, cond.Message = ReasonWaitingForReleases, "waiting for the ClusterStackReleases of the management cluster to be observed"
		}
		obs.Conditions = []model.Condition{cond}
		return obs, nil
	}

	ready, cond := verdict(c)
	// A local Cluster's kubeconfig is no composed resource of its own, so the Cluster is
	// only ready once its kubeconfig is there: a Ready claim always has one.
	obs.ResourceReady[ResourceCluster] = ready && (details != nil || !local)
	obs.Ready = ready && details != nil
	obs.Conditions = []model.Condition{cond}
	obs.Status = kaasv1alpha1.ClusterStatus{
		Phase:        phase(c),
		Kubernetes:   &kaasv1alpha1.KubernetesStatus{Version: runningVersion(c)},
		APIServerURL: endpoint(c),
		ControlPlane: controlPlane(c),
		NodePools:    nodePools(c, req.Environment.ClusterStack.VariableNames[envv1alpha1.VariableWorkerFlavor]),
		Access:       accessInForce(req.Environment.ClusterStack, c),
	}
	obs.ConnectionDetails = details
	if obs.ConnectionDetails == nil && obs.Status.APIServerURL != "" {
		obs.ConnectionDetails = map[string][]byte{model.ConnectionKeyEndpoint: []byte(obs.Status.APIServerURL)}
	}
	return obs, nil
}

// kubeconfigDetails are the kubeconfig Cluster API wrote, or nil.
func kubeconfigDetails(req *model.Request, mgmt model.Placement) (map[string][]byte, error) {
	raw, err := mgmt.SecretData(kubeconfigRead(req))
	if err != nil || len(raw) == 0 {
		return nil, err
	}
	return model.KubeconfigConnectionDetails(raw)
}

// verdict decides readiness and explains it in Cluster API's own words.
func verdict(c *clusterv1.Cluster) (bool, model.Condition) {
	cond := model.Condition{Type: kaasv1alpha1.ConditionBackendReady, Status: model.ConditionFalse}
	available := availableCondition(c)
	switch {
	case c.Status.ObservedGeneration != 0 && c.Status.ObservedGeneration < c.Generation:
		cond.Reason = kaasv1alpha1.ReasonReconciling
		cond.Message = fmt.Sprintf("Cluster API has not yet acted on generation %d of the Cluster (observed %d)", c.Generation, c.Status.ObservedGeneration)
		return false, cond
	case available == nil:
		cond.Reason, cond.Message = kaasv1alpha1.ReasonPending, "Cluster API has not reported whether the Cluster is available yet"
		return false, cond
	case available.Status != metav1.ConditionTrue:
		cond.Reason = cmp.Or(available.Reason, ReasonNotAvailable)
		cond.Message = model.Truncate(fmt.Sprintf("Cluster API reports the Cluster %s: %s", strings.ToLower(available.Type)+" "+string(available.Status), available.Message))
		return false, cond
	}
	cond.Status, cond.Reason, cond.Message = model.ConditionTrue, kaasv1alpha1.ReasonAvailable, "the Cluster is available"
	return true, cond
}

// availableCondition is the v1beta2 Available condition or, from Cluster API versions that
// report v1beta1 conditions only, the Ready condition.
func availableCondition(c *clusterv1.Cluster) *metav1.Condition {
	if a := meta.FindStatusCondition(c.Status.Conditions, clusterv1.ClusterAvailableCondition); a != nil {
		return a
	}
	return v1beta1Ready(c)
}

func v1beta1Ready(c *clusterv1.Cluster) *metav1.Condition {
	if r := meta.FindStatusCondition(c.Status.Conditions, clusterv1.ReadyCondition); r != nil {
		return r
	}
	if d := c.Status.Deprecated; d != nil && d.V1Beta1 != nil {
		for _, x := range d.V1Beta1.Conditions { //nolint:staticcheck // read on purpose: Clusters of Cluster API versions before v1beta2 conditions
			if x.Type == clusterv1.ReadyCondition {
				return &metav1.Condition{Type: clusterv1.ReadyCondition, Status: metav1.ConditionStatus(x.Status), Reason: x.Reason, Message: x.Message}
			}
		}
	}
	return nil
}

func phase(c *clusterv1.Cluster) kaasv1alpha1.Phase {
	rolling := meta.FindStatusCondition(c.Status.Conditions, clusterv1.ClusterRollingOutCondition)
	changing := (rolling != nil && rolling.Status == metav1.ConditionTrue) ||
		(c.Status.ObservedGeneration != 0 && c.Status.ObservedGeneration < c.Generation)
	a := availableCondition(c)
	available := a != nil && a.Status == metav1.ConditionTrue
	initialized := c.Status.Initialization.ControlPlaneInitialized != nil && *c.Status.Initialization.ControlPlaneInitialized
	switch {
	case c.DeletionTimestamp != nil || c.Status.Phase == string(clusterv1.ClusterPhaseDeleting):
		return kaasv1alpha1.PhaseDeleting
	case c.Status.Phase == string(clusterv1.ClusterPhaseFailed): //nolint:staticcheck // converted v1beta1 Clusters still carry it
		return kaasv1alpha1.PhaseFailed
	case available && changing:
		return kaasv1alpha1.PhaseUpdating
	case available:
		return kaasv1alpha1.PhaseReady
	case !initialized:
		return kaasv1alpha1.PhaseProvisioning
	case changing:
		return kaasv1alpha1.PhaseUpdating
	default:
		return kaasv1alpha1.PhaseDegraded
	}
}

// runningVersion is the oldest control plane version Cluster API reports (during an
// upgrade the cluster is as old as its oldest part), or the topology's version.
func runningVersion(c *clusterv1.Cluster) string {
	v := c.Spec.Topology.Version
	if cp := c.Status.ControlPlane; cp != nil && len(cp.Versions) > 0 {
		vs := make([]string, 0, len(cp.Versions))
		for _, x := range cp.Versions {
			vs = append(vs, x.Version)
		}
		sort.Slice(vs, func(i, j int) bool { return olderVersion(vs[i], vs[j]) })
		v = vs[0]
	}
	return strings.TrimPrefix(v, "v")
}

func olderVersion(a, b string) bool {
	va, errA := model.ParseVersion(a)
	vb, errB := model.ParseVersion(b)
	if errA != nil || errB != nil {
		return a < b
	}
	if va.Minor != vb.Minor {
		return va.Minor < vb.Minor
	}
	return va.Patch < vb.Patch
}

func endpoint(c *clusterv1.Cluster) string {
	e := c.Spec.ControlPlaneEndpoint
	if e.Host == "" {
		return ""
	}
	return fmt.Sprintf("https://%s:%d", e.Host, cmp.Or(e.Port, 6443))
}

func controlPlane(c *clusterv1.Cluster) *kaasv1alpha1.ControlPlaneStatus {
	s := &kaasv1alpha1.ControlPlaneStatus{}
	if r := c.Spec.Topology.ControlPlane.Replicas; r != nil {
		s.HighAvailability = *r > 1
	}
	if cp := c.Status.ControlPlane; cp != nil {
		s.Replicas, s.ReadyReplicas = cp.Replicas, cp.ReadyReplicas
	}
	return s
}

// nodePools sums the observed MachineDeployments of each pool over its zones.
func nodePools(c *clusterv1.Cluster, flavorVariable string) []kaasv1alpha1.NodePoolStatus {
	byPool := map[string]*kaasv1alpha1.NodePoolStatus{}
	var order []string
	for _, md := range c.Spec.Topology.Workers.MachineDeployments {
		pool := md.Metadata.Labels[model.LabelNodePool]
		if pool == "" {
			continue
		}
		s, ok := byPool[pool]
		if !ok {
			s = &kaasv1alpha1.NodePoolStatus{Name: pool, Min: ptrTo[int32](0), Max: ptrTo[int32](0)}
			byPool[pool] = s
			order = append(order, pool)
		}
		for _, v := range md.Variables.Overrides {
			if v.Name == flavorVariable {
				_ = json.Unmarshal(v.Value.Raw, &s.MachineType)
			}
		}
		if md.FailureDomain != "" {
			s.Zones = append(s.Zones, md.FailureDomain)
		}
		if md.Replicas != nil {
			*s.Min += *md.Replicas
			*s.Max += *md.Replicas
			continue
		}
		*s.Min += atoi(md.Metadata.Annotations[annotationAutoscalerMin])
		*s.Max += atoi(md.Metadata.Annotations[annotationAutoscalerMax])
	}
	out := make([]kaasv1alpha1.NodePoolStatus, 0, len(order))
	for _, p := range order {
		out = append(out, *byPool[p])
	}
	return out
}

func atoi(s string) int32 {
	n, _ := strconv.ParseInt(s, 10, 32)
	return int32(n)
}
