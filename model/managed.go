package model

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
