// Package providerkubernetes wraps native objects in provider-kubernetes Objects, so that
// Crossplane can manage them in another cluster, and unwraps the observed copies.
package providerkubernetes

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// The Object APIs of provider-kubernetes: cluster-scoped for legacy composites, namespaced
// for namespaced ones, which may compose only in their own namespace.
const (
	APIVersion           = "kubernetes.crossplane.io/v1alpha2"
	NamespacedAPIVersion = "kubernetes.m.crossplane.io/v1alpha1"
	Kind                 = "Object"

	// ClusterProviderConfigKind is what a namespaced Object names: platform-owned
	// credentials, never in a tenant's namespace.
	ClusterProviderConfigKind = "ClusterProviderConfig"
)

// managementPoliciesWithoutDelete leave the remote object in place when the Object goes:
// namespaced managed resources have no deletion policy.
var managementPoliciesWithoutDelete = []any{"Observe", "Create", "Update", "LateInitialize"}

// Deletion policies of a managed resource.
const (
	DeletionDelete = "Delete"
	DeletionOrphan = "Orphan"
)

// WrapOptions configure the Object around a manifest.
type WrapOptions struct {
	// Name of the Object. Derive it from immutable inputs only.
	Name string
	// Namespace makes it a namespaced Object; empty: the cluster-scoped Object.
	Namespace string
	// ProviderConfigName selects the remote cluster.
	ProviderConfigName string
	// Annotations and Labels go on the Object itself.
	Annotations map[string]string
	Labels      map[string]string
	// ReadinessCelQuery makes the Object Ready when it holds; without it, once created.
	ReadinessCelQuery string
	// Orphan leaves the remote object in place when the Object is deleted.
	Orphan bool
	// ConnectionDetails publish fields of remote objects, into the Secret
	// ConnectionSecretName (and, cluster-scoped, ConnectionSecretNamespace).
	ConnectionDetails         []ConnectionDetail
	ConnectionSecretName      string
	ConnectionSecretNamespace string
	// ObserveOnly reads the remote object without ever changing it.
	ObserveOnly bool
}

// ConnectionDetail publishes one field of a remote object.
type ConnectionDetail struct {
	APIVersion, Kind, Namespace, Name string
	FieldPath                         string
	ToConnectionSecretKey             string
}

// Wrap returns an Object that manages manifest in the cluster of the ProviderConfig. It
// watches the remote object, so its observed copy follows within a second, not a poll.
func Wrap(manifest map[string]any, o WrapOptions) *unstructured.Unstructured {
	namespaced := o.Namespace != ""
	ref := map[string]any{"name": o.ProviderConfigName}
	if namespaced {
		ref["kind"] = ClusterProviderConfigKind
	}
	spec := map[string]any{
		"forProvider":       map[string]any{"manifest": manifest},
		"providerConfigRef": ref,
		"watch":             true,
	}
	switch {
	case o.ObserveOnly:
		spec["managementPolicies"] = []any{"Observe"}
	case o.Orphan && namespaced:
		spec["managementPolicies"] = managementPoliciesWithoutDelete
	case o.Orphan:
		spec["deletionPolicy"] = DeletionOrphan
	case !namespaced:
		spec["deletionPolicy"] = DeletionDelete
	}
	if o.ReadinessCelQuery != "" {
		spec["readiness"] = map[string]any{"policy": "DeriveFromCelQuery", "celQuery": o.ReadinessCelQuery}
	}
	if len(o.ConnectionDetails) > 0 {
		cds := make([]any, 0, len(o.ConnectionDetails))
		for _, cd := range o.ConnectionDetails {
			cds = append(cds, map[string]any{
				"apiVersion":            cd.APIVersion,
				"kind":                  cd.Kind,
				"namespace":             cd.Namespace,
				"name":                  cd.Name,
				"fieldPath":             cd.FieldPath,
				"toConnectionSecretKey": cd.ToConnectionSecretKey,
			})
		}
		spec["connectionDetails"] = cds
		secret := map[string]any{"name": o.ConnectionSecretName}
		if !namespaced {
			secret["namespace"] = o.ConnectionSecretNamespace
		}
		spec["writeConnectionSecretToRef"] = secret
	}
	meta := map[string]any{"name": o.Name}
	apiVersion := APIVersion
	if namespaced {
		meta["namespace"] = o.Namespace
		apiVersion = NamespacedAPIVersion
	}
	if len(o.Annotations) > 0 {
		meta["annotations"] = stringMap(o.Annotations)
	}
	if len(o.Labels) > 0 {
		meta["labels"] = stringMap(o.Labels)
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": apiVersion,
		"kind":       Kind,
		"metadata":   meta,
		"spec":       spec,
	}}
}

// IsObject says whether u is a provider-kubernetes Object, cluster-scoped or namespaced.
func IsObject(u *unstructured.Unstructured) bool {
	return (u.GetAPIVersion() == APIVersion || u.GetAPIVersion() == NamespacedAPIVersion) && u.GetKind() == Kind
}

// IsObserveOnly says whether the Object only observes its remote object.
func IsObserveOnly(u *unstructured.Unstructured) bool {
	policies, _, _ := unstructured.NestedSlice(u.Object, "spec", "managementPolicies")
	return len(policies) == 1 && policies[0] == "Observe"
}

// Observed returns the remote object as last observed, or nil when it was not yet.
func Observed(object *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	raw, found, err := unstructured.NestedFieldNoCopy(object.Object, "status", "atProvider", "manifest")
	if err != nil {
		return nil, fmt.Errorf("Object %s: cannot read status.atProvider.manifest: %w", object.GetName(), err)
	}
	if !found || raw == nil {
		return nil, nil
	}
	m, ok := raw.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("Object %s: status.atProvider.manifest is a %T, not an object", object.GetName(), raw)
	}
	return &unstructured.Unstructured{Object: m}, nil
}

func stringMap(in map[string]string) map[string]any {
	out := make(map[string]any, len(in))
	for k, v := range in {
		out[k] = v
	}
	return out
}

// ExposesSecretData says whether an Object carries a Secret's data in its status, where
// anyone who may read Objects reads it: provider-kubernetes copies it there unless it runs
// with --sanitize-secrets, which leaves the marker {"redacted": null}.
func ExposesSecretData(object *unstructured.Unstructured) bool {
	remote, err := Observed(object)
	if err != nil || remote == nil || remote.GetAPIVersion() != "v1" || remote.GetKind() != "Secret" {
		return false
	}
	for _, f := range []string{"data", "stringData"} {
		d, _, _ := unstructured.NestedFieldNoCopy(remote.Object, f)
		switch d := d.(type) {
		case nil:
		case map[string]any:
			for k, v := range d {
				if k != "redacted" || v != nil {
					return true
				}
			}
		default:
			return true
		}
	}
	return false
}
