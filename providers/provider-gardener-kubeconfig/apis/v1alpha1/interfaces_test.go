package v1alpha1

import "github.com/crossplane/crossplane-runtime/v2/pkg/resource"

// The interfaces crossplane-runtime's reconcilers need, met by the generated method sets
// (make provider-generate): a kind that no longer meets one fails to compile here.
var (
	_ resource.LegacyManaged             = &AdminKubeconfig{}
	_ resource.ManagedList               = &AdminKubeconfigList{}
	_ resource.ProviderConfig            = &ProviderConfig{}
	_ resource.LegacyProviderConfigUsage = &ProviderConfigUsage{}
	_ resource.ProviderConfigUsageList   = &ProviderConfigUsageList{}
)
