package v1alpha1

import (
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ProviderConfigSpec says how the provider reaches the garden cluster.
type ProviderConfigSpec struct {
	// Credentials for the garden cluster: a kubeconfig whose user may create
	// shoots/adminkubeconfig in the project namespaces of the Shoots it serves.
	Credentials ProviderCredentials `json:"credentials"`
}

// ProviderCredentials points at a kubeconfig for the garden cluster.
//
// Only Secret is supported: the provider runs outside the garden, so there is no injected
// identity, and a kubeconfig in a Secret is what Gardener hands out for service accounts of a
// project (and what provider-kubernetes reads, so one Secret serves both providers).
//
// +kubebuilder:validation:XValidation:rule="self.source != 'Secret' || has(self.secretRef)",message="secretRef is required when source is Secret"
type ProviderCredentials struct {
	// Source of the credentials.
	// +kubebuilder:validation:Enum=Secret
	Source xpv2.CredentialsSource `json:"source"`

	// SecretRef names the Secret and the key that hold the kubeconfig. The kubeconfig must be
	// self-contained: certificates and keys embedded, no exec plugins, no file references.
	// +optional
	SecretRef *xpv2.SecretKeySelector `json:"secretRef,omitempty"`
}

// ProviderConfigStatus is the observed state of a ProviderConfig: its conditions and how many
// managed resources use it.
type ProviderConfigStatus struct {
	xpv2.ProviderConfigStatus `json:",inline"`
}

// ProviderConfig holds the garden-cluster credentials the AdminKubeconfig managed resources
// use. A ProviderConfig in use cannot be deleted until no managed resource refers to it.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="AGE",type="date",JSONPath=".metadata.creationTimestamp"
// +kubebuilder:printcolumn:name="SECRET-NAME",type="string",JSONPath=".spec.credentials.secretRef.name",priority=1
// +kubebuilder:resource:scope=Cluster,categories={crossplane,provider,gardener}
type ProviderConfig struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   ProviderConfigSpec   `json:"spec"`
	Status ProviderConfigStatus `json:"status,omitempty"`
}

// ProviderConfigList is a list of ProviderConfigs.
//
// +kubebuilder:object:root=true
type ProviderConfigList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ProviderConfig `json:"items"`
}

// ProviderConfigUsage records that a managed resource uses a ProviderConfig. crossplane-runtime
// creates and deletes these; nobody writes them by hand.
//
// +kubebuilder:object:root=true
// +kubebuilder:printcolumn:name="AGE",type="date",JSONPath=".metadata.creationTimestamp"
// +kubebuilder:printcolumn:name="CONFIG-NAME",type="string",JSONPath=".providerConfigRef.name"
// +kubebuilder:printcolumn:name="RESOURCE-KIND",type="string",JSONPath=".resourceRef.kind"
// +kubebuilder:printcolumn:name="RESOURCE-NAME",type="string",JSONPath=".resourceRef.name"
// +kubebuilder:resource:scope=Cluster,categories={crossplane,provider,gardener}
type ProviderConfigUsage struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	xpv2.ProviderConfigUsage `json:",inline"`
}

// ProviderConfigUsageList is a list of ProviderConfigUsages.
//
// +kubebuilder:object:root=true
type ProviderConfigUsageList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ProviderConfigUsage `json:"items"`
}
