package adminkubeconfig

import (
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"

	"github.com/SovereignCloudStack/scs-kaas/providers/provider-gardener-kubeconfig/internal/kubeconfig"
)

// The connection details every backend of the SCS cluster API delivers: kubeconfig always,
// endpoint and ca.crt where the kubeconfig carries them.
const (
	KeyKubeconfig = "kubeconfig"
	KeyEndpoint   = "endpoint"
	KeyCA         = "ca.crt"
)

// connectionDetails derives the connection details from an admin kubeconfig.
func connectionDetails(kc []byte) (managed.ConnectionDetails, kubeconfig.Target, error) {
	target, err := kubeconfig.Inspect(kc)
	if err != nil {
		return nil, target, err
	}
	cd := managed.ConnectionDetails{
		KeyKubeconfig: kc,
		KeyEndpoint:   []byte(target.Server),
	}
	if len(target.CAData) > 0 {
		cd[KeyCA] = target.CAData
	}
	return cd, target, nil
}
