package gardener

import (
	"fmt"

	gardencorev1beta1 "github.com/gardener/gardener/pkg/apis/core/v1beta1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

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

// render returns the Shoot where the garden cluster is, and its AdminKubeconfig once the
// garden can issue one (kubeconfigDue).
func render(req *model.Request, observed *gardencorev1beta1.Shoot) (*model.Rendering, error) {
	shoot, err := buildShoot(req, observed)
	if err != nil {
		return nil, err
	}
	m, err := manifest(shoot)
	if err != nil {
		return nil, err
	}
	garden := req.Place(req.Environment.Gardener.GardenCluster)
	resources := []model.Resource{
		garden.Compose(model.Native{Resource: ResourceShoot, Object: &unstructured.Unstructured{Object: m},
			Wrapper: objectName(req.NativeName), Readiness: readinessQuery}),
	}
	// The ConfigMap goes with the first issuer and stays: Gardener protects a referenced
	// ConfigMap, and a cluster that stops signing people in keeps an empty one.
	existing, err := req.Native(ResourceAuthentication)
	if err != nil {
		return nil, model.Unreadable(err)
	}
	if req.Access.OIDC != nil || existing != nil || authenticationComposed(req) {
		obj, err := authenticationConfigMap(shoot.Namespace, shoot.Name, req.Access.OIDC)
		if err != nil {
			return nil, err
		}
		resources = append(resources, garden.Compose(model.Native{Resource: ResourceAuthentication, Object: obj,
			Wrapper: authenticationConfigMapName(req.NativeName)}))
	}
	if kubeconfigDue(req, observed) {
		resources = append(resources, adminKubeconfig(req, shoot.Namespace, shoot.Name))
	}
	return &model.Rendering{
		Resources:          resources,
		NativeRef:          &kaasv1alpha1.ObjectReference{APIVersion: shootAPIVersion, Kind: shootKind, Namespace: shoot.Namespace, Name: shoot.Name},
		EnvironmentChanges: environmentChanges(&req.Cluster.Spec, req.Environment, observed),
	}, nil
}

// objectName names the Object around a Shoot after the cluster's name, which never changes.
func objectName(cluster string) string { return cluster + "-shoot" }

// observedShoot is the Shoot as the garden cluster reports it, or nil.
func observedShoot(req *model.Request) (*gardencorev1beta1.Shoot, error) {
	u, err := req.Native(ResourceShoot)
	if err != nil || u == nil {
		return nil, err
	}
	if u.GetAPIVersion() != shootAPIVersion || u.GetKind() != shootKind {
		return nil, fmt.Errorf("observed resource %s is a %s %s, not a Gardener Shoot", ResourceShoot, u.GetAPIVersion(), u.GetKind())
	}
	shoot := &gardencorev1beta1.Shoot{}
	if err := model.DecodeObserved(u.Object, shoot); err != nil {
		return nil, fmt.Errorf("cannot decode the observed Shoot %s/%s: %w", u.GetNamespace(), u.GetName(), err)
	}
	return shoot, nil
}

// authenticationComposed says whether the ConfigMap is composed to write it, reported yet or
// not: a lookout that only observes it composes nothing.
func authenticationComposed(req *model.Request) bool {
	o := req.Observed[ResourceAuthentication].Object
	return o != nil && !providerkubernetes.IsObserveOnly(o)
}
