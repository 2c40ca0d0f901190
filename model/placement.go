package model

import (
	"encoding/base64"
	"fmt"
	"sort"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/SovereignCloudStack/scs-kaas/model/providerkubernetes"
)

// Placement says where a backend's native objects live, and so how they are composed and
// read: in the cluster Crossplane runs in (local: composed as they are, read as required
// resources), or in another cluster that Crossplane reaches through a provider-kubernetes
// ProviderConfig (remote: wrapped in Objects, read through observe-only Objects and
// collections). A backend gets it from Request.Place with the environment setting that
// names the cluster, and never forks on it: the same calls work in both places.
type Placement struct {
	req *Request
	// providerConfig names the remote cluster's ProviderConfig; empty when local.
	providerConfig string
}

// Local says whether the native objects live in Crossplane's own cluster.
func (p Placement) Local() bool { return p.providerConfig == "" }

// Namespace is the namespace a native object the backend wants in namespace ns goes to: ns,
// except that a namespaced composite composes local objects only in its own namespace (the
// backend then refers across, or refuses, where that matters to it).
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
	// Object is the native object.
	Object *unstructured.Unstructured
	// Wrapper names the provider-kubernetes Object that manages a remote native object.
	Wrapper string
	// Readiness is a CEL query on the native object that makes its Object ready; without
	// one the Object is ready once the object exists.
	Readiness string
}

// Compose returns the composed resource that makes a native object exist: the object
// itself locally, an Object that manages it remotely. Both carry the cluster's label. A
// remote Object orphans its object while the cluster is to be kept on deletion
// (KeepOnDelete), so that deleting the composite never deletes a protected cluster behind
// the admission policy. A local object cannot be orphaned: it is deleted with the composite.
// The object becomes part of the result and is labelled in place: backends pass one they
// have just rendered, so copying it first would only cost time.
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

// List is a list of objects a backend reads from the cluster its objects live in, such
// as the ClusterStackReleases of a namespace.
type List struct {
	// Requirement names the requirement; remotely it is also the resource name of the
	// ObservedObjectCollection.
	Requirement string
	// Collection names the ObservedObjectCollection (remote).
	Collection       string
	APIVersion, Kind string
	Namespace        string
}

// collection APIs of provider-kubernetes, and the label it puts on the collection's Objects.
const (
	collectionAPIVersion           = "kubernetes.crossplane.io/v1alpha1"
	namespacedCollectionAPIVersion = "kubernetes.m.crossplane.io/v1alpha1"
	collectionKind                 = "ObservedObjectCollection"
	collectionMembershipLabel      = "kubernetes.crossplane.io/owned-by-collection"
)

// ListRequirement selects the list: the objects themselves locally, remotely the
// observe-only Objects provider-kubernetes keeps for the collection.
func (p Placement) ListRequirement(l List) Selector {
	if p.Local() {
		return Selector{APIVersion: l.APIVersion, Kind: l.Kind, Namespace: l.Namespace, MatchLabels: map[string]string{}}
	}
	if p.req.Namespaced() {
		return Selector{APIVersion: providerkubernetes.NamespacedAPIVersion, Kind: providerkubernetes.Kind, Namespace: p.req.Cluster.Namespace,
			MatchLabels: map[string]string{collectionMembershipLabel: l.Collection}}
	}
	return Selector{APIVersion: providerkubernetes.APIVersion, Kind: providerkubernetes.Kind,
		MatchLabels: map[string]string{collectionMembershipLabel: l.Collection}}
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
// a remote collection has observed nothing yet, or has members whose objects provider-
// kubernetes has not read yet: the answer then means "not read (completely) yet", never
// "there are none" or "these are all", so nothing is removed and nothing is chosen from
// part of the list.
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

// SecretRead is a key of a Secret a backend reads from the cluster its objects live in,
// such as the kubeconfig Secret Cluster API writes for a Cluster.
type SecretRead struct {
	// Name is the requirement name locally, the resource name of the observe-only Object
	// remotely.
	Name string
	// Object names the observe-only Object (remote).
	Object                string
	Namespace, SecretName string
	Key                   string
	// ConnectionKey is the connection detail the remote Object publishes the key as, into
	// its connection secret ConnectionSecret.
	ConnectionKey    string
	ConnectionSecret string
}

// SecretRequirements select the Secret locally; remotely it is read through a composed
// resource instead (SecretResources).
func (p Placement) SecretRequirements(s SecretRead) map[string]Selector {
	if !p.Local() {
		return nil
	}
	return map[string]Selector{s.Name: {APIVersion: "v1", Kind: "Secret", Namespace: s.Namespace, MatchName: s.SecretName}}
}

// SecretResources are what reading the Secret composes: remotely an observe-only Object
// that publishes the key as a connection detail. provider-kubernetes copies the Secret into
// the Object's status unless it runs with --sanitize-secrets; Reconcile refuses to go on
// while it does (checkSecretsSanitized).
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
	for k, v := range req.Labels() {
		l[k] = v
	}
	u.SetLabels(l)
}
