package controlplane

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// GardenCredentials is the name of each project's OpenStack credentials in the garden: the
// Secret and the CredentialsBinding that Shoots name (credentialsBindingName), as in the
// example environment.
const GardenCredentials = "openstack-credentials"

// setupGarden gives the garden what a Gardener landscape has before the first Shoot: the
// landscape (CloudProfile, ControllerRegistrations, Seed), any extra CRDs, and for each
// project its namespace, Project and credentials.
func (e *Env) setupGarden(ctx context.Context) error {
	g := e.Garden
	objs, err := landscape()
	if err != nil {
		return err
	}
	if err := g.ApplyObjects(ctx, objs...); err != nil {
		return err
	}
	if len(e.opts.GardenCRDs) > 0 {
		crds, err := ReadManifests(e.opts.GardenCRDs...)
		if err != nil {
			return err
		}
		if err := g.ApplyObjects(ctx, crds...); err != nil {
			return err
		}
		if err := e.waitCRDsEstablished(ctx, g, crds); err != nil {
			return err
		}
	}
	for _, p := range e.opts.GardenProjects {
		if err := e.CreateGardenProject(ctx, p); err != nil {
			return err
		}
	}
	return nil
}

// CreateGardenProject creates Gardener project <project> in the garden: its namespace
// garden-<project> (created first and labelled as Gardener's project controller would,
// since none runs here), the Project, and the OpenStack credentials Shoots use: a Secret and
// a CredentialsBinding, both named GardenCredentials. It can be called again.
func (e *Env) CreateGardenProject(ctx context.Context, project string) error {
	namespace := "garden-" + project
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{
		Name: namespace,
		Labels: map[string]string{
			"gardener.cloud/role":         "project",
			"project.gardener.cloud/name": project,
		},
	}}
	if _, err := e.Garden.Client.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	// Made-up credentials: no OpenStack is called. The keys are those of Gardener's
	// OpenStack extension.
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: GardenCredentials, Namespace: namespace},
		StringData: map[string]string{
			"domainName": "default", "tenantName": project, "username": project,
			"password": "not-a-password", "authURL": "https://keystone.invalid:5000/v3",
		},
	}
	if _, err := e.Garden.Client.CoreV1().Secrets(namespace).Create(ctx, secret, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	objs := []*unstructured.Unstructured{
		{Object: map[string]any{
			"apiVersion": "core.gardener.cloud/v1beta1", "kind": "Project",
			"metadata": map[string]any{"name": project},
			"spec":     map[string]any{"namespace": namespace},
		}},
		{Object: map[string]any{
			"apiVersion": "security.gardener.cloud/v1alpha1", "kind": "CredentialsBinding",
			"metadata": map[string]any{"name": GardenCredentials, "namespace": namespace},
			"provider": map[string]any{"type": "openstack"},
			"credentialsRef": map[string]any{
				"apiVersion": "v1", "kind": "Secret", "name": GardenCredentials, "namespace": namespace,
			},
		}},
	}
	return e.Garden.ApplyObjects(ctx, objs...)
}
