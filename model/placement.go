package model

import (
	"encoding/base64"
	"fmt"
	"maps"
	"sort"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/SovereignCloudStack/scs-kaas/model/providerkubernetes"
)

// Placement says where a backend's native objects live and so how they are composed and
// read: locally as they are, or remotely through provider-kubernetes Objects and
// collections. The same calls work in both places, so backends never fork on it.
type Placement struct {
	req            *Request
	providerConfig string // empty when local
}

// Local says whether the native objects live in Crossplane's own cluster.
func (p Placement) Local() bool { return p.providerConfig == "" }

// Namespace is where a native object wanted in ns goes: ns, but a namespaced composite
// composes local objects in its own namespace only.
func (p Placement) Namespace(ns string) string {
	if p.Local() && p.req.Namespaced() {
		return p.req.Cluster.Namespace
	}
	return ns
}

// ProviderConfig is the provider-kubernetes ProviderConfig of a remote cluster.
func (p Placement) ProviderConfig() string { return p.providerConfig }

// Native is a native object a backend wants to exist where its placement says.
type Native struct {
	// Resource is the composition resource name: stable, starting with the backend's type.
	Resource string
	Object   *unstructured.Unstructured
	// Wrapper names the provider-kubernetes Object that manages a remote native object.
	Wrapper string
	// Readiness is a CEL query that makes the Object ready; without one, once it exists.
	Readiness string
}

// Compose returns the composed resource that makes a native object exist: the object itself
// locally (deleted with the composite: it cannot be orphaned), remotely an Object that
// orphans it while KeepOnDelete. The object is labelled in place, not copied: backends pass
// one they have just rendered.
func (p Placement) Compose(n Native) Resource {
	obj := n.Object
	labelCluster(obj, p.req)
	if p.Local() {
		return Resource{Name: n.Resource, Object: obj}
	}
	return Resource{Name: n.Resource, Object: providerkubernetes.Wrap(obj.Object, providerkubernetes.WrapOptions{
		Name:               n.Wrapper,
		Namespace:          p.req.Cluster.Namespace,
		ProviderConfigName: p.providerConfig,
		Labels:             p.req.Labels(),
		ReadinessCelQuery:  n.Readiness,
		Orphan:             p.req.KeepOnDelete(),
	})}
}

// List is a list of objects a backend reads where its objects live, such as the
// ClusterStackReleases of a namespace.
type List struct {
	// Requirement names the requirement, and remotely the collection's resource.
	Requirement string
	// Collection names the remote ObservedObjectCollection.
	Collection       string
	APIVersion, Kind string
	Namespace        string
}

// provider-kubernetes' collections, and the label it puts on their Objects.
const (
	collectionAPIVersion           = "kubernetes.crossplane.io/v1alpha1"
	namespacedCollectionAPIVersion = "kubernetes.m.crossplane.io/v1alpha1"
	collectionKind                 = "ObservedObjectCollection"
	collectionMembershipLabel      = "kubernetes.crossplane.io/owned-by-collection"
)

// ListRequirement selects the objects locally, remotely the collection's Objects.
func (p Placement) ListRequirement(l List) Selector {
	if p.Local() {
		return Selector{APIVersion: l.APIVersion, Kind: l.Kind, Namespace: l.Namespace, MatchLabels: map[string]string{}}
	}
	s := Selector{APIVersion: providerkubernetes.APIVersion, Kind: providerkubernetes.Kind, MatchLabels: map[string]string{collectionMembershipLabel: l.Collection}}
	if p.req.Namespaced() {
		s.APIVersion, s.Namespace = providerkubernetes.NamespacedAPIVersion, p.req.Cluster.Namespace
	}
	return s
}

// ListResources are what reading the list composes: remotely the collection.
func (p Placement) ListResources(l List) []Resource {
	if p.Local() {
		return nil
	}
	meta := map[string]any{"name": l.Collection, "labels": stringMap(p.req.Labels())}
	apiVersion, ref := collectionAPIVersion, map[string]any{"name": p.providerConfig}
	if p.req.Namespaced() {
		meta["namespace"] = p.req.Cluster.Namespace
		apiVersion, ref["kind"] = namespacedCollectionAPIVersion, providerkubernetes.ClusterProviderConfigKind
	}
	return []Resource{{Name: l.Requirement, Disposable: true, Object: &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": apiVersion,
		"kind":       collectionKind,
		"metadata":   meta,
		"spec": map[string]any{
			"providerConfigRef": ref,
			"observeObjects": map[string]any{
				"apiVersion": l.APIVersion,
				"kind":       l.Kind,
				"namespace":  l.Namespace,
				"selector":   map[string]any{},
			},
		},
	}}}}
}

