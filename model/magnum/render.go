package magnum

import (
	"cmp"
	"fmt"
	"strings"

	envv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/environment/v1alpha1"
	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/model"
)

// render returns the ClusterV1 and the NodegroupV1s whose cluster id is known.
func render(req *model.Request, s *state, tpl envv1alpha1.MagnumTemplate) *model.Rendering {
	groups := nodeGroups(req.Cluster.Spec.NodePools)
	r := &model.Rendering{Unsupported: unsupportedFields(req, s, tpl)}
	cluster := clusterV1(req, tpl, groups[0])
	r.Resources = append(r.Resources, cluster)
	r.NativeRef = &kaasv1alpha1.ObjectReference{APIVersion: cluster.Object.GetAPIVersion(), Kind: kindCluster, Namespace: cluster.Object.GetNamespace(), Name: cluster.Object.GetName()}

	id := s.cluster.atProviderString("id")
	for _, g := range groups[1:] {
		// An existing NodegroupV1 keeps the cluster id it was created with: clusterId is
		// ForceNew, and a cluster id missing from one observation must never drop it.
		gid := s.group(g).forProviderString("clusterId")
		if gid == "" {
			gid = id
		}
		if gid == "" {
			continue
		}
		r.Resources = append(r.Resources, nodegroupV1(req, g, gid))
	}
	return r
}

// clusterV1 renders the cluster with its default node group (the first pool's first zone).
// Every label is ForceNew: the set is chosen so that usual changes do not touch it (the
// autoscaler is always enabled, fixed sizes go to nodeCount, not to labels).
func clusterV1(req *model.Request, tpl envv1alpha1.MagnumTemplate, def nodeGroup) model.Resource {
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
	for k, v := range accessLabels(req.Access) {
		labels[k] = v
	}

	masters := int64(1)
	if ha {
		masters = 3
	}
	fp := map[string]any{
		"name":              req.NativeName,
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
	return managedResource(req, ResourceCluster, kindCluster, clusterObjectName(req.NativeName), spc, connectionSecretName(req.NativeName),
		nil, map[string]string{AnnotationDefaultPool: def.pool.Name})
}

// nodegroupV1 renders a further node group.
func nodegroupV1(req *model.Request, g nodeGroup, clusterID string) model.Resource {
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
	// The pool label tells the model that removing the pool removes this node group.
	return managedResource(req, g.resourceName(), kindNodegroup, g.objectName(req.NativeName), spc, "",
		map[string]string{model.LabelNodePool: g.pool.Name}, nil)
}

// managedResource composes a provider-openstack managed resource of the environment's scope.
func managedResource(req *model.Request, resource, kind, name string, spec map[string]any, secret string, labels, annotations map[string]string) model.Resource {
	m := req.Environment.Magnum
	mr := model.Managed{
		Resource: resource, APIVersion: apiVersion(req.Environment), Kind: kind, Name: name,
		Labels: labels, Annotations: annotations, Spec: spec,
		ProviderConfig: m.ProviderConfigName, ConnectionSecret: secret,
	}
	switch {
	case req.Namespaced():
		// A namespaced composite's managed resources live in its namespace and use the
		// platform's ClusterProviderConfig, whatever the environment's scope says.
		mr.APIVersion, mr.Namespace = groupNamespaced+"/"+version, req.Cluster.Namespace
		mr.ProviderConfigKind = cmp.Or(m.ProviderConfigKind, "ClusterProviderConfig")
	case namespaced(req.Environment):
		mr.Namespace, mr.ProviderConfigKind = m.Namespace, m.ProviderConfigKind
	}
	return req.Managed(mr)
}

// connectionSecretName is the Secret provider-openstack writes the kubeconfig to.
func connectionSecretName(cluster string) string { return cluster + "-magnum" }

func setIf(m map[string]any, k, v string) {
	if v != "" {
		m[k] = v
	}
}

// unsupportedFields are portable fields Magnum cannot honour with these values and this
// template; those it never honours are warned about from the capabilities.
func unsupportedFields(req *model.Request, s *state, tpl envv1alpha1.MagnumTemplate) []model.Unsupported {
	spec := &req.Cluster.Spec
	var out []model.Unsupported
	if spec.Network.CNI != "" && tpl.NetworkDriver != "" && string(spec.Network.CNI) != tpl.NetworkDriver {
		out = append(out, model.Unsupported{Field: "spec.network.cni",
			Reason: fmt.Sprintf("the cluster template for Kubernetes %s uses %s", tpl.KubernetesVersion, tpl.NetworkDriver)})
	}
	if spec.Network.PodCIDR != "" && tpl.NetworkDriver != "calico" {
		out = append(out, model.Unsupported{Field: "spec.network.podCIDR",
			Reason: fmt.Sprintf("Magnum takes a pod network only for calico (label calico_ipv4pool); the template uses %q", tpl.NetworkDriver)})
	}
	if w, ok := upgradeLeavesNodegroups(req, s, tpl); ok {
		out = append(out, w)
	}
	return out
}

// upgradeLeavesNodegroups warns, while a new minor moves the cluster to another template,
// that the further pools stay behind: Magnum's upgrade through provider-openstack covers the
// control plane and the default node group only; a NodegroupV1 has no template or version.
func upgradeLeavesNodegroups(req *model.Request, s *state, tpl envv1alpha1.MagnumTemplate) (model.Unsupported, bool) {
	pools := req.Cluster.Spec.NodePools
	if len(pools) < 2 || !s.cluster.exists() {
		return model.Unsupported{}, false
	}
	if applied := s.cluster.forProviderString("clusterTemplateId"); applied == "" || applied == tpl.ID {
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
