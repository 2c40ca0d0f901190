package magnum

import (
	"fmt"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	envv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/environment/v1alpha1"
	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/model"
)

// Render returns the ClusterV1 and the NodegroupV1s whose cluster id is known.
func (Backend) Render(req *model.Request) (*model.Rendering, error) {
	tpl, ok := template(req.Environment, req.Cluster.Spec.Kubernetes.Version)
	if !ok {
		return nil, fmt.Errorf("environment %s has no cluster template for Kubernetes %s", req.Environment.Name, req.Cluster.Spec.Kubernetes.Version)
	}
	groups := nodeGroups(req.Cluster.Spec.NodePools)
	r := &model.Rendering{Unsupported: unsupportedFields(req, tpl)}
	cluster := clusterV1(req, tpl, groups[0])
	r.Resources = append(r.Resources, model.Resource{Name: ResourceCluster, Object: cluster})
	r.NativeRef = &kaasv1alpha1.ObjectReference{APIVersion: cluster.GetAPIVersion(), Kind: kindCluster, Namespace: cluster.GetNamespace(), Name: cluster.GetName()}

	id := clusterID(req)
	for _, g := range groups[1:] {
		// An existing NodegroupV1 keeps the cluster id it was created with: clusterId is
		// ForceNew, and a cluster id missing from one observation must never drop it.
		gid := observedNodegroupClusterID(req, g)
		if gid == "" {
			gid = id
		}
		if gid == "" {
			continue
		}
		r.Resources = append(r.Resources, model.Resource{Name: g.resourceName(), Object: nodegroupV1(req, g, gid)})
	}
	return r, nil
}

// clusterV1 renders the cluster with its default node group (the first pool's first zone).
// Every label is ForceNew: the set is chosen so that usual changes do not touch it (the
// autoscaler is always enabled, fixed sizes go to nodeCount, not to labels).
func clusterV1(req *model.Request, tpl envv1alpha1.MagnumTemplate, def nodeGroup) *unstructured.Unstructured {
	spec := &req.Cluster.Spec
	env := req.Environment
	m := env.Magnum
	ha := *spec.ControlPlane.HighAvailability

	labels := map[string]any{labelAutoscaling: "true"}
	for k, v := range m.Labels {
		labels[k] = v
	}
	if def.zone != "" {
		labels[labelAvailabilityZone] = def.zone
	}
	if def.count == nil {
		labels[labelMinNodes] = fmt.Sprint(def.min)
		labels[labelMaxNodes] = fmt.Sprint(def.max)
	}
	if spec.Network.PodCIDR != "" && tpl.NetworkDriver == "calico" {
		labels[labelCalicoPool] = spec.Network.PodCIDR
	}
	if spec.Network.ServiceCIDR != "" {
		labels[labelServiceClusterIPs] = spec.Network.ServiceCIDR
	}

	masters := int64(1)
	if ha {
		masters = 3
	}
	fp := map[string]any{
		"name":              req.Cluster.Name,
		"region":            env.Region,
		"clusterTemplateId": tpl.ID,
		"flavor":            def.pool.MachineType,
		"masterCount":       masters,
		"masterLbEnabled":   ha || m.MasterLBEnabled,
		"labels":            labels,
		// Without merging, cluster labels replace the template's, kube_tag included.
		"mergeLabels": true,
	}
	setIf(fp, "keypair", m.Keypair)
	setIf(fp, "masterFlavor", m.MasterFlavor)
	setIf(fp, "fixedNetwork", m.FixedNetwork)
	setIf(fp, "fixedSubnet", m.FixedSubnet)
	if m.FloatingIPEnabled != nil {
		fp["floatingIpEnabled"] = *m.FloatingIPEnabled
	}
	if d := def.pool.RootDiskGiB; d != nil {
		fp["dockerVolumeSize"] = int64(*d)
	}
	spc := map[string]any{"forProvider": fp}
	// A fixed size is the desired size; an autoscaled pool only starts at its minimum and
	// the autoscaler owns nodeCount from then on.
	if def.count != nil {
		fp["nodeCount"] = int64(*def.count)
	} else {
		spc["initProvider"] = map[string]any{"nodeCount": int64(def.nodeCount())}
	}
	managedResourceSpec(req, spc, connectionSecretName(req.Cluster.Name))

	return object(req, kindCluster, clusterObjectName(req.Cluster.Name), spc,
		nil, map[string]string{AnnotationDefaultPool: def.pool.Name})
}

