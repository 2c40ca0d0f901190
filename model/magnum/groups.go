package magnum

import (
	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/model"
)

// nodeGroup is one Magnum node group: a pool in one zone. A Magnum node group cannot span
// zones, so a pool spreads over one node group per zone with its size divided between
// them, as on Cluster API.
type nodeGroup struct {
	pool      *kaasv1alpha1.NodePool
	poolIndex int // in spec.nodePools, for field paths
	zone      string
	count     *int32 // for fixed-size pools; min and max for autoscaled ones
	min, max  int32
	isDefault bool // the ClusterV1's own node group: the first pool's first zone
}

// resourceName is the composition resource name of a NodegroupV1.
func (g nodeGroup) resourceName() string { return resourceNodegroupPrefix + g.magnumName() }

// magnumName is the node group's name in Magnum: <pool>-<zone>, or <pool> without zones.
func (g nodeGroup) magnumName() string { return model.PoolZoneName(g.pool.Name, g.zone) }

// objectName is the NodegroupV1's Kubernetes name.
func (g nodeGroup) objectName(cluster string) string { return cluster + "-" + g.magnumName() }

// nodeCount is the size Magnum starts the group with.
func (g nodeGroup) nodeCount() int32 {
	if g.count != nil {
		return *g.count
	}
	return g.min
}

// nodeGroups spreads every pool over its zones.
func nodeGroups(pools []kaasv1alpha1.NodePool) []nodeGroup {
	var out []nodeGroup
	for i := range pools {
		p := &pools[i]
		zones := p.Zones
		if len(zones) == 0 {
			zones = []string{""}
		}
		for z, zone := range zones {
			g := nodeGroup{pool: p, poolIndex: i, zone: zone, isDefault: i == 0 && z == 0}
			if p.Count != nil {
				g.count = ptrTo(model.ZoneShare(*p.Count, len(zones), z))
			} else {
				g.min = model.ZoneShare(p.Autoscaling.Min, len(zones), z)
				g.max = model.ZoneShare(p.Autoscaling.Max, len(zones), z)
			}
			out = append(out, g)
		}
	}
	return out
}
