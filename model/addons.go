package model

import (
	"cmp"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	envv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/environment/v1alpha1"
	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
)

// The Flux APIs an add-on is delivered with (docs/addons.md).
const (
	FluxSourceAPIVersion    = "source.toolkit.fluxcd.io/v1"
	FluxKustomizeAPIVersion = "kustomize.toolkit.fluxcd.io/v1"
)

// Composed resource names of an add-on's Flux objects. Their own prefixes: no add-on name
// can make one the other's.
const (
	addonSourcePrefix = "addon-source-"
	addonPrefix       = "addon-kustomization-"
)

// AddonSourceResource is the composed resource name of an add-on's Flux source.
func AddonSourceResource(addon string) string { return addonSourcePrefix + addon }

// AddonResource is the composed resource name of an add-on's Flux Kustomization.
func AddonResource(addon string) string { return addonPrefix + addon }

// MaxAddonName keeps an add-on's object names, the cluster's part and its own, within the
// 63 characters Flux's labels on the applied objects allow.
const MaxAddonName = 30

// addonClusterPart is the length of the cluster's part of an add-on's object names.
const addonClusterPart = 63 - 1 - MaxAddonName

// addons is what deliverAddons decided, for the status.
type addons struct {
	// wanted are the add-ons the cluster gets, in catalog order; retained those the catalog
	// dropped while installed.
	wanted, retained []string
	// waiting: not delivered yet, until the cluster is Ready with its kubeconfig.
	waiting bool
	// secret is the kubeconfig Secret Flux uses; empty: none.
	secret string
	// offered: the environment has a catalog.
	offered bool
}

// deliverAddons composes the Flux objects of the cluster's add-ons in the namespace of its
// kubeconfig Secret, once the cluster is Ready and its kubeconfig delivered; installed ones
// stay while it is not. An installed add-on is removed only when the team disables it
// (first its Kustomization's deletion policy turns to Delete, so that Flux prunes what it
// applied); one the catalog dropped stays as last applied, with a Warning. Their objects
// are deleted with the cluster without reaching it (deletionPolicy Orphan).
func deliverAddons(in Input, req *Request, env *Environment, obs *Observation) ([]Resource, addons, []Event) {
	secret, namespace := addonsKubeconfigSecret(in, req)
	a := addons{secret: secret, offered: len(env.Addons) > 0}
	installed := installedAddons(in.Observed)
	a.wanted = WantedAddons(&req.Cluster.Spec, env.Addons, installed)
	delivered := obs.Ready && len(obs.ConnectionDetails[ConnectionKeyKubeconfig]) > 0
	a.waiting = !delivered && len(installed) == 0
	if a.secret == "" || a.waiting {
		return nil, a, nil
	}
	prefix := NativeName(req.Identity, addonClusterPart)
	var out []Resource
	var events []Event
	values := addonValues(req, env)
	for _, name := range a.wanted {
		addon := catalogAddon(env.Addons, name)
		out = append(out, addonSource(addon, prefix, namespace, req)...)
		out = append(out, addonKustomization(addon, prefix, namespace, a.secret, values, req))
	}
	for _, name := range installed {
		if slices.Contains(a.wanted, name) {
			continue
		}
		k := in.Observed[AddonResource(name)].Object
		disabled := req.Cluster.Spec.Addons != nil && slices.Contains(req.Cluster.Spec.Addons.Disable, name)
		if disabled && deletionPolicyOf(k) == fluxDeletionDelete {
			continue // retired: Flux prunes what it applied as Crossplane deletes it
		}
		if addon := catalogAddon(env.Addons, name); disabled && addon != nil {
			// As rendered, but for the policy: the preview shows exactly that change.
			k := addonKustomization(addon, prefix, namespace, a.secret, values, req)
			_ = unstructured.SetNestedField(k.Object.Object, fluxDeletionDelete, "spec", "deletionPolicy")
			out = append(out, addonSource(addon, prefix, namespace, req)...)
			out = append(out, k)
			continue
		}
		kept := addonAsApplied(in.Observed, name)
		if disabled {
			_ = unstructured.SetNestedField(kept[0].Object.Object, fluxDeletionDelete, "spec", "deletionPolicy")
		} else {
			a.retained = append(a.retained, name)
			events = append(events, Event{Type: EventWarning, Reason: kaasv1alpha1.ReasonAddonRetained, Message: fmt.Sprintf(
				"add-on %s is no longer in environment %s's catalog: it stays installed as it was, and nothing updates it; list it in spec.addons.disable to remove it", name, env.Name)})
		}
		out = append(out, kept...)
	}
	return out, a, events
}

