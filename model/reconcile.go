package model

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

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

	// KubeconfigSecret names the Secret a namespaced composite wants its kubeconfig in
	// (spec.writeConnectionSecretToRef.name): Crossplane v2 gives namespaced composites no
	// connection secret, so Reconcile composes it. Empty: none.
	KubeconfigSecret string

	// Now is the time of the call, for what expires (a delivered kubeconfig's
	// credentials); zero: nothing is checked against the clock.
	Now time.Time

	// ConnectionDetails are the legacy composite's connection details as Crossplane last
	// published them (the observed composite's connection details): what was delivered to
	// the claim's Secret so far. They are secret: never log them.
	ConnectionDetails map[string][]byte
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
	// Conditions are every condition of the composite and its claim, in the order callers
	// set them: Rendered, Stalled, the backend's and those every backend shares
	// (Observation.Conditions), SpecSupported.
	Conditions []Condition
	// Events are for the cluster's users, a Warning for each field the backend cannot
	// honour first: callers surface them as events of the composite and claim.
	Events []Event
	// KubeconfigExpires is when the delivered kubeconfig's credentials expire; zero when
	// none is delivered or it does not say.
	KubeconfigExpires time.Time
}

// Event is something a user should know about the cluster, in one word and a sentence.
type Event struct {
	Type            EventType
	Reason, Message string
}

// EventType says whether an event is a warning or for information.
type EventType string

// The types of events, as Kubernetes names them.
const (
	EventNormal  EventType = "Normal"
	EventWarning EventType = "Warning"
)

// Reconcile runs the whole translation for one cluster, as a list of phases whose order is
// the point: each relies on what the ones before it guarantee. Any error means the caller
// must not change anything: no partial result is ever returned.
func (r *Registry) Reconcile(in Input) (*Output, error) {
	out := &Output{Requirements: map[string]Selector{EnvironmentsRequirement: EnvironmentSelector()}}
	// Admit: the composite's annotations are valid, and its tenant and the EnvironmentConfigs are read.
	tenant, configs, ready, err := admit(in, out.Requirements)
	if err != nil || !ready {
		return orError(out, err)
	}
	// Resolve the environment the cluster lives in: selected, valid, and of the backend that built it.
	env, backend, err := r.resolveEnvironment(in.Cluster, configs, tenant)
	if err != nil {
		return nil, err
	}
	// Recall what the cluster was given: its settings, its defaults and its name in the backend.
	req, kept, err := recall(in, env, backend)
	if err != nil {
		return nil, err
	}
	out.Environment, out.Backend, out.Spec = req.Environment, backend, req.Cluster.Spec
	// Guard what is observed: nothing of another backend or cluster is taken over, no Secret's data passed on.
	if err := r.guardObserved(backend, in.Observed, req.Identity); err != nil {
		return nil, err
	}
	// Require what the backend reads before it renders: until it is fetched, nothing is decided.
	if !require(out.Requirements, backend.Requirements(req), in.Required) {
		return out, nil
	}
	out.Complete = true
	// Validate the spec: the rules of the API and the environment's offer, and what an existing cluster allows.
	if err := validateSpec(in.Cluster, req, env); err != nil {
		return nil, err
	}
	// Render the native objects and observe their status, as the backend translates them.
	rendering, obs, err := translate(backend, in.Cluster, req, env)
	if err != nil {
		return nil, err
	}
	// Keep what exists and what was delivered, where the rendering alone would lose it.
	rendering, obs, events := r.keep(in, req, rendering, obs)
	// Guard the rendering: nothing that exists is moved, replaced or dropped.
	if err := guardRendering(backend, req, rendering.Resources, kept.settings); err != nil {
		return nil, err
	}
	// Observe: the normalised status and the conditions every backend shares.
	observe(out, in, req, env, kept, rendering, obs, events)
	return out, nil
}

// orError returns the output while it waits for requirements, and nothing with an error.
func orError(out *Output, err error) (*Output, error) {
	if err != nil {
		return nil, err
	}
	return out, nil
}

