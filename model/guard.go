package model

// The guard: every rule that refuses to go on because going on would replace, take over,
// drop or expose what exists (docs/reliability.md). None changes its arguments.

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/model/providerkubernetes"
)

// checkBackendKept refuses an environment that names another backend than the one that
// built the cluster (pinned; empty for a new one): switching would replace it.
func checkBackendKept(env *Environment, pinned kaasv1alpha1.BackendType) error {
	if pinned == "" || env.Backend == pinned {
		return nil
	}
	return errorf(kaasv1alpha1.ReasonReplacementRefused, "environment %q (EnvironmentConfig %s) now names backend %q, but this cluster was built by backend %q: switching backends would replace the cluster, so nothing was changed; restore data.backend",
		env.Name, env.ConfigName, env.Backend, pinned)
}

// guardObserved refuses resources of another backend, an Object that passes on a Secret's
// data, and a native object of another cluster.
func (r *Registry) guardObserved(backend Backend, observed map[string]ObservedResource, id Identity) error {
	if err := r.checkObservedBackends(backend, observed); err != nil {
		return err
	}
	if err := checkSecretsSanitized(observed); err != nil {
		return err
	}
	return checkOwnership(backend.Type(), observed, id)
}

// checkObservedBackends refuses resources of another backend, which would be deleted with
// the cluster; every backend of the API counts, supported here or not.
func (r *Registry) checkObservedBackends(backend Backend, observed map[string]ObservedResource) error {
	var foreign []string
	for name := range observed {
		if t := r.backendOf(name); t != "" && t != backend.Type() {
			foreign = append(foreign, fmt.Sprintf("%s (backend %s)", name, t))
		}
	}
	if len(foreign) == 0 {
		return nil
	}
	sort.Strings(foreign)
	return errorf(kaasv1alpha1.ReasonReplacementRefused, "the cluster has resources of another backend than %q, which its environment names now: %s; switching backends would delete them and replace the cluster, so nothing was changed",
		backend.Type(), strings.Join(foreign, ", "))
}

// checkSecretsSanitized refuses while an Object carries a Secret's data in its status: the
// function must not pass on what it should never have been shown, and the platform team
// must know at once. The message names the Object, never the data.
func checkSecretsSanitized(observed map[string]ObservedResource) error {
	var exposed []string
	for name, o := range observed {
		if o.Object != nil && providerkubernetes.IsObject(o.Object) && providerkubernetes.ExposesSecretData(o.Object) {
			exposed = append(exposed, fmt.Sprintf("%s (Object %s)", name, o.Object.GetName()))
		}
	}
	if len(exposed) == 0 {
		return nil
	}
	sort.Strings(exposed)
	return errorf(kaasv1alpha1.ReasonSecretExposed, "%s carries the data of the Secret it observes in its status, readable by anyone who may read Objects: provider-kubernetes runs without --sanitize-secrets. Start it with --sanitize-secrets (a DeploymentRuntimeConfig argument); until then nothing is changed",
		strings.Join(exposed, ", "))
}

// checkOwnership refuses a native object with another cluster's identity: their names
// collide in the backend, and this cluster would take it over.
func checkOwnership(backend kaasv1alpha1.BackendType, observed map[string]ObservedResource, id Identity) error {
	for _, name := range backendResources(backend, observed) {
		u := observed[name].Object
		if providerkubernetes.IsObject(u) {
			if remote, err := providerkubernetes.Observed(u); err == nil && remote != nil {
				u = remote
			}
		}
		if owner := u.GetLabels()[LabelIdentity]; owner != "" && owner != id.Hash() {
			return errorf(kaasv1alpha1.ReasonReplacementRefused, "%s %s/%s (composed resource %s) belongs to another cluster (label %s=%s, this cluster is %s): their names collide in the backend, and this cluster must not take it over; nothing was changed",
				u.GetKind(), u.GetNamespace(), u.GetName(), name, LabelIdentity, owner, id.Hash())
		}
	}
	return nil
}

// objectKeyPart is a part of what makes a composed resource the object it is: changing one
// makes Crossplane or its provider create another object and delete or abandon the first
// (another ProviderConfig is another garden, management cluster or cloud project).
type objectKeyPart struct {
	what string
	get  func(*unstructured.Unstructured) string
}

