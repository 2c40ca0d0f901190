package v1alpha1

import (
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
)

// Accessors for crossplane-runtime's ProviderConfig reconciler and usage tracker, written by
// hand like those of the cluster-scoped kinds.

var (
	_ resource.ProviderConfig           = &ProviderConfig{}
	_ resource.ProviderConfig           = &ClusterProviderConfig{}
	_ resource.TypedProviderConfigUsage = &ProviderConfigUsage{}
	_ resource.ProviderConfigUsageList  = &ProviderConfigUsageList{}
)

// GetCondition returns the condition of the given type.
func (pc *ProviderConfig) GetCondition(ct xpv2.ConditionType) xpv2.Condition {
	return pc.Status.GetCondition(ct)
}

// SetConditions sets the given conditions, replacing those of the same type.
func (pc *ProviderConfig) SetConditions(c ...xpv2.Condition) {
	pc.Status.SetConditions(c...)
}

// GetUsers returns how many managed resources use this ProviderConfig.
func (pc *ProviderConfig) GetUsers() int64 {
	return pc.Status.Users
}

// SetUsers records how many managed resources use this ProviderConfig.
func (pc *ProviderConfig) SetUsers(i int64) {
	pc.Status.Users = i
}

// GetCondition returns the condition of the given type.
func (pc *ClusterProviderConfig) GetCondition(ct xpv2.ConditionType) xpv2.Condition {
	return pc.Status.GetCondition(ct)
}

// SetConditions sets the given conditions, replacing those of the same type.
func (pc *ClusterProviderConfig) SetConditions(c ...xpv2.Condition) {
	pc.Status.SetConditions(c...)
}

// GetUsers returns how many managed resources use this ClusterProviderConfig.
func (pc *ClusterProviderConfig) GetUsers() int64 {
	return pc.Status.Users
}

// SetUsers records how many managed resources use this ClusterProviderConfig.
func (pc *ClusterProviderConfig) SetUsers(i int64) {
	pc.Status.Users = i
}

// GetProviderConfigReference returns the ProviderConfig or ClusterProviderConfig in use.
func (pcu *ProviderConfigUsage) GetProviderConfigReference() xpv2.ProviderConfigReference {
	return pcu.ProviderConfigReference
}

// SetProviderConfigReference sets the ProviderConfig or ClusterProviderConfig in use.
func (pcu *ProviderConfigUsage) SetProviderConfigReference(r xpv2.ProviderConfigReference) {
	pcu.ProviderConfigReference = r
}

// GetResourceReference returns the managed resource that uses the provider config.
func (pcu *ProviderConfigUsage) GetResourceReference() xpv2.TypedReference {
	return pcu.ResourceReference
}

// SetResourceReference sets the managed resource that uses the provider config.
func (pcu *ProviderConfigUsage) SetResourceReference(r xpv2.TypedReference) {
	pcu.ResourceReference = r
}

// GetItems returns the items of the list as ProviderConfigUsages.
func (l *ProviderConfigUsageList) GetItems() []resource.ProviderConfigUsage {
	items := make([]resource.ProviderConfigUsage, len(l.Items))
	for i := range l.Items {
		items[i] = &l.Items[i]
	}
	return items
}
