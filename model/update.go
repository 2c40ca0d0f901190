package model

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
)

// ValidateUpgrade refuses a version the running cluster cannot move to: a lower minor, or
// more than one minor up. The API server checks the same against the previous spec; this
// checks against what actually runs, which can lag behind the spec.
func ValidateUpgrade(spec *kaasv1alpha1.ClusterSpec, running *kaasv1alpha1.KubernetesStatus) field.ErrorList {
	if running == nil || running.Version == "" {
		return nil
	}
	have, err := ParseVersion(running.Version)
	if err != nil {
		return nil
	}
	want, err := ParseVersion(spec.Kubernetes.Version)
	if err != nil {
		return nil
	}
	p := field.NewPath("spec", "kubernetes", "version")
	switch {
	case want.Major != have.Major || want.Minor < have.Minor:
		return field.ErrorList{field.Forbidden(p, fmt.Sprintf("the cluster runs %s; downgrading to %s is not supported", running.Version, spec.Kubernetes.Version))}
	case want.Minor > have.Minor+1:
		return field.ErrorList{field.Forbidden(p, fmt.Sprintf("the cluster runs %s; upgrade one minor at a time (next: %d.%d), not to %s", running.Version, have.Major, have.Minor+1, spec.Kubernetes.Version))}
	case want.HasPatch() && have.HasPatch() && want.SameMinor(have) && want.Patch < have.Patch:
		return field.ErrorList{field.Forbidden(p, fmt.Sprintf("the cluster runs %s; downgrading to %s is not supported", running.Version, spec.Kubernetes.Version))}
	}
	return nil
}

// ValidateZonesKept refuses a change of the zones of a node pool that exists (one the
// cluster's status reports with zones). Removing a zone would delete that zone's nodes as
// a side effect, and no backend adds a zone to a pool in place on every platform; the
// portable way is a new pool in the other zones. spec is the defaulted spec, defaulted the
// record of what the environment filled in, current the status as last written.
func ValidateZonesKept(spec *kaasv1alpha1.ClusterSpec, defaulted *kaasv1alpha1.DefaultedValues, current *kaasv1alpha1.ClusterStatus) field.ErrorList {
	if current == nil {
		return nil
	}
	var errs field.ErrorList
	for i, pool := range spec.NodePools {
		has := existing{current}.pool(pool.Name)
		if has == nil || len(has.Zones) == 0 || SameSet(has.Zones, pool.Zones) {
			continue
		}
		k, ok := keptPool(defaulted, pool.Name)
		errs = append(errs, ZoneChangeRefused(i, pool.Name, has.Zones, pool.Zones, ok && len(k.Zones) > 0))
	}
	return errs
}

// ZoneChangeRefused is the refusal of a change of an existing pool's zones, the same on every
// backend: running are the zones the pool runs in, asked those of the spec, and defaulted
// says the spec names none, so they came from the environment.
func ZoneChangeRefused(index int, pool string, running, asked []string, defaulted bool) *field.Error {
	msg := fmt.Sprintf("the zones of an existing node pool cannot change (pool %s runs in %s; the spec asks for %s): removing a zone would delete its nodes and adding one cannot be done in place on every backend; add a new pool for other zones and remove this one when it is empty",
		pool, strings.Join(running, ", "), strings.Join(asked, ", "))
	if defaulted {
		msg += fmt.Sprintf("; the spec names no zones, so they came from the environment's data.catalog.zones, which changed: set the pool's zones to %s to keep them", strings.Join(running, ", "))
	}
	return field.Forbidden(field.NewPath("spec", "nodePools").Index(index).Child("zones"), msg)
}

// EnvironmentChanges lists what the cluster keeps although its environment now offers or
// defaults something else: the message of the EnvironmentUpToDate condition. spec is the
// defaulted spec and kept the record of what the environment defaulted for it.
func EnvironmentChanges(spec *kaasv1alpha1.ClusterSpec, env *Environment, kept *kaasv1alpha1.DefaultedValues) []string {
	// A minor no longer offered is the VersionSupported condition's (versionCondition).
	var out []string
	if kept != nil && kept.Network != nil {
		d := env.Defaults.Network
		n := kept.Network
		for _, c := range []struct{ name, kept, now string }{
			{"podCIDR", n.PodCIDR, d.PodCIDR}, {"serviceCIDR", n.ServiceCIDR, d.ServiceCIDR},
			{"nodeCIDR", n.NodeCIDR, d.NodeCIDR}, {"cni", string(n.CNI), string(d.CNI)},
		} {
			if c.kept != "" && c.now != "" && c.kept != c.now {
				out = append(out, fmt.Sprintf("spec.network.%s: keeps %s from the cluster's creation; the environment now defaults to %s (data.defaults.network.%s)", c.name, c.kept, c.now, c.name))
			}
		}
	}
	for i, p := range spec.NodePools {
		fp := fmt.Sprintf("spec.nodePools[%d]", i)
		if len(env.Catalog.MachineTypes) > 0 && !slices.Contains(env.Catalog.MachineTypes, p.MachineType) {
			out = append(out, fmt.Sprintf("%s.machineType: %s is no longer offered (data.catalog.machineTypes); pool %s keeps it", fp, p.MachineType, p.Name))
		}
		k, ok := keptPool(kept, p.Name)
		switch {
		case ok && len(k.Zones) > 0 && len(env.Catalog.Zones) > 0 && !SameSet(k.Zones, defaultZones(&p, env.Catalog.Zones)):
			out = append(out, fmt.Sprintf("%s.zones: pool %s keeps %s from its creation; a new pool of its size would get %s (data.catalog.zones)", fp, p.Name, strings.Join(k.Zones, ", "), strings.Join(defaultZones(&p, env.Catalog.Zones), ", ")))
		case len(env.Catalog.Zones) > 0:
			var gone []string
			for _, z := range p.Zones {
				if !slices.Contains(env.Catalog.Zones, z) {
					gone = append(gone, z)
				}
			}
			if len(gone) > 0 {
				out = append(out, fmt.Sprintf("%s.zones: %s no longer offered (data.catalog.zones); pool %s keeps running there", fp, strings.Join(gone, ", ")+verb(len(gone)), p.Name))
			}
		}
		if ok && k.RootDiskGiB != nil && env.Defaults.RootDiskGiB != nil && *k.RootDiskGiB != *env.Defaults.RootDiskGiB {
			out = append(out, fmt.Sprintf("%s.rootDiskGiB: pool %s keeps %d from its creation; the environment now defaults to %d (data.defaults.rootDiskGiB)", fp, p.Name, *k.RootDiskGiB, *env.Defaults.RootDiskGiB))
		}
	}
	return out
}

func verb(n int) string {
	if n == 1 {
		return " is"
	}
	return " are"
}

// SameSet says whether a and b hold the same strings, in any order (zones are sets).
func SameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}

// explainDefaults adds, to each refusal of a value the spec does not set, where the value
// came from: the environment setting that filled it in. A team that never wrote a zone or a
// network range would not understand a refusal of it otherwise.
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