// admit checks the composite's annotations and reads who asks: its tenant, with the labels
// of the tenant's namespace where an environment admits namespaces by label, and the
// EnvironmentConfigs. ready is false while something is still to be fetched; the
// requirements for it are added to reqs.
func admit(in Input, reqs map[string]Selector) (Tenant, []*unstructured.Unstructured, bool, error) {
	configs, fetched := in.Required[EnvironmentsRequirement]
	if !fetched {
		return Tenant{}, nil, false, nil
	}
	if err := validateDeletionPolicyAnnotation(in.Cluster); err != nil {
		return Tenant{}, nil, false, err
	}
	tenant := Tenant{Namespace: IdentityOf(in.Cluster).Namespace}
	if tenant.Namespace == "" || !slices.ContainsFunc(configs, usesSelector) {
		return tenant, configs, true, nil
	}
	// An environment admits namespaces by label: read the claim's namespace. Only then,
	// because Crossplane needs a permission for it (package/rbac.yaml). By the label every
	// namespace carries: Crossplane refuses a required resource by name without a namespace
	// for a namespaced composite, even of a cluster-scoped kind.
	reqs[NamespaceRequirement] = Selector{APIVersion: "v1", Kind: "Namespace",
		MatchLabels: map[string]string{"kubernetes.io/metadata.name": tenant.Namespace}}
	ns, fetched := in.Required[NamespaceRequirement]
	for _, n := range ns {
		if n.GetName() == tenant.Namespace {
			tenant.Labels = n.GetLabels()
		}
	}
	return tenant, configs, fetched, nil
}

// resolveEnvironment selects the environment the cluster lives in among those offered to
// its tenant, refuses a switch of the backend that built it, and checks the environment.
func (r *Registry) resolveEnvironment(xr *kaasv1alpha1.XSCSCluster, configs []*unstructured.Unstructured, tenant Tenant) (*Environment, Backend, error) {
	pinned := pinnedBackend(xr)
	env, err := SelectEnvironment(xr.Spec.Environment, pinned.Environment, configs, tenant)
	if err != nil {
		return nil, nil, err
	}
	if err := checkBackendKept(env, pinned.Type); err != nil {
		return nil, nil, err
	}
	backend, err := r.For(env.Backend)
	if err != nil {
		return nil, nil, errorf(kaasv1alpha1.ReasonInvalidEnvironment, "environment %q (EnvironmentConfig %s): %v", env.Name, env.ConfigName, err)
	}
	if errs := append(ValidateEnvironment(env, r), backend.ValidateEnvironment(env)...); len(errs) > 0 {
		return nil, nil, &InvalidError{Reason: kaasv1alpha1.ReasonInvalidEnvironment, Subject: fmt.Sprintf("environment %q (EnvironmentConfig %s)", env.Name, env.ConfigName), Errs: errs}
	}
	return env, backend, nil
}

// pinnedBackend is what the cluster's status recorded of its backend; empty for a new one.
func pinnedBackend(xr *kaasv1alpha1.XSCSCluster) kaasv1alpha1.BackendStatus {
	if xr.Status.Backend == nil {
		return kaasv1alpha1.BackendStatus{}
	}
	return *xr.Status.Backend
}

// recalled is what recall found the cluster was given, beside its Request: the settings it
// keeps and what keepSettings kept of them, and the adoption it carried out, if any.
type recalled struct {
	settings []Setting
	kept
	adoption string
}

// recall makes the backend's Request: the environment with the settings the cluster keeps,
// the spec defaulted from what the environment defaulted when the cluster was created, and
// the cluster's name in the backend, which is what exists, or what the status recorded. A
// new value of the kaas.scs.community/adopt-environment annotation has the cluster take its
// environment's values where its backend can change them in place.
func recall(in Input, env *Environment, backend Backend) (*Request, recalled, error) {
	xr := in.Cluster
	pinned := pinnedBackend(xr)
	r := recalled{settings: SettingsOf(backend), adoption: pinned.Adopted}
	adopt := xr.GetAnnotations()[kaasv1alpha1.AnnotationAdoptEnvironment]
	adopting := adopt != "" && adopt != pinned.Adopted
	record := maps.Clone(pinned.Placement)
	if record == nil {
		record = map[string]string{}
	}
	maps.Copy(record, pinned.Pinned)
	keptEnv, k, err := keepSettings(env, r.settings, record, minorOf(xr.Spec.Kubernetes.Version), adopting)
	if err != nil {
		return nil, r, err
	}
	r.kept = k
	defaulted := xr.Status.Defaulted
	if adopting {
		r.adoption = adopt
		defaulted = adoptDefaults(defaulted, env, backend.Capabilities())
	}
	cluster := *xr
	cluster.Spec = Default(xr.Spec, env, defaulted)
	rec := Defaulted(&xr.Spec, &cluster.Spec)
	rec.Maintenance = maintenanceRecord(xr.Spec.Maintenance, maintenanceDefaults(env, defaulted))
	return &Request{Cluster: &cluster, NativeName: clusterName(xr, backend, keptEnv, in.Observed), Identity: IdentityOf(xr),
		Environment: keptEnv, Defaulted: rec, Observed: in.Observed, Required: in.Required, Options: in.Options}, r, nil
}

