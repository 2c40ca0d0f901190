package v1alpha1

import (
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
)

// The accessors crossplane-runtime's managed reconciler needs (resource.ModernManaged),
// written by hand like those of the cluster-scoped kinds; the assertions catch any drift.

var (
	_ resource.ModernManaged = &AdminKubeconfig{}
	_ resource.ManagedList   = &AdminKubeconfigList{}
)

// GetCondition returns the condition of the given type.
func (mg *AdminKubeconfig) GetCondition(ct xpv2.ConditionType) xpv2.Condition {
	return mg.Status.GetCondition(ct)
}

// SetConditions sets the given conditions, replacing those of the same type.
func (mg *AdminKubeconfig) SetConditions(c ...xpv2.Condition) {
	mg.Status.SetConditions(c...)
}

// GetManagementPolicies returns spec.managementPolicies.
func (mg *AdminKubeconfig) GetManagementPolicies() xpv2.ManagementPolicies {
	return mg.Spec.ManagementPolicies
}

// SetManagementPolicies sets spec.managementPolicies.
func (mg *AdminKubeconfig) SetManagementPolicies(p xpv2.ManagementPolicies) {
	mg.Spec.ManagementPolicies = p
}

// GetProviderConfigReference returns spec.providerConfigRef.
func (mg *AdminKubeconfig) GetProviderConfigReference() *xpv2.ProviderConfigReference {
	return mg.Spec.ProviderConfigReference
}

// SetProviderConfigReference sets spec.providerConfigRef.
func (mg *AdminKubeconfig) SetProviderConfigReference(r *xpv2.ProviderConfigReference) {
	mg.Spec.ProviderConfigReference = r
}

// GetWriteConnectionSecretToReference returns spec.writeConnectionSecretToRef.
func (mg *AdminKubeconfig) GetWriteConnectionSecretToReference() *xpv2.LocalSecretReference {
	return mg.Spec.WriteConnectionSecretToReference
}

// SetWriteConnectionSecretToReference sets spec.writeConnectionSecretToRef.
func (mg *AdminKubeconfig) SetWriteConnectionSecretToReference(r *xpv2.LocalSecretReference) {
	mg.Spec.WriteConnectionSecretToReference = r
}

// GetItems returns the items of the list as managed resources.
func (l *AdminKubeconfigList) GetItems() []resource.Managed {
	items := make([]resource.Managed, len(l.Items))
	for i := range l.Items {
		items[i] = &l.Items[i]
	}
	return items
}