// installedAddonsAsApplied keeps every installed add-on's Flux objects as last applied:
// while the cluster is looked for, nothing is delivered anew and nothing delivered goes.
func installedAddonsAsApplied(observed map[string]ObservedResource) []Resource {
	var out []Resource
	for _, name := range installedAddons(observed) {
		out = append(out, addonAsApplied(observed, name)...)
	}
	return out
}

// addonAsApplied is an installed add-on's Kustomization, then its source if it has one of
// its own, as last applied.
func addonAsApplied(observed map[string]ObservedResource, name string) []Resource {
	out := []Resource{{Name: AddonResource(name), Object: LastApplied(observed[AddonResource(name)].Object), Disposable: true}}
	if s := observed[AddonSourceResource(name)].Object; s != nil {
		out = append(out, Resource{Name: AddonSourceResource(name), Object: LastApplied(s), Disposable: true})
	}
	return out
}

// addonsKubeconfigSecret is the kubeconfig Secret Flux reaches the cluster through, and the
// namespace the add-ons' Flux objects live in beside it: a namespaced composite's own, a
// legacy composite's connection secret's. Empty: the composite names none.
func addonsKubeconfigSecret(in Input, req *Request) (secret, namespace string) {
	if req.Namespaced() {
		return in.KubeconfigSecret, req.Cluster.Namespace
	}
	return in.ConnectionSecret, req.Options.ConnectionSecretNamespace
}

// withInstalledAddons is the status with every add-on whose Kustomization is observed: one a
// team disables leaves status.addons before its Kustomization goes, and may still be named
// in spec.addons.disable until it has.
func withInstalledAddons(status *kaasv1alpha1.ClusterStatus, observed map[string]ObservedResource) *kaasv1alpha1.ClusterStatus {
	out := status
	for _, name := range installedAddons(observed) {
		if slices.ContainsFunc(out.Addons, func(a kaasv1alpha1.AddonStatus) bool { return a.Name == name }) {
			continue
		}
		if out == status {
			out = status.DeepCopy()
		}
		out.Addons = append(out.Addons, kaasv1alpha1.AddonStatus{Name: name})
	}
	return out
}

// checkAddonsReachable refuses a composite that no longer names the kubeconfig Secret its
// installed add-ons reach the cluster through: their Kustomizations would be dropped, and
// the add-ons would leave Flux's hands on a live cluster.
func checkAddonsReachable(in Input, req *Request, env *Environment) error {
	secret, _ := addonsKubeconfigSecret(in, req)
	installed := installedAddons(in.Observed)
	if secret != "" || len(installed) == 0 {
		return nil
	}
	return invalidSpec(in.Cluster, req, env, field.ErrorList{field.Required(field.NewPath("spec", "writeConnectionSecretToRef"), fmt.Sprintf(
		"add-ons %s are installed, and Flux reaches the cluster through its kubeconfig Secret: name it again (enforced add-ons stay; others may be disabled first in spec.addons.disable)",
		strings.Join(installed, ", ")))})
}

// withAddons adds the add-ons' Flux objects to the rendering; they are ready for Crossplane
// whatever Flux says, since a failing add-on does not make the cluster un-Ready.
func withAddons(in Input, req *Request, env *Environment, rendering *Rendering, obs *Observation) (*Rendering, *Observation, addons, []Event) {
	resources, a, events := deliverAddons(in, req, env, obs)
	rendering, obs = withReadyResources(rendering, obs, resources)
	return rendering, obs, a, events
}

