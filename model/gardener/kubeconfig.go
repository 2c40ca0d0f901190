package gardener

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/SovereignCloudStack/scs-kaas/model"
)

// ResourceKubeconfig is the AdminKubeconfig that provider-gardener-kubeconfig turns into a
// short-lived admin kubeconfig for the Shoot, renewed before it expires. Gardener has no
// static kubeconfig Secret any more, and neither a function nor provider-kubernetes can
// call the shoots/adminkubeconfig subresource.
const ResourceKubeconfig = "gardener-kubeconfig"

const (
	adminKubeconfigAPIVersion = "gardener.kaas.scs.community/v1alpha1"
	adminKubeconfigKind       = "AdminKubeconfig"
)

// adminKubeconfig renders the AdminKubeconfig of the cluster's Shoot. It publishes
// kubeconfig, endpoint and ca.crt into a connection secret that Crossplane reads back.
func adminKubeconfig(req *model.Request, shootNamespace, shootName string) *unstructured.Unstructured {
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
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": adminKubeconfigAPIVersion,
		"kind":       adminKubeconfigKind,
		"metadata": map[string]any{
			"name":   kubeconfigObjectName(req.Cluster.Name),
			"labels": map[string]any{model.LabelCluster: req.Cluster.Name},
		},
		"spec": map[string]any{
			"forProvider":       forProvider,
			"providerConfigRef": map[string]any{"name": providerConfig},
			"writeConnectionSecretToRef": map[string]any{
				"name":      kubeconfigObjectName(req.Cluster.Name),
				"namespace": req.Options.ConnectionSecretNamespace,
			},
			// Nothing to delete in the garden: admin kubeconfigs expire on their own.
			"deletionPolicy": "Delete",
		},
	}}
}

func kubeconfigObjectName(cluster string) string { return cluster + "-kubeconfig" }

// kubeconfigDetails are the connection details provider-gardener-kubeconfig published,
// or nil while it has published none.
func kubeconfigDetails(req *model.Request) (map[string][]byte, error) {
	raw := req.Observed[ResourceKubeconfig].ConnectionDetails[model.ConnectionKeyKubeconfig]
	if len(raw) == 0 {
		return nil, nil
	}
	return model.KubeconfigConnectionDetails(raw)
}
