package model

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
)

// DefaultCNI is the network plugin when neither the cluster nor the environment names one:
// Cilium supports NetworkPolicy (scs-0219) and is what Cluster Stacks ship.
const DefaultCNI = kaasv1alpha1.CNICilium

// Default fills in what the spec leaves out: from the purpose (production turns on high
// availability and deletion protection), then from kept (status.defaulted), and only for
// what was never defaulted (a new cluster or pool) from the environment as it is now, so
// that an environment edit never reshapes a cluster. It never writes through its arguments.
func Default(in kaasv1alpha1.ClusterSpec, env *Environment, kept *kaasv1alpha1.DefaultedValues) kaasv1alpha1.ClusterSpec {
	out := in
	out.Purpose = cmp.Or(out.Purpose, kaasv1alpha1.PurposeDevelopment)
	out.Environment = cmp.Or(out.Environment, env.Name)
	production := out.Purpose == kaasv1alpha1.PurposeProduction
	out.ControlPlane.HighAvailability = cmp.Or(out.ControlPlane.HighAvailability, &production)
	out.DeletionProtection = cmp.Or(out.DeletionProtection, &production)

	out.Network = defaultNetwork(in.Network, env, kept)
	out.Maintenance = defaultMaintenance(in.Maintenance, in.Kubernetes.Version, maintenanceDefaults(env, kept))
	out.Access = defaultAccess(in.Access, accessDefaults(env, kept))

	out.NodePools = make([]kaasv1alpha1.NodePool, len(in.NodePools))
	for i, p := range in.NodePools {
		k, poolKept := keptPool(kept, p.Name)
		switch {
		case len(p.Zones) > 0:
		case poolKept && len(k.Zones) > 0:
			p.Zones = slices.Clone(k.Zones)
		default:
			p.Zones = defaultZones(&p, env.Catalog.Zones)
		}
		switch {
		case p.RootDiskGiB != nil:
		case poolKept:
			p.RootDiskGiB = k.RootDiskGiB
		default:
			p.RootDiskGiB = env.Defaults.RootDiskGiB
		}
		out.NodePools[i] = p
	}
	return out
}

// defaultZones are the zones of a new pool that names none: as many of the catalog's, in
// order, as it can have nodes (count or autoscaling max), else all: an empty zone is refused
// by Gardener for system pools and a node group of size zero elsewhere. Kept for the pool's
// life: a pool that grows later stays in its zones.
func defaultZones(pool *kaasv1alpha1.NodePool, offered []string) []string {
	var size int32
	switch {
	case pool.Count != nil:
		size = *pool.Count
	case pool.Autoscaling != nil:
		size = pool.Autoscaling.Max
	}
	if size > 0 && int(size) < len(offered) {
		return slices.Clone(offered[:size])
	}
	return slices.Clone(offered)
}

// defaultNetwork fills the network. Once a cluster has a record of its defaults, the record
// decides every range the spec leaves out, an empty one included: spec.network cannot lose a
// field once set, so a default the environment added since must not reach the cluster.
func defaultNetwork(in *kaasv1alpha1.NetworkSpec, env *Environment, kept *kaasv1alpha1.DefaultedValues) *kaasv1alpha1.NetworkSpec {
	out := kaasv1alpha1.NetworkSpec{}
	if in != nil {
		out = *in
	}
	d := kaasv1alpha1.DefaultedNetwork{PodCIDR: env.Defaults.Network.PodCIDR, ServiceCIDR: env.Defaults.Network.ServiceCIDR,
		NodeCIDR: env.Defaults.Network.NodeCIDR, CNI: env.Defaults.Network.CNI}
	d.CNI = cmp.Or(d.CNI, DefaultCNI)
	if kept != nil {
		d = kaasv1alpha1.DefaultedNetwork{}
		if kept.Network != nil {
			d = *kept.Network
		}
	}
	out.PodCIDR = cmp.Or(out.PodCIDR, d.PodCIDR)
	out.ServiceCIDR = cmp.Or(out.ServiceCIDR, d.ServiceCIDR)
	out.NodeCIDR = cmp.Or(out.NodeCIDR, d.NodeCIDR)
	out.CNI = cmp.Or(out.CNI, d.CNI)
	return &out
}

