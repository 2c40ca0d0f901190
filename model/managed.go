package model

// Managed is a managed resource of a Crossplane provider (a Magnum ClusterV1, an
// AdminKubeconfig), composed in Crossplane's own cluster.
type Managed struct {
	// Resource is the composition resource name.
	Resource         string
	APIVersion, Kind string
	// Namespace is set for namespaced kinds only.
	Name, Namespace string
	// Labels and Annotations join the cluster's labels.
	Labels, Annotations map[string]string
	// Spec holds forProvider and initProvider; the rest is set here.
	Spec map[string]any
	// ProviderConfigKind is for namespaced kinds: ProviderConfig or ClusterProviderConfig
	// (empty: the provider's default).
	ProviderConfig, ProviderConfigKind string
	// ConnectionSecret names the Secret for connection details (empty: none): in
	// Options.ConnectionSecretNamespace, or for namespaced kinds in their own namespace.
	ConnectionSecret string
	// NothingToKeep says that deleting the external resource loses nothing (an admin
	// kubeconfig expires anyway), so it is deleted even while the cluster is protected.
	NothingToKeep bool
}