// withReadyResources adds resources that are ready for Crossplane once composed: what the
// cluster delivers to others (add-ons, registrations) is not the cluster's health. The
// rendering and observation passed in are not changed.
func withReadyResources(rendering *Rendering, obs *Observation, resources []Resource) (*Rendering, *Observation) {
	if len(resources) == 0 {
		return rendering, obs
	}
	r, o := *rendering, *obs
	r.Resources = append(slices.Clip(rendering.Resources), resources...)
	o.ResourceReady = maps.Clone(obs.ResourceReady)
	if o.ResourceReady == nil {
		o.ResourceReady = map[string]bool{}
	}
	for _, res := range resources {
		o.ResourceReady[res.Name] = true
	}
	return &r, &o
}

// WantedAddons are the add-ons a cluster gets, in catalog order: the enforced ones, the
// default ones and those installed unless disabled, the enabled ones, and what they depend on.
func WantedAddons(spec *kaasv1alpha1.ClusterSpec, catalog []envv1alpha1.Addon, installed []string) []string {
	var enable, disable []string
	if spec.Addons != nil {
		enable, disable = spec.Addons.Enable, spec.Addons.Disable
	}
	want := map[string]bool{}
	var add func(name string)
	add = func(name string) {
		addon := catalogAddon(catalog, name)
		if addon == nil || want[name] {
			return
		}
		want[name] = true
		for _, dep := range addon.DependsOn {
			add(dep)
		}
	}
	for _, addon := range catalog {
		switch {
		case addon.Enforced:
			add(addon.Name)
		case slices.Contains(disable, addon.Name):
		case addon.Default, slices.Contains(enable, addon.Name), slices.Contains(installed, addon.Name):
			add(addon.Name)
		}
	}
	var out []string
	for _, addon := range catalog {
		if want[addon.Name] {
			out = append(out, addon.Name)
		}
	}
	return out
}

// installedAddons are the add-ons whose Kustomization exists, sorted.
func installedAddons(observed map[string]ObservedResource) []string {
	var out []string
	for name, o := range observed {
		if addon, ok := strings.CutPrefix(name, addonPrefix); ok && o.Object != nil {
			out = append(out, addon)
		}
	}
	slices.Sort(out)
	return out
}

func catalogAddon(catalog []envv1alpha1.Addon, name string) *envv1alpha1.Addon {
	for i := range catalog {
		if catalog[i].Name == name {
			return &catalog[i]
		}
	}
	return nil
}

// Flux's deletion policies: Orphan leaves what was applied, Delete prunes it.
const (
	fluxDeletionOrphan = "Orphan"
	fluxDeletionDelete = "Delete"
)

func deletionPolicyOf(u *unstructured.Unstructured) string {
	s, _, _ := unstructured.NestedString(u.Object, "spec", "deletionPolicy")
	return s
}

// addonValues are the values of the cluster an add-on's manifests may use.
func addonValues(req *Request, env *Environment) map[envv1alpha1.AddonValue]string {
	return map[envv1alpha1.AddonValue]string{
		envv1alpha1.AddonValueClusterName:       req.Identity.Name,
		envv1alpha1.AddonValueNamespace:         req.Identity.Namespace,
		envv1alpha1.AddonValueEnvironment:       env.Name,
		envv1alpha1.AddonValueRegion:            req.Environment.Region,
		envv1alpha1.AddonValueBackend:           string(env.Backend),
		envv1alpha1.AddonValueKubernetesVersion: req.Cluster.Spec.Kubernetes.Version,
	}
}

func addonMetadata(name, namespace string, req *Request) map[string]any {
	return map[string]any{"name": name, "namespace": namespace, "labels": stringMap(req.Labels())}
}

