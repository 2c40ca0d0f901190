package magnum

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	envv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/environment/v1alpha1"
	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/model"
)

// managed is the part of a provider-openstack managed resource the backend reads.
type managed struct {
	obj *unstructured.Unstructured
}

func (m managed) exists() bool { return m.obj != nil }

func (m managed) condition(t string) (status, reason, message string, found bool) {
	conds, _, _ := unstructured.NestedSlice(m.obj.Object, "status", "conditions")
	for _, c := range conds {
		c, ok := c.(map[string]any)
		if !ok || c["type"] != t {
			continue
		}
		status, _ = c["status"].(string)
		reason, _ = c["reason"].(string)
		message, _ = c["message"].(string)
		return status, reason, message, true
	}
	return "", "", "", false
}

func (m managed) atProvider(path ...string) (any, bool) {
	v, found, err := unstructured.NestedFieldNoCopy(m.obj.Object, append([]string{"status", "atProvider"}, path...)...)
	return v, found && err == nil
}

func (m managed) atProviderString(path ...string) string {
	v, _ := m.atProvider(path...)
	s, _ := v.(string)
	return s
}

func (m managed) atProviderInt(path ...string) *int32 {
	v, ok := m.atProvider(path...)
	if !ok {
		return nil
	}
	switch n := v.(type) {
	case int64:
		return ptrTo(int32(n))
	case float64:
		return ptrTo(int32(n))
	}
	return nil
}

// observed returns the managed resource under a resource name, checking its kind.
func observed(req *model.Request, name, kind string) (managed, error) {
	res, ok := req.Observed[name]
	if !ok || res.Object == nil {
		return managed{}, nil
	}
	u := res.Object
	if u.GetKind() != kind || !strings.HasPrefix(u.GetAPIVersion(), "containerinfra.openstack.") {
		return managed{}, fmt.Errorf("observed resource %s is a %s %s, not a provider-openstack %s", name, u.GetAPIVersion(), u.GetKind(), kind)
	}
	if c, found, err := unstructured.NestedFieldNoCopy(u.Object, "status", "conditions"); err != nil || (found && !isList(c)) {
		return managed{}, fmt.Errorf("observed %s %s has conditions that cannot be read", kind, u.GetName())
	}
	return managed{obj: u}, nil
}

func isList(v any) bool {
	_, ok := v.([]any)
	return ok
}

// clusterID is the Magnum id of the observed ClusterV1, once it has one.
func clusterID(req *model.Request) string {
	c, err := observed(req, ResourceCluster, kindCluster)
	if err != nil || !c.exists() {
		return ""
	}
	return c.atProviderString("id")
}

// observedNodegroupClusterID is the cluster id an existing NodegroupV1 was created with.
func observedNodegroupClusterID(req *model.Request, g nodeGroup) string {
	n, err := observed(req, g.resourceName(), kindNodegroup)
	if err != nil || !n.exists() {
		return ""
	}
	id, _, _ := unstructured.NestedString(n.obj.Object, "spec", "forProvider", "clusterId")
	return id
}

// Observe reads the managed resources' Ready and Synced conditions, whose messages carry
// provider-openstack's and Magnum's own words, the API address and version, and the
// kubeconfig from the ClusterV1's connection details.
func (Backend) Observe(req *model.Request) (*model.Observation, error) {
	c, err := observed(req, ResourceCluster, kindCluster)
	if err != nil {
		return nil, err
	}
	groups := nodeGroups(req.Cluster.Spec.NodePools)
	obs := &model.Observation{ResourceReady: map[string]bool{}}
	var nodegroups []managed
	for _, g := range groups[1:] {
		n, err := observed(req, g.resourceName(), kindNodegroup)
		if err != nil {
			return nil, err
		}
		nodegroups = append(nodegroups, n)
		obs.ResourceReady[g.resourceName()] = ready(n)
	}
	obs.Status.NodePools = poolStatus(req, groups, c, nodegroups)

	if !c.exists() {
		obs.Status.Phase = kaasv1alpha1.PhaseProvisioning
		obs.Conditions = []model.Condition{{Type: kaasv1alpha1.ConditionBackendReady, Status: model.ConditionFalse,
			Reason: "Creating", Message: "the Magnum cluster does not exist yet"}}
		return obs, nil
	}
	clusterReady := ready(c)
	obs.ResourceReady[ResourceCluster] = clusterReady
	obs.Status.APIServerURL = c.atProviderString("apiAddress")
	if v := runningVersion(req.Environment, c); v != "" {
		obs.Status.Kubernetes = &kaasv1alpha1.KubernetesStatus{Version: v}
	}
	obs.Status.ControlPlane = &kaasv1alpha1.ControlPlaneStatus{Replicas: c.atProviderInt("masterCount")}
	if r := obs.Status.ControlPlane.Replicas; r != nil {
		obs.Status.ControlPlane.HighAvailability = *r > 1
	}

	if raw := req.Observed[ResourceCluster].ConnectionDetails[ConnectionKeyKubeconfig]; len(raw) > 0 {
		details, err := model.KubeconfigConnectionDetails(raw)
		if err != nil {
			return nil, fmt.Errorf("the kubeconfig provider-openstack published for ClusterV1 %s: %w", c.obj.GetName(), err)
		}
		obs.ConnectionDetails = details
	} else if obs.Status.APIServerURL != "" {
		obs.ConnectionDetails = map[string][]byte{model.ConnectionKeyEndpoint: []byte(obs.Status.APIServerURL)}
	}

	running := clusterReady
	cond := verdict(kindCluster, c)
	for i, g := range groups[1:] {
		n := nodegroups[i]
		if !n.exists() || !ready(n) {
			running = false
			if cond.Status == model.ConditionTrue {
				cond = verdict("NodegroupV1 "+g.magnumName(), n)
			}
		}
	}
	// Ready for the claim means usable: running, and the kubeconfig delivered.
	obs.Ready = running && obs.ConnectionDetails[model.ConnectionKeyKubeconfig] != nil
	obs.Conditions = []model.Condition{cond}
	obs.Status.Phase = phase(c, running)
	return obs, nil
}