// keptPool returns the record of the pool named name. A name recorded twice (from a spec the
// API refuses) has none: the first pool's record would change what the second was given.
func keptPool(kept *kaasv1alpha1.DefaultedValues, name string) (kaasv1alpha1.DefaultedNodePool, bool) {
	if kept == nil {
		return kaasv1alpha1.DefaultedNodePool{}, false
	}
	var found kaasv1alpha1.DefaultedNodePool
	n := 0
	for _, p := range kept.NodePools {
		if p.Name == name {
			found, n = p, n+1
		}
	}
	return found, n == 1
}

// Defaulted records, for status.defaulted, what Default filled in of the network and, per
// pool, the zones and root disk. Never nil: an empty record still says that a default the
// environment adds later is not this cluster's.
func Defaulted(in, out *kaasv1alpha1.ClusterSpec) *kaasv1alpha1.DefaultedValues {
	rec := &kaasv1alpha1.DefaultedValues{}
	n := kaasv1alpha1.DefaultedNetwork{}
	given := kaasv1alpha1.NetworkSpec{}
	if in.Network != nil {
		given = *in.Network
	}
	if given.PodCIDR == "" {
		n.PodCIDR = out.Network.PodCIDR
	}
	if given.ServiceCIDR == "" {
		n.ServiceCIDR = out.Network.ServiceCIDR
	}
	if given.NodeCIDR == "" {
		n.NodeCIDR = out.Network.NodeCIDR
	}
	if given.CNI == "" {
		n.CNI = out.Network.CNI
	}
	if n != (kaasv1alpha1.DefaultedNetwork{}) {
		rec.Network = &n
	}
	for i, p := range in.NodePools {
		d := kaasv1alpha1.DefaultedNodePool{Name: p.Name}
		if len(p.Zones) == 0 {
			d.Zones = slices.Clone(out.NodePools[i].Zones)
		}
		if p.RootDiskGiB == nil {
			d.RootDiskGiB = out.NodePools[i].RootDiskGiB
		}
		if len(p.Zones) == 0 || p.RootDiskGiB == nil {
			rec.NodePools = append(rec.NodePools, d)
		}
	}
	return rec
}

// maintenanceDefaults are those recorded at the cluster's creation, else the environment's.
func maintenanceDefaults(env *Environment, kept *kaasv1alpha1.DefaultedValues) kaasv1alpha1.MaintenanceSpec {
	if kept != nil && kept.Maintenance != nil {
		return *kept.Maintenance
	}
	return env.Defaults.Maintenance
}

// maintenanceRecord is what the maintenance defaults gave the spec, for status.defaulted.
func maintenanceRecord(in *kaasv1alpha1.MaintenanceSpec, d kaasv1alpha1.MaintenanceSpec) *kaasv1alpha1.MaintenanceSpec {
	given := kaasv1alpha1.MaintenanceSpec{AutoUpdate: &kaasv1alpha1.AutoUpdate{}}
	if in != nil {
		given.Window = in.Window
		if in.AutoUpdate != nil {
			given.AutoUpdate = in.AutoUpdate
		}
	}
	out := &kaasv1alpha1.MaintenanceSpec{}
	if given.Window == nil {
		out.Window = d.Window.DeepCopy()
	}
	if d.AutoUpdate != nil && (given.AutoUpdate.KubernetesPatch == nil || given.AutoUpdate.MachineImage == nil) {
		out.AutoUpdate = &kaasv1alpha1.AutoUpdate{}
		if given.AutoUpdate.KubernetesPatch == nil {
			out.AutoUpdate.KubernetesPatch = d.AutoUpdate.KubernetesPatch
		}
		if given.AutoUpdate.MachineImage == nil {
			out.AutoUpdate.MachineImage = d.AutoUpdate.MachineImage
		}
	}
	return out
}

