package model

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
)

// Input is what a caller has observed of one cluster.
type Input struct {
	// Cluster is the composite resource as observed; its spec is not defaulted yet.
	Cluster *kaasv1alpha1.XSCSCluster

	// Observed are the native objects that exist, keyed by resource name.
	Observed map[string]ObservedResource

	// Required are the resources fetched so far for the requirements of an earlier
	// Reconcile, keyed by requirement name.
	Required map[string][]*unstructured.Unstructured

	// Options are settings of the caller.
	Options Options
}

// Output is the result of one Reconcile.
type Output struct {
	// Requirements are the resources the caller must fetch and pass as Input.Required. They
	// are the same on every call for the same cluster and environment.
	Requirements map[string]Selector

	// Complete is false while some requirement has not been fetched; then nothing below is
	// set and the caller must fetch and call again. It is never a reason to delete anything.
	Complete bool

	Environment *Environment
	Backend     Backend
	// Spec is the defaulted spec that was rendered.
	Spec        kaasv1alpha1.ClusterSpec
	Rendering   *Rendering
	Observation *Observation
	// Status is the full normalised status, including the backend pin.
	Status kaasv1alpha1.ClusterStatus
}

// Reconcile runs the whole translation for one cluster: it selects and checks the
// environment, pins the backend, defaults and validates the spec, observes the native
// objects and renders the desired ones. Any error means the caller must not change
// anything: no partial result is ever returned.
func (r *Registry) Reconcile(in Input) (*Output, error) {
	out := &Output{Requirements: map[string]Selector{EnvironmentsRequirement: EnvironmentSelector()}}
	configs, fetched := in.Required[EnvironmentsRequirement]
	if !fetched {
		return out, nil
	}

	xr := in.Cluster
	pinned := kaasv1alpha1.BackendStatus{}
	if xr.Status.Backend != nil {
		pinned = *xr.Status.Backend
	}
	env, err := SelectEnvironment(xr.Spec.Environment, pinned.Environment, configs)
	if err != nil {
		return nil, err
	}
	out.Environment = env
	if pinned.Type != "" && env.Backend != pinned.Type {
		return nil, errorf(ReasonReplacementRefused, "environment %q (EnvironmentConfig %s) now names backend %q, but this cluster was built by backend %q: switching backends would replace the cluster, so nothing was changed; restore data.backend",
			env.Name, env.ConfigName, env.Backend, pinned.Type)
	}
	backend, err := r.For(env.Backend)
	if err != nil {
		return nil, errorf(ReasonInvalidEnvironment, "environment %q (EnvironmentConfig %s): %v", env.Name, env.ConfigName, err)
	}
	out.Backend = backend
	envErrs := append(ValidateEnvironment(env, r), backend.ValidateEnvironment(env)...)
	if len(envErrs) > 0 {
		return nil, &InvalidError{Reason: ReasonInvalidEnvironment, Subject: fmt.Sprintf("environment %q (EnvironmentConfig %s)", env.Name, env.ConfigName), Errs: envErrs}
	}
	if err := r.checkObservedBackends(backend, in.Observed); err != nil {
		return nil, err
	}

	cluster := *xr
	cluster.Spec = Default(xr.Spec, env)
	out.Spec = cluster.Spec
	req := &Request{Cluster: &cluster, Environment: env, Observed: in.Observed, Required: in.Required, Options: in.Options}

	maps.Copy(out.Requirements, backend.Requirements(req))
	for name := range out.Requirements {
		if _, ok := in.Required[name]; !ok {
			return out, nil
		}
	}
	out.Complete = true

	errs := append(Validate(&cluster.Spec, env), backend.Validate(req)...)
	if len(errs) > 0 {
		return nil, &InvalidError{Reason: ReasonInvalidSpec, Subject: fmt.Sprintf("%s %q", kaasv1alpha1.CompositeKind, xr.Name), Errs: errs}
	}

	obs, err := backend.Observe(req)
	if err != nil {
		return nil, &Error{Reason: ReasonObservedStateUnreadable, Message: err.Error()}
	}
	if errs := ValidateUpgrade(&cluster.Spec, obs.Status.Kubernetes); len(errs) > 0 {
		return nil, &InvalidError{Reason: ReasonInvalidSpec, Subject: fmt.Sprintf("%s %q", kaasv1alpha1.CompositeKind, xr.Name), Errs: errs}
	}

	rendering, err := backend.Render(req)
	if err != nil {
		return nil, &Error{Reason: ReasonRenderFailed, Message: err.Error()}
	}
	if err := checkReplacements(rendering, in.Observed); err != nil {
		return nil, err
	}

	out.Rendering = rendering
	out.Observation = obs
	out.Status = obs.Status
	out.Status.Backend = &kaasv1alpha1.BackendStatus{
		Type:        env.Backend,
		Environment: env.Name,
		Region:      env.Region,
		NativeRef:   rendering.NativeRef,
	}
	return out, nil
}

