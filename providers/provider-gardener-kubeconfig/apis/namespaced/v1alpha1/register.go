package v1alpha1

import (
	"reflect"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/scheme"
)

// The names of the API. They are fixed here rather than derived: renaming any of them breaks
// every composition that refers to them.
const (
	Group   = "gardener.m.kaas.scs.community"
	Version = "v1alpha1"
)

var (
	// SchemeGroupVersion is the group and version of every kind in this package.
	SchemeGroupVersion = schema.GroupVersion{Group: Group, Version: Version}
	// SchemeBuilder registers the kinds of this package with a scheme.
	SchemeBuilder = &scheme.Builder{GroupVersion: SchemeGroupVersion}
	// AddToScheme adds the kinds of this package to a scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)

// Kind names and GroupVersionKinds, as crossplane-runtime's reconcilers want them.
var (
	ProviderConfigKind             = reflect.TypeFor[ProviderConfig]().Name()
	ProviderConfigGroupKind        = schema.GroupKind{Group: Group, Kind: ProviderConfigKind}.String()
	ProviderConfigGroupVersionKind = SchemeGroupVersion.WithKind(ProviderConfigKind)

	ClusterProviderConfigKind             = reflect.TypeFor[ClusterProviderConfig]().Name()
	ClusterProviderConfigGroupKind        = schema.GroupKind{Group: Group, Kind: ClusterProviderConfigKind}.String()
	ClusterProviderConfigGroupVersionKind = SchemeGroupVersion.WithKind(ClusterProviderConfigKind)

	ProviderConfigUsageKind                 = reflect.TypeFor[ProviderConfigUsage]().Name()
	ProviderConfigUsageGroupVersionKind     = SchemeGroupVersion.WithKind(ProviderConfigUsageKind)
	ProviderConfigUsageListGroupVersionKind = SchemeGroupVersion.WithKind(ProviderConfigUsageKind + "List")

	AdminKubeconfigKind             = reflect.TypeFor[AdminKubeconfig]().Name()
	AdminKubeconfigGroupKind        = schema.GroupKind{Group: Group, Kind: AdminKubeconfigKind}.String()
	AdminKubeconfigGroupVersionKind = SchemeGroupVersion.WithKind(AdminKubeconfigKind)
)

func init() {
	SchemeBuilder.Register(
		&ProviderConfig{}, &ProviderConfigList{},
		&ClusterProviderConfig{}, &ClusterProviderConfigList{},
		&ProviderConfigUsage{}, &ProviderConfigUsageList{},
		&AdminKubeconfig{}, &AdminKubeconfigList{},
	)
}
