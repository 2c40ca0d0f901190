package model

import (
	"encoding/base64"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// ResourceKubeconfigSecret is the resource name of the kubeconfig Secret a namespaced
// composite gets (Input.KubeconfigSecret). It belongs to no backend: it is the same for all.
const ResourceKubeconfigSecret = "kubeconfig-secret"

// kubeconfigSecret composes the Secret with the cluster's connection details, in the
// composite's namespace, with the keys of the kubeconfig contract (docs/kubeconfig.md). It
// is composed before the backend delivers a kubeconfig too, so that nothing is missing from
// the desired state, but it is ready only once it holds one.
func kubeconfigSecret(req *Request, name string, details map[string][]byte) Resource {
	data := make(map[string]any, len(details))
	for _, k := range []string{ConnectionKeyKubeconfig, ConnectionKeyEndpoint, ConnectionKeyCA} {
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
