package v1alpha1

import (
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// DefaultExpirationSeconds is the lifetime requested when spec.forProvider.expirationSeconds
// is not set: 24 hours, which is also gardener-apiserver's default cap
// (--shoot-admin-kubeconfig-max-expiration), so by default the garden grants what is asked.
const DefaultExpirationSeconds int64 = 86400

// AdminKubeconfigParameters say which Shoot the admin kubeconfig is for and how long it lives.
type AdminKubeconfigParameters struct {
	// Namespace of the Shoot in the garden cluster: its project namespace, e.g. garden-team1.
	// +kubebuilder:validation:MinLength=1
	Namespace string `json:"namespace"`

	// ShootName is the name of the Shoot.
	// +kubebuilder:validation:MinLength=1
	ShootName string `json:"shootName"`

	// ExpirationSeconds is the lifetime requested for each kubeconfig. gardener-apiserver
	// rejects less than 10 minutes and caps it at its configured maximum (24 hours unless the
	// garden operator changed --shoot-admin-kubeconfig-max-expiration); the provider plans
	// renewals on the lifetime actually granted, so asking for more than the cap is harmless.
	// A change applies at the next renewal.
	// +kubebuilder:default=86400
	// +kubebuilder:validation:Minimum=600
	// +kubebuilder:validation:Maximum=4294967295
	// +optional
	ExpirationSeconds *int64 `json:"expirationSeconds,omitempty"`

	// RenewBefore is how long before the expiration the provider requests a new kubeconfig,
	// as a duration such as "2h" or "30m". Unset, it is one third of the lifetime the garden
	// granted: a 24-hour kubeconfig is renewed after 16 hours. It is capped at half the granted
	// lifetime, so that a short lifetime imposed by the garden never makes the provider renew
	// on every reconcile.
	// The pattern admits Go durations only: a value the provider could not decode would leave
	// the resource unreadable to it instead of being refused here.
	// +kubebuilder:validation:XValidation:rule="self.matches('^([0-9]+([.][0-9]+)?(ns|us|µs|ms|s|m|h))+$')",message="must be a duration such as 30m, 8h or 1h30m"
	// +optional
	RenewBefore *metav1.Duration `json:"renewBefore,omitempty"`
}

// AdminKubeconfigObservation is what the provider knows about the kubeconfig it issued last.
// The kubeconfig itself is only in the connection secret.
type AdminKubeconfigObservation struct {
	// Shoot is the Shoot the current kubeconfig was issued for, as namespace/name. When
	// spec.forProvider names another Shoot, the provider issues a new kubeconfig at once.
	// +optional
	Shoot string `json:"shoot,omitempty"`

	// Server is the API server URL of the current kubeconfig's current context; it is also
	// published as the connection detail endpoint.
	// +optional
	Server string `json:"server,omitempty"`

	// IssuedAt is when the provider received the current kubeconfig: the last renewal.
	// +optional
	IssuedAt *metav1.Time `json:"issuedAt,omitempty"`

	// ExpirationTimestamp is when the current kubeconfig expires, as the garden reported it.
	// +optional
	ExpirationTimestamp *metav1.Time `json:"expirationTimestamp,omitempty"`

	// RenewalTime is when the provider requests the next kubeconfig.
	// +optional
	RenewalTime *metav1.Time `json:"renewalTime,omitempty"`
}

// AdminKubeconfigSpec is the desired state of an AdminKubeconfig.
//
// +kubebuilder:validation:XValidation:rule="has(self.writeConnectionSecretToRef)",message="writeConnectionSecretToRef is required: the connection secret is where the kubeconfig is delivered"
type AdminKubeconfigSpec struct {
	xpv2.ClusterManagedResourceSpec `json:",inline"`

	ForProvider AdminKubeconfigParameters `json:"forProvider"`
}

// AdminKubeconfigStatus is the observed state of an AdminKubeconfig.
type AdminKubeconfigStatus struct {
	xpv2.ManagedResourceStatus `json:",inline"`

	// +optional
	AtProvider AdminKubeconfigObservation `json:"atProvider,omitempty"`
}

// AdminKubeconfig keeps a short-lived admin kubeconfig of a Gardener Shoot in its connection
// secret (keys kubeconfig, endpoint and ca.crt) and requests a new one from the Shoot's
// adminkubeconfig subresource before the current one expires. Deleting it revokes nothing:
// issued kubeconfigs stay valid until they expire.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="SHOOT",type="string",JSONPath=".spec.forProvider.shootName"
// +kubebuilder:printcolumn:name="READY",type="string",JSONPath=".status.conditions[?(@.type=='Ready')].status"
// +kubebuilder:printcolumn:name="SYNCED",type="string",JSONPath=".status.conditions[?(@.type=='Synced')].status"
// +kubebuilder:printcolumn:name="EXPIRES",type="string",JSONPath=".status.atProvider.expirationTimestamp"
// +kubebuilder:printcolumn:name="RENEWAL",type="string",JSONPath=".status.atProvider.renewalTime",priority=1
// +kubebuilder:printcolumn:name="NAMESPACE",type="string",JSONPath=".spec.forProvider.namespace",priority=1
// +kubebuilder:printcolumn:name="AGE",type="date",JSONPath=".metadata.creationTimestamp"
// +kubebuilder:resource:scope=Cluster,categories={crossplane,managed,gardener}
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
