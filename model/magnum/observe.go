package magnum

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	envv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/environment/v1alpha1"
	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/model"
)

// The reasons of provider-openstack's Ready condition that decide the phase, which are
// crossplane-runtime's (the model layer does not import it): read and compared, never written.
const (
	reasonCreating = "Creating"
	reasonDeleting = "Deleting"
)

// ReasonNotReady is the BackendReady reason when provider-openstack reports a managed
// resource not ready without a reason of its own.
const ReasonNotReady = "NotReady"

// state is what the backend read for one request: the managed resources as they exist.
type state struct {
	cluster    managed
	groups     map[string]managed // the observed NodegroupV1s by resource name
	kubeconfig map[string][]byte  // the cluster's kubeconfig as connection details, or nil
}

// group is the observed NodegroupV1 of a node group (not existing when not observed).
func (s *state) group(g nodeGroup) managed { return s.groups[g.resourceName()] }

// read decodes the observed ClusterV1 and NodegroupV1s once.
func read(req *model.Request) (*state, error) {
	s := &state{groups: map[string]managed{}}
	var err error
	if s.cluster, err = observed(req, ResourceCluster, kindCluster); err != nil {
		return nil, err
	}
	// In the order of the names: when several are unreadable, the error names the same
	// one on every call (the same request gives the same response).
	for _, name := range slices.Sorted(maps.Keys(req.Observed)) {
		if !strings.HasPrefix(name, resourceNodegroupPrefix) {
			continue
		}
		if s.groups[name], err = observed(req, name, kindNodegroup); err != nil {
			return nil, err
		}
	}
	if raw := req.Observed[ResourceCluster].ConnectionDetails[ConnectionKeyKubeconfig]; len(raw) > 0 {
		if s.kubeconfig, err = model.KubeconfigConnectionDetails(raw); err != nil {
			return nil, fmt.Errorf("the kubeconfig provider-openstack published for ClusterV1 %s: %w", s.cluster.obj.GetName(), err)
		}
	}
	return s, nil
}

// managed is the part of a provider-openstack managed resource the backend reads.
type managed struct {
	obj *unstructured.Unstructured
}

func (m managed) exists() bool { return m.obj != nil }

func (m managed) condition(t string) model.ObservedCondition { return model.ConditionOf(m.obj, t) }

func (m managed) forProviderString(field string) string {
	if m.obj == nil {
		return ""
	}
	v, _, _ := unstructured.NestedString(m.obj.Object, "spec", "forProvider", field)
	return v
}

