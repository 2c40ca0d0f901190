package clusterstack

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	envv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/environment/v1alpha1"
	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/model"
)

// Cluster API and Cluster Stack facts the rendering depends on.
const (
	// workerClass is the one worker class SCS Cluster Stacks define.
	workerClass = "default-worker"

	// Cluster autoscaler bounds, read from MachineDeployment annotations.
	annotationAutoscalerMin = "cluster.x-k8s.io/cluster-api-autoscaler-node-group-min-size"
	annotationAutoscalerMax = "cluster.x-k8s.io/cluster-api-autoscaler-node-group-max-size"

	// nodeLabelPrefix is where labels go that Cluster API must carry to the nodes.
	nodeLabelPrefix = "node.cluster.x-k8s.io/"
)

// nodeLabelDomains are the label prefixes Cluster API propagates from Machines to nodes.
var nodeLabelDomains = []string{"node-role.kubernetes.io/", "node-restriction.kubernetes.io/", nodeLabelPrefix}

// buildCluster translates the defaulted spec into a Cluster of the chosen release.
func buildCluster(req *model.Request, rel release) (*clusterv1.Cluster, []model.Unsupported, error) {
	spec := &req.Cluster.Spec
	cs := req.Environment.ClusterStack
	var unsupported []model.Unsupported

	c := &clusterv1.Cluster{}
	c.APIVersion, c.Kind = clusterAPIVersion, clusterKind
	c.Name, c.Namespace = req.NativeName, management(req).Namespace(cs.Namespace)
	c.Labels = map[string]string{}
	maps.Copy(c.Labels, cs.ClusterLabels)
	if spec.Network.PodCIDR != "" {
		c.Spec.ClusterNetwork.Pods.CIDRBlocks = []string{spec.Network.PodCIDR}
	}
	if spec.Network.ServiceCIDR != "" {
		c.Spec.ClusterNetwork.Services.CIDRBlocks = []string{spec.Network.ServiceCIDR}
	}

	replicas := int32(1)
	if *spec.ControlPlane.HighAvailability {
		replicas = 3
	}
	vars := newVariables(cs)
	if err := vars.setStatic(); err != nil {
		return nil, nil, err
	}
	if spec.Network.NodeCIDR != "" {
		if !vars.set(envv1alpha1.VariableNodeCIDR, spec.Network.NodeCIDR) {
			unsupported = append(unsupported, model.Unsupported{Field: "spec.network.nodeCIDR",
				Reason: "this Cluster Stack environment maps no topology variable to it (data.clusterStack.variableNames.nodeCIDR); the stack's default node network applies"})
		}
	}
	if *spec.ControlPlane.HighAvailability && len(req.Environment.Catalog.Zones) > 0 {
		// Spread the control plane over the environment's zones (SCS standard scs-0214).
		// Without a variable for it the stack places the three machines itself.
		vars.set(envv1alpha1.VariableControlPlaneAvailabilityZones, req.Environment.Catalog.Zones)
	}
	setAccess(req, vars)

	c.Spec.Topology = clusterv1.Topology{
		ClassRef:     classRef(rel.Class, c.Namespace, cs.Namespace),
		Version:      rel.KubernetesVersion,
		ControlPlane: clusterv1.ControlPlaneTopology{Replicas: &replicas},
		Variables:    vars.list(),
	}
	for _, p := range spec.NodePools {
		mds, u, err := machineDeployments(&p, cs)
		if err != nil {
			return nil, nil, err
		}
		c.Spec.Topology.Workers.MachineDeployments = append(c.Spec.Topology.Workers.MachineDeployments, mds...)
		unsupported = append(unsupported, u...)
	}
	return c, unsupported, nil
}

