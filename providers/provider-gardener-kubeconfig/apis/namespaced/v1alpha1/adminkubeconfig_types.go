package v1alpha1

import (
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	legacy "github.com/SovereignCloudStack/scs-kaas/providers/provider-gardener-kubeconfig/apis/v1alpha1"
)

// AdminKubeconfigSpec is the desired state of a namespaced AdminKubeconfig. forProvider is the
// same as that of the cluster-scoped AdminKubeconfig of gardener.kaas.scs.community; the rest
// is Crossplane v2's namespaced managed resource spec: a connection secret in the resource's
// own namespace (writeConnectionSecretToRef has a name only), a typed providerConfigRef
// (default: ClusterProviderConfig default) and managementPolicies, but no deletionPolicy.
//
// +kubebuilder:validation:XValidation:rule="has(self.writeConnectionSecretToRef)",message="writeConnectionSecretToRef is required: the connection secret is where the kubeconfig is delivered"
// +kubebuilder:validation:XValidation:rule="!has(self.providerConfigRef) || self.providerConfigRef.kind in ['ProviderConfig', 'ClusterProviderConfig']",message="providerConfigRef.kind must be ProviderConfig (in the resource's namespace) or ClusterProviderConfig"
type AdminKubeconfigSpec struct {
	xpv2.ManagedResourceSpec `json:",inline"`

	ForProvider legacy.AdminKubeconfigParameters `json:"forProvider"`
}

// AdminKubeconfigStatus is the observed state of a namespaced AdminKubeconfig.
type AdminKubeconfigStatus struct {
	xpv2.ManagedResourceStatus `json:",inline"`

	// +optional
	AtProvider legacy.AdminKubeconfigObservation `json:"atProvider,omitempty"`
}

// AdminKubeconfig keeps a short-lived admin kubeconfig of a Gardener Shoot in its connection
// secret, a Secret in the AdminKubeconfig's own namespace (keys kubeconfig, endpoint and
// ca.crt), and requests a new one from the Shoot's adminkubeconfig subresource before the
// current one expires. Deleting it revokes nothing: issued kubeconfigs stay valid until they
// expire. This is the namespaced (Crossplane v2) form of the cluster-scoped AdminKubeconfig of
// gardener.kaas.scs.community.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="SHOOT",type="string",JSONPath=".spec.forProvider.shootName"
// +kubebuilder:printcolumn:name="READY",type="string",JSONPath=".status.conditions[?(@.type=='Ready')].status"
// +kubebuilder:printcolumn:name="SYNCED",type="string",JSONPath=".status.conditions[?(@.type=='Synced')].status"
// +kubebuilder:printcolumn:name="EXPIRES",type="string",JSONPath=".status.atProvider.expirationTimestamp"
// +kubebuilder:printcolumn:name="RENEWAL",type="string",JSONPath=".status.atProvider.renewalTime",priority=1
// +kubebuilder:printcolumn:name="SHOOT-NAMESPACE",type="string",JSONPath=".spec.forProvider.namespace",priority=1
// +kubebuilder:printcolumn:name="AGE",type="date",JSONPath=".metadata.creationTimestamp"
// +kubebuilder:resource:scope=Namespaced,categories={crossplane,managed,gardener}
type AdminKubeconfig struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   AdminKubeconfigSpec   `json:"spec"`
	Status AdminKubeconfigStatus `json:"status,omitempty"`
}

// AdminKubeconfigList is a list of AdminKubeconfigs.
//
// +kubebuilder:object:root=true
type AdminKubeconfigList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []AdminKubeconfig `json:"items"`
}
