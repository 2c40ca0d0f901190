// Package apis registers every API group and version of provider-gardener-kubeconfig: the
// cluster-scoped, legacy-style kinds of gardener.kaas.scs.community (v1alpha1) and the
// Crossplane v2 namespaced kinds of gardener.m.kaas.scs.community (namespaced/v1alpha1).
package apis

import (
	"k8s.io/apimachinery/pkg/runtime"

	namespaced "github.com/SovereignCloudStack/scs-kaas/providers/provider-gardener-kubeconfig/apis/namespaced/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/providers/provider-gardener-kubeconfig/apis/v1alpha1"
)

// AddToScheme adds every kind of the provider to a scheme.
func AddToScheme(s *runtime.Scheme) error {
	for _, add := range []func(*runtime.Scheme) error{v1alpha1.AddToScheme, namespaced.AddToScheme} {
		if err := add(s); err != nil {
			return err
		}
	}
	return nil
}