// Listed returns the list's objects of the right kind, sorted by name. known is false while
// a remote collection is empty or has members not read yet: then nothing may be removed or
// chosen from part of the list.
func (p Placement) Listed(l List) (items []*unstructured.Unstructured, known bool, err error) {
	fetched := p.req.Required[l.Requirement]
	unread := false
	for _, u := range fetched {
		if providerkubernetes.IsObject(u) {
			if u, err = providerkubernetes.Observed(u); err != nil {
				return nil, false, err
			}
			if u == nil {
				unread = true
				continue
			}
		}
		if u.GetAPIVersion() == l.APIVersion && u.GetKind() == l.Kind {
			items = append(items, u)
		}
	}
	sort.Slice(items, func(i, j int) bool { return items[i].GetName() < items[j].GetName() })
	return items, p.Local() || (len(fetched) > 0 && !unread), nil
}

// SecretRead is a key of a Secret a backend reads where its objects live, such as the
// kubeconfig Secret Cluster API writes for a Cluster.
type SecretRead struct {
	// Name is the requirement locally, the observe-only Object's resource name remotely.
	Name string
	// Object names the remote observe-only Object.
	Object                string
	Namespace, SecretName string
	Key                   string
	// ConnectionKey is the connection detail the remote Object publishes the key as, into
	// its connection secret ConnectionSecret.
	ConnectionKey    string
	ConnectionSecret string
}

// SecretRequirements select the Secret locally; remotely SecretResources read it.
func (p Placement) SecretRequirements(s SecretRead) map[string]Selector {
	if !p.Local() {
		return nil
	}
	return map[string]Selector{s.Name: {APIVersion: "v1", Kind: "Secret", Namespace: s.Namespace, MatchName: s.SecretName}}
}

// SecretResources are what reading the Secret composes: remotely an observe-only Object
// that publishes the key as a connection detail (checkSecretsSanitized guards its status).
func (p Placement) SecretResources(s SecretRead) []Resource {
	if p.Local() {
		return nil
	}
	return []Resource{{Name: s.Name, Disposable: true, Object: providerkubernetes.Wrap(map[string]any{
		"apiVersion": "v1",
		"kind":       "Secret",
		"metadata":   map[string]any{"name": s.SecretName, "namespace": s.Namespace},
	}, providerkubernetes.WrapOptions{
		Name:               s.Object,
		Namespace:          p.req.Cluster.Namespace,
		ProviderConfigName: p.providerConfig,
		Labels:             p.req.Labels(),
		ObserveOnly:        true,
		ConnectionDetails: []providerkubernetes.ConnectionDetail{{
			APIVersion: "v1", Kind: "Secret", Namespace: s.Namespace, Name: s.SecretName,
			FieldPath: "data." + s.Key, ToConnectionSecretKey: s.ConnectionKey,
		}},
		ConnectionSecretName:      s.ConnectionSecret,
		ConnectionSecretNamespace: p.req.Options.ConnectionSecretNamespace,
	})}}
}

// SecretData returns the Secret's key, or nil while there is none.
func (p Placement) SecretData(s SecretRead) ([]byte, error) {
	if !p.Local() {
		return p.req.Observed[s.Name].ConnectionDetails[s.ConnectionKey], nil
	}
	secrets := p.req.Required[s.Name]
	if len(secrets) == 0 {
		return nil, nil
	}
	enc, _, _ := unstructured.NestedString(secrets[0].Object, "data", s.Key)
	if enc == "" {
		return nil, nil
	}
	b, err := base64.StdEncoding.DecodeString(enc)
	if err != nil {
		return nil, fmt.Errorf("the Secret %s/%s holds no base64 data under %s", secrets[0].GetNamespace(), secrets[0].GetName(), s.Key)
	}
	return b, nil
}

// labelCluster puts the cluster's labels on a native object.
func labelCluster(u *unstructured.Unstructured, req *Request) {
	l := u.GetLabels()
	if l == nil {
		l = map[string]string{}
	}
	maps.Copy(l, req.Labels())
	u.SetLabels(l)
}
