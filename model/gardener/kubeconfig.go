package gardener

import (
	"fmt"
	"slices"

	gardencorev1beta1 "github.com/gardener/gardener/pkg/apis/core/v1beta1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/model"
)

// ResourceKubeconfig is the AdminKubeconfig through which provider-gardener-kubeconfig
// renews the Shoot's admin kubeconfig: Gardener has no static kubeconfig Secret, and neither
// a function nor provider-kubernetes can call the shoots/adminkubeconfig subresource.
const ResourceKubeconfig = "gardener-kubeconfig"

const (
	adminKubeconfigAPIVersion = "gardener.kaas.scs.community/v1alpha1"
	// namespacedAdminKubeconfigAPIVersion is for namespaced composites; it names a ClusterProviderConfig.
	namespacedAdminKubeconfigAPIVersion = "gardener.m.kaas.scs.community/v1alpha1"
	adminKubeconfigKind                 = "AdminKubeconfig"
	clusterProviderConfigKind           = "ClusterProviderConfig"
)

// kubeconfigDue is true once the Shoot advertises its API server, and for good:
// gardener-apiserver issues no admin kubeconfig before (it puts the address into it), and
// asking earlier would fill the claim with the garden's refusals.
func kubeconfigDue(req *model.Request, shoot *gardencorev1beta1.Shoot) bool {
	if _, composed := req.Observed[ResourceKubeconfig]; composed {
		return true
	}
	return shoot != nil && advertisesAPIServer(shoot)
}

// kubeconfigAddressNames are the advertised addresses gardener-apiserver builds admin
// kubeconfigs for.
var kubeconfigAddressNames = []string{"external", "internal", "unmanaged", "wildcard-tls-seed-bound"}

func advertisesAPIServer(shoot *gardencorev1beta1.Shoot) bool {
	return slices.ContainsFunc(shoot.Status.AdvertisedAddresses, func(a gardencorev1beta1.ShootAdvertisedAddress) bool {
		return slices.Contains(kubeconfigAddressNames, a.Name)
	})
}

// adminKubeconfig publishes kubeconfig, endpoint and ca.crt into a connection secret.
func adminKubeconfig(req *model.Request, shootNamespace, shootName string) model.Resource {
	g := req.Environment.Gardener
	providerConfig := g.GardenCluster
	forProvider := map[string]any{"namespace": shootNamespace, "shootName": shootName}
	if ak := g.AdminKubeconfig; ak != nil {
		if ak.ProviderConfigName != "" {
			providerConfig = ak.ProviderConfigName
		}
		if ak.ExpirationSeconds != nil {
			forProvider["expirationSeconds"] = *ak.ExpirationSeconds
		}
		if ak.RenewBefore != "" {
			forProvider["renewBefore"] = ak.RenewBefore
		}
	}
	m := model.Managed{
		Resource:   ResourceKubeconfig,
		APIVersion: adminKubeconfigAPIVersion, Kind: adminKubeconfigKind,
		Name:             kubeconfigObjectName(req.NativeName),
		Spec:             map[string]any{"forProvider": forProvider},
		ProviderConfig:   providerConfig,
		ConnectionSecret: kubeconfigObjectName(req.NativeName),
		// Nothing to keep in the garden: admin kubeconfigs expire on their own.
		NothingToKeep: true,
	}
	if req.Namespaced() {
		m.APIVersion, m.Namespace, m.ProviderConfigKind = namespacedAdminKubeconfigAPIVersion, req.Cluster.Namespace, clusterProviderConfigKind
	}
	return req.Managed(m)
}

func kubeconfigObjectName(cluster string) string { return cluster + "-kubeconfig" }

// kubeconfigDetails are what provider-gardener-kubeconfig published, or nil.
func kubeconfigDetails(req *model.Request) (map[string][]byte, error) {
	raw := req.Observed[ResourceKubeconfig].ConnectionDetails[model.ConnectionKeyKubeconfig]
	if len(raw) == 0 {
		return nil, nil
	}
	return model.KubeconfigConnectionDetails(raw)
}

// kubeconfigVerdict says whether the delivered admin kubeconfig works:
// provider-gardener-kubeconfig sets Ready to False (reason Expired) once it has expired, and
// Synced to False while it cannot get a new one from the garden.
func kubeconfigVerdict(req *model.Request, shoot *gardencorev1beta1.Shoot, details map[string][]byte) (bool, model.Condition) {
	c := model.Condition{Type: kaasv1alpha1.ConditionKubeconfigReady, Status: model.ConditionFalse}
	ak := req.Observed[ResourceKubeconfig].Object
	ready := model.ConditionOf(ak, model.ManagedConditionReady)
	synced := model.ConditionOf(ak, model.ManagedConditionSynced)
	var expires string
	if ak != nil {
		expires, _, _ = unstructured.NestedString(ak.Object, "status", "atProvider", "expirationTimestamp")
	}
	switch {
	case ready.Found && ready.Status == "False" && ready.Reason == kaasv1alpha1.ReasonKubeconfigExpired:
		c.Reason = kaasv1alpha1.ReasonKubeconfigExpired
		c.Message = model.Truncate("provider-gardener-kubeconfig reports: " + ready.Message)
	case synced.Found && synced.Status == "False":
		c.Reason = kaasv1alpha1.ReasonKubeconfigRenewalFailing
		c.Message = model.Truncate("provider-gardener-kubeconfig cannot get an admin kubeconfig from the garden: " + synced.Message)
	case details == nil && !kubeconfigDue(req, shoot):
		c.Reason = kaasv1alpha1.ReasonKubeconfigPending
		c.Message = "waiting for Gardener to advertise the Shoot's API server (status.advertisedAddresses); then provider-gardener-kubeconfig requests an admin kubeconfig from the garden"
	case details == nil:
		c.Reason, c.Message = kaasv1alpha1.ReasonKubeconfigPending, "provider-gardener-kubeconfig has not delivered an admin kubeconfig yet"
	default:
		c.Status, c.Reason = model.ConditionTrue, kaasv1alpha1.ReasonKubeconfigDelivered
		c.Message = "the connection secret holds an admin kubeconfig of the Shoot"
		if expires != "" {
			c.Message += fmt.Sprintf(", valid until %s %s", expires, model.KubeconfigRenewedNote)
		}
		return true, c
	}
	return false, c
}
