package v1beta1

import (
	gardencorev1beta1 "github.com/gardener/gardener/pkg/apis/core/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Shoot mirrors gardener's core.gardener.cloud/v1beta1 Shoot: the same fields
// and JSON names, with spec and status taken verbatim from Gardener's types so
// the schema follows the pinned Gardener version.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=shoots,singular=shoot,scope=Namespaced
// +kubebuilder:subresource:status
// +kubebuilder:storageversion
// +kubebuilder:printcolumn:name="Cloud profile",type=string,JSONPath=`.spec.cloudProfile.name`
// +kubebuilder:printcolumn:name="Kubernetes",type=string,JSONPath=`.spec.kubernetes.version`
// +kubebuilder:printcolumn:name="Operation",type=string,JSONPath=`.status.lastOperation.state`
// +kubebuilder:printcolumn:name="Progress",type=integer,JSONPath=`.status.lastOperation.progress`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type Shoot struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Specification of the Shoot cluster.
	// +optional
	Spec gardencorev1beta1.ShootSpec `json:"spec,omitempty"`
	// Most recently observed status of the Shoot cluster.
	// +optional
	Status gardencorev1beta1.ShootStatus `json:"status,omitempty"`
}

// ShootList is a list of Shoots.
//
// +kubebuilder:object:root=true
type ShootList struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Shoot `json:"items"`
}
