package model

import (
	"encoding/base64"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// ResourceKubeconfigSecret is the resource name of a namespaced composite's kubeconfig Secret.
const ResourceKubeconfigSecret = "kubeconfig-secret"

// kubeconfigSecret composes the Secret of the kubeconfig contract (docs/kubeconfig.md), also
// before a kubeconfig is delivered, so that the desired state is complete.
func kubeconfigSecret(req *Request, name string, details map[string][]byte) Resource {
	data := make(map[string]any, len(details))
	for _, k := range connectionKeys {
		if v, ok := details[k]; ok {
			data[k] = base64.StdEncoding.EncodeToString(v)
		}
	}
	return Resource{Name: ResourceKubeconfigSecret, Disposable: true, Object: &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1",
		"kind":       "Secret",
		"metadata":   map[string]any{"name": name, "namespace": req.Cluster.Namespace, "labels": stringMap(req.Labels())},
		"type":       "Opaque",
		"data":       data,
	}}}
}
