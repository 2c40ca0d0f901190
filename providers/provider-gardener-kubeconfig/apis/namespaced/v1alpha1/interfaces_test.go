package v1alpha1

import "github.com/crossplane/crossplane-runtime/v2/pkg/resource"

// The interfaces crossplane-runtime's reconcilers need, met by the generated method sets
// (make provider-generate): a kind that no longer meets one fails to compile here.
var (
	_ resource.ModernManaged            = &AdminKubeconfig{}
	_ resource.ManagedList              = &AdminKubeconfigList{}
	_ resource.ProviderConfig           = &ProviderConfig{}
	_ resource.ProviderConfig           = &ClusterProviderConfig{}
	_ resource.TypedProviderConfigUsage = &ProviderConfigUsage{}
	_ resource.ProviderConfigUsageList  = &ProviderConfigUsageList{}
)
