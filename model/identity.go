package model

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
)

// identityPart is one part of what makes a composed resource the object it is. Changing any
// of them under an existing resource name makes Crossplane or the resource's provider create
// another object and delete or abandon the first: another kind or name is a new composed
// object; another ProviderConfig is another garden, management cluster or cloud project;
// another target (the object a provider-kubernetes Object manages, what a collection
// observes) is another object there.
type identityPart struct {
	what string
	get  func(*unstructured.Unstructured) string
}

var identityParts = append([]identityPart{
	{"apiVersion", (*unstructured.Unstructured).GetAPIVersion},
	{"kind", (*unstructured.Unstructured).GetKind},
	{"namespace", (*unstructured.Unstructured).GetNamespace},
	{"name", (*unstructured.Unstructured).GetName},
	{"ProviderConfig", func(u *unstructured.Unstructured) string { return nestedString(u, "spec", "providerConfigRef", "name") }},
	{"ProviderConfig kind", func(u *unstructured.Unstructured) string { return nestedString(u, "spec", "providerConfigRef", "kind") }},
}, append(targetParts("managed object", "spec", "forProvider", "manifest"), targetParts("observed objects", "spec", "observeObjects")...)...)

// targetParts are the parts of what the object at path points at (the manifest of a
// provider-kubernetes Object, what a collection observes): apiVersion, kind, namespace and
// name.
func targetParts(what string, path ...string) []identityPart {
	get := func(field ...string) func(*unstructured.Unstructured) string {
		return func(u *unstructured.Unstructured) string {
			return nestedString(u, append(slices.Clone(path), field...)...)
		}
	}
	return []identityPart{
		{what + "'s apiVersion", get("apiVersion")},
		{what + "'s kind", get("kind")},
		{what + "'s namespace", func(u *unstructured.Unstructured) string {
			if ns := get("metadata", "namespace")(u); ns != "" {
				return ns
			}
			return get("namespace")(u)
		}},
		{what + "'s name", get("metadata", "name")},
	}
}

func nestedString(u *unstructured.Unstructured, path ...string) string {
	s, _, _ := unstructured.NestedString(u.Object, path...)
	return s
}

// checkIdentities refuses a rendering that would give an existing composed resource another
// identity (identityParts), whether or not its provider has reported it: that would replace
// it. A part the observed object does not carry (a default the API server adds, or a field
// an older version did not set) is not compared. The message names the environment settings
// that point at the new value, which KeepPlacement keeps for clusters it knows; this is the
// net for those it does not (a cluster whose status was lost, a backup restored).
func checkIdentities(rendering *Rendering, observed map[string]ObservedResource, env *Environment, settings []PlacementSetting) error {
	for _, res := range rendering.Resources {
		o, ok := observed[res.Name]
		if !ok || o.Object == nil {
			continue
		}
		for _, p := range identityParts {
			was, now := p.get(o.Object), p.get(res.Object)
			if was == "" || now == "" || was == now {
				continue
			}
			hint := "restore what moved it (an environment setting, or the spec)"
			if paths := settingsNaming(env, settings, now); len(paths) > 0 {
				hint = fmt.Sprintf("restore %s of environment %s (EnvironmentConfig %s)", strings.Join(paths, " and "), env.Name, env.ConfigName)
			}
			return errorf(kaasv1alpha1.ReasonReplacementRefused, "composed resource %s (%s) would change its %s from %s to %s: that would replace it, and with it what it holds, so nothing was changed; %s",
				res.Name, strings.TrimSpace(o.Object.GetKind()+" "+o.Object.GetName()), p.what, was, now, hint)
		}
	}
	return nil
}
