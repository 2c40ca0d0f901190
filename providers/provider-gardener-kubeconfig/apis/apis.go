// Package apis registers every API version of provider-gardener-kubeconfig.
package apis

import (
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/SovereignCloudStack/scs-kaas/providers/provider-gardener-kubeconfig/apis/v1alpha1"
)

// AddToScheme adds every kind of the provider to a scheme.
func AddToScheme(s *runtime.Scheme) error {
	return v1alpha1.AddToScheme(s)
}
