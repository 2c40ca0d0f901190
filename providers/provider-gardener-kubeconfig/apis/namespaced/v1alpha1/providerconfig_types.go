package v1alpha1

import (
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	legacy "github.com/SovereignCloudStack/scs-kaas/providers/provider-gardener-kubeconfig/apis/v1alpha1"
)

// ProviderConfig holds garden-cluster credentials for the AdminKubeconfigs of its own
// namespace (spec.providerConfigRef.kind ProviderConfig). Its credentials Secret must be in
// the ProviderConfig's own namespace: spec.credentials.secretRef.namespace must be that
// namespace (or empty, which means that namespace). The provider refuses to read a Secret of
// any other namespace for it, so that whoever may write ProviderConfigs in a namespace cannot
// use them to read the Secrets of other namespaces. A ProviderConfig in use cannot be deleted
// until no managed resource refers to it.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="AGE",type="date",JSONPath=".metadata.creationTimestamp"
// +kubebuilder:printcolumn:name="SECRET-NAME",type="string",JSONPath=".spec.credentials.secretRef.name",priority=1
// +kubebuilder:resource:scope=Namespaced,categories={crossplane,provider,gardener}
type ProviderConfig struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   legacy.ProviderConfigSpec   `json:"spec"`
	Status legacy.ProviderConfigStatus `json:"status,omitempty"`
}

// ProviderConfigList is a list of ProviderConfigs.
//
// +kubebuilder:object:root=true
type ProviderConfigList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ProviderConfig `json:"items"`
}

// ClusterProviderConfig holds garden-cluster credentials for the namespaced AdminKubeconfigs
// of every namespace (spec.providerConfigRef.kind ClusterProviderConfig, the default kind;
// the default name is "default"). Its credentials Secret may be in any namespace. Whoever may
// create an AdminKubeconfig in some namespace may use every ClusterProviderConfig. A
// ClusterProviderConfig in use cannot be deleted until no managed resource refers to it.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="AGE",type="date",JSONPath=".metadata.creationTimestamp"
// +kubebuilder:printcolumn:name="SECRET-NAME",type="string",JSONPath=".spec.credentials.secretRef.name",priority=1
// +kubebuilder:resource:scope=Cluster,categories={crossplane,provider,gardener}
type ClusterProviderConfig struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   legacy.ProviderConfigSpec   `json:"spec"`
	Status legacy.ProviderConfigStatus `json:"status,omitempty"`
}

// ClusterProviderConfigList is a list of ClusterProviderConfigs.
//
// +kubebuilder:object:root=true
type ClusterProviderConfigList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ClusterProviderConfig `json:"items"`
}

// ProviderConfigUsage records that a namespaced managed resource uses a ProviderConfig or a
// ClusterProviderConfig (providerConfigRef.kind). It lives in the managed resource's
// namespace. crossplane-runtime creates and deletes these; nobody writes them by hand.
//
// +kubebuilder:object:root=true
// +kubebuilder:printcolumn:name="AGE",type="date",JSONPath=".metadata.creationTimestamp"
// +kubebuilder:printcolumn:name="CONFIG-KIND",type="string",JSONPath=".providerConfigRef.kind"
// +kubebuilder:printcolumn:name="CONFIG-NAME",type="string",JSONPath=".providerConfigRef.name"
// +kubebuilder:printcolumn:name="RESOURCE-KIND",type="string",JSONPath=".resourceRef.kind"
// +kubebuilder:printcolumn:name="RESOURCE-NAME",type="string",JSONPath=".resourceRef.name"
// +kubebuilder:resource:scope=Namespaced,categories={crossplane,provider,gardener}
type ProviderConfigUsage struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	xpv2.TypedProviderConfigUsage `json:",inline"`
}

// ProviderConfigUsageList is a list of ProviderConfigUsages.
//
// +kubebuilder:object:root=true
type ProviderConfigUsageList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ProviderConfigUsage `json:"items"`
}
