package cli

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/discovery"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
)

// flavour is which of the API's two flavours an installation serves. Both serve
// SCSCluster in kaas.scs.community/v1alpha1 with the same spec; they differ in what
// Crossplane adds: a legacy SCSCluster is a claim of a cluster-scoped XSCSCluster, a
// namespaced one is the composite itself.
type flavour string

const (
	flavourUnknown    flavour = ""
	flavourLegacy     flavour = "legacy"
	flavourNamespaced flavour = "namespaced"
)

// flavourOf reads the flavour from what Crossplane wrote into an SCSCluster: a claim gets
// spec.resourceRef once bound and spec.compositeDeletePolicy from its CRD's default, a
// Crossplane v2 composite gets spec.crossplane. Unknown before Crossplane has seen it.
func flavourOf(obj *unstructured.Unstructured) flavour {
	spec, _ := obj.Object["spec"].(map[string]any)
	switch {
	case spec == nil:
		return flavourUnknown
	case spec["resourceRef"] != nil || spec["compositeDeletePolicy"] != nil:
		return flavourLegacy
	case spec["crossplane"] != nil:
		return flavourNamespaced
	}
	return flavourUnknown
}

// servedFlavour asks the API server's discovery: the legacy flavour serves XSCSCluster
// next to SCSCluster. Discovery is open to every authenticated user, unlike the
// cluster-scoped composites themselves.
func servedFlavour(d discovery.DiscoveryInterface) (flavour, error) {
	if d == nil {
		return flavourUnknown, nil
	}
	list, err := d.ServerResourcesForGroupVersion(kaasv1alpha1.APIVersion)
	if err != nil {
		return flavourUnknown, err
	}
	for _, r := range list.APIResources {
		if r.Kind == kaasv1alpha1.CompositeKind {
			return flavourLegacy, nil
		}
	}
	return flavourNamespaced, nil
}

// detectFlavour is the flavour of the objects at hand, or else the served one.
func (c *Clients) detectFlavour(objs ...*unstructured.Unstructured) flavour {
	for _, o := range objs {
		if f := flavourOf(o); f != flavourUnknown {
			return f
		}
	}
	f, err := servedFlavour(c.Discovery)
	if err != nil {
		return flavourUnknown
	}
	return f
}