// nodegroupV1 renders a further node group.
func nodegroupV1(req *model.Request, g nodeGroup, clusterID string) *unstructured.Unstructured {
	fp := map[string]any{
		"clusterId": clusterID,
		"name":      g.magnumName(),
		"region":    req.Environment.Region,
		"flavorId":  g.pool.MachineType,
		"role":      "worker",
	}
	if g.zone != "" {
		fp["labels"] = map[string]any{labelAvailabilityZone: g.zone}
	}
	if d := g.pool.RootDiskGiB; d != nil {
		fp["dockerVolumeSize"] = int64(*d)
	}
	spc := map[string]any{"forProvider": fp}
	if g.count != nil {
		fp["nodeCount"] = int64(*g.count)
	} else {
		fp["minNodeCount"] = int64(g.min)
		fp["maxNodeCount"] = int64(g.max)
		spc["initProvider"] = map[string]any{"nodeCount": int64(g.nodeCount())}
	}
	managedResourceSpec(req, spc, "")
	// The pool label tells the model that removing the pool removes this node group.
	return object(req, kindNodegroup, g.objectName(req.Cluster.Name), spc,
		map[string]string{model.LabelNodePool: g.pool.Name}, nil)
}

// managedResourceSpec sets what every managed resource carries: the ProviderConfig, the
// connection secret, and how deletion protection holds (orphan the Magnum resources).
func managedResourceSpec(req *model.Request, spc map[string]any, secret string) {
	m := req.Environment.Magnum
	protect := *req.Cluster.Spec.DeletionProtection
	if namespaced(req.Environment) {
		ref := map[string]any{"name": m.ProviderConfigName}
		if m.ProviderConfigKind != "" {
			ref["kind"] = m.ProviderConfigKind
		}
		spc["providerConfigRef"] = ref
		if secret != "" {
			spc["writeConnectionSecretToRef"] = map[string]any{"name": secret}
		}
		// Namespaced managed resources have no deletionPolicy; leaving out Delete
		// orphans the Magnum resource.
		if protect {
			spc["managementPolicies"] = []any{"Observe", "Create", "Update", "LateInitialize"}
		}
		return
	}
	spc["providerConfigRef"] = map[string]any{"name": m.ProviderConfigName}
	if secret != "" {
		spc["writeConnectionSecretToRef"] = map[string]any{"name": secret, "namespace": req.Options.ConnectionSecretNamespace}
	}
	spc["deletionPolicy"] = "Delete"
	if protect {
		spc["deletionPolicy"] = "Orphan"
	}
}

func object(req *model.Request, kind, name string, spec map[string]any, labels, annotations map[string]string) *unstructured.Unstructured {
	l := map[string]any{model.LabelCluster: req.Cluster.Name}
	for k, v := range labels {
		l[k] = v
	}
	meta := map[string]any{"name": name, "labels": l}
	if namespaced(req.Environment) {
		meta["namespace"] = req.Environment.Magnum.Namespace
	}
	if len(annotations) > 0 {
		a := map[string]any{}
		for k, v := range annotations {
			a[k] = v
		}
		meta["annotations"] = a
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": apiVersion(req.Environment),
		"kind":       kind,
		"metadata":   meta,
		"spec":       spec,
	}}
}

// connectionSecretName is the Secret provider-openstack writes the kubeconfig to.
func connectionSecretName(cluster string) string { return cluster + "-magnum" }

func setIf(m map[string]any, k, v string) {
	if v != "" {
		m[k] = v
	}
}

