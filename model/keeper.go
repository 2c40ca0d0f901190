package model

// The keeper: every rule that keeps what exists and what was delivered when a rendering
// alone would lose it (docs/reliability.md). None changes its arguments.

import (
	"encoding/base64"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/model/providerkubernetes"
)

// kept is what keepSettings kept: the pinned values, a note for each the environment names
// otherwise, and with an adoption, what it took and what it could not.
type kept struct {
	record                    map[string]string
	changes, adopted, refused []string
}

// keepSettings returns a copy of env with each setting at the value record (the status')
// keeps, and what it kept. A setting without a record, or one that follows, takes the
// environment's value; adopt takes every value but those EffectRefused. patches, for a
// cluster with automatic patch updates, moves a setting with PatchOf to a newer patch of the
// minor when the cluster's maintenance lets it start.
func keepSettings(env *Environment, settings []Setting, record map[string]string, minor string, adopt bool, patches *Maintenance) (*Environment, kept, error) {
	out := *env
	out.Environment = *env.DeepCopy()
	k := kept{record: make(map[string]string, len(settings))}
	for _, s := range settings {
		path := s.at(minor)
		now, err := getSetting(&out, path)
		if err != nil {
			return nil, k, err
		}
		was, ok := record[path]
		switch {
		case s.Follows:
			continue
		case !ok || was == now:
		case adopt && s.Change.Effect != EffectRefused:
			k.adopted = append(k.adopted, fmt.Sprintf("%s: %s -> %s (%s)", path, shownSetting(was), shownSetting(now), s.Change.Effect))
		case patches != nil && s.PatchUpdate != nil && patchUpdate(s, was, now):
			from, to, _ := s.PatchUpdate(was, now)
			if patches.MayStart(kaasv1alpha1.UpdateKubernetesPatch, from, to) {
				break // the cluster's own patch update, in its window
			}
			k.changes = append(k.changes, fmt.Sprintf("%s: the cluster stays on %s until its maintenance window, then moves to %s (UpdatePlanned)",
				path, shownSetting(was), shownSetting(now)))
			if err := setSetting(&out, path, was); err != nil {
				return nil, k, Unreadable(fmt.Errorf("the value status.backend.pinned records for %s cannot be kept: %w", path, err))
			}
			now = was
		default:
			if adopt {
				k.refused = append(k.refused, fmt.Sprintf("%s stays on %s, not %s: %s", path, shownSetting(was), shownSetting(now), s.Change.Note))
			}
			k.changes = append(k.changes, fmt.Sprintf("%s: the cluster stays on %s; the environment names %s now, which applies to new clusters (%s)",
				path, shownSetting(was), shownSetting(now), adoption(s.Change)))
			if err := setSetting(&out, path, was); err != nil {
				return nil, k, Unreadable(fmt.Errorf("the value status.backend.pinned records for %s cannot be kept: %w", path, err))
			}
			now = was
		}
		k.record[path] = now
	}
	return &out, k, nil
}

// adoption says what adopting another value of a setting does.
func adoption(c ChangeEffect) string {
	if c.Effect == EffectRefused {
		return "it cannot be adopted: " + c.Note
	}
	return "adopting it: " + string(c.Effect)
}

// shownSetting is a setting's value as messages show it.
// patchUpdate says whether the setting's new value is a patch update of the old one.
func patchUpdate(s Setting, was, now string) bool {
	_, _, ok := s.PatchUpdate(was, now)
	return ok
}

// shownSetting is a recorded value as messages show it.
func shownSetting(v string) string {
	if v == "" {
		return "(unset)"
	}
	return v
}

// settingsNaming are the settings whose value is v: those to restore when a resource would
// move to v.
func settingsNaming(env *Environment, settings []Setting, minor, v string) []string {
	var out []string
	for _, s := range settings {
		if now, err := getSetting(env, s.at(minor)); err == nil && v != "" && now == v {
			out = append(out, s.at(minor))
		}
	}
	return out
}

