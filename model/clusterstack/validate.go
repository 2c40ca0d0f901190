package clusterstack

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	"github.com/SovereignCloudStack/scs-kaas/model"
)

// validate checks what the Cluster Stack operator and Cluster API restrict: a version with a
// ready release, no change of provider or stack, no move to another namespace (the model
// refuses a move to another management cluster for every composed resource).
func validate(req *model.Request, s *state) field.ErrorList {
	var errs field.ErrorList
	name := req.NativeName
	if msgs := validation.IsDNS1123Label(name); len(msgs) > 0 {
		errs = append(errs, field.Invalid(field.NewPath("metadata", "name"), name, "a Cluster API Cluster name must be a DNS label: "+strings.Join(msgs, "; ")))
	}
	if s.relErr != nil {
		errs = append(errs, field.Invalid(field.NewPath("spec", "kubernetes", "version"), req.Cluster.Spec.Kubernetes.Version, s.relErr.Error()))
	}
	errs = append(errs, validateAccess(req)...)
	observed := s.cluster
	if observed == nil {
		return errs
	}
	cs := req.Environment.ClusterStack
	env := req.Environment
	if class := observed.Spec.Topology.ClassRef.Name; !strings.HasPrefix(class, cs.Provider+"-"+cs.Stack+"-") {
		errs = append(errs, field.Forbidden(field.NewPath("data", "clusterStack", "stack"), fmt.Sprintf(
			"the Cluster runs ClusterClass %s, but environment %s (EnvironmentConfig %s) now names Cluster Stack %s/%s; the Cluster Stack operator forbids changing the provider or stack of a Cluster",
			class, env.Name, env.ConfigName, cs.Provider, cs.Stack)))
	}
	if want := s.mgmt.Namespace(cs.Namespace); observed.Namespace != want {
		errs = append(errs, field.Forbidden(field.NewPath("data", "clusterStack", "namespace"), fmt.Sprintf(
			"the Cluster lives in namespace %s, but environment %s (EnvironmentConfig %s) now names %s: that would create a second cluster",
			observed.Namespace, env.Name, env.ConfigName, want)))
	}
	for i, pool := range req.Cluster.Spec.NodePools {
		if running := observedZones(observed, pool.Name); len(running) > 0 && !model.SameSet(running, pool.Zones) {
			errs = append(errs, model.ZoneChangeRefused(i, pool.Name, running, pool.Zones, req.ZonesDefaulted(pool.Name)))
		}
	}
	sp := field.NewPath("spec", "network")
	n := observed.Spec.ClusterNetwork
	errs = append(errs, immutableCIDR(sp.Child("podCIDR"), req.Cluster.Spec.Network.PodCIDR, n.Pods.CIDRBlocks)...)
	errs = append(errs, immutableCIDR(sp.Child("serviceCIDR"), req.Cluster.Spec.Network.ServiceCIDR, n.Services.CIDRBlocks)...)
	return errs
}

// observedZones are the failure domains of a pool's MachineDeployments in the Cluster.
func observedZones(c *clusterv1.Cluster, pool string) []string {
	var zones []string
	for _, md := range c.Spec.Topology.Workers.MachineDeployments {
		if md.Metadata.Labels[model.LabelNodePool] == pool && md.FailureDomain != "" {
			zones = append(zones, md.FailureDomain)
		}
	}
	return zones
}

func immutableCIDR(p *field.Path, desired string, observed []string) field.ErrorList {
	if len(observed) == 0 || desired == "" || (len(observed) == 1 && observed[0] == desired) {
		return nil
	}
	return field.ErrorList{field.Forbidden(p, fmt.Sprintf(
		"the Cluster's network is %s; Cluster API cannot change it on an existing cluster (the spec asks for %s)", strings.Join(observed, ", "), desired))}
}