// minorOf is the minor of a version, such as 1.34 of 1.34.2; the version itself when it is
// none.
func minorOf(version string) string {
	if v, err := ParseVersion(version); err == nil {
		return v.MinorString()
	}
	return version
}

// require adds the backend's requirements to reqs and says whether all were fetched.
func require(reqs, backend map[string]Selector, fetched map[string][]*unstructured.Unstructured) bool {
	maps.Copy(reqs, backend)
	for name := range reqs {
		if _, ok := fetched[name]; !ok {
			return false
		}
	}
	return true
}

// validateSpec checks the defaulted spec: the create rules against the API and the
// environment's offer, the update rules against what the status says exists. The backend
// sees only a spec that passed them: it may rely on them (a pool has a count or
// autoscaling) rather than check everything again.
func validateSpec(xr *kaasv1alpha1.XSCSCluster, req *Request, env *Environment) error {
	spec, current := &req.Cluster.Spec, &xr.Status
	if errs := Validate(spec, env, current); len(errs) > 0 {
		return invalidSpec(xr, req, env, errs)
	}
	if errs := ValidateZonesKept(spec, req.Defaulted, current); len(errs) > 0 {
		return invalidSpec(xr, req, env, errs)
	}
	return nil
}

// invalidSpec is the refusal of the spec xr gives, each problem with where its value came
// from where the environment filled it in.
func invalidSpec(xr *kaasv1alpha1.XSCSCluster, req *Request, env *Environment, errs field.ErrorList) error {
	return &InvalidError{Reason: kaasv1alpha1.ReasonInvalidSpec, Subject: fmt.Sprintf("%s %q", kaasv1alpha1.CompositeKind, xr.Name),
		Errs: explainDefaults(errs, &xr.Spec, req.Defaulted, env)}
}

// translate has the backend render the native objects and observe their status, refuses
// what the backend refuses and a version what runs cannot move to, and adds to what the
// backend cannot honour the fields its capabilities never honour.
func translate(backend Backend, xr *kaasv1alpha1.XSCSCluster, req *Request, env *Environment) (*Rendering, *Observation, error) {
	t, err := backend.Translate(req)
	switch {
	case err != nil:
		var me *Error
		if errors.As(err, &me) {
			return nil, nil, me
		}
		return nil, nil, &Error{Reason: kaasv1alpha1.ReasonRenderFailed, Message: err.Error()}
	case len(t.Invalid) > 0:
		return nil, nil, invalidSpec(xr, req, env, t.Invalid)
	}
	if errs := ValidateUpgrade(&req.Cluster.Spec, t.Observation.Status.Kubernetes); len(errs) > 0 {
		return nil, nil, invalidSpec(xr, req, env, errs)
	}
	rendering := *t.Rendering
	rendering.Unsupported = append(backend.Capabilities().Warnings(&req.Cluster.Spec), t.Rendering.Unsupported...)
	sortUnsupported(rendering.Unsupported)
	return &rendering, t.Observation, nil
}

// keep returns the rendering and observation with what exists and was delivered kept: the
// objects whose state is not known yet as last applied, composed resources no backend
// renders that can hold a cluster, the connection details users hold, and the kubeconfig
// Secret of a namespaced composite. The events name what was kept that a user must hear of.
func (r *Registry) keep(in Input, req *Request, rendering *Rendering, obs *Observation) (*Rendering, *Observation, []Event) {
	out := *rendering
	unobserved := Unobserved(in.Observed)
	out.Resources = keepUnobserved(rendering.Resources, in.Observed, unobserved)
	resources, events := r.keepUnknown(out.Resources, in.Observed)
	out.Resources = resources
	if len(unobserved) > 0 {
		obs = unknownObservation(obs, &in.Cluster.Status, unobserved)
	}
	obs = keepDelivered(obs, Delivered(in))
	if in.KubeconfigSecret != "" {
		out.Resources = append(out.Resources, kubeconfigSecret(req, in.KubeconfigSecret, obs.ConnectionDetails))
		o := *obs
		o.ResourceReady = maps.Clone(obs.ResourceReady)
		if o.ResourceReady == nil {
			o.ResourceReady = map[string]bool{}
		}
		o.ResourceReady[ResourceKubeconfigSecret] = len(obs.ConnectionDetails[ConnectionKeyKubeconfig]) > 0
		obs = &o
	}
	return &out, obs, events
}

