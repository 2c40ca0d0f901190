package model

import (
	"maps"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	envv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/environment/v1alpha1"
	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/model/providerkubernetes"
)

// Request is everything a backend needs for one cluster.
type Request struct {
	// Cluster is the composite resource, its spec defaulted and validated.
	Cluster *kaasv1alpha1.XSCSCluster
	// NativeName is the cluster's name in the backend. Every name a backend derives starts
	// with it, and every native object carries it as LabelCluster.
	NativeName string
	// Identity is who the cluster is to its users (LabelIdentity).
	Identity Identity
	// Environment is the environment with the settings the cluster keeps.
	Environment *Environment
	// Defaulted records what the environment filled in, so messages say where a value came from.
	Defaulted *kaasv1alpha1.DefaultedValues
	// Observed are the native objects that exist now, keyed by resource name.
	Observed map[string]ObservedResource
	// Required are the resources fetched for Requirements, by requirement name; a key is
	// present once fetched, even if nothing matched.
	Required map[string][]*unstructured.Unstructured
	// Access is who may reach the API server, resolved once the spec is valid: backends
	// render it instead of spec.access.
	Access  Access
	Options Options
	// Maintenance says when the updates the cluster makes on its own may start: a backend
	// asks it (MayStart) before it moves to a newer patch it was not asked for.
	Maintenance *Maintenance
}

// ZonesDefaulted says whether the zones of a pool came from the environment, not the user.
func (r *Request) ZonesDefaulted(pool string) bool {
	k, ok := keptPool(r.Defaulted, pool)
	return ok && len(k.Zones) > 0
}

// Options are settings of the program that uses the model layer.
type Options struct {
	// ConnectionSecretNamespace is where cluster-scoped composed objects write their
	// connection secrets.
	ConnectionSecretNamespace string
}

// Place returns the placement in cluster: "local" or a provider-kubernetes ProviderConfig.
func (r *Request) Place(cluster string) Placement {
	if cluster == envv1alpha1.LocalCluster {
		return Placement{req: r}
	}
	return Placement{req: r, providerConfig: cluster}
}

// Namespaced says whether the composite is namespaced (the Crossplane v2 flavour).
func (r *Request) Namespaced() bool { return r.Cluster.Namespace != "" }

// Native returns the native object behind an observed composed resource, unwrapped from its
// Object; nil while it does not exist or is not reported yet (Unobserved). Observed state
// that cannot be read is an error: rendering on a guess could change a live cluster.
func (r *Request) Native(resource string) (*unstructured.Unstructured, error) {
	res, ok := r.Observed[resource]
	if !ok || res.Object == nil {
		return nil, nil
	}
	if !providerkubernetes.IsObject(res.Object) {
		return res.Object, nil
	}
	return providerkubernetes.Observed(res.Object)
}

// Protected says whether the cluster is protected from deletion.
func (r *Request) Protected() bool {
	return r.Cluster.Spec.DeletionProtection != nil && *r.Cluster.Spec.DeletionProtection
}

// Labels are the labels every object of the cluster carries: its name and identity's hash.
func (r *Request) Labels() map[string]string {
	l := map[string]string{LabelCluster: r.NativeName}
	if r.Identity.Name != "" {
		l[LabelIdentity] = r.Identity.Hash()
	}
	return l
}

// KeepOnDelete says whether deleting the composite must leave the native cluster in place:
// while it is protected (nothing behind the admission policy may delete it) or its
// deletion-policy annotation asks for Orphan.
func (r *Request) KeepOnDelete() bool {
	return r.Protected() || r.Cluster.GetAnnotations()[kaasv1alpha1.AnnotationDeletionPolicy] == string(kaasv1alpha1.DeletionOrphan)
}

// Managed returns the composed resource of a managed resource, with its ProviderConfig,
// connection secret and the cluster's labels. KeepOnDelete makes it Orphan, or for
// namespaced kinds, which have no deletion policy, drops Delete from its management policies.
func (r *Request) Managed(m Managed) Resource {
	spec := make(map[string]any, len(m.Spec)+3)
	maps.Copy(spec, m.Spec)
	protect := r.KeepOnDelete() && !m.NothingToKeep
	if m.Namespace != "" {
		ref := map[string]any{"name": m.ProviderConfig}
		if m.ProviderConfigKind != "" {
			ref["kind"] = m.ProviderConfigKind
		}
		spec["providerConfigRef"] = ref
		if m.ConnectionSecret != "" {
			spec["writeConnectionSecretToRef"] = map[string]any{"name": m.ConnectionSecret}
		}
		if protect {
			spec["managementPolicies"] = []any{"Observe", "Create", "Update", "LateInitialize"}
		}
	} else {
		spec["providerConfigRef"] = map[string]any{"name": m.ProviderConfig}
		if m.ConnectionSecret != "" {
			spec["writeConnectionSecretToRef"] = map[string]any{"name": m.ConnectionSecret, "namespace": r.Options.ConnectionSecretNamespace}
		}
		spec["deletionPolicy"] = "Delete"
		if protect {
			spec["deletionPolicy"] = "Orphan"
		}
	}
	labels := stringMap(r.Labels())
	for k, v := range m.Labels {
		labels[k] = v
	}
	meta := map[string]any{"name": m.Name, "labels": labels}
	if m.Namespace != "" {
		meta["namespace"] = m.Namespace
	}
	if len(m.Annotations) > 0 {
		meta["annotations"] = stringMap(m.Annotations)
	}
	return Resource{Name: m.Resource, Disposable: m.NothingToKeep, Object: &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": m.APIVersion,
		"kind":       m.Kind,
		"metadata":   meta,
		"spec":       spec,
	}}}
}
