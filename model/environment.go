package model

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"sort"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	envv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/environment/v1alpha1"
	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
)

// EnvironmentConfig API, as Crossplane serves it.
const (
	EnvironmentConfigAPIVersion = "apiextensions.crossplane.io/v1beta1"
	EnvironmentConfigKind       = "EnvironmentConfig"
)

// EnvironmentsRequirement is the requirement that fetches the EnvironmentConfigs.
const EnvironmentsRequirement = "environments"

// EnvironmentSelector selects every EnvironmentConfig, so that errors name those that exist.
func EnvironmentSelector() Selector {
	return Selector{APIVersion: EnvironmentConfigAPIVersion, Kind: EnvironmentConfigKind, MatchLabels: map[string]string{}}
}

// Environment is a decoded EnvironmentConfig.
type Environment struct {
	// Name is the label kaas.scs.community/environment.
	Name       string
	ConfigName string
	envv1alpha1.Environment
}

// NamespaceRequirement fetches the claim's namespace when an environment admits by label.
const NamespaceRequirement = "namespace"

// Tenant is who asks for a cluster: the namespace of its claim or namespaced composite, with
// its labels. A composite without a claim, which only the platform can create, has no tenant
// and may use every environment.
type Tenant struct {
	Namespace string
	Labels    map[string]string
}

func (t Tenant) String() string { return "namespace " + t.Namespace }

// Admits says whether an environment's access admits the tenant.
func Admits(access *envv1alpha1.Access, t Tenant) bool {
	if t.Namespace == "" {
		return true
	}
	if access == nil {
		return false
	}
	if slices.Contains(access.Namespaces, t.Namespace) {
		return true
	}
	if access.NamespaceSelector == nil {
		return false
	}
	sel, err := metav1.LabelSelectorAsSelector(access.NamespaceSelector)
	return err == nil && !sel.Empty() && sel.Matches(labels.Set(t.Labels))
}

// namespaceSelector is metav1.LabelSelectorAsSelector with the same error on every call
// (that stops at the first bad label in map order).
func namespaceSelector(s *metav1.LabelSelector) (labels.Selector, error) {
	for _, k := range slices.Sorted(maps.Keys(s.MatchLabels)) {
		if _, err := metav1.LabelSelectorAsSelector(&metav1.LabelSelector{MatchLabels: map[string]string{k: s.MatchLabels[k]}}); err != nil {
			return nil, err
		}
	}
	return metav1.LabelSelectorAsSelector(s)
}

// usesSelector says whether an EnvironmentConfig admits namespaces by label.
func usesSelector(config *unstructured.Unstructured) bool {
	_, found, _ := unstructured.NestedFieldNoCopy(config.Object, "data", "access", "namespaceSelector")
	return found
}

// AccessOf decodes an EnvironmentConfig's access; one that cannot be decoded admits nobody.
func AccessOf(config *unstructured.Unstructured) *envv1alpha1.Access {
	raw, found, _ := unstructured.NestedFieldNoCopy(config.Object, "data", "access")
	if !found {
		return nil
	}
	b, err := json.Marshal(raw)
	a := &envv1alpha1.Access{}
	if err != nil || json.Unmarshal(b, a) != nil {
		return &envv1alpha1.Access{}
	}
	return a
}

