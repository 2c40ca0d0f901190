package magnum

import (
	"github.com/SovereignCloudStack/scs-kaas/model"
)

// Lookout looks for the ClusterV1's Magnum cluster. provider-openstack finds one only by
// its UUID, the external name a cluster remembers (status.backend.externalNames), which
// Reconcile gives it: a cluster that remembers none is looked for nowhere, and created.
func (Backend) Lookout(req *model.Request) []model.Resource {
	return []model.Resource{managedResource(req, ResourceCluster, kindCluster, clusterObjectName(req.NativeName),
		map[string]any{"forProvider": map[string]any{}}, connectionSecretName(req.NativeName), nil, nil)}
}
