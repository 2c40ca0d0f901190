package gardener

import (
	"fmt"

	gardencorev1beta1 "github.com/gardener/gardener/pkg/apis/core/v1beta1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	envv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/environment/v1alpha1"
	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/model"
	"github.com/SovereignCloudStack/scs-kaas/model/providerkubernetes"
)

// readinessQuery is the provider-kubernetes readiness rule for the Object around a Shoot:
// the same rule Observe applies, so that the Object's own Ready condition tells the truth to
// anyone looking at it. Every step is guarded with has(): the Shoot has no status at first.
const readinessQuery = `has(object.status) && has(object.status.lastOperation) && ` +
	`object.status.lastOperation.state == 'Succeeded' && has(object.status.observedGeneration) && ` +
	`object.status.observedGeneration == object.metadata.generation && has(object.status.conditions) && ` +
	`['APIServerAvailable', 'ControlPlaneHealthy', 'EveryNodeReady', 'SystemComponentsHealthy'].all(t, ` +
	`object.status.conditions.exists(c, c.type == t && c.status == 'True'))`

// Render returns the Shoot, wrapped in a provider-kubernetes Object unless the garden
// cluster is local.
func (Backend) Render(req *model.Request) (*model.Rendering, error) {
	observed, err := observedShoot(req)
	if err != nil {
		return nil, err
	}
	shoot, err := buildShoot(req, observed)
	if err != nil {
		return nil, err
	}
	m, err := manifest(shoot)
	if err != nil {
		return nil, err
	}

	var object *unstructured.Unstructured
	if local(req.Environment) {
		object = &unstructured.Unstructured{Object: m}
	} else {
		object = providerkubernetes.Wrap(m, providerkubernetes.WrapOptions{
			Name:               objectName(req.Cluster.Name),
			ProviderConfigName: req.Environment.Gardener.GardenCluster,
			Labels:             map[string]string{model.LabelCluster: req.Cluster.Name},
			ReadinessCelQuery:  readinessQuery,
			Orphan:             *req.Cluster.Spec.DeletionProtection,
		})
	}
	return &model.Rendering{
		Resources: []model.Resource{
			{Name: ResourceShoot, Object: object},
			{Name: ResourceKubeconfig, Object: adminKubeconfig(req, shoot.Namespace, shoot.Name)},
		},
		NativeRef:          &kaasv1alpha1.ObjectReference{APIVersion: shootAPIVersion, Kind: shootKind, Namespace: shoot.Namespace, Name: shoot.Name},
		EnvironmentChanges: environmentChanges(&req.Cluster.Spec, req.Environment, observed),
	}, nil
}

// objectName names the Object around a Shoot after the composite resource, which is
// immutable, so the name never changes.
func objectName(cluster string) string { return cluster + "-shoot" }

func local(env *model.Environment) bool {
	return env.Gardener.GardenCluster == envv1alpha1.LocalCluster
}

// observedShoot returns the Shoot as it exists in the garden cluster, or nil when it does
// not exist yet. Observed state that cannot be decoded is an error: rendering on a guess
// could change a live cluster.
func observedShoot(req *model.Request) (*gardencorev1beta1.Shoot, error) {
	v, err := req.Decoded(ResourceShoot, func() (any, error) { return decodeObservedShoot(req) })
	shoot, _ := v.(*gardencorev1beta1.Shoot)
	return shoot, err
}

func decodeObservedShoot(req *model.Request) (*gardencorev1beta1.Shoot, error) {
	res, ok := req.Observed[ResourceShoot]
	if !ok || res.Object == nil {
		return nil, nil
	}
	u := res.Object
	if providerkubernetes.IsObject(u) {
		var err error
		if u, err = providerkubernetes.Observed(u); err != nil || u == nil {
			return nil, err
		}
	}
	if u.GetAPIVersion() != shootAPIVersion || u.GetKind() != shootKind {
		return nil, fmt.Errorf("observed resource %s is a %s %s, not a Gardener Shoot", ResourceShoot, u.GetAPIVersion(), u.GetKind())
	}
	shoot := &gardencorev1beta1.Shoot{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, shoot); err != nil {
		return nil, fmt.Errorf("cannot decode the observed Shoot %s/%s: %w", u.GetNamespace(), u.GetName(), err)
	}
	return shoot, nil
}
