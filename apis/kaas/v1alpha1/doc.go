// Package v1alpha1 holds the portable Kubernetes-cluster API of the Sovereign Cloud Stack:
// the composite resource XSCSCluster and its claim SCSCluster in group kaas.scs.community.
//
// These Go types are the single source of truth for the API. The CompositeResourceDefinition
// in apis/xrd is generated from them (make generate), including the CEL rules written here as
// kubebuilder markers, so the API server refuses bad input before any function runs.
//
// The package imports nothing from Crossplane: tools that only want to read or write the
// portable spec (a CLI, another controller) can use it without the composition machinery.
//
// +kubebuilder:object:generate=true
// +groupName=kaas.scs.community
// +versionName=v1alpha1
package v1alpha1

const (
	// Group is the API group of the portable cluster API.
	Group = "kaas.scs.community"
	// Version is the API version of the types in this package.
	Version = "v1alpha1"
	// APIVersion is Group/Version, as found in apiVersion fields.
	APIVersion = Group + "/" + Version

	// CompositeKind is the kind of the composite resource (XR).
	CompositeKind = "XSCSCluster"
	// ClaimKind is the kind of the namespaced claim.
	ClaimKind = "SCSCluster"
)
