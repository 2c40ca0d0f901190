package controlplane

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
)

// ArgoCDNamespace is where the environments OfferExampleAddons edits register their clusters.
const ArgoCDNamespace = "argocd"

// RegistryCASecret holds the local registry's CA, for the add-ons' Flux sources.
const RegistryCASecret = "registry-ca"

var environmentConfigGVR = schema.GroupVersionResource{Group: "apiextensions.crossplane.io", Version: "v1beta1", Resource: "environmentconfigs"}

// OfferExampleAddons runs Flux beside Crossplane, pushes the example add-ons
// (examples/addons) to the local registry as OCI artifacts, and gives every environment
// their catalog (hello enforced, web default) and Argo CD registration, as docs/addons.md
// shows: once a cluster is Ready, Flux applies them to the API server its delivered
// kubeconfig names. namespaces are the teams' (and namespaced composites') namespaces, where
// the Flux sources find the registry's CA. It returns how many environments offer them.
// The playground (make demo) and the scale run with add-ons (make scale ADDONS=1) use it.
func (e *Env) OfferExampleAddons(ctx context.Context, namespaces []string) (int, error) {
	registry := e.Registry()
	if registry == nil {
		return 0, errors.New("the example add-ons need the local registry (packages)")
	}
	if err := e.StartFlux(ctx); err != nil {
		return 0, err
	}
	root := e.opts.RepoRoot
	for _, a := range []string{"hello", "web"} {
		if _, err := registry.PushManifests(ctx, filepath.Join(root, "examples", "addons", a), "addons/"+a, "1"); err != nil {
			return 0, err
		}
	}
	ca, err := os.ReadFile(registry.CAFile)
	if err != nil {
		return 0, err
	}
	kube := e.Crossplane.Client
	// The Flux objects live beside the kubeconfig Secrets: the teams' namespaces, and
	// crossplane-system for claims.
	for _, ns := range append([]string{"crossplane-system", ArgoCDNamespace}, namespaces...) {
		if _, err := kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return 0, err
		}
		// The registry of this run: a second make demo on the run directory has a new CA.
		secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: RegistryCASecret, Namespace: ns}, Data: map[string][]byte{"ca.crt": ca}}
		_, err := kube.CoreV1().Secrets(ns).Create(ctx, secret, metav1.CreateOptions{})
		if apierrors.IsAlreadyExists(err) {
			_, err = kube.CoreV1().Secrets(ns).Update(ctx, secret, metav1.UpdateOptions{})
		}
		if err != nil {
			return 0, err
		}
	}
	oci := func(a string) map[string]any {
		return map[string]any{"oci": map[string]any{"url": "oci://" + registry.Address + "/addons/" + a, "tag": "1", "caSecretRef": RegistryCASecret}}
	}
	patch, err := json.Marshal(map[string]any{"data": map[string]any{
		"addons": []any{
			map[string]any{"name": "hello", "description": "a namespace with a ConfigMap that names the cluster", "enforced": true, "source": oci("hello"),
				"substitute": map[string]any{"cluster_name": "clusterName", "team": "namespace", "environment": "environment"}},
			map[string]any{"name": "web", "description": "a Deployment with a readiness probe", "default": true, "dependsOn": []any{"hello"}, "source": oci("web"),
				"substitute": map[string]any{"cluster_name": "clusterName", "team": "namespace"}},
		},
		"argoCD": map[string]any{"namespace": ArgoCDNamespace},
	}})
	if err != nil {
		return 0, err
	}
	envs := e.Crossplane.Dynamic.Resource(environmentConfigGVR)
	list, err := envs.List(ctx, metav1.ListOptions{LabelSelector: "kaas.scs.community/environment"})
	if err != nil {
		return 0, err
	}
	for _, cfg := range list.Items {
		if _, err := envs.Patch(ctx, cfg.GetName(), types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
			return 0, fmt.Errorf("giving environment %s the example add-ons: %w", cfg.GetName(), err)
		}
	}
	return len(list.Items), nil
}