var objectKeyParts = append([]objectKeyPart{
	{"apiVersion", (*unstructured.Unstructured).GetAPIVersion},
	{"kind", (*unstructured.Unstructured).GetKind},
	{"namespace", (*unstructured.Unstructured).GetNamespace},
	{"name", (*unstructured.Unstructured).GetName},
	{"ProviderConfig", func(u *unstructured.Unstructured) string { return nestedString(u, "spec", "providerConfigRef", "name") }},
	{"ProviderConfig kind", func(u *unstructured.Unstructured) string { return nestedString(u, "spec", "providerConfigRef", "kind") }},
}, append(targetParts("managed object", "spec", "forProvider", "manifest"), targetParts("observed objects", "spec", "observeObjects")...)...)

// targetParts are the key parts of what the object at path points at.
func targetParts(what string, path ...string) []objectKeyPart {
	get := func(field ...string) func(*unstructured.Unstructured) string {
		return func(u *unstructured.Unstructured) string {
			return nestedString(u, append(slices.Clone(path), field...)...)
		}
	}
	return []objectKeyPart{
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

// checkObjectKeys refuses desired resources that would change an existing one's object key,
// reported or not. A part the observed object lacks (an API server default, unset by an
// older version) is not compared. keepSettings keeps the settings; this is the net where
// the status was lost, and names the settings to restore.
func checkObjectKeys(resources []Resource, observed map[string]ObservedResource, env *Environment, settings []Setting, minor string) error {
	for _, res := range resources {
		o, ok := observed[res.Name]
		if !ok || o.Object == nil {
			continue
		}
		for _, p := range objectKeyParts {
			was, now := p.get(o.Object), p.get(res.Object)
			if was == "" || now == "" || was == now {
				continue
			}
			hint := "restore what moved it (an environment setting, or the spec)"
			if paths := settingsNaming(env, settings, minor, now); len(paths) > 0 {
				hint = fmt.Sprintf("restore %s of environment %s (EnvironmentConfig %s)", strings.Join(paths, " and "), env.Name, env.ConfigName)
			}
			return errorf(kaasv1alpha1.ReasonReplacementRefused, "composed resource %s (%s) would change its %s from %s to %s: that would replace it, and with it what it holds, so nothing was changed; %s",
				res.Name, strings.TrimSpace(o.Object.GetKind()+" "+o.Object.GetName()), p.what, was, now, hint)
		}
	}
	return nil
}

// checkNothingDropped refuses a rendering that leaves out an existing composed resource of
// the backend, which Crossplane would delete, unless it is of a removed pool (LabelNodePool).
// Resources of other pipeline steps are not checked.
func checkNothingDropped(backend kaasv1alpha1.BackendType, resources []Resource, observed map[string]ObservedResource, spec *kaasv1alpha1.ClusterSpec) error {
	desired := make(map[string]bool, len(resources))
	for _, res := range resources {
		desired[res.Name] = true
	}
	var dropped []string
	for _, name := range backendResources(backend, observed) {
		o := observed[name]
		if desired[name] {
			continue
		}
		if onlyObserves(o.Object) && reportsNotThere(o.Object) {
			continue // a lookout that found nothing: it holds nothing
		}
		pool := o.Object.GetLabels()[LabelNodePool]
		if pool != "" && !slices.ContainsFunc(spec.NodePools, func(p kaasv1alpha1.NodePool) bool { return p.Name == pool }) {
			continue
		}
		why := "it is not labelled " + LabelNodePool + " as the node group of a pool the spec removed"
		if pool != "" {
			why = fmt.Sprintf("it belongs to node pool %s, which the spec still has", pool)
		}
		dropped = append(dropped, fmt.Sprintf("%s (%s %s; %s)", name, o.Object.GetKind(), o.Object.GetName(), why))
	}
	if len(dropped) == 0 {
		return nil
	}
	return errorf(kaasv1alpha1.ReasonDeletionRefused, "composed resources exist that the %s backend would no longer compose, so Crossplane would delete them: %s; nothing was changed: restore what removed them (a zone, the environment setting, the observed state)",
		backend, strings.Join(dropped, ", "))
}