// ValidateUpgrade refuses a version the running cluster cannot move to: a lower minor, or
// more than one minor up. The API server checks the same against the previous spec; this
// checks against what actually runs, which can lag behind the spec.
func ValidateUpgrade(spec *kaasv1alpha1.ClusterSpec, running *kaasv1alpha1.KubernetesStatus) field.ErrorList {
	if running == nil || running.Version == "" {
		return nil
	}
	have, err := ParseVersion(running.Version)
	if err != nil {
		return nil
	}
	want, err := ParseVersion(spec.Kubernetes.Version)
	if err != nil {
		return nil
	}
	p := field.NewPath("spec", "kubernetes", "version")
	switch {
	case want.Major != have.Major || want.Minor < have.Minor:
		return field.ErrorList{field.Forbidden(p, fmt.Sprintf("the cluster runs %s; downgrading to %s is not supported", running.Version, spec.Kubernetes.Version))}
	case want.Minor > have.Minor+1:
		return field.ErrorList{field.Forbidden(p, fmt.Sprintf("the cluster runs %s; upgrade one minor at a time (next: %d.%d), not to %s", running.Version, have.Major, have.Minor+1, spec.Kubernetes.Version))}
	case want.HasPatch() && have.HasPatch() && want.SameMinor(have) && want.Patch < have.Patch:
		return field.ErrorList{field.Forbidden(p, fmt.Sprintf("the cluster runs %s; downgrading to %s is not supported", running.Version, spec.Kubernetes.Version))}
	}
	return nil
}

// checkObservedBackends refuses to go on when an observed resource was created by another
// backend than the one the environment names: the other backend's objects would be
// deleted, and with them the cluster. Every backend of the API counts, including those
// this program does not support.
func (r *Registry) checkObservedBackends(backend Backend, observed map[string]ObservedResource) error {
	var foreign []string
	for name := range observed {
		for _, t := range append(kaasv1alpha1.BackendTypes(), registeredTypes(r)...) {
			if t != backend.Type() && strings.HasPrefix(name, string(t)+"-") {
				foreign = append(foreign, fmt.Sprintf("%s (backend %s)", name, t))
			}
		}
	}
	if len(foreign) == 0 {
		return nil
	}
	sort.Strings(foreign)
	foreign = slices.Compact(foreign)
	return errorf(ReasonReplacementRefused, "the cluster has resources of another backend than %q, which its environment names now: %s; switching backends would delete them and replace the cluster, so nothing was changed",
		backend.Type(), strings.Join(foreign, ", "))
}

// checkReplacements refuses a rendering that would put an object of another kind under an
// existing resource name: Crossplane would create the new object and delete the old one.
func checkReplacements(rendering *Rendering, observed map[string]ObservedResource) error {
	for _, res := range rendering.Resources {
		o, ok := observed[res.Name]
		if !ok || o.Object == nil {
			continue
		}
		if o.Object.GetAPIVersion() != res.Object.GetAPIVersion() || o.Object.GetKind() != res.Object.GetKind() {
			return errorf(ReasonReplacementRefused, "resource %s exists as %s %s but would now be %s %s: that would replace it, so nothing was changed; restore the environment setting that moved it (for example where the native objects live)",
				res.Name, o.Object.GetAPIVersion(), o.Object.GetKind(), res.Object.GetAPIVersion(), res.Object.GetKind())
		}
	}
	return nil
}

func registeredTypes(r *Registry) []kaasv1alpha1.BackendType {
	out := make([]kaasv1alpha1.BackendType, 0, len(r.backends))
	for t := range r.backends {
		out = append(out, t)
	}
	return out
}