func defaultMaintenance(in *kaasv1alpha1.MaintenanceSpec, version string, d kaasv1alpha1.MaintenanceSpec) *kaasv1alpha1.MaintenanceSpec {
	out := kaasv1alpha1.MaintenanceSpec{}
	if in != nil {
		out = *in
	}
	out.Window = cmp.Or(out.Window, d.Window)
	au := kaasv1alpha1.AutoUpdate{}
	if out.AutoUpdate != nil {
		au = *out.AutoUpdate
	}
	if d.AutoUpdate != nil {
		au.KubernetesPatch = cmp.Or(au.KubernetesPatch, d.AutoUpdate.KubernetesPatch)
		au.MachineImage = cmp.Or(au.MachineImage, d.AutoUpdate.MachineImage)
	}
	// A pinned patch wins over automatic patch updates, or the backend would move the
	// cluster off the version the spec names.
	if v, err := ParseVersion(version); err == nil && v.HasPatch() {
		au.KubernetesPatch = ptrTo(false)
	} else {
		au.KubernetesPatch = cmp.Or(au.KubernetesPatch, ptrTo(true))
	}
	au.MachineImage = cmp.Or(au.MachineImage, ptrTo(true))
	out.AutoUpdate = &au
	return &out
}

func ptrTo[T any](v T) *T { return &v }

// explainDefaults adds to each refusal of a value the spec does not set the environment
// setting that filled it in: a team that never wrote it would not understand otherwise.
func explainDefaults(errs field.ErrorList, given *kaasv1alpha1.ClusterSpec, defaulted *kaasv1alpha1.DefaultedValues, env *Environment) field.ErrorList {
	sources := map[string]string{}
	if defaulted != nil && defaulted.Network != nil {
		n := defaulted.Network
		for f, v := range map[string]string{"podCIDR": n.PodCIDR, "serviceCIDR": n.ServiceCIDR, "nodeCIDR": n.NodeCIDR, "cni": string(n.CNI)} {
			if v != "" {
				sources["spec.network."+f] = "data.defaults.network." + f
			}
		}
	}
	for i, p := range given.NodePools {
		k, ok := keptPool(defaulted, p.Name)
		if !ok {
			continue
		}
		if len(k.Zones) > 0 {
			sources[fmt.Sprintf("spec.nodePools[%d].zones", i)] = "data.catalog.zones"
		}
		if k.RootDiskGiB != nil {
			sources[fmt.Sprintf("spec.nodePools[%d].rootDiskGiB", i)] = "data.defaults.rootDiskGiB"
		}
	}
	if (given.Maintenance == nil || given.Maintenance.Window == nil) && env.Defaults.Maintenance.Window != nil {
		sources["spec.maintenance.window"] = "data.defaults.maintenance.window"
	}
	out := make(field.ErrorList, 0, len(errs))
	paths := slices.Sorted(maps.Keys(sources)) // one order for every call
	for _, e := range errs {
		for _, path := range paths {
			setting := sources[path]
			if (e.Field == path || strings.HasPrefix(e.Field, path+".") || strings.HasPrefix(e.Field, path+"[")) && !strings.Contains(e.Detail, setting) {
				c := *e
				c.Detail += fmt.Sprintf(" (the spec does not set %s: environment %s filled it in from %s)", path, env.Name, setting)
				e = &c
				break
			}
		}
		out = append(out, e)
	}
	return out
}

// adoptDefaults is the record of defaults of a cluster that adopts its environment's
// values: maintenance and root disks taken anew where the backend can change them in place.
// The network and zones stay: no backend changes them in place.
func adoptDefaults(kept *kaasv1alpha1.DefaultedValues, env *Environment, caps Capabilities) *kaasv1alpha1.DefaultedValues {
	if kept == nil {
		return nil
	}
	out := kept.DeepCopy()
	if c, _ := caps.Capability(FieldMaintenanceWindow); c.Change.Effect != EffectRefused {
		out.Maintenance = nil
	}
	if c, _ := caps.Capability(FieldPoolRootDisk); c.Change.Effect != EffectRefused {
		for i := range out.NodePools {
			out.NodePools[i].RootDiskGiB = env.Defaults.RootDiskGiB
		}
	}
	return out
}
