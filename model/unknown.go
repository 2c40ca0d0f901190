package model

import (
	"fmt"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
)

// keepUnknown keeps the observed composed resources that no backend renders under their
// name (left by an older version of the function, or under a key since renamed) and that
// can hold a cluster or its credentials: desired as they were last applied, with a warning
// that names each. Crossplane would otherwise delete them, and with them a cluster or the
// kubeconfig its users hold. Resources of other kinds are garbage-collected, as a change of
// the composition intends. Those of a backend are checkNothingDropped's, and the kubeconfig
// Secret is Reconcile's: composed while the namespaced composite asks for it, dropped when
// its writeConnectionSecretToRef is removed, which is the user's to do (docs/reliability.md).
func (r *Registry) keepUnknown(rendering *Rendering, in Input) []Event {
	rendered := make(map[string]bool, len(rendering.Resources))
	for _, res := range rendering.Resources {
		rendered[res.Name] = true
	}
	var names []string
	for name, o := range in.Observed {
		switch {
		case rendered[name], name == ResourceKubeconfigSecret, o.Object == nil, r.backendOf(name) != "", !HoldsCluster(o.Object):
		default:
			names = append(names, name)
		}
	}
	sort.Strings(names)
	warnings := make([]Event, 0, len(names))
	for _, name := range names {
		o := in.Observed[name].Object
		rendering.Resources = append(rendering.Resources, Resource{Name: name, Object: LastApplied(o)})
		warnings = append(warnings, Event{Type: EventWarning, Reason: kaasv1alpha1.ReasonUnknownResourceKept, Message: fmt.Sprintf(
			"composed resource %s (%s %s) is not one this version of the function renders; it can hold a cluster or its credentials, so it is kept as it was last applied rather than deleted: delete it by hand once it is not needed",
			name, o.GetKind(), o.GetName())})
	}
	return warnings
}

// backendOf names the backend whose resource names start like name, of every backend of
// the API and those of the registry; empty for none.
func (r *Registry) backendOf(name string) kaasv1alpha1.BackendType {
	for _, t := range append(kaasv1alpha1.BackendTypes(), registeredTypes(r)...) {
		if strings.HasPrefix(name, string(t)+"-") {
			return t
		}
	}
	return ""
}

// holdingGroups are the API groups whose objects can hold a cluster or its credentials
// (Cluster API's are every group ending in cluster.x-k8s.io).
var holdingGroups = map[string]bool{
	"core.gardener.cloud":                      true,
	"containerinfra.openstack.crossplane.io":   true,
	"containerinfra.openstack.m.crossplane.io": true,
	"gardener.kaas.scs.community":              true,
	"gardener.m.kaas.scs.community":            true,
}

// HoldsCluster says whether a composed resource can hold a cluster or its credentials:
// a provider-kubernetes Object (whatever it manages), a Cluster API object, a Shoot, a
// Magnum kind of provider-openstack, an AdminKubeconfig, a Secret.
func HoldsCluster(u *unstructured.Unstructured) bool {
	gvk := u.GroupVersionKind()
	switch {
	case gvk.Group == "" && gvk.Kind == "Secret":
		return true
	case gvk.Group == "kubernetes.crossplane.io" || gvk.Group == "kubernetes.m.crossplane.io":
		return gvk.Kind == "Object"
	case gvk.Group == "cluster.x-k8s.io" || strings.HasSuffix(gvk.Group, ".cluster.x-k8s.io"):
		return true
	}
	return holdingGroups[gvk.Group]
}