// SelectEnvironment picks the environment a cluster lives in among those that admit the
// tenant: requested (spec.environment), else pinned (the status'), else the default, so that
// changing the default never moves a cluster. Messages name only environments offered to
// the tenant: what other teams have stays unseen.
func SelectEnvironment(requested, pinned string, configs []*unstructured.Unstructured, tenant Tenant) (*Environment, error) {
	byName := map[string][]*unstructured.Unstructured{}
	hidden := map[string]bool{}
	var defaults []*unstructured.Unstructured
	for _, c := range configs {
		name, ok := c.GetLabels()[envv1alpha1.LabelEnvironment]
		if !ok || name == "" {
			continue
		}
		if !Admits(AccessOf(c), tenant) {
			hidden[name] = true
			continue
		}
		byName[name] = append(byName[name], c)
		if c.GetLabels()[envv1alpha1.LabelDefault] == "true" {
			defaults = append(defaults, c)
		}
	}

	if requested != "" && pinned != "" && requested != pinned {
		return nil, errorf(kaasv1alpha1.ReasonReplacementRefused,
			"spec.environment is %q but the cluster was created in environment %q: moving it would replace the cluster; set spec.environment back to %q",
			requested, pinned, pinned)
	}
	want := requested
	if want == "" {
		want = pinned
	}
	if want == "" {
		switch len(defaults) {
		case 0:
			return nil, errorf(kaasv1alpha1.ReasonEnvironmentUnavailable,
				"spec.environment is not set and no EnvironmentConfig%s is labelled %s=true; %s",
				offeredTo(tenant), envv1alpha1.LabelDefault, describeEnvironments(byName, tenant))
		case 1:
			want = defaults[0].GetLabels()[envv1alpha1.LabelEnvironment]
		default:
			return nil, errorf(kaasv1alpha1.ReasonEnvironmentUnavailable,
				"spec.environment is not set and %d EnvironmentConfigs%s are labelled %s=true (%s); exactly one may be the default",
				len(defaults), offeredTo(tenant), envv1alpha1.LabelDefault, configNames(defaults))
		}
	}

	matches := byName[want]
	switch {
	case len(matches) == 1:
	case len(matches) > 1:
		return nil, errorf(kaasv1alpha1.ReasonEnvironmentUnavailable, "environment %q is ambiguous: EnvironmentConfigs %s are all labelled %s=%s; exactly one may be",
			want, configNames(matches), envv1alpha1.LabelEnvironment, want)
	case want == pinned && hidden[want]:
		// The claimant knows this environment: its cluster runs there.
		return nil, errorf(kaasv1alpha1.ReasonEnvironmentUnavailable, "environment %q, where this cluster runs, no longer admits %s (its data.access); the cluster is left as it is, and changes wait until the platform team admits the namespace again",
			want, tenant)
	case want == pinned:
		return nil, errorf(kaasv1alpha1.ReasonEnvironmentUnavailable, "environment %q, where this cluster runs, does not exist any more: no EnvironmentConfig is labelled %s=%s; the cluster is left as it is, and changes wait until the platform team restores it; %s",
			want, envv1alpha1.LabelEnvironment, want, describeEnvironments(byName, tenant))
	case tenant.Namespace != "":
		// The same words whether the environment exists for others or not at all.
		return nil, errorf(kaasv1alpha1.ReasonEnvironmentUnavailable, "environment %q is not offered to %s; %s",
			want, tenant, describeEnvironments(byName, tenant))
	default:
		return nil, errorf(kaasv1alpha1.ReasonEnvironmentUnavailable, "environment %q does not exist: no EnvironmentConfig is labelled %s=%s; %s",
			want, envv1alpha1.LabelEnvironment, want, describeEnvironments(byName, tenant))
	}
	return DecodeEnvironment(want, matches[0])
}

func offeredTo(t Tenant) string {
	if t.Namespace == "" {
		return ""
	}
	return " offered to " + t.String()
}