// guardRendering refuses desired resources that would move or replace a composed resource
// that exists, or leave out one of the backend's.
func guardRendering(backend Backend, req *Request, resources []Resource, settings []Setting) error {
	if err := checkObjectKeys(resources, req.Observed, req.Environment, settings, minorOf(req.Cluster.Spec.Kubernetes.Version)); err != nil {
		return err
	}
	return checkNothingDropped(backend.Type(), resources, req.Observed, &req.Cluster.Spec)
}

// observe fills the output with the rendering, the normalised status with the backend's
// record, and the conditions and events every backend shares.
func observe(out *Output, in Input, req *Request, env *Environment, kept recalled, rendering *Rendering, obs *Observation, events []Event) {
	pinned := pinnedBackend(in.Cluster)
	spec := &req.Cluster.Spec
	out.Rendering, out.Events = rendering, events
	out.Status = obs.Status
	out.Status.Backend = &kaasv1alpha1.BackendStatus{
		Type:           env.Backend,
		Environment:    env.Name,
		Region:         req.Environment.Region,
		Name:           req.NativeName,
		NativeRef:      rendering.NativeRef,
		DeletionPolicy: deletionPolicy(rendering.Resources),
		Pinned:         kept.record,
		Adopted:        kept.adoption,
	}
	if out.Status.Backend.NativeRef == nil && pinned.NativeRef != nil {
		// The backend could not say where its object lives this time (its inputs are
		// not observed yet); the object has not moved.
		out.Status.Backend.NativeRef = pinned.NativeRef
	}
	out.Status.Defaulted = req.Defaulted
	out.Status.Offered = offered(env, spec, out.Status.Kubernetes)
	out.KubeconfigExpires = kubeconfigExpiry(obs.ConnectionDetails[ConnectionKeyKubeconfig])
	changes := append(append(EnvironmentChanges(spec, env, req.Defaulted), rendering.EnvironmentChanges...), kept.changes...)
	if kept.adoption != pinned.Adopted {
		out.Events = append(out.Events, adoptionEvents(env, kept.kept)...)
	}
	o, more := sharedConditions(obs, env, spec, &out.Status, changes, syncedCondition(rendering.Resources, in.Observed), out.KubeconfigExpires, in.Now)
	out.Observation = o
	out.Events = append(out.Events, more...)
	out.Conditions, out.Events = compositeConditions(env, &out.Status, o.Conditions, rendering.Unsupported, out.Events)
}

// clusterName is the cluster's name in the backend. What exists decides: the name the
// backend's observed objects are labelled with. Else the name the status recorded when the
// cluster was created; else, for a cluster built before names were recorded, the
// composite's name, which it was built with (so are objects that carry no name label);
// else, for a new cluster, a name derived from its identity. So no name of anything that
// exists ever changes, and checkObjectKeys refuses desired resources that would rename one.
func clusterName(xr *kaasv1alpha1.XSCSCluster, backend Backend, env *Environment, observed map[string]ObservedResource) string {
	existing := backendResources(backend.Type(), observed)
	for _, name := range existing {
		if v := observed[name].Object.GetLabels()[LabelCluster]; v != "" {
			return v
		}
	}
	b := xr.Status.Backend
	switch {
	case b != nil && b.Name != "":
		return b.Name
	case len(existing) > 0, b != nil && b.Type != "":
		// Objects exist that tell no name, or the cluster was pinned before names were
		// recorded: it was built with the composite's name.
		return xr.Name
	}
	return NativeName(IdentityOf(xr), backend.NameLength(env))
}

// backendResources are the names of the backend's observed composed resources, sorted.
func backendResources(backend kaasv1alpha1.BackendType, observed map[string]ObservedResource) []string {
	var out []string
	for name, o := range observed {
		if o.Object != nil && strings.HasPrefix(name, string(backend)+"-") {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}
