package model

import (
	"slices"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
)

// DefaultCNI is the network plugin when neither the cluster nor the environment names one.
// Cilium supports NetworkPolicy (SCS standard scs-0219) and is what Cluster Stacks ship.
const DefaultCNI = kaasv1alpha1.CNICilium

// Default returns the spec with every field the cluster leaves out filled in: from the
// purpose (production turns on a highly available control plane and deletion protection),
// then from the environment's defaults and catalog. The input is not modified: Default never
// writes through a pointer or slice of its argument.
func Default(in kaasv1alpha1.ClusterSpec, env *Environment) kaasv1alpha1.ClusterSpec {
	out := in
	if out.Purpose == "" {
		out.Purpose = kaasv1alpha1.PurposeDevelopment
	}
	if out.Environment == "" {
		out.Environment = env.Name
	}
	production := out.Purpose == kaasv1alpha1.PurposeProduction
	if out.ControlPlane.HighAvailability == nil {
		out.ControlPlane.HighAvailability = &production
	}
	if out.DeletionProtection == nil {
		out.DeletionProtection = &production
	}

	out.Network = defaultNetwork(in.Network, env)
	out.Maintenance = defaultMaintenance(in.Maintenance, in.Kubernetes.Version, env)

	out.NodePools = make([]kaasv1alpha1.NodePool, len(in.NodePools))
	for i, p := range in.NodePools {
		if len(p.Zones) == 0 {
			p.Zones = slices.Clone(env.Catalog.Zones)
		}
		if p.RootDiskGiB == nil {
			p.RootDiskGiB = env.Defaults.RootDiskGiB
		}
		out.NodePools[i] = p
	}
	return out
}

func defaultNetwork(in *kaasv1alpha1.NetworkSpec, env *Environment) *kaasv1alpha1.NetworkSpec {
	out := kaasv1alpha1.NetworkSpec{}
	if in != nil {
		out = *in
	}
	d := env.Defaults.Network
	if out.PodCIDR == "" {
		out.PodCIDR = d.PodCIDR
	}
	if out.ServiceCIDR == "" {
		out.ServiceCIDR = d.ServiceCIDR
	}
	if out.NodeCIDR == "" {
		out.NodeCIDR = d.NodeCIDR
	}
	if out.CNI == "" {
		out.CNI = d.CNI
	}
	if out.CNI == "" {
		out.CNI = DefaultCNI
	}
	return &out
}

func defaultMaintenance(in *kaasv1alpha1.MaintenanceSpec, version string, env *Environment) *kaasv1alpha1.MaintenanceSpec {
	out := kaasv1alpha1.MaintenanceSpec{}
	if in != nil {
		out = *in
	}
	d := env.Defaults.Maintenance
	if out.Window == nil {
		out.Window = d.Window
	}
	au := kaasv1alpha1.AutoUpdate{}
	if out.AutoUpdate != nil {
		au = *out.AutoUpdate
	}
	if d.AutoUpdate != nil {
		if au.KubernetesPatch == nil {
			au.KubernetesPatch = d.AutoUpdate.KubernetesPatch
		}
		if au.MachineImage == nil {
			au.MachineImage = d.AutoUpdate.MachineImage
		}
	}
	// A pinned patch and automatic patch updates contradict each other: the pin wins, or
	// the backend would move the cluster off the version the spec names.
	pinned := false
	if v, err := ParseVersion(version); err == nil && v.HasPatch() {
		pinned = true
	}
	if pinned {
		au.KubernetesPatch = ptrTo(false)
	} else if au.KubernetesPatch == nil {
		au.KubernetesPatch = ptrTo(true)
	}
	if au.MachineImage == nil {
		au.MachineImage = ptrTo(true)
	}
	out.AutoUpdate = &au
	return &out
}

func ptrTo[T any](v T) *T { return &v }