// unsupportedFields are portable fields set on the cluster that Magnum cannot honour.
func unsupportedFields(req *model.Request, tpl envv1alpha1.MagnumTemplate) []model.Unsupported {
	spec := &req.Cluster.Spec
	var out []model.Unsupported
	if spec.Maintenance != nil && spec.Maintenance.Window != nil {
		out = append(out, model.Unsupported{Field: "spec.maintenance.window",
			Reason: "Magnum has no maintenance window; changes roll out when they are applied"})
	}
	if h := spec.Hibernation; h != nil && ((h.Enabled != nil && *h.Enabled) || len(h.Schedules) > 0) {
		out = append(out, model.Unsupported{Field: "spec.hibernation", Reason: "Magnum cannot hibernate a cluster; it keeps running"})
	}
	if spec.Network.CNI != "" && tpl.NetworkDriver != "" && string(spec.Network.CNI) != tpl.NetworkDriver {
		out = append(out, model.Unsupported{Field: "spec.network.cni",
			Reason: fmt.Sprintf("the cluster template for Kubernetes %s uses %s", tpl.KubernetesVersion, tpl.NetworkDriver)})
	}
	if spec.Network.PodCIDR != "" && tpl.NetworkDriver != "calico" {
		out = append(out, model.Unsupported{Field: "spec.network.podCIDR",
			Reason: fmt.Sprintf("Magnum takes a pod network only for calico (label calico_ipv4pool); the template uses %q", tpl.NetworkDriver)})
	}
	if spec.Network.NodeCIDR != "" {
		out = append(out, model.Unsupported{Field: "spec.network.nodeCIDR",
			Reason: "Magnum takes the node network from the cluster template or data.magnum.fixedNetwork"})
	}
	var tainted, labelled []string
	for _, p := range spec.NodePools {
		if len(p.Taints) > 0 {
			tainted = append(tainted, p.Name)
		}
		if len(p.Labels) > 0 {
			labelled = append(labelled, p.Name)
		}
		if p.MaxSurge != nil || p.MaxUnavailable != nil {
			out = append(out, model.Unsupported{Field: fmt.Sprintf("spec.nodePools[%s].maxSurge", p.Name),
				Reason: "Magnum has no rolling update settings per node group"})
		}
	}
	if w, ok := upgradeLeavesNodegroups(req, tpl); ok {
		out = append(out, w)
	}
	sort.Strings(tainted)
	sort.Strings(labelled)
	for _, p := range tainted {
		out = append(out, model.Unsupported{Field: fmt.Sprintf("spec.nodePools[%s].taints", p), Reason: "Magnum node groups cannot taint their nodes"})
	}
	for _, p := range labelled {
		out = append(out, model.Unsupported{Field: fmt.Sprintf("spec.nodePools[%s].labels", p), Reason: "Magnum node groups cannot label their nodes"})
	}
	return out
}

// upgradeLeavesNodegroups warns, while a change of minor moves the cluster to another
// template, that the pools beyond the first stay behind: Magnum's upgrade through
// provider-openstack covers the control plane and the default node group only, and a
// NodegroupV1 has no template or version to move.
func upgradeLeavesNodegroups(req *model.Request, tpl envv1alpha1.MagnumTemplate) (model.Unsupported, bool) {
	pools := req.Cluster.Spec.NodePools
	if len(pools) < 2 {
		return model.Unsupported{}, false
	}
	c, err := observed(req, ResourceCluster, kindCluster)
	if err != nil || !c.exists() {
		return model.Unsupported{}, false
	}
	if applied := appliedTemplateID(c); applied == "" || applied == tpl.ID {
		return model.Unsupported{}, false
	}
	names := make([]string, 0, len(pools)-1)
	for _, p := range pools[1:] {
		names = append(names, p.Name)
	}
	return model.Unsupported{Field: "spec.kubernetes.version", Reason: fmt.Sprintf(
		"Magnum upgrades the control plane and the default node group (pool %s) to Kubernetes %s; the node groups of pools %s keep the version they were created with (provider-openstack cannot upgrade them): recreate those pools under new names to move them",
		pools[0].Name, tpl.KubernetesVersion, strings.Join(names, ", "))}, true
}
