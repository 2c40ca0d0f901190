package gardener

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	gardencorev1beta1 "github.com/gardener/gardener/pkg/apis/core/v1beta1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/SovereignCloudStack/scs-kaas/model"
)

// MaxProjectAndShootName is what Gardener allows for project and Shoot name together: it
// derives the Shoot's technical ID from both.
const MaxProjectAndShootName = 21

// validate checks Gardener's own restrictions, and refuses changes that Gardener cannot make
// in place given the Shoot as it exists (nil: none yet).
func validate(req *model.Request, observed *gardencorev1beta1.Shoot) field.ErrorList {
	var errs field.ErrorList
	spec := req.Cluster.Spec
	sp := field.NewPath("spec")
	name := req.NativeName
	project := req.Environment.Gardener.Project

	if n := len(project) + len(name); n > MaxProjectAndShootName {
		// Only a cluster built before names were derived (see model.NativeName) can have
		// a name this long: it keeps it, and Gardener refuses it in this project.
		errs = append(errs, field.Invalid(field.NewPath("metadata", "name"), name, fmt.Sprintf(
			"Gardener allows %d characters for project and Shoot name together; project %q has %d, and the cluster's Shoot name %q has %d",
			MaxProjectAndShootName, project, len(project), name, len(name))))
	}
	if strings.Contains(name, "--") {
		errs = append(errs, field.Invalid(field.NewPath("metadata", "name"), name, "Gardener does not allow '--' in Shoot names"))
	}
	if spec.Network.NodeCIDR == "" {
		errs = append(errs, field.Required(sp.Child("network", "nodeCIDR"),
			"Gardener on OpenStack needs the node network; set it, or ask the platform team to set data.defaults.network.nodeCIDR in the environment"))
	}
	errs = append(errs, validateSystemComponentPools(req)...)
	garden := req.Place(req.Environment.Gardener.GardenCluster)
	if ns := namespace(req.Environment); garden.Namespace(ns) != ns {
		errs = append(errs, field.Forbidden(field.NewPath("data", "gardener", "gardenCluster"), fmt.Sprintf(
			"environment %s composes Shoots in the garden Crossplane runs in (local), where they live in the project's namespace %s; a namespaced SCSCluster composes only in its own namespace %s: name a provider-kubernetes ClusterProviderConfig of the garden in gardenCluster, or create the SCSCluster in %s",
			req.Environment.Name, ns, req.Cluster.Namespace, ns)))
	}
	if observed == nil {
		return errs
	}
	return append(errs, validateUpdate(req, observed)...)
}

// validateSystemComponentPools mirrors Gardener's rule for pools that run system
// components: at least one pool must be able to have nodes, and among pools that spread
// over the same zones at least one must be allowed a node in each of them.
func validateSystemComponentPools(req *model.Request) field.ErrorList {
	p := field.NewPath("spec", "nodePools")
	var errs field.ErrorList
	sufficient := map[string]bool{}
	firstInsufficient := map[string]int{}
	active := false
	for i, pool := range req.Cluster.Spec.NodePools {
		_, max := poolBounds(&pool)
		if max == 0 {
			continue
		}
		active = true
		key := strings.Join(slices.Compact(slices.Sorted(slices.Values(pool.Zones))), ",")
		if int(max) >= len(pool.Zones) {
			sufficient[key] = true
			continue
		}
		if _, seen := firstInsufficient[key]; !seen {
			firstInsufficient[key] = i
		}
	}
	if !active {
		errs = append(errs, field.Invalid(p, len(req.Cluster.Spec.NodePools), "Gardener needs at least one node pool that can have nodes (count or autoscaling.max above 0)"))
	}
	for _, k := range slices.Sorted(maps.Keys(firstInsufficient)) {
		if sufficient[k] {
			continue
		}
		i := firstInsufficient[k]
		pool := req.Cluster.Spec.NodePools[i]
		fp := p.Index(i).Child("autoscaling", "max")
		if pool.Count != nil {
			fp = p.Index(i).Child("count")
		}
		_, max := poolBounds(&pool)
		errs = append(errs, field.Invalid(fp, max, fmt.Sprintf(
			"Gardener needs at least one node per zone in pools that run system components; the pool spreads over %d zones (%s)", len(pool.Zones), k)))
	}
	return errs
}

// validateUpdate refuses, by the portable field, what Gardener would reject or replace.
func validateUpdate(req *model.Request, observed *gardencorev1beta1.Shoot) field.ErrorList {
	var errs field.ErrorList
	spec := req.Cluster.Spec
	sp := field.NewPath("spec")
	env := req.Environment

	if observed.Namespace != namespace(env) {
		errs = append(errs, field.Forbidden(field.NewPath("data", "gardener", "project"), fmt.Sprintf(
			"the Shoot lives in garden namespace %s but environment %s (EnvironmentConfig %s) now names namespace %s: that would create a second cluster; restore the project",
			observed.Namespace, env.Name, env.ConfigName, namespace(env))))
	}
	if observed.Spec.Region != env.Region {
		errs = append(errs, field.Forbidden(field.NewPath("data", "region"), fmt.Sprintf(
			"the Shoot runs in region %s but environment %s (EnvironmentConfig %s) now names region %s; Gardener cannot move a cluster to another region",
			observed.Spec.Region, env.Name, env.ConfigName, env.Region)))
	}
	if observedFailureTolerance(observed) != "" && !*spec.ControlPlane.HighAvailability {
		errs = append(errs, field.Forbidden(sp.Child("controlPlane", "highAvailability"),
			"Gardener cannot turn off a highly available control plane once it is on; set it back to true"))
	}
	if n := observed.Spec.Networking; n != nil {
		np := sp.Child("network")
		errs = append(errs, immutable(np.Child("cni"), string(spec.Network.CNI), deref(n.Type))...)
		errs = append(errs, immutable(np.Child("podCIDR"), spec.Network.PodCIDR, deref(n.Pods))...)
		errs = append(errs, immutable(np.Child("serviceCIDR"), spec.Network.ServiceCIDR, deref(n.Services))...)
		errs = append(errs, immutable(np.Child("nodeCIDR"), spec.Network.NodeCIDR, deref(n.Nodes))...)
	}
	for i, pool := range spec.NodePools {
		w := observedWorker(observed, pool.Name)
		if w == nil {
			continue
		}
		if !model.SameSet(pool.Zones, w.Zones) {
			errs = append(errs, model.ZoneChangeRefused(i, pool.Name, w.Zones, pool.Zones, req.ZonesDefaulted(pool.Name)))
		}
	}
	return errs
}

// immutable refuses a change of a field that Gardener keeps from the start. An empty
// observed value was defaulted by Gardener later, and an empty desired value leaves it so.
func immutable(p *field.Path, desired, observed string) field.ErrorList {
	if desired == "" || observed == "" || desired == observed {
		return nil
	}
	return field.ErrorList{field.Forbidden(p, fmt.Sprintf(
		"Gardener cannot change this on an existing cluster (it is %s, the spec asks for %s); changing it would need a new cluster", observed, desired))}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
