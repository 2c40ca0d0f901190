package clusterstack

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/SovereignCloudStack/scs-kaas/model"
)

// Lookout looks for the Cluster where the management cluster keeps the environment's
// Clusters: everything Import reads is in it.
func (Backend) Lookout(req *model.Request) []model.Resource {
	mgmt := management(req)
	cluster := &unstructured.Unstructured{Object: map[string]any{"apiVersion": clusterAPIVersion, "kind": clusterKind,
		"metadata": map[string]any{"name": req.NativeName, "namespace": mgmt.Namespace(req.Environment.ClusterStack.Namespace)}}}
	return []model.Resource{mgmt.Compose(model.Native{Resource: ResourceCluster, Object: cluster, Wrapper: objectName(req.NativeName)})}
}
