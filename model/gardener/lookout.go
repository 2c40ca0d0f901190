package gardener

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/SovereignCloudStack/scs-kaas/model"
)

// Lookout looks for the Shoot in the environment's project of the garden, and for its
// authentication ConfigMap, which Import reads the issuer from.
func (Backend) Lookout(req *model.Request) []model.Resource {
	garden := req.Place(req.Environment.Gardener.GardenCluster)
	ns := garden.Namespace(namespace(req.Environment))
	object := func(apiVersion, kind, name string) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{"apiVersion": apiVersion, "kind": kind,
			"metadata": map[string]any{"name": name, "namespace": ns}}}
	}
	return []model.Resource{
		garden.Compose(model.Native{Resource: ResourceShoot, Object: object(shootAPIVersion, shootKind, req.NativeName),
			Wrapper: objectName(req.NativeName)}),
		garden.Compose(model.Native{Resource: ResourceAuthentication, Object: object("v1", "ConfigMap", authenticationConfigMapName(req.NativeName)),
			Wrapper: authenticationConfigMapName(req.NativeName)}),
	}
}
