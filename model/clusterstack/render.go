package clusterstack

import (
	"encoding/json"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/model"
	"github.com/SovereignCloudStack/scs-kaas/model/providerkubernetes"
)

// readinessQuery makes the Object around a Cluster Ready when the Cluster is Available,
// or Ready for Cluster API versions that report v1beta1 conditions only.
const readinessQuery = `has(object.status) && has(object.status.conditions) && ` +
	`object.status.conditions.exists(c, (c.type == 'Available' || c.type == 'Ready') && c.status == 'True')`

// Render returns the Cluster, and for a remote management cluster the Object around it,
// the collection that observes the ClusterStackReleases and the observe-only Object that
// publishes the kubeconfig.
func (Backend) Render(req *model.Request) (*model.Rendering, error) {
	r := &model.Rendering{Unsupported: unsupportedFields(&req.Cluster.Spec)}
	if !local(req.Environment) {
		r.Resources = append(r.Resources, collection(req), kubeconfigObject(req))
	}

	rel, pending, err := resolvedRelease(req)
	if err != nil {
		return nil, err
	}
	if pending {
		// Nothing of the cluster exists yet and the releases it needs are still being
		// observed: render what observes them, nothing else.
		return r, nil
	}
	cluster, unsupported, err := buildCluster(req, rel)
	if err != nil {
		return nil, err
	}
	r.Unsupported = append(r.Unsupported, unsupported...)
	m, err := manifest(cluster)
	if err != nil {
		return nil, err
	}
	object := &unstructured.Unstructured{Object: m}
	if !local(req.Environment) {
		object = providerkubernetes.Wrap(m, providerkubernetes.WrapOptions{
			Name:               objectName(req.Cluster.Name),
			ProviderConfigName: req.Environment.ClusterStack.ManagementCluster,
			Labels:             map[string]string{model.LabelCluster: req.Cluster.Name},
			ReadinessCelQuery:  readinessQuery,
			Orphan:             *req.Cluster.Spec.DeletionProtection,
		})
	}
	r.Resources = append([]model.Resource{{Name: ResourceCluster, Object: object}}, r.Resources...)
	r.NativeRef = &kaasv1alpha1.ObjectReference{APIVersion: clusterAPIVersion, Kind: clusterKind, Namespace: cluster.Namespace, Name: cluster.Name}
	return r, nil
}

// resolvedRelease is the release the cluster is rendered with, decided once per request.
// pending is true while a remote management cluster's releases are unknown and no Cluster
// exists yet. An existing Cluster keeps its release until the releases are known again,
// so that a lost observation never removes a cluster from the desired state.
func resolvedRelease(req *model.Request) (release, bool, error) {
	type resolved struct {
		rel     release
		pending bool
	}
	v, err := req.Decoded("clusterstack-release", func() (any, error) {
		rels, known, err := releases(req)
		if err != nil {
			return nil, err
		}
		observed, err := observedCluster(req)
		if err != nil {
			return nil, err
		}
		spec := &req.Cluster.Spec
		if !known {
			if observed == nil {
				return resolved{pending: true}, nil
			}
			running := release{Class: observed.Spec.Topology.ClassRef.Name, KubernetesVersion: observed.Spec.Topology.Version}
			want, _ := model.ParseVersion(spec.Kubernetes.Version)
			have, err := model.ParseVersion(running.KubernetesVersion)
			if err != nil || !have.SameMinor(want) {
				return nil, fmt.Errorf("the ClusterStackReleases of the management cluster are not observed yet, so Kubernetes %s cannot be resolved; the Cluster stays at %s", spec.Kubernetes.Version, running.KubernetesVersion)
			}
			return resolved{rel: running}, nil
		}
		running := ""
		if observed != nil {
			running = observed.Spec.Topology.ClassRef.Name
		}
		rel, err := chooseRelease(req.Environment.ClusterStack, rels, spec.Kubernetes.Version, *spec.Maintenance.AutoUpdate.KubernetesPatch, running)
		if err != nil {
			return nil, err
		}
		return resolved{rel: rel}, nil
	})
	if err != nil {
		return release{}, false, err
	}
	r := v.(resolved)
	return r.rel, r.pending, nil
}

