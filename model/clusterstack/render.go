package clusterstack

import (
	"fmt"
	"sort"
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
	autoPatch := *spec.Maintenance.AutoUpdate.KubernetesPatch
	rel, err := chooseRelease(req.Environment.ClusterStack, rels, spec.Kubernetes.Version, autoPatch, running)
	if err != nil || !autoPatch {
		return rel, false, err
	}
	// A newer release of the minor the Cluster runs is the cluster's own update: it starts
	// in the cluster's maintenance window. Another minor is the team's edit, applied at once.
	current, ok := currentRelease(req, rels, observed)
	if !ok || current.Class == rel.Class {
		return rel, false, nil
	}
	have, err := model.ParseVersion(current.KubernetesVersion)
	if err != nil || !have.SameMinor(rel.Minor) {
		return rel, false, nil
	}
	if !newerRelease(rel, current, have) {
		// The release the cluster runs was withdrawn (not ready, removed): the cluster keeps
		// it rather than going back on its own; the fix comes as a newer release.
		return current, false, nil
	}
	from, to := current.KubernetesVersion, rel.KubernetesVersion
	if from == to {
		from, to = current.Class, rel.Class // another release of the same patch: its images
	}
	if req.Maintenance.MayStart(kaasv1alpha1.UpdateKubernetesPatch, from, to) {
		return rel, false, nil
	}
	return current, false, nil
}

// newerRelease says whether rel is newer than current (which runs have): a newer patch, or
// the same patch from a newer stack version.
func newerRelease(rel, current release, have model.Version) bool {
	want, err := model.ParseVersion(rel.KubernetesVersion)
	switch {
	case err != nil:
		return false
	case want.Patch != have.Patch:
		return want.Patch > have.Patch
	}
	return newerStack(rel.StackVersion, current.StackVersion)
}

// currentRelease is the release the cluster runs: the observed Cluster's (as listed, else
// as the Cluster names it), else for a cluster that exists but is not observed yet (found
// again after its control plane was lost) the ready release of the version its status
// reports. false: a new cluster.
func currentRelease(req *model.Request, rels []release, observed *clusterv1.Cluster) (release, bool) {
	if observed != nil {
		for _, r := range rels {
			if r.Class == observed.Spec.Topology.ClassRef.Name {
				return r, true
			}
		}
		return release{Class: observed.Spec.Topology.ClassRef.Name, KubernetesVersion: observed.Spec.Topology.Version}, true
	}
	status := req.Cluster.Status
	if status.Backend == nil || !status.Backend.Created || status.Kubernetes == nil || status.Kubernetes.Version == "" {
		return release{}, false
	}
	reported, err := model.ParseVersion(status.Kubernetes.Version)
	if err != nil {
		return release{}, false
	}
	cs := req.Environment.ClusterStack
	var found []release
	for _, r := range rels {
		v, err := model.ParseVersion(r.KubernetesVersion)
		if err == nil && v == reported && r.Ready && (cs.StackVersion == "" || r.StackVersion == cs.StackVersion) {
			found = append(found, r)
		}
	}
	if len(found) == 0 {
		return release{}, false
	}
	sort.SliceStable(found, func(i, j int) bool { return newerStack(found[i].StackVersion, found[j].StackVersion) })
	return found[0], true
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