// addonSource is the Flux source of an add-on's manifests for one cluster; none where the
// platform's own source serves every cluster.
func addonSource(addon *envv1alpha1.Addon, prefix, namespace string, req *Request) []Resource {
	if addon.Source.SourceRef != nil {
		return nil
	}
	spec := map[string]any{"interval": "10m"}
	kind := "GitRepository"
	if oci := addon.Source.OCI; oci != nil {
		kind, spec["url"] = "OCIRepository", oci.URL
		ref := map[string]any{"tag": oci.Tag}
		if oci.Digest != "" {
			ref = map[string]any{"digest": oci.Digest}
		}
		spec["ref"] = ref
		if oci.CASecretRef != "" {
			spec["certSecretRef"] = map[string]any{"name": oci.CASecretRef}
		}
	} else if git := addon.Source.Git; git != nil {
		spec["url"] = git.URL
		ref := map[string]any{}
		for k, v := range map[string]string{"branch": git.Branch, "tag": git.Tag, "commit": git.Commit} {
			if v != "" {
				ref[k] = v
			}
		}
		spec["ref"] = ref
	}
	if addon.Source.SecretRef != "" {
		spec["secretRef"] = map[string]any{"name": addon.Source.SecretRef}
	}
	return []Resource{{Name: AddonSourceResource(addon.Name), Disposable: true, Object: &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": FluxSourceAPIVersion, "kind": kind,
		"metadata": addonMetadata(prefix+"-"+addon.Name, namespace, req),
		"spec":     spec,
	}}}}
}

// addonKustomization applies an add-on to the cluster with its kubeconfig, waiting for what
// it applies to be healthy, after the add-ons it depends on.
func addonKustomization(addon *envv1alpha1.Addon, prefix, namespace, secret string, values map[envv1alpha1.AddonValue]string, req *Request) Resource {
	sourceRef := map[string]any{"kind": "GitRepository", "name": prefix + "-" + addon.Name}
	switch shared := addon.Source.SourceRef; {
	case shared != nil:
		sourceRef = map[string]any{"kind": shared.Kind, "name": shared.Name}
		if shared.Namespace != "" {
			sourceRef["namespace"] = shared.Namespace
		}
	case addon.Source.OCI != nil:
		sourceRef["kind"] = "OCIRepository"
	}
	spec := map[string]any{
		"interval":       "10m",
		"retryInterval":  "1m",
		"timeout":        "5m",
		"sourceRef":      sourceRef,
		"path":           "./" + strings.TrimPrefix(addon.Source.Path, "./"),
		"prune":          true,
		"wait":           true,
		"deletionPolicy": fluxDeletionOrphan,
		"kubeConfig":     map[string]any{"secretRef": map[string]any{"name": secret, "key": ConnectionKeyKubeconfig}},
	}
	if addon.Namespace != "" {
		spec["targetNamespace"] = addon.Namespace
	}
	if len(addon.DependsOn) > 0 {
		deps := make([]any, 0, len(addon.DependsOn))
		for _, d := range addon.DependsOn {
			deps = append(deps, map[string]any{"name": prefix + "-" + d})
		}
		spec["dependsOn"] = deps
	}
	if len(addon.Substitute) > 0 {
		sub := make(map[string]any, len(addon.Substitute))
		for k, v := range addon.Substitute {
			sub[k] = values[v]
		}
		spec["postBuild"] = map[string]any{"substitute": sub}
	}
	return Resource{Name: AddonResource(addon.Name), Disposable: true, Object: &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": FluxKustomizeAPIVersion, "kind": "Kustomization",
		"metadata": addonMetadata(prefix+"-"+addon.Name, namespace, req),
		"spec":     spec,
	}}}
}