func ready(m managed) bool {
	if !m.exists() {
		return false
	}
	r, _, _, _ := m.condition("Ready")
	s, _, _, foundSynced := m.condition("Synced")
	return r == "True" && (!foundSynced || s == "True")
}

// verdict explains a managed resource's state in the BackendReady condition: a failing
// Synced condition first (it carries Magnum's error), then Ready.
func verdict(what string, m managed) model.Condition {
	c := model.Condition{Type: kaasv1alpha1.ConditionBackendReady, Status: model.ConditionFalse}
	if !m.exists() {
		c.Reason, c.Message = "Creating", fmt.Sprintf("%s does not exist yet", what)
		return c
	}
	if s, reason, msg, found := m.condition("Synced"); found && s != "True" {
		c.Reason, c.Message = reason, model.Truncate(fmt.Sprintf("provider-openstack cannot apply %s: %s", what, msg))
		return c
	}
	r, reason, msg, found := m.condition("Ready")
	switch {
	case !found:
		c.Reason, c.Message = "Pending", fmt.Sprintf("provider-openstack has not reported on %s yet", what)
	case r != "True" && msg == "":
		c.Reason, c.Message = reason, fmt.Sprintf("%s is not ready yet (%s)", what, reason)
	case r != "True":
		c.Reason, c.Message = reason, model.Truncate(fmt.Sprintf("%s is not ready: %s", what, msg))
	default:
		c.Status, c.Reason, c.Message = model.ConditionTrue, "Available", "the Magnum cluster and its node groups are ready"
	}
	if c.Reason == "" {
		c.Reason = "NotReady"
	}
	return c
}

func phase(c managed, running bool) kaasv1alpha1.Phase {
	_, reason, _, _ := c.condition("Ready")
	synced, _, _, _ := c.condition("Synced")
	switch {
	case c.obj.GetDeletionTimestamp() != nil || reason == "Deleting":
		return kaasv1alpha1.PhaseDeleting
	case running:
		return kaasv1alpha1.PhaseReady
	case c.atProviderString("id") == "" || reason == "Creating":
		return kaasv1alpha1.PhaseProvisioning
	case synced == "False":
		return kaasv1alpha1.PhaseDegraded
	default:
		return kaasv1alpha1.PhaseUpdating
	}
}

// poolStatus reports each pool over its node groups, and why a node group is missing.
func poolStatus(req *model.Request, groups []nodeGroup, c managed, nodegroups []managed) []kaasv1alpha1.NodePoolStatus {
	var out []kaasv1alpha1.NodePoolStatus
	index := map[string]int{}
	for i, g := range groups {
		j, ok := index[g.pool.Name]
		if !ok {
			out = append(out, kaasv1alpha1.NodePoolStatus{Name: g.pool.Name, MachineType: g.pool.MachineType, Min: ptrTo[int32](0), Max: ptrTo[int32](0)})
			j = len(out) - 1
			index[g.pool.Name] = j
		}
		s := &out[j]
		if g.zone != "" {
			s.Zones = append(s.Zones, g.zone)
		}
		min, max := g.min, g.max
		if g.count != nil {
			min, max = *g.count, *g.count
		}
		*s.Min += min
		*s.Max += max
		var replicas *int32
		switch {
		case g.isDefault && c.exists():
			replicas = c.atProviderInt("nodeCount")
		case !g.isDefault && nodegroups[i-1].exists():
			replicas = nodegroups[i-1].atProviderInt("nodeCount")
		case !g.isDefault && clusterID(req) == "" && s.Pending == "":
			s.Pending = "waiting for the Magnum cluster's id: node groups are created once the cluster exists"
		}
		if replicas != nil {
			if s.Replicas == nil {
				s.Replicas = ptrTo[int32](0)
			}
			*s.Replicas += *replicas
		}
	}
	return out
}

// runningVersion is the Kubernetes version Magnum reports for the cluster (coeVersion), or,
// until it has reported one, the version of the template the ClusterV1 was applied with:
// what Magnum was asked to run, as Cluster API's topology version is for that backend.
func runningVersion(env *model.Environment, c managed) string {
	if v := strings.TrimPrefix(c.atProviderString("coeVersion"), "v"); v != "" {
		return v
	}
	id := appliedTemplateID(c)
	i := slices.IndexFunc(env.Magnum.Templates, func(t envv1alpha1.MagnumTemplate) bool { return id != "" && t.ID == id })
	if i < 0 {
		return ""
	}
	if v := strings.TrimPrefix(env.Magnum.Templates[i].KubeTag, "v"); v != "" {
		return v
	}
	return env.Magnum.Templates[i].KubernetesVersion
}

// appliedTemplateID is the cluster template the ClusterV1 was last applied with.
func appliedTemplateID(c managed) string {
	id, _, _ := unstructured.NestedString(c.obj.Object, "spec", "forProvider", "clusterTemplateId")
	return id
}
