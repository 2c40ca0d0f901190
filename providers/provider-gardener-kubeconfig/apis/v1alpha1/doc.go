// Package v1alpha1 holds the API of provider-gardener-kubeconfig: a ProviderConfig with
// garden-cluster credentials and the AdminKubeconfig managed resource, which keeps a
// short-lived admin kubeconfig of a Gardener Shoot in a connection secret and renews it
// before it expires.
//
// The managed resource is cluster-scoped and legacy-style (spec.providerConfigRef,
// spec.writeConnectionSecretToRef with a namespace) because the SCS cluster API composes it
// from a LegacyCluster composite resource, which can compose only cluster-scoped resources
// with connection secrets that Crossplane aggregates into the claim's secret. The Crossplane v2
// namespaced kinds are in gardener.m.kaas.scs.community (package apis/namespaced/v1alpha1),
// which reuses this package's parameter, observation and credentials types.
//
// +kubebuilder:object:generate=true
// +groupName=gardener.kaas.scs.community
// +versionName=v1alpha1
package v1alpha1