// unsupportedFields are portable fields set on the cluster that Cluster API cannot honour.
func unsupportedFields(spec *kaasv1alpha1.ClusterSpec) []model.Unsupported {
	var out []model.Unsupported
	if spec.Maintenance != nil && spec.Maintenance.Window != nil {
		out = append(out, model.Unsupported{Field: "spec.maintenance.window",
			Reason: "Cluster API has no maintenance window; changes roll out when they are applied"})
	}
	if h := spec.Hibernation; h != nil && ((h.Enabled != nil && *h.Enabled) || len(h.Schedules) > 0) {
		out = append(out, model.Unsupported{Field: "spec.hibernation",
			Reason: "Cluster API cannot hibernate a cluster; it keeps running"})
	}
	if spec.Network.CNI != "" && spec.Network.CNI != kaasv1alpha1.CNICilium {
		out = append(out, model.Unsupported{Field: "spec.network.cni",
			Reason: fmt.Sprintf("SCS Cluster Stacks ship Cilium; %s is not installed", spec.Network.CNI)})
	}
	return out
}

// collection observes the ClusterStackReleases of a remote management cluster.
func collection(req *model.Request) model.Resource {
	cs := req.Environment.ClusterStack
	return model.Resource{Name: ResourceReleases, Object: &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": collectionAPIVersion,
		"kind":       collectionKind,
		"metadata": map[string]any{
			"name":   collectionName(req.Cluster.Name),
			"labels": map[string]any{model.LabelCluster: req.Cluster.Name},
		},
		"spec": map[string]any{
			"providerConfigRef": map[string]any{"name": cs.ManagementCluster},
			"observeObjects": map[string]any{
				"apiVersion": releaseAPIVersion,
				"kind":       releaseKind,
				"namespace":  cs.Namespace,
				"selector":   map[string]any{},
			},
		},
	}}}
}

// kubeconfigObject observes the Secret Cluster API writes for the Cluster and publishes its
// kubeconfig as a connection detail. The Object copies the Secret into its status unless
// provider-kubernetes runs with --sanitize-secrets; docs/kubeconfig.md requires that.
func kubeconfigObject(req *model.Request) model.Resource {
	cs := req.Environment.ClusterStack
	secret := kubeconfigSecretName(req.Cluster.Name)
	o := providerkubernetes.Wrap(map[string]any{
		"apiVersion": "v1",
		"kind":       "Secret",
		"metadata":   map[string]any{"name": secret, "namespace": cs.Namespace},
	}, providerkubernetes.WrapOptions{
		Name:               kubeconfigObjectName(req.Cluster.Name),
		ProviderConfigName: cs.ManagementCluster,
		Labels:             map[string]string{model.LabelCluster: req.Cluster.Name},
		ObserveOnly:        true,
		ConnectionDetails: []providerkubernetes.ConnectionDetail{{
			APIVersion: "v1", Kind: "Secret", Namespace: cs.Namespace, Name: secret,
			FieldPath: "data.value", ToConnectionSecretKey: model.ConnectionKeyKubeconfig,
		}},
		ConnectionSecretName:      kubeconfigObjectName(req.Cluster.Name),
		ConnectionSecretNamespace: req.Options.ConnectionSecretNamespace,
	})
	return model.Resource{Name: ResourceKubeconfig, Object: o}
}

// manifest turns the typed Cluster into the plain object Crossplane composes, without the
// empty status and null creationTimestamp every typed object carries.
func manifest(c *clusterv1.Cluster) (map[string]any, error) {
	raw, err := json.Marshal(c)
	if err != nil {
		return nil, fmt.Errorf("cannot encode Cluster %s: %w", c.Name, err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	delete(m, "status")
	if meta, ok := m["metadata"].(map[string]any); ok {
		delete(meta, "creationTimestamp")
	}
	return m, nil
}

// observedCluster returns the Cluster as it exists, or nil. Observed state that cannot be
// decoded is an error.
func observedCluster(req *model.Request) (*clusterv1.Cluster, error) {
	v, err := req.Decoded(ResourceCluster, func() (any, error) {
		res, ok := req.Observed[ResourceCluster]
		if !ok || res.Object == nil {
			return (*clusterv1.Cluster)(nil), nil
		}
		u := res.Object
		if providerkubernetes.IsObject(u) {
			var err error
			if u, err = providerkubernetes.Observed(u); err != nil || u == nil {
				return (*clusterv1.Cluster)(nil), err
			}
		}
		if !strings.HasPrefix(u.GetAPIVersion(), "cluster.x-k8s.io/") || u.GetKind() != clusterKind {
			return nil, fmt.Errorf("observed resource %s is a %s %s, not a Cluster API Cluster", ResourceCluster, u.GetAPIVersion(), u.GetKind())
		}
		c := &clusterv1.Cluster{}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, c); err != nil {
			return nil, fmt.Errorf("cannot decode the observed Cluster %s/%s: %w", u.GetNamespace(), u.GetName(), err)
		}
		return c, nil
	})
	c, _ := v.(*clusterv1.Cluster)
	return c, err
}
