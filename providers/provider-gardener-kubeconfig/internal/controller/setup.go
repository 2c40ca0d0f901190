// Package controller wires the provider's controllers into a manager.
package controller

import (
	"github.com/crossplane/crossplane-runtime/v2/pkg/controller"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/SovereignCloudStack/scs-kaas/providers/provider-gardener-kubeconfig/internal/controller/adminkubeconfig"
	"github.com/SovereignCloudStack/scs-kaas/providers/provider-gardener-kubeconfig/internal/controller/config"
)

// Setup adds every controller of the provider to the manager.
func Setup(mgr ctrl.Manager, o controller.Options, userAgent string) error {
	if err := config.Setup(mgr, o); err != nil {
		return err
	}
	return adminkubeconfig.Setup(mgr, o, userAgent)
}