// addonStatus reports each wanted and retained add-on as its Kustomization says, and
// AddonsReady: False with Flux's reason while one is not applied and healthy; none where the
// environment has no catalog and nothing is installed.
func addonStatus(a addons, observed map[string]ObservedResource) ([]kaasv1alpha1.AddonStatus, *Condition) {
	cond := func(s ConditionStatus, reason, msg string) *Condition {
		return &Condition{Type: kaasv1alpha1.ConditionAddonsReady, Status: s, Reason: reason, Message: msg}
	}
	switch {
	case !a.offered && len(a.retained) == 0:
		return nil, nil
	case len(a.wanted)+len(a.retained) == 0:
		return nil, cond(ConditionTrue, kaasv1alpha1.ReasonNoAddons, "the cluster has no add-ons")
	case a.secret == "":
		return nil, cond(ConditionFalse, kaasv1alpha1.ReasonNoKubeconfigSecret,
			"add-ons need the cluster's kubeconfig Secret: set spec.writeConnectionSecretToRef")
	case a.waiting:
		return nil, cond(ConditionFalse, kaasv1alpha1.ReasonAddonsWaiting,
			"add-ons are installed once the cluster is Ready and its kubeconfig delivered: "+strings.Join(a.wanted, ", "))
	}
	var out []kaasv1alpha1.AddonStatus
	var failing []string
	reason := ""
	for _, name := range append(slices.Clone(a.wanted), a.retained...) {
		k := observed[AddonResource(name)].Object
		ready := ConditionOf(k, "Ready")
		s := kaasv1alpha1.AddonStatus{Name: name, Ready: ready.Status == string(ConditionTrue), Retained: slices.Contains(a.retained, name)}
		if k != nil {
			s.Revision, _, _ = unstructured.NestedString(k.Object, "status", "lastAppliedRevision")
		}
		if s.Ready && s.Revision == "" {
			// Applied means a revision applied: a Ready Kustomization that reports none yet
			// is not, or AddonsReady would be True while status.addons says nothing applied.
			s.Ready = false
			ready.Status, ready.Reason, ready.Message = string(ConditionUnknown), kaasv1alpha1.ReasonAddonsPending, "Flux reports it Ready but no applied revision yet"
		}
		if !s.Ready {
			s.Message = ready.String()
			failing = append(failing, name+": "+s.Message)
			if reason == "" {
				reason = cmp.Or(ready.Reason, kaasv1alpha1.ReasonAddonsPending)
			}
		}
		out = append(out, s)
	}
	if len(failing) > 0 {
		return out, cond(ConditionFalse, reason, "add-ons not ready: "+strings.Join(failing, "; "))
	}
	return out, cond(ConditionTrue, kaasv1alpha1.ReasonAddonsApplied, "every add-on is applied and healthy")
}

// substituteName is a variable name Flux's postBuild substitutes.
var substituteName = regexp.MustCompile(`^[_a-zA-Z][_a-zA-Z0-9]*$`)

// validateAddonCatalog checks an environment's add-on catalog.
func validateAddonCatalog(p *field.Path, catalog []envv1alpha1.Addon) field.ErrorList {
	var errs field.ErrorList
	seen := map[string]bool{}
	for i, addon := range catalog {
		ap := p.Index(i)
		for _, msg := range validation.IsDNS1123Label(addon.Name) {
			errs = append(errs, field.Invalid(ap.Child("name"), addon.Name, msg))
		}
		if len(addon.Name) > MaxAddonName {
			errs = append(errs, field.TooLong(ap.Child("name"), addon.Name, MaxAddonName))
		}
		if seen[addon.Name] {
			errs = append(errs, field.Duplicate(ap.Child("name"), addon.Name))
		}
		seen[addon.Name] = true
		src := ap.Child("source")
		switch oci, git, shared := addon.Source.OCI, addon.Source.Git, addon.Source.SourceRef; {
		case countSet(oci != nil, git != nil, shared != nil) == 0:
			errs = append(errs, field.Required(src, "exactly one of oci, git and sourceRef"))
		case countSet(oci != nil, git != nil, shared != nil) > 1:
			errs = append(errs, field.Forbidden(src, "set exactly one of oci, git and sourceRef"))
		case shared != nil:
			errs = append(errs, validateSharedSource(src, addon.Source)...)
		case oci != nil && !strings.HasPrefix(oci.URL, "oci://"):
			errs = append(errs, field.Invalid(src.Child("oci", "url"), oci.URL, "must start with oci://"))
		case oci != nil && oci.Tag == "" && oci.Digest == "":
			errs = append(errs, field.Required(src.Child("oci", "tag"), "a tag or a digest"))
		case git != nil && git.URL == "":
			errs = append(errs, field.Required(src.Child("git", "url"), "the repository's URL"))
		}
		for j, dep := range addon.DependsOn {
			if dep == addon.Name || !slices.ContainsFunc(catalog, func(a envv1alpha1.Addon) bool { return a.Name == dep }) {
				errs = append(errs, field.Invalid(ap.Child("dependsOn").Index(j), dep, "must name another add-on of the catalog"))
			}
		}
		for _, k := range slices.Sorted(maps.Keys(addon.Substitute)) {
			if !substituteName.MatchString(k) {
				errs = append(errs, field.Invalid(ap.Child("substitute").Key(k), k, "must be a variable name such as cluster_name"))
			}
			if v := addon.Substitute[k]; !slices.Contains(envv1alpha1.AddonValues, v) {
				errs = append(errs, field.NotSupported(ap.Child("substitute").Key(k), v, envv1alpha1.AddonValues))
			}
		}
	}
	return errs
}

