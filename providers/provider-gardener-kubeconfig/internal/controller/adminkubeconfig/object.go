package adminkubeconfig

import (
	"errors"

	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	"k8s.io/apimachinery/pkg/types"

	namespaced "github.com/SovereignCloudStack/scs-kaas/providers/provider-gardener-kubeconfig/apis/namespaced/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/providers/provider-gardener-kubeconfig/apis/v1alpha1"
)

// adminKubeconfig is what issuance and renewal need of an AdminKubeconfig, of either group:
// the cluster-scoped one of gardener.kaas.scs.community or the namespaced one of
// gardener.m.kaas.scs.community. Both share the parameter and observation types, so one
// implementation serves both; only where the connection secret is differs.
type adminKubeconfig struct {
	resource.Managed
	// params and at point into the object: writing through them changes it.
	params *v1alpha1.AdminKubeconfigParameters
	at     *v1alpha1.AdminKubeconfigObservation
	// secret is the connection secret; nil when spec.writeConnectionSecretToRef is unset.
	// A namespaced AdminKubeconfig's is always in its own namespace.
	secret *types.NamespacedName
}

// asAdminKubeconfig views a managed resource as an AdminKubeconfig of either group.
func asAdminKubeconfig(mg resource.Managed) (*adminKubeconfig, error) {
	switch cr := mg.(type) {
	case *v1alpha1.AdminKubeconfig:
		a := &adminKubeconfig{Managed: cr, params: &cr.Spec.ForProvider, at: &cr.Status.AtProvider}
		if ref := cr.Spec.WriteConnectionSecretToReference; ref != nil {
			a.secret = &types.NamespacedName{Namespace: ref.Namespace, Name: ref.Name}
		}
		return a, nil
	case *namespaced.AdminKubeconfig:
		a := &adminKubeconfig{Managed: cr, params: &cr.Spec.ForProvider, at: &cr.Status.AtProvider}
		if ref := cr.Spec.WriteConnectionSecretToReference; ref != nil {
			a.secret = &types.NamespacedName{Namespace: cr.GetNamespace(), Name: ref.Name}
		}
		return a, nil
	default:
		return nil, errors.New(errNotAdminKubeconfig)
	}
}

// describe names the resource for log lines: its name, with the namespace of a namespaced one.
func describe(mg resource.Managed) string {
	if ns := mg.GetNamespace(); ns != "" {
		return ns + "/" + mg.GetName()
	}
	return mg.GetName()
}