// Unobserved lists, sorted, the provider-kubernetes Objects whose remote object is not
// reported yet: it exists, so it is kept as last applied, neither rendered as new nor left
// out (docs/reliability.md). Not listed: observe-only Objects, which change nothing, and
// those whose create failed, which have nothing behind them and are rendered anew.
func Unobserved(observed map[string]ObservedResource) []string {
	var out []string
	for name, o := range observed {
		u := o.Object
		if u == nil || !providerkubernetes.IsObject(u) || providerkubernetes.IsObserveOnly(u) || createFailed(u) {
			continue
		}
		if remote, err := providerkubernetes.Observed(u); err == nil && remote == nil {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// LastApplied is an observed composed resource as last applied: without status and the
// metadata the API server and controllers add.
func LastApplied(observed *unstructured.Unstructured) *unstructured.Unstructured {
	meta := map[string]any{"name": observed.GetName()}
	if ns := observed.GetNamespace(); ns != "" {
		meta["namespace"] = ns
	}
	if l := observed.GetLabels(); len(l) > 0 {
		meta["labels"] = stringMap(l)
	}
	if a := observed.GetAnnotations(); len(a) > 0 {
		meta["annotations"] = stringMap(a)
	}
	out := map[string]any{"apiVersion": observed.GetAPIVersion(), "kind": observed.GetKind(), "metadata": meta}
	for k, v := range observed.Object {
		if _, set := out[k]; !set && k != "status" {
			out[k] = runtime.DeepCopyJSONValue(v)
		}
	}
	return &unstructured.Unstructured{Object: out}
}

// keepUnobserved desires every unobserved resource as last applied, whatever was rendered.
func keepUnobserved(resources []Resource, observed map[string]ObservedResource, unobserved []string) []Resource {
	out := slices.Clone(resources)
	for _, name := range unobserved {
		kept := Resource{Name: name, Object: LastApplied(observed[name].Object)}
		if i := slices.IndexFunc(out, func(res Resource) bool { return res.Name == name }); i >= 0 {
			kept.Disposable = out[i].Disposable
			out[i] = kept
			continue
		}
		out = append(out, kept)
	}
	return out
}

// keepUnknown keeps, as last applied and with a warning, the observed resources under a
// name no backend renders that can hold a cluster or its credentials, which Crossplane would
// delete; other kinds are garbage-collected. A backend's are checkNothingDropped's; the
// kubeconfig Secret goes when the composite no longer names one (docs/reliability.md); the
// Argo CD registration is registerArgoCD's, which keeps it.
func (r *Registry) keepUnknown(resources []Resource, observed map[string]ObservedResource) ([]Resource, []Event) {
	rendered := make(map[string]bool, len(resources))
	for _, res := range resources {
		rendered[res.Name] = true
	}
	var names []string
	for name, o := range observed {
		switch {
		case rendered[name], name == ResourceKubeconfigSecret, name == ResourceArgoCDCluster, o.Object == nil, r.backendOf(name) != "", !HoldsCluster(o.Object):
		default:
			names = append(names, name)
		}
	}
	sort.Strings(names)
	out := slices.Clone(resources)
	warnings := make([]Event, 0, len(names))
	for _, name := range names {
		o := observed[name].Object
		out = append(out, Resource{Name: name, Object: LastApplied(o)})
		warnings = append(warnings, Event{Type: EventWarning, Reason: kaasv1alpha1.ReasonUnknownResourceKept, Message: fmt.Sprintf(
			"composed resource %s (%s %s) is not one this version of the function renders; it can hold a cluster or its credentials, so it is kept as it was last applied rather than deleted: delete it by hand once it is not needed",
			name, o.GetKind(), o.GetName())})
	}
	return out, warnings
}

// holdingGroups are API groups whose objects can hold a cluster or its credentials.
var holdingGroups = map[string]bool{
	"core.gardener.cloud":                      true,
	"containerinfra.openstack.crossplane.io":   true,
	"containerinfra.openstack.m.crossplane.io": true,
	"gardener.kaas.scs.community":              true,
	"gardener.m.kaas.scs.community":            true,
}

// HoldsCluster says whether a composed resource can hold a cluster or its credentials.
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

// connectionKeys are the keys of the kubeconfig contract (docs/kubeconfig.md).
var connectionKeys = []string{ConnectionKeyKubeconfig, ConnectionKeyEndpoint, ConnectionKeyCA, ConnectionKeyOIDCKubeconfig}

// Delivered are the connection details the cluster's users hold now, from the observed
// kubeconfig Secret or the legacy composite's, keys of the kubeconfig contract only.
func Delivered(in Input) map[string][]byte {
	out := map[string][]byte{}
	if s := in.Observed[ResourceKubeconfigSecret].Object; s != nil {
		data, _ := s.Object["data"].(map[string]any)
		for _, k := range connectionKeys {
			enc, _ := data[k].(string)
			if b, err := base64.StdEncoding.DecodeString(enc); err == nil && len(b) > 0 {
				out[k] = b
			}
		}
	}
	for _, k := range connectionKeys {
		if v := in.ConnectionDetails[k]; len(v) > 0 {
			out[k] = v
		}
	}
	return out
}

// keepRunningVersion keeps the version a cluster that exists last reported while its
// backend reports none (its native not observed yet, as after a restore): the updates it
// makes on its own start from that version, in its window, never from nothing at once.
func keepRunningVersion(obs *Observation, previous *kaasv1alpha1.ClusterStatus) *Observation {
	if obs.Status.Kubernetes != nil || previous.Kubernetes == nil || previous.Backend == nil || !previous.Backend.Created {
		return obs
	}
	out := *obs
	out.Status.Kubernetes = previous.Kubernetes.DeepCopy()
	return &out
}

// keepDelivered makes what was delivered the memory of the connection details: a new
// delivery replaces the keys it brings, and none is taken back, as Crossplane's server-side
// apply of the Secret would remove it from every consumer. Kept from memory, KubeconfigReady
// is Stale, unless the backend knows it no longer works.
func keepDelivered(obs *Observation, delivered map[string][]byte) *Observation {
	if len(delivered) == 0 {
		return obs
	}
	out := *obs
	out.ConnectionDetails = maps.Clone(delivered)
	maps.Copy(out.ConnectionDetails, obs.ConnectionDetails)
	if len(obs.ConnectionDetails[ConnectionKeyKubeconfig]) > 0 || len(delivered[ConnectionKeyKubeconfig]) == 0 {
		return &out
	}
	stale := Condition{Type: kaasv1alpha1.ConditionKubeconfigReady, Status: ConditionUnknown, Reason: kaasv1alpha1.ReasonKubeconfigStale,
		Message: "the connection secret keeps the kubeconfig delivered earlier: the backend shows none now"}
	out.Conditions = slices.Clone(obs.Conditions)
	i := slices.IndexFunc(out.Conditions, func(c Condition) bool { return c.Type == kaasv1alpha1.ConditionKubeconfigReady })
	switch {
	case i < 0:
		out.Conditions = append(out.Conditions, stale)
	case out.Conditions[i].Reason == kaasv1alpha1.ReasonKubeconfigExpired || out.Conditions[i].Reason == kaasv1alpha1.ReasonKubeconfigRenewalFailing:
		// The backend knows more: the kubeconfig users hold does not work.
	default:
		stale.Message = Truncate(stale.Message + " (" + out.Conditions[i].Message + ")")
		out.Conditions[i] = stale
	}
	return &out
}

// unknownObservation is what can be said while a native object's state is not known: the
// last status stays (a Ready cluster does not turn Provisioning while its provider
// restarts), BackendReady is Unknown, and the unobserved resources are not ready.
func unknownObservation(obs *Observation, previous *kaasv1alpha1.ClusterStatus, unobserved []string) *Observation {
	out := *obs
	out.Status = copyStatus(previous)
	if out.Status.Phase == "" {
		out.Status.Phase = kaasv1alpha1.PhaseProvisioning
	}
	out.Ready = false
	out.ResourceReady = maps.Clone(obs.ResourceReady)
	if out.ResourceReady == nil {
		out.ResourceReady = map[string]bool{}
	}
	for _, name := range unobserved {
		out.ResourceReady[name] = false
	}
	out.Conditions = []Condition{{Type: kaasv1alpha1.ConditionBackendReady, Status: ConditionUnknown, Reason: kaasv1alpha1.ReasonNotObservedYet,
		Message: fmt.Sprintf("provider-kubernetes has not reported the object that %s manages yet; it exists and is kept as it was last applied until its state is known",
			strings.Join(unobserved, " and "))}}
	for _, c := range obs.Conditions {
		if c.Type != kaasv1alpha1.ConditionBackendReady {
			out.Conditions = append(out.Conditions, c)
		}
	}
	return &out
}

// copyStatus copies a status, so that the observation shares nothing with the composite.
func copyStatus(s *kaasv1alpha1.ClusterStatus) kaasv1alpha1.ClusterStatus {
	if s == nil {
		return kaasv1alpha1.ClusterStatus{}
	}
	return *s.DeepCopy()
}

// keepExternalNames returns the rendering with every managed resource's external name as
// its provider knows it (observed now, else remembered), and the names to remember: a
// managed resource composed again after its control plane was lost then manages what it
// managed, where without the name its provider would create another. Only names that its
// object name does not give are remembered.
func keepExternalNames(rendering *Rendering, observed map[string]ObservedResource, remembered map[string]string) (*Rendering, map[string]string) {
	out := *rendering
	out.Resources = slices.Clone(rendering.Resources)
	var names map[string]string
	for i, res := range out.Resources {
		if !isManagedResource(res.Object) {
			continue
		}
		name := remembered[res.Name]
		if o := observed[res.Name].Object; o != nil && o.GetAnnotations()[ExternalNameAnnotation] != "" {
			name = o.GetAnnotations()[ExternalNameAnnotation]
		}
		if name == "" || name == res.Object.GetName() {
			continue
		}
		if names == nil {
			names = map[string]string{}
		}
		names[res.Name] = name
		u := res.Object.DeepCopy()
		a := u.GetAnnotations()
		if a == nil {
			a = map[string]string{}
		}
		a[ExternalNameAnnotation] = name
		u.SetAnnotations(a)
		out.Resources[i].Object = u
	}
	return &out, names
}