// FluxSourceKinds are the kinds of Flux source a catalog's sourceRef may name.
var FluxSourceKinds = []string{"OCIRepository", "GitRepository", "Bucket"}

// validateSharedSource checks a reference to a Flux source the platform runs.
func validateSharedSource(src *field.Path, source envv1alpha1.AddonSource) field.ErrorList {
	var errs field.ErrorList
	ref, p := source.SourceRef, src.Child("sourceRef")
	if !slices.Contains(FluxSourceKinds, ref.Kind) {
		errs = append(errs, field.NotSupported(p.Child("kind"), ref.Kind, FluxSourceKinds))
	}
	for _, msg := range validation.IsDNS1123Subdomain(ref.Name) {
		errs = append(errs, field.Invalid(p.Child("name"), ref.Name, msg))
	}
	if ref.Namespace != "" {
		for _, msg := range validation.IsDNS1123Label(ref.Namespace) {
			errs = append(errs, field.Invalid(p.Child("namespace"), ref.Namespace, msg))
		}
	}
	if source.SecretRef != "" {
		errs = append(errs, field.Forbidden(src.Child("secretRef"), "a platform's source carries its own credentials; set them there"))
	}
	return errs
}

func countSet(set ...bool) int {
	n := 0
	for _, b := range set {
		if b {
			n++
		}
	}
	return n
}

// validateAddons checks a team's choice of add-ons against its environment's catalog: known
// names (or, to disable, one still installed), and no enforced add-on disabled.
func validateAddons(p *field.Path, spec *kaasv1alpha1.AddonsSpec, env *Environment, current *kaasv1alpha1.ClusterStatus) field.ErrorList {
	if spec == nil {
		return nil
	}
	names := make([]string, 0, len(env.Addons))
	for _, a := range env.Addons {
		names = append(names, a.Name)
	}
	var errs field.ErrorList
	for i, name := range spec.Enable {
		switch addon := catalogAddon(env.Addons, name); {
		case addon == nil:
			errs = append(errs, field.NotSupported(p.Child("enable").Index(i), name, names))
		case slices.Contains(spec.Disable, name):
			errs = append(errs, field.Invalid(p.Child("enable").Index(i), name, "is also in spec.addons.disable"))
		}
	}
	for i, name := range spec.Disable {
		installed := current != nil && slices.ContainsFunc(current.Addons, func(s kaasv1alpha1.AddonStatus) bool { return s.Name == name })
		switch addon := catalogAddon(env.Addons, name); {
		case addon == nil && !installed:
			errs = append(errs, field.NotSupported(p.Child("disable").Index(i), name, names))
		case addon != nil && addon.Enforced:
			errs = append(errs, field.Forbidden(p.Child("disable").Index(i), fmt.Sprintf(
				"add-on %s is enforced by environment %s (EnvironmentConfig %s): every cluster there has it", name, env.Name, env.ConfigName)))
		}
	}
	return errs
}