func (m managed) atProvider(path ...string) (any, bool) {
	if m.obj == nil {
		return nil, false
	}
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
		return ptrTo(int32(min(max(n, 0), math.MaxInt32))) // #nosec G115 -- clamped just here
	case float64:
		return ptrTo(int32(min(max(n, 0), math.MaxInt32)))
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

// observe reads the managed resources' Ready and Synced conditions, whose messages carry
// provider-openstack's and Magnum's own words, the API address and version, and the
// kubeconfig from the ClusterV1's connection details.
func observe(req *model.Request, s *state) *model.Observation {
	c := s.cluster
	groups := nodeGroups(req.Cluster.Spec.NodePools)
	obs := &model.Observation{ResourceReady: map[string]bool{}}
	var nodegroups []managed
	for _, g := range groups[1:] {
		n := s.group(g)
		nodegroups = append(nodegroups, n)
		obs.ResourceReady[g.resourceName()] = ready(n)
	}
	obs.Status.NodePools = poolStatus(groups, c, nodegroups)

	if !c.exists() {
		obs.Status.Phase = kaasv1alpha1.PhaseProvisioning
		obs.Conditions = []model.Condition{model.NotCreated("the Magnum cluster", "")}
		return obs
	}
	clusterReady := ready(c)
	obs.ResourceReady[ResourceCluster] = clusterReady
	obs.Status.APIServerURL = c.atProviderString("apiAddress")
	if v := runningVersion(req.Environment, c); v != "" {
		obs.Status.Kubernetes = &kaasv1alpha1.KubernetesStatus{Version: v}
	}
	obs.Status.Access = accessInForce(c)
	obs.Status.ControlPlane = &kaasv1alpha1.ControlPlaneStatus{Replicas: c.atProviderInt("masterCount")}
	if r := obs.Status.ControlPlane.Replicas; r != nil {
		obs.Status.ControlPlane.HighAvailability = *r > 1
	}

	if s.kubeconfig != nil {
		obs.ConnectionDetails = s.kubeconfig
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
	return obs
}

func ready(m managed) bool {
	if !m.exists() {
		return false
	}
	r, s := m.condition(model.ManagedConditionReady), m.condition(model.ManagedConditionSynced)
	return r.Status == "True" && (!s.Found || s.Status == "True")
}

// verdict explains a managed resource's state in the BackendReady condition: a failing
// Synced condition first (it carries Magnum's error), then Ready.
func verdict(what string, m managed) model.Condition {
	c := model.Condition{Type: kaasv1alpha1.ConditionBackendReady, Status: model.ConditionFalse}
	if !m.exists() {
		c.Reason, c.Message = kaasv1alpha1.ReasonCreating, fmt.Sprintf("%s does not exist yet", what)
		return c
	}
	if s := m.condition(model.ManagedConditionSynced); s.Found && s.Status != "True" {
		c.Reason, c.Message = s.Reason, model.Truncate(fmt.Sprintf("provider-openstack cannot apply %s: %s", what, s.Message))
		return c
	}
	r := m.condition(model.ManagedConditionReady)
	switch {
	case !r.Found:
		c.Reason, c.Message = kaasv1alpha1.ReasonPending, fmt.Sprintf("provider-openstack has not reported on %s yet", what)
	case r.Status != "True" && r.Message == "":
		c.Reason, c.Message = r.Reason, fmt.Sprintf("%s is not ready yet (%s)", what, r.Reason)
	case r.Status != "True":
		c.Reason, c.Message = r.Reason, model.Truncate(fmt.Sprintf("%s is not ready: %s", what, r.Message))
	default:
		c.Status, c.Reason, c.Message = model.ConditionTrue, kaasv1alpha1.ReasonAvailable, "the Magnum cluster and its node groups are ready"
	}
	c.Reason = cmp.Or(c.Reason, ReasonNotReady)
	return c
}

func phase(c managed, running bool) kaasv1alpha1.Phase {
	reason := c.condition(model.ManagedConditionReady).Reason
	synced := c.condition(model.ManagedConditionSynced).Status
	switch {
	case c.obj.GetDeletionTimestamp() != nil || reason == reasonDeleting:
		return kaasv1alpha1.PhaseDeleting
	case running:
		return kaasv1alpha1.PhaseReady
	case c.atProviderString("id") == "" || reason == reasonCreating:
		return kaasv1alpha1.PhaseProvisioning
	case synced == "False":
		return kaasv1alpha1.PhaseDegraded
	default:
		return kaasv1alpha1.PhaseUpdating
	}
}

// poolStatus reports each pool over its node groups, and why a node group is missing.
func poolStatus(groups []nodeGroup, c managed, nodegroups []managed) []kaasv1alpha1.NodePoolStatus {
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
		case !g.isDefault && c.atProviderString("id") == "" && s.Pending == "":
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
	id := c.forProviderString("clusterTemplateId")
	i := slices.IndexFunc(env.Magnum.Templates, func(t envv1alpha1.MagnumTemplate) bool { return id != "" && t.ID == id })
	if i < 0 {
		return ""
	}
	if v := strings.TrimPrefix(env.Magnum.Templates[i].KubeTag, "v"); v != "" {
		return v
	}
	return env.Magnum.Templates[i].KubernetesVersion
}