// machineDeployments spreads a pool over its zones, one MachineDeployment with its failure
// domain each. Autoscaled pools carry the autoscaler's bounds and no replicas, so that
// Cluster API and the autoscaler do not fight over the size.
func machineDeployments(p *kaasv1alpha1.NodePool, cs *envv1alpha1.ClusterStack) ([]clusterv1.MachineDeploymentTopology, []model.Unsupported, error) {
	var unsupported []model.Unsupported
	fp := fmt.Sprintf("spec.nodePools[%s]", p.Name)

	overrides := newVariables(cs)
	if !overrides.set(envv1alpha1.VariableWorkerFlavor, p.MachineType) {
		unsupported = append(unsupported, model.Unsupported{Field: fp + ".machineType",
			Reason: "this Cluster Stack environment maps no topology variable to it (data.clusterStack.variableNames.workerFlavor); the stack's default flavor applies"})
	}
	if p.RootDiskGiB != nil && !overrides.set(envv1alpha1.VariableWorkerRootDisk, *p.RootDiskGiB) {
		unsupported = append(unsupported, model.Unsupported{Field: fp + ".rootDiskGiB",
			Reason: "this Cluster Stack environment maps no topology variable to it (data.clusterStack.variableNames.workerRootDisk); the stack's default disk applies"})
	}

	labels, moved := nodeLabels(p.Labels)
	if labels == nil {
		labels = map[string]string{}
	}
	// The pool's name on its MachineDeployments and Machines lets Observe group them.
	labels[model.LabelNodePool] = p.Name
	if len(moved) > 0 {
		unsupported = append(unsupported, model.Unsupported{Field: fp + ".labels",
			Reason: fmt.Sprintf("Cluster API carries only node-role.kubernetes.io/, node-restriction.kubernetes.io/ and node.cluster.x-k8s.io/ labels to nodes; the nodes get %s instead", strings.Join(moved, ", "))})
	}
	var taints []clusterv1.MachineTaint
	if len(p.Taints) > 0 {
		if cs.TaintPropagation {
			for _, t := range p.Taints {
				taints = append(taints, clusterv1.MachineTaint{Key: t.Key, Value: t.Value, Effect: corev1.TaintEffect(t.Effect),
					Propagation: clusterv1.MachineTaintPropagationAlways})
			}
		} else {
			unsupported = append(unsupported, model.Unsupported{Field: fp + ".taints",
				Reason: "the management cluster does not run Cluster API with the MachineTaintPropagation feature gate (data.clusterStack.taintPropagation); the nodes get no taints"})
		}
	}

	zones := p.Zones
	out := make([]clusterv1.MachineDeploymentTopology, 0, len(zones))
	for i, z := range zones {
		md := clusterv1.MachineDeploymentTopology{
			Class:         workerClass,
			Name:          model.PoolZoneName(p.Name, z),
			FailureDomain: z,
			Metadata:      clusterv1.ObjectMeta{Labels: labels},
			Taints:        taints,
			Variables:     clusterv1.MachineDeploymentVariables{Overrides: overrides.list()},
		}
		if p.Count != nil {
			md.Replicas = ptrTo(model.ZoneShare(*p.Count, len(zones), i))
		} else {
			md.Metadata.Annotations = map[string]string{
				annotationAutoscalerMin: fmt.Sprint(model.ZoneShare(p.Autoscaling.Min, len(zones), i)),
				annotationAutoscalerMax: fmt.Sprint(model.ZoneShare(p.Autoscaling.Max, len(zones), i)),
			}
		}
		if p.MaxSurge != nil || p.MaxUnavailable != nil {
			md.Rollout.Strategy = clusterv1.MachineDeploymentTopologyRolloutStrategy{
				Type:          clusterv1.RollingUpdateMachineDeploymentStrategyType,
				RollingUpdate: clusterv1.MachineDeploymentTopologyRolloutStrategyRollingUpdate{MaxSurge: p.MaxSurge, MaxUnavailable: p.MaxUnavailable},
			}
		}
		out = append(out, md)
	}
	return out, unsupported, nil
}

// nodeLabels keeps labels that reach nodes and moves the others' name part under
// node.cluster.x-k8s.io/, saying what it did. Of two labels that would land on one key, the
// one there already, or else the first by name, keeps it: the same spec gives the same nodes.
func nodeLabels(in map[string]string) (map[string]string, []string) {
	if len(in) == 0 {
		return nil, nil
	}
	out := make(map[string]string, len(in))
	for k, v := range in {
		if hasNodeDomain(k) {
			out[k] = v
		}
	}
	var moved []string
	for _, k := range slices.Sorted(maps.Keys(in)) {
		if hasNodeDomain(k) {
			continue
		}
		nk := nodeLabelPrefix + k[strings.LastIndex(k, "/")+1:]
		if _, taken := out[nk]; taken {
			moved = append(moved, fmt.Sprintf("nothing for %s (%s is set already)", k, nk))
			continue
		}
		out[nk] = in[k]
		moved = append(moved, fmt.Sprintf("%s for %s", nk, k))
	}
	sort.Strings(moved)
	return out, moved
}

func hasNodeDomain(key string) bool {
	return slices.ContainsFunc(nodeLabelDomains, func(d string) bool { return strings.HasPrefix(key, d) })
}

// variables collects topology variables by the stack's names, in a stable order.
type variables struct {
	cs     *envv1alpha1.ClusterStack
	values map[string]apiextensionsv1.JSON
}

func newVariables(cs *envv1alpha1.ClusterStack) *variables {
	return &variables{cs: cs, values: map[string]apiextensionsv1.JSON{}}
}

// setStatic sets the environment's fixed variables.
func (v *variables) setStatic() error {
	for _, name := range slices.Sorted(maps.Keys(v.cs.Variables)) {
		raw := v.cs.Variables[name]
		if !json.Valid(raw) {
			return fmt.Errorf("data.clusterStack.variables.%s is not valid JSON", name)
		}
		v.values[name] = apiextensionsv1.JSON{Raw: raw}
	}
	return nil
}

// set sets the variable the environment maps the portable field to, if it maps one.
func (v *variables) set(portable string, value any) bool {
	name, ok := v.cs.VariableNames[portable]
	if !ok || name == "" {
		return false
	}
	raw, err := json.Marshal(value)
	if err != nil {
		return false
	}
	v.values[name] = apiextensionsv1.JSON{Raw: raw}
	return true
}

func (v *variables) list() []clusterv1.ClusterVariable {
	out := make([]clusterv1.ClusterVariable, 0, len(v.values))
	for _, n := range slices.Sorted(maps.Keys(v.values)) {
		out = append(out, clusterv1.ClusterVariable{Name: n, Value: v.values[n]})
	}
	return out
}

// classRef refers to the release's ClusterClass, across namespaces where the Cluster lives
// elsewhere (a namespaced composite's Cluster lives in its own namespace).
func classRef(class, clusterNamespace, classNamespace string) clusterv1.ClusterClassRef {
	ref := clusterv1.ClusterClassRef{Name: class}
	if clusterNamespace != classNamespace {
		ref.Namespace = classNamespace
	}
	return ref
}
