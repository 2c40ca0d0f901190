package model

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Managed is a managed resource of a Crossplane provider (a Magnum ClusterV1, an
// AdminKubeconfig), composed in Crossplane's own cluster.
type Managed struct {
	// Resource is the composition resource name.
	Resource         string
	APIVersion, Kind string
	// Name is the object's name; Namespace is set for namespaced kinds only.
	Name, Namespace string
	// Labels and Annotations join the cluster's label.
	Labels, Annotations map[string]string
	// Spec holds forProvider and initProvider; the rest is set here.
	Spec map[string]any
	// ProviderConfig names the provider's ProviderConfig; ProviderConfigKind is
	// ProviderConfig or ClusterProviderConfig for namespaced kinds (empty: the provider's
	// default).
	ProviderConfig, ProviderConfigKind string
	// ConnectionSecret names the Secret the provider writes connection details to; empty
	// for none. Cluster-scoped kinds write it to Options.ConnectionSecretNamespace,
	// namespaced ones into their own namespace.
	ConnectionSecret string
	// NothingToKeep says that deleting the external resource loses nothing, so it is
	// deleted even while the cluster is protected (an admin kubeconfig expires anyway).
	NothingToKeep bool
}

// Managed returns the composed resource of a managed resource: its ProviderConfig, its
// connection secret, the cluster's label, and deletion protection. While the cluster is
// protected, deleting the composite leaves the external resource in place: deletion policy
// Orphan for cluster-scoped kinds, no Delete management policy for namespaced ones, which
// have no deletion policy.
func (r *Request) Managed(m Managed) Resource {
	spec := make(map[string]any, len(m.Spec)+3)
	for k, v := range m.Spec {
		spec[k] = v
	}
	protect := r.KeepOnDelete() && !m.NothingToKeep
	if m.Namespace != "" {
		ref := map[string]any{"name": m.ProviderConfig}
		if m.ProviderConfigKind != "" {
			ref["kind"] = m.ProviderConfigKind
		}
		spec["providerConfigRef"] = ref
		if m.ConnectionSecret != "" {
			spec["writeConnectionSecretToRef"] = map[string]any{"name": m.ConnectionSecret}
		}
		if protect {
			spec["managementPolicies"] = []any{"Observe", "Create", "Update", "LateInitialize"}
		}
	} else {
		spec["providerConfigRef"] = map[string]any{"name": m.ProviderConfig}
		if m.ConnectionSecret != "" {
			spec["writeConnectionSecretToRef"] = map[string]any{"name": m.ConnectionSecret, "namespace": r.Options.ConnectionSecretNamespace}
		}
		spec["deletionPolicy"] = "Delete"
		if protect {
			spec["deletionPolicy"] = "Orphan"
		}
	}
	labels := stringMap(r.Labels())
	for k, v := range m.Labels {
		labels[k] = v
	}
	meta := map[string]any{"name": m.Name, "labels": labels}
	if m.Namespace != "" {
		meta["namespace"] = m.Namespace
	}
	if len(m.Annotations) > 0 {
		meta["annotations"] = stringMap(m.Annotations)
	}
	return Resource{Name: m.Resource, Disposable: m.NothingToKeep, Object: &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": m.APIVersion,
		"kind":       m.Kind,
		"metadata":   meta,
		"spec":       spec,
	}}}
}
