package model

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"

	envv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/environment/v1alpha1"
	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
)

// EnvironmentConfig API, as Crossplane serves it.
const (
	EnvironmentConfigAPIVersion = "apiextensions.crossplane.io/v1beta1"
	EnvironmentConfigKind       = "EnvironmentConfig"
)

// EnvironmentsRequirement is the requirement name under which callers fetch the candidate
// EnvironmentConfigs (see EnvironmentSelector).
const EnvironmentsRequirement = "environments"

// EnvironmentSelector selects every EnvironmentConfig. Selecting all of them, rather than
// only the one asked for, lets errors name the environments that do exist; the label
// kaas.scs.community/environment is checked afterwards.
func EnvironmentSelector() Selector {
	return Selector{APIVersion: EnvironmentConfigAPIVersion, Kind: EnvironmentConfigKind, MatchLabels: map[string]string{}}
}

// Environment is a decoded backend environment.
type Environment struct {
	// Name is the environment's name, from the label kaas.scs.community/environment.
	Name string
	// ConfigName is the name of the EnvironmentConfig it came from.
	ConfigName string
	envv1alpha1.Environment
}

// SelectEnvironment picks the environment a cluster lives in from candidate
// EnvironmentConfigs. requested is spec.environment; pinned is the environment recorded in
// the cluster's status on an earlier reconcile. A cluster that names no environment uses the
// one it is pinned to, or else the platform default, so that changing the default never
// moves an existing cluster.
func SelectEnvironment(requested, pinned string, configs []*unstructured.Unstructured) (*Environment, error) {
	byName := map[string][]*unstructured.Unstructured{}
	var defaults []*unstructured.Unstructured
	for _, c := range configs {
		name, ok := c.GetLabels()[envv1alpha1.LabelEnvironment]
		if !ok || name == "" {
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
				"spec.environment is not set and no EnvironmentConfig is labelled %s=true; %s",
				envv1alpha1.LabelDefault, describeEnvironments(byName))
		case 1:
			want = defaults[0].GetLabels()[envv1alpha1.LabelEnvironment]
		default:
			return nil, errorf(kaasv1alpha1.ReasonEnvironmentUnavailable,
				"spec.environment is not set and %d EnvironmentConfigs are labelled %s=true (%s); exactly one may be the default",
				len(defaults), envv1alpha1.LabelDefault, configNames(defaults))
		}
	}

	matches := byName[want]
	switch len(matches) {
	case 0:
		return nil, errorf(kaasv1alpha1.ReasonEnvironmentUnavailable, "environment %q does not exist: no EnvironmentConfig is labelled %s=%s; %s",
			want, envv1alpha1.LabelEnvironment, want, describeEnvironments(byName))
	case 1:
	default:
		return nil, errorf(kaasv1alpha1.ReasonEnvironmentUnavailable, "environment %q is ambiguous: EnvironmentConfigs %s are all labelled %s=%s; exactly one may be",
			want, configNames(matches), envv1alpha1.LabelEnvironment, want)
	}

	env, err := DecodeEnvironment(want, matches[0])
	if err != nil {
		return nil, err
	}
	return env, nil
}

// DecodeEnvironment decodes the data of an EnvironmentConfig strictly: unknown fields are
// errors, so that a typo is reported rather than ignored.
func DecodeEnvironment(name string, config *unstructured.Unstructured) (*Environment, error) {
	data, _, _ := unstructured.NestedMap(config.Object, "data")
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

// ValidateEnvironment checks the parts of an environment every backend uses. Backend
// sections are checked by the backend.
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
	if _, err := backends.For(env.Backend); err != nil {
		errs = append(errs, field.NotSupported(data.Child("backend"), env.Backend, backends.Types()))
	}
	return errs
}

func describeEnvironments(byName map[string][]*unstructured.Unstructured) string {
	if len(byName) == 0 {
		return fmt.Sprintf("no environments exist (no EnvironmentConfig carries the label %s)", envv1alpha1.LabelEnvironment)
	}
	names := make([]string, 0, len(byName))
	for n := range byName {
		names = append(names, n)
	}
	sort.Strings(names)
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

// RequiredSetting is a setting of a backend's environment section that must not be empty,
// with what it is for (the message a platform team reads when it is missing).
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
