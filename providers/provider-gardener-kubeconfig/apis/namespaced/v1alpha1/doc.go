// Package v1alpha1 holds the Crossplane v2 namespaced API of provider-gardener-kubeconfig
// (group gardener.m.kaas.scs.community): the namespaced AdminKubeconfig managed resource, the
// namespaced ProviderConfig, the cluster-scoped ClusterProviderConfig and the namespaced
// ProviderConfigUsage that records which managed resource uses which of the two.
//
// Crossplane v2 namespaced composite resources can compose only namespaced resources in their
// own namespace; this group is what they compose. The cluster-scoped, legacy-style kinds stay
// in gardener.kaas.scs.community (package apis/v1alpha1), and this package reuses their
// parameter, observation and credentials types, so both groups have one definition of them.
//
// An AdminKubeconfig of this group writes its connection secret into its own namespace and
// refers to a ProviderConfig in its own namespace or to a ClusterProviderConfig
// (spec.providerConfigRef.kind). A namespaced ProviderConfig may only use a credentials
// Secret in its own namespace; the provider refuses any other (see the README).
//
// +kubebuilder:object:generate=true
// +groupName=gardener.m.kaas.scs.community
// +versionName=v1alpha1
package v1alpha1
