package clusterstack

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/model"
)

// readinessQuery makes the Object around a Cluster Ready when the Cluster is Available,
// or Ready for Cluster API versions that report v1beta1 conditions only.
const readinessQuery = `has(object.status) && has(object.status.conditions) && ` +
	`object.status.conditions.exists(c, (c.type == 'Available' || c.type == 'Ready') && c.status == 'True')`

// render returns the Cluster where the management cluster is and, for a remote one, what
// reads the releases and the kubeconfig there.
func render(req *model.Request, s *state) (*model.Rendering, error) {
	r := &model.Rendering{Unsupported: unsupportedFields(&req.Cluster.Spec)}
	r.Resources = append(s.mgmt.ListResources(releaseList(req)), s.mgmt.SecretResources(kubeconfigRead(req))...)
	if s.pending {
		return r, nil // the releases a new Cluster needs are still being observed
	}
	cluster, unsupported, err := buildCluster(req, s.rel)
	if err != nil {
		return nil, err
	}
	r.Unsupported = append(r.Unsupported, unsupported...)
	m, err := manifest(cluster)
	if err != nil {
		return nil, err
	}
	composed := s.mgmt.Compose(model.Native{Resource: ResourceCluster, Object: &unstructured.Unstructured{Object: m},
		Wrapper: objectName(req.NativeName), Readiness: readinessQuery})
	r.Resources = append([]model.Resource{composed}, r.Resources...)
	r.NativeRef = &kaasv1alpha1.ObjectReference{APIVersion: clusterAPIVersion, Kind: clusterKind, Namespace: cluster.Namespace, Name: cluster.Name}
	return r, nil
}

// resolveRelease decides the release to render; pending: the releases are unknown and no
// Cluster exists. An existing Cluster keeps its release until the releases are known again,
// so that a lost observation never removes a cluster from the desired state.
func resolveRelease(req *model.Request, rels []release, known bool, observed *clusterv1.Cluster) (release, bool, error) {
	spec := &req.Cluster.Spec
	if !known {
		if observed == nil {
			return release{}, true, nil
		}
		running := release{Class: observed.Spec.Topology.ClassRef.Name, KubernetesVersion: observed.Spec.Topology.Version}
		want, _ := model.ParseVersion(spec.Kubernetes.Version)
		have, err := model.ParseVersion(running.KubernetesVersion)
		if err != nil || !have.SameMinor(want) {
			return release{}, false, fmt.Errorf("the ClusterStackReleases of the management cluster are not observed yet, so Kubernetes %s cannot be resolved; the Cluster stays at %s", spec.Kubernetes.Version, running.KubernetesVersion)
		}
		return running, false, nil
	}
	running := ""
	if observed != nil {
		running = observed.Spec.Topology.ClassRef.Name
	}
	rel, err := chooseRelease(req.Environment.ClusterStack, rels, spec.Kubernetes.Version, *spec.Maintenance.AutoUpdate.KubernetesPatch, running)
	return rel, false, err
}

// unsupportedFields are portable fields set on the cluster that Cluster API cannot honour
// with these values; those it never honours are warned about from the capabilities.
func unsupportedFields(spec *kaasv1alpha1.ClusterSpec) []model.Unsupported {
	var out []model.Unsupported
	if spec.Network.CNI != "" && spec.Network.CNI != kaasv1alpha1.CNICilium {
		out = append(out, model.Unsupported{Field: "spec.network.cni",
			Reason: fmt.Sprintf("SCS Cluster Stacks ship Cilium; %s is not installed", spec.Network.CNI)})
	}
	return out
}

// manifest turns the typed Cluster into the plain object Crossplane composes, without the
// empty status and null creationTimestamp every typed object carries.
func manifest(c *clusterv1.Cluster) (map[string]any, error) {
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(c)
	if err != nil {
		return nil, fmt.Errorf("cannot encode Cluster %s: %w", c.Name, err)
	}
	delete(m, "status")
	if meta, ok := m["metadata"].(map[string]any); ok {
		delete(meta, "creationTimestamp")
	}
	return m, nil
}

// observedCluster is the Cluster as it exists, or nil.
func observedCluster(req *model.Request) (*clusterv1.Cluster, error) {
	u, err := req.Native(ResourceCluster)
	if err != nil || u == nil {
		return nil, err
	}
	if !strings.HasPrefix(u.GetAPIVersion(), "cluster.x-k8s.io/") || u.GetKind() != clusterKind {
		return nil, fmt.Errorf("observed resource %s is a %s %s, not a Cluster API Cluster", ResourceCluster, u.GetAPIVersion(), u.GetKind())
	}
	c := &clusterv1.Cluster{}
	if err := model.DecodeObserved(u.Object, c); err != nil {
		return nil, fmt.Errorf("cannot decode the observed Cluster %s/%s: %w", u.GetNamespace(), u.GetName(), err)
	}
	return c, nil
}
