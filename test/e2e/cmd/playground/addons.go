package main

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

	"github.com/SovereignCloudStack/scs-kaas/test/e2e/controlplane"
)

// argoCDNamespace is where the playground's environments register their clusters.
const argoCDNamespace = "argocd"

// registryCASecret holds the local registry's CA, for the add-ons' Flux sources.
const registryCASecret = "registry-ca"

var environmentConfigGVR = schema.GroupVersionResource{Group: "apiextensions.crossplane.io", Version: "v1beta1", Resource: "environmentconfigs"}

// startAddons runs Flux beside Crossplane, pushes the example add-ons (examples/addons) to
// the local registry as OCI artifacts, and gives every environment their catalog and Argo CD
// registration, as docs/addons.md shows: once make simulate has made a cluster Ready, Flux
// applies them to its workload API server with the kubeconfig it delivered.
func startAddons(ctx context.Context, env *controlplane.Env, namespaces []string) error {
	registry := env.Registry()
	if registry == nil {
		return errors.New("--addons needs the local registry of --configuration")
	}
	if err := env.StartFlux(ctx); err != nil {
		return err
	}
	root := env.Options().RepoRoot
	for _, a := range []string{"hello", "web"} {
		if _, err := registry.PushManifests(ctx, filepath.Join(root, "examples", "addons", a), "addons/"+a, "1"); err != nil {
			return err
		}
	}
	ca, err := os.ReadFile(registry.CAFile)
	if err != nil {
		return err
	}
	kube := env.Crossplane.Client
	// The Flux objects live beside the kubeconfig Secrets: the teams' namespaces, and
	// crossplane-system for claims.
	for _, ns := range append([]string{"crossplane-system", argoCDNamespace}, namespaces...) {
		if _, err := kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return err
		}
		// The registry of this run: a second make demo on the run directory has a new CA.
		secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: registryCASecret, Namespace: ns}, Data: map[string][]byte{"ca.crt": ca}}
		_, err := kube.CoreV1().Secrets(ns).Create(ctx, secret, metav1.CreateOptions{})
		if apierrors.IsAlreadyExists(err) {
			_, err = kube.CoreV1().Secrets(ns).Update(ctx, secret, metav1.UpdateOptions{})
		}
		if err != nil {
			return err
		}
	}
	oci := func(a string) map[string]any {
		return map[string]any{"oci": map[string]any{"url": "oci://" + registry.Address + "/addons/" + a, "tag": "1", "caSecretRef": registryCASecret}}
	}
	patch, err := json.Marshal(map[string]any{"data": map[string]any{
		"addons": []any{
			map[string]any{"name": "hello", "description": "a namespace with a ConfigMap that names the cluster", "enforced": true, "source": oci("hello"),
				"substitute": map[string]any{"cluster_name": "clusterName", "team": "namespace", "environment": "environment"}},
			map[string]any{"name": "web", "description": "a Deployment with a readiness probe", "default": true, "dependsOn": []any{"hello"}, "source": oci("web"),
				"substitute": map[string]any{"cluster_name": "clusterName", "team": "namespace"}},
		},
		"argoCD": map[string]any{"namespace": argoCDNamespace},
	}})
	if err != nil {
		return err
	}
	envs := env.Crossplane.Dynamic.Resource(environmentConfigGVR)
	list, err := envs.List(ctx, metav1.ListOptions{LabelSelector: "kaas.scs.community/environment"})
	if err != nil {
		return err
	}
	for _, e := range list.Items {
		if _, err := envs.Patch(ctx, e.GetName(), types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
			return fmt.Errorf("giving environment %s the example add-ons: %w", e.GetName(), err)
		}
	}
	logf("Flux runs; %d environments offer the example add-ons hello (enforced) and web (default) from %s, and register their clusters in namespace %s",
		len(list.Items), registry.Address, argoCDNamespace)
	return nil
}
