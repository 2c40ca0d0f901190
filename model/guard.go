// The guard: every rule that refuses to go on because going on would replace, take over,
// drop or expose what exists. A refusal is a Fatal result: Crossplane changes nothing.
// Each rule takes what it needs and returns an error or nil; none changes its arguments.
package model

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/model/providerkubernetes"
)

// checkBackendKept refuses an environment that now names another backend than the one the
// cluster was built by (pinned; empty for a new cluster): switching would replace it.
func checkBackendKept(env *Environment, pinned kaasv1alpha1.BackendType) error {
	if pinned == "" || env.Backend == pinned {
		return nil
	}
	return errorf(kaasv1alpha1.ReasonReplacementRefused, "environment %q (EnvironmentConfig %s) now names backend %q, but this cluster was built by backend %q: switching backends would replace the cluster, so nothing was changed; restore data.backend",
		env.Name, env.ConfigName, env.Backend, pinned)
}

// guardObserved refuses what the observed composed resources forbid: resources of another
// backend, an Object that passes on a Secret's data, a native object of another cluster.
func (r *Registry) guardObserved(backend Backend, observed map[string]ObservedResource, id Identity) error {
	if err := r.checkObservedBackends(backend, observed); err != nil {
		return err
	}
	if err := checkSecretsSanitized(observed); err != nil {
		return err
	}
	return checkOwnership(backend.Type(), observed, id)
}

// checkObservedBackends refuses to go on when an observed resource was created by another
// backend than the one the environment names: the other backend's objects would be
// deleted, and with them the cluster. Every backend of the API counts, including those
// this program does not support.
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

// checkSecretsSanitized refuses to go on while a provider-kubernetes Object of the cluster
// carries a Secret's data (a kubeconfig) in its status: the function must not pass on what
// it should never have been shown, and the platform team must know at once. The message
// names the Object, never the data.
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

// checkOwnership refuses to go on when a native object the backend observes carries the
// identity of another cluster: two clusters whose names collide in the backend, where the
// second would take over the first's object.
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

// objectKeyPart is one part of what makes a composed resource the object it is. Changing any
// of them under an existing resource name makes Crossplane or the resource's provider create
// another object and delete or abandon the first: another kind or name is a new composed
// object; another ProviderConfig is another garden, management cluster or cloud project;
// another target (the object a provider-kubernetes Object manages, what a collection
// observes) is another object there.
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

// targetParts are the parts of what the object at path points at (the manifest of a
// provider-kubernetes Object, what a collection observes): apiVersion, kind, namespace and
// name.
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

// checkObjectKeys refuses desired resources that would give an existing composed resource
// another object key (objectKeyParts), whether or not its provider has reported it: that
// would replace it. A part the observed object does not carry (a default the API server
// adds, or a field an older version did not set) is not compared. The message names the
// environment settings that point at the new value, which keepSettings keeps for clusters
// it knows; this is the net for those it does not (a cluster whose status was lost, a backup
// restored).
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

// checkNothingDropped refuses a rendering that leaves out a composed resource of the
// backend that exists: Crossplane would delete it, and with it a cluster or its nodes. The
// one exception is a resource of a node pool the spec no longer has (labelled LabelNodePool):
// removing a pool removes its node groups. Resources of earlier or later pipeline steps are
// not the backend's and not checked.
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