// DecodeEnvironment decodes an EnvironmentConfig's data strictly, so that a typo is reported
// rather than ignored, with encoding/json, whose error names the field and the type.
func DecodeEnvironment(name string, config *unstructured.Unstructured) (*Environment, error) {
	data, _, _ := unstructured.NestedFieldNoCopy(config.Object, "data")
	raw, err := json.Marshal(data)
	if err != nil {
		return nil, errorf(kaasv1alpha1.ReasonInvalidEnvironment, "environment %q (EnvironmentConfig %s): cannot encode data: %v", name, config.GetName(), err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	env := &Environment{Name: name, ConfigName: config.GetName()}
	if err := dec.Decode(&env.Environment); err != nil {
		return nil, errorf(kaasv1alpha1.ReasonInvalidEnvironment, "environment %q (EnvironmentConfig %s): data does not match the environment contract: %v", name, config.GetName(), err)
	}
	return env, nil
}

// ValidateEnvironment checks the parts of an environment every backend uses.
func ValidateEnvironment(env *Environment, backends *Registry) field.ErrorList {
	var errs field.ErrorList
	data := field.NewPath("data")
	if env.Region == "" {
		errs = append(errs, field.Required(data.Child("region"), "the cloud region clusters run in"))
	}
	versions := data.Child("catalog", "kubernetesVersions")
	if len(env.Catalog.KubernetesVersions) == 0 {
		errs = append(errs, field.Required(versions, "list the Kubernetes minors this environment offers, such as \"1.34\""))
	}
	for i, v := range env.Catalog.KubernetesVersions {
		if pv, err := ParseVersion(v); err != nil || pv.HasPatch() {
			errs = append(errs, field.Invalid(versions.Index(i), v, "must be a Kubernetes minor such as 1.34"))
		}
	}
	for _, minor := range slices.Sorted(maps.Keys(env.Catalog.KubernetesVersionLifecycle)) {
		if pv, err := ParseVersion(minor); err != nil || pv.MinorString() != minor {
			errs = append(errs, field.Invalid(data.Child("catalog", "kubernetesVersionLifecycle").Key(minor), minor, "the keys must be Kubernetes minors such as 1.34"))
		}
	}
	if _, err := backends.For(env.Backend); err != nil {
		errs = append(errs, field.NotSupported(data.Child("backend"), env.Backend, backends.Types()))
	}
	errs = append(errs, validateAddonCatalog(data.Child("addons"), env.Addons)...)
	errs = append(errs, validateArgoCDRegistration(data, env)...)
	errs = append(errs, validateAccessEnvironment(&env.Environment)...)
	if a := env.Access; a != nil {
		for i, ns := range a.Namespaces {
			for _, msg := range validation.IsDNS1123Label(ns) {
				errs = append(errs, field.Invalid(data.Child("access", "namespaces").Index(i), ns, msg))
			}
		}
		if a.NamespaceSelector != nil {
			if sel, err := namespaceSelector(a.NamespaceSelector); err != nil {
				errs = append(errs, field.Invalid(data.Child("access", "namespaceSelector"), a.NamespaceSelector, err.Error()))
			} else if sel.Empty() {
				errs = append(errs, field.Invalid(data.Child("access", "namespaceSelector"), "{}", "an empty selector would admit every namespace; list the labels, or name the namespaces"))
			}
		}
	}
	return errs
}

func describeEnvironments(byName map[string][]*unstructured.Unstructured, tenant Tenant) string {
	if len(byName) == 0 {
		if tenant.Namespace != "" {
			return fmt.Sprintf("no environment is offered to %s: the platform team admits namespaces in an EnvironmentConfig's data.access", tenant)
		}
		return fmt.Sprintf("no environments exist (no EnvironmentConfig carries the label %s)", envv1alpha1.LabelEnvironment)
	}
	names := slices.Sorted(maps.Keys(byName))
	if tenant.Namespace != "" {
		return fmt.Sprintf("environments offered to %s: %s", tenant, strings.Join(names, ", "))
	}
	return "environments that exist: " + strings.Join(names, ", ")
}

func configNames(cs []*unstructured.Unstructured) string {
	names := make([]string, 0, len(cs))
	for _, c := range cs {
		names = append(names, c.GetName())
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// RequiredSetting is a setting that must not be empty, with what it is for.
type RequiredSetting struct {
	Name, Value, What string
}

// RequireSettings reports each empty setting below path, naming what it is for.
func RequireSettings(path *field.Path, settings ...RequiredSetting) field.ErrorList {
	var errs field.ErrorList
	for _, s := range settings {
		if s.Value == "" {
			errs = append(errs, field.Required(path.Child(s.Name), s.What))
		}
	}
	return errs
}

// EnvironmentChanges lists what the cluster keeps although its environment now offers or
// defaults something else, for EnvironmentUpToDate (a minor no longer offered is
// VersionSupported's). spec is the defaulted spec, kept the record of its defaults.
func EnvironmentChanges(spec *kaasv1alpha1.ClusterSpec, env *Environment, kept *kaasv1alpha1.DefaultedValues) []string {
	var out []string
	if kept != nil && kept.Network != nil {
		d := env.Defaults.Network
		n := kept.Network
		for _, c := range []struct{ name, kept, now string }{
			{"podCIDR", n.PodCIDR, d.PodCIDR}, {"serviceCIDR", n.ServiceCIDR, d.ServiceCIDR},
			{"nodeCIDR", n.NodeCIDR, d.NodeCIDR}, {"cni", string(n.CNI), string(d.CNI)},
		} {
			if c.kept != "" && c.now != "" && c.kept != c.now {
				out = append(out, fmt.Sprintf("spec.network.%s: keeps %s from the cluster's creation; the environment now defaults to %s (data.defaults.network.%s)", c.name, c.kept, c.now, c.name))
			}
		}
	}
	if kept != nil && kept.Maintenance != nil {
		d, m := env.Defaults.Maintenance, kept.Maintenance
		keptAU, nowAU := orEmpty(m.AutoUpdate), orEmpty(d.AutoUpdate)
		if keptAU.KubernetesPatch == nil && m.AutoUpdate != nil {
			nowAU.KubernetesPatch = nil // the spec sets it
		}
		if keptAU.MachineImage == nil && m.AutoUpdate != nil {
			nowAU.MachineImage = nil
		}
		if !reflect.DeepEqual(keptAU, nowAU) {
			out = append(out, fmt.Sprintf("spec.maintenance.autoUpdate: keeps %s from the cluster's creation; the environment now defaults to %s (data.defaults.maintenance.autoUpdate)", shownJSON(keptAU), shownJSON(nowAU)))
		}
		if spec.Maintenance != nil && reflect.DeepEqual(spec.Maintenance.Window, m.Window) && !reflect.DeepEqual(m.Window, d.Window) {
			out = append(out, fmt.Sprintf("spec.maintenance.window: keeps %s from the cluster's creation; the environment now defaults to %s (data.defaults.maintenance.window)", shownJSON(m.Window), shownJSON(d.Window)))
		}
	}
	for i, p := range spec.NodePools {
		fp := fmt.Sprintf("spec.nodePools[%d]", i)
		if len(env.Catalog.MachineTypes) > 0 && !slices.Contains(env.Catalog.MachineTypes, p.MachineType) {
			out = append(out, fmt.Sprintf("%s.machineType: %s is no longer offered (data.catalog.machineTypes); pool %s keeps it", fp, p.MachineType, p.Name))
		}
		k, ok := keptPool(kept, p.Name)
		switch {
		case ok && len(k.Zones) > 0 && len(env.Catalog.Zones) > 0 && !SameSet(k.Zones, defaultZones(&p, env.Catalog.Zones)):
			out = append(out, fmt.Sprintf("%s.zones: pool %s keeps %s from its creation; a new pool of its size would get %s (data.catalog.zones)", fp, p.Name, strings.Join(k.Zones, ", "), strings.Join(defaultZones(&p, env.Catalog.Zones), ", ")))
		case len(env.Catalog.Zones) > 0:
			var gone []string
			for _, z := range p.Zones {
				if !slices.Contains(env.Catalog.Zones, z) {
					gone = append(gone, z)
				}
			}
			if len(gone) > 0 {
				out = append(out, fmt.Sprintf("%s.zones: %s no longer offered (data.catalog.zones); pool %s keeps running there", fp, strings.Join(gone, ", ")+verb(len(gone)), p.Name))
			}
		}
		if ok && k.RootDiskGiB != nil && env.Defaults.RootDiskGiB != nil && *k.RootDiskGiB != *env.Defaults.RootDiskGiB {
			out = append(out, fmt.Sprintf("%s.rootDiskGiB: pool %s keeps %d from its creation; the environment now defaults to %d (data.defaults.rootDiskGiB)", fp, p.Name, *k.RootDiskGiB, *env.Defaults.RootDiskGiB))
		}
	}
	return out
}

func orEmpty(a *kaasv1alpha1.AutoUpdate) kaasv1alpha1.AutoUpdate {
	if a == nil {
		return kaasv1alpha1.AutoUpdate{}
	}
	return *a
}

// shownJSON is a value as messages show it: JSON, or (unset).
func shownJSON(v any) string {
	raw, _ := json.Marshal(v)
	if s := string(raw); s != "null" && s != "{}" {
		return s
	}
	return "(unset)"
}

func verb(n int) string {
	if n == 1 {
		return " is"
	}
	return " are"
}
