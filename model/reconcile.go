package model

import (
	"cmp"
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
	// Cluster is the composite resource as observed, its spec not defaulted.
	Cluster *kaasv1alpha1.XSCSCluster
	// Observed are the composed resources that exist, keyed by resource name.
	Observed map[string]ObservedResource
	// Required are the resources fetched so far for Output.Requirements, by name.
	Required map[string][]*unstructured.Unstructured
	Options  Options
	// KubeconfigSecret names the Secret a namespaced composite wants its kubeconfig in
	// (empty: none): Crossplane v2 gives those no connection secret, so Reconcile composes it.
	KubeconfigSecret string
	// Now is the time of the call; zero: nothing is checked against the clock.
	Now time.Time
	// ConnectionSecret names a legacy composite's connection Secret (in
	// Options.ConnectionSecretNamespace), which its add-ons reach the cluster with.
	ConnectionSecret string
	// ConnectionDetails are the legacy composite's connection details as Crossplane last
	// published them: what its claim's Secret holds. Secret: never log them.
	ConnectionDetails map[string][]byte

	// upgradeRefused is why validation or the backend refused the upgrade of an expired
	// minor this call started: tried again without it, the cluster stays as it is.
	upgradeRefused string
}

// Output is the result of one Reconcile.
type Output struct {
	// Requirements are what the caller must fetch and pass as Input.Required; the same on
	// every call for one cluster and environment.
	Requirements map[string]Selector
	// Complete is false while a requirement is not fetched; then nothing below is set, and
	// it is never a reason to delete anything.
	Complete bool

	Environment *Environment
	Backend     Backend
	// Spec is the defaulted spec that was rendered.
	Spec        kaasv1alpha1.ClusterSpec
	Rendering   *Rendering
	Observation *Observation
	Status      kaasv1alpha1.ClusterStatus
	// Conditions are in the order callers set them: Rendered, Stalled, the observation's,
	// SpecSupported, AddonsReady.
	Conditions []Condition
	// Events are for the cluster's users, as events of the composite and claim.
	Events []Event
	// KubeconfigExpires is when the delivered kubeconfig's credentials expire; zero: unknown.
	KubeconfigExpires time.Time
	// Created: something of the cluster exists in its backend, so it keeps the values it
	// recorded of its environment; until then it takes the environment as it is.
	Created bool
	// LookingFor are the composed resources whose lookout is not reported yet (observe
	// before managing): until their providers say whether what they observe exists, only
	// they are rendered. Callers without providers answer with ReportedNotThere.
	LookingFor []string
}

// Event is something a user should know about the cluster.
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

// Reconcile runs the translation of one cluster as phases whose order is the point: each
// relies on what the ones before guarantee. On an error the caller must not change anything.
func (r *Registry) Reconcile(in Input) (*Output, error) {
	original := in // what a retry without a refused end-of-life upgrade starts from
	out := &Output{Requirements: map[string]Selector{EnvironmentsRequirement: EnvironmentSelector()}}
	// Admit: valid annotations; the tenant and the EnvironmentConfigs read.
	tenant, configs, ready, err := admit(in, out.Requirements)
	if err != nil {
		return nil, err
	}
	if !ready {
		return out, nil
	}
	// Resolve the environment: offered to the tenant, valid, of the backend that built it.
	env, backend, err := r.resolveEnvironment(in.Cluster, configs, tenant)
	if err != nil {
		return nil, err
	}
	// Recall what the cluster was given: its settings, defaults and name in the backend.
	req, kept, err := recall(in, env, backend)
	if err != nil {
		return nil, err
	}
	out.Environment, out.Backend, out.Spec = req.Environment, backend, req.Cluster.Spec
	// Guard what is observed: nothing of another backend or cluster, no Secret's data.
	if err := r.guardObserved(backend, in.Observed, req.Identity); err != nil {
		return nil, err
	}
	// Look before managing: while nothing of the backend is managed, its natives are looked
	// for without writing, before the spec is judged in today's environment; found without
	// memory, the memory is read back from them and recalled.
	look, fetched, err := lookBeforeManaging(in, req, backend, kept, out.Requirements)
	switch {
	case err != nil:
		return nil, err
	case !fetched:
		// What the backend reads is asked for in the same round: Crossplane calls a function
		// a few times only while it asks for more.
		require(out.Requirements, backend.Requirements(req), in.Required)
		require(out.Requirements, accessRequirements(req), in.Required)
		return out, nil
	case look != nil && len(look.pending) > 0:
		// The spec is judged once it is known whether the cluster runs: a cluster that runs
		// keeps what today's environment may no longer offer. Until then a Warning says it.
		out.Complete = true
		out = r.lookingOut(out, in, req, env, kept, look, nil)
		if err := validateSpec(in.Cluster, req, env, kept.created); err != nil {
			out.Events = append(out.Events, Event{Type: EventWarning, Reason: ReasonOf(err), Message: Truncate(
				"unless the lookout finds the cluster running, this is refused: " + err.Error())})
		}
		return out, nil
	case look != nil && look.readBack != nil:
		in.Cluster = look.readBack.withMemory(in.Cluster, env, req.NativeName)
		if req, kept, err = recall(in, env, backend); err != nil {
			return nil, err
		}
		out.Spec = req.Cluster.Spec
	}
	// Require what the backend reads first: until it is fetched, nothing is decided.
	if !require(out.Requirements, backend.Requirements(req), in.Required) || !require(out.Requirements, accessRequirements(req), in.Required) {
		return out, nil
	}
	out.Complete = true
	rendering, obs, err := validateAndTranslate(in, req, env, backend, kept.created)
	if err != nil && kept.endOfLife.Started && original.upgradeRefused == "" {
		// The upgrade of an expired minor is refused: the cluster stays as it is, and its
		// UpdatePlanned condition says why. Once: with a refusal, none is started again.
		original.upgradeRefused = cmp.Or(Truncate(err.Error()), ReasonOf(err), "refused")
		return r.Reconcile(original)
	}
	if err != nil {
		return nil, err
	}
	// Remember the names providers know managed resources by, and compose them with them.
	var externalNames map[string]string
	rendering, externalNames = keepExternalNames(rendering, in.Observed, pinnedBackend(in.Cluster).ExternalNames)
	if look.waiting() {
		// Read back: the status records the memory first; managed from the next call on.
		return r.lookingOut(out, in, req, env, kept, look, obs), nil
	}
	// Keep what exists and what was delivered, where the rendering alone would lose it.
	rendering, obs, events := r.keep(in, req, rendering, obs)
	// Deliver the add-ons once the cluster is Ready with its kubeconfig; keep installed ones.
	if err := checkAddonsReachable(in, req, env); err != nil {
		return nil, err
	}
	rendering, obs, delivered, more := withAddons(in, req, env, rendering, obs)
	events = append(events, more...)
	// Register the cluster in Argo CD once it is Ready with its kubeconfig; keep it registered.
	rendering, obs, more = withRegistration(in, req, env, rendering, obs)
	events = append(events, more...)
	// Guard the rendering: nothing that exists is moved, replaced or dropped.
	if err := guardRendering(backend, req, rendering.Resources, kept.settings); err != nil {
		return nil, err
	}
	// Observe: the status, every condition and the events.
	observe(out, in, req, env, kept, rendering, obs, events)
	out.Status.Backend.ExternalNames = externalNames
	var addonsReady *Condition
	if out.Status.Addons, addonsReady = addonStatus(delivered, in.Observed); addonsReady != nil {
		out.Conditions = append(out.Conditions, *addonsReady)
	}
	return out, nil
}

// validateAndTranslate checks the defaulted spec against the create and update rules,
// resolves who may reach the API server (the issuer's CA read, for every backend alike),
// and has the backend render and observe.
func validateAndTranslate(in Input, req *Request, env *Environment, backend Backend, created bool) (*Rendering, *Observation, error) {
	if err := validateSpec(in.Cluster, req, env, created); err != nil {
		return nil, nil, err
	}
	access, err := ResolveAccess(req, in.Required)
	if err != nil {
		return nil, nil, err
	}
	req.Access = access
	return translate(backend, in.Cluster, req, env)
}

// admit checks the composite's annotations and reads its tenant and the EnvironmentConfigs.
// ready is false while something is still to be fetched; its requirement is added to reqs.
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
	// Read the claim's namespace only when an environment admits by label: Crossplane needs
	// RBAC for it (package/rbac.yaml). By label, since Crossplane refuses a required resource
	// by name without a namespace for a namespaced composite, even of a cluster-scoped kind.
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

// resolveEnvironment selects the cluster's environment among those offered to its tenant,
// refuses a switch of the backend that built it, and checks the environment.
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

// recalled is what recall found beside the Request: the backend's settings, what
// keepSettings kept of them, and the adoption carried out, if any.
type recalled struct {
	settings []Setting
	kept
	adoption  string
	created   bool
	endOfLife endOfLife
}

// recall makes the backend's Request: the environment with the settings the cluster keeps,
// the spec defaulted as at its creation, its name in the backend. A new adopt-environment
// annotation takes the environment's values the backend can change in place.
func recall(in Input, env *Environment, backend Backend) (*Request, recalled, error) {
	xr := in.Cluster
	pinned := pinnedBackend(xr)
	// Created once something of it that writes is composed, or its memory says so (restored
	// from a backup while nothing of it is composed yet); what only observes, such as a
	// lookout before managing, creates nothing.
	r := recalled{settings: SettingsOf(backend), adoption: pinned.Adopted, created: pinned.Created || !probing(backend.Type(), in.Observed)}
	adopt := xr.GetAnnotations()[kaasv1alpha1.AnnotationAdoptEnvironment]
	adopting := adopt != "" && adopt != pinned.Adopted
	record := map[string]string{}
	if r.created {
		// Pinned once something of the cluster exists: until then, an environment a
		// platform team corrects reaches the cluster being created.
		maps.Copy(record, pinned.Placement)
		maps.Copy(record, pinned.Pinned)
	}
	defaulted := xr.Status.Defaulted
	if adopting {
		r.adoption = adopt
		defaulted = adoptDefaults(defaulted, env, backend.Capabilities())
	}
	cluster := *xr
	cluster.Spec = Default(xr.Spec, env, defaulted)
	// Maintain: the updates the cluster makes on its own start in its window only; an
	// expired minor is upgraded in it, and stays upgraded.
	maintenance := NewMaintenance(in.Now, &cluster.Spec, env, IdentityOf(xr), xr.Status.Maintenance)
	if probing(backend.Type(), in.Observed) {
		// Nothing of the backend is managed: a new cluster is made as its spec says, and one
		// looked for after a loss starts nothing of its own before it is managed again.
		maintenance.Hold()
	}
	r.endOfLife = upgradeExpired(&cluster.Spec, env, maintenance, xr.Status.Maintenance, runningVersion(xr), in.upgradeRefused)
	cluster.Spec.Kubernetes.Version = r.endOfLife.Version
	var patches *Maintenance
	if au := cluster.Spec.Maintenance.AutoUpdate; au != nil && au.KubernetesPatch != nil && *au.KubernetesPatch {
		patches = maintenance
	}
	keptEnv, k, err := keepSettings(env, r.settings, record, minorOf(cluster.Spec.Kubernetes.Version), adopting, patches)
	if err != nil {
		return nil, r, err
	}
	r.kept = k
	rec := Defaulted(&xr.Spec, &cluster.Spec)
	rec.Maintenance = maintenanceRecord(xr.Spec.Maintenance, maintenanceDefaults(env, defaulted))
	rec.Access = accessRecord(xr.Spec.Access, accessDefaults(env, defaulted))
	return &Request{Cluster: &cluster, NativeName: clusterName(xr, backend, keptEnv, in.Observed), Identity: IdentityOf(xr),
		Environment: keptEnv, Defaulted: rec, Observed: in.Observed, Required: in.Required, Options: in.Options, Maintenance: maintenance}, r, nil
}

// runningVersion is the version the cluster's status last reported; empty when none.
func runningVersion(xr *kaasv1alpha1.XSCSCluster) string {
	if xr.Status.Kubernetes == nil {
		return ""
	}
	return xr.Status.Kubernetes.Version
}

// minorOf is the minor of a version (1.34 of 1.34.2); the version itself when it is none.
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

// validateSpec checks the defaulted spec: the create rules, and the update rules against
// what the status says exists. Backends see only a spec that passed, and rely on it.
func validateSpec(xr *kaasv1alpha1.XSCSCluster, req *Request, env *Environment, created bool) error {
	spec, current := &req.Cluster.Spec, &xr.Status
	if errs := Validate(spec, env, withInstalledAddons(current, req.Observed)); len(errs) > 0 {
		return invalidSpec(xr, req, env, errs)
	}
	if errs := ValidateAccess(spec, req.Defaulted.Access, req.Environment, created); len(errs) > 0 {
		return invalidSpec(xr, req, env, errs)
	}
	if errs := ValidateZonesKept(spec, req.Defaulted, current); len(errs) > 0 {
		return invalidSpec(xr, req, env, errs)
	}
	return nil
}

// invalidSpec refuses xr's spec, saying where the environment filled a value in.
func invalidSpec(xr *kaasv1alpha1.XSCSCluster, req *Request, env *Environment, errs field.ErrorList) error {
	return &InvalidError{Reason: kaasv1alpha1.ReasonInvalidSpec, Subject: fmt.Sprintf("%s %q", kaasv1alpha1.CompositeKind, xr.Name),
		Errs: explainDefaults(errs, &xr.Spec, req.Defaulted, env)}
}

// translate has the backend render and observe, refuses what it refuses and a version what
// runs cannot move to, and adds the warnings its capabilities declare.
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

// keep returns the rendering and observation with what exists and was delivered kept, and
// the kubeconfig Secret of a namespaced composite; the events name what was kept.
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
	obs = keepRunningVersion(obs, &in.Cluster.Status)
	// The people's kubeconfig, made from what was delivered, goes into the Secret too.
	withPeople := *obs
	withPeople.ConnectionDetails = withOIDCKubeconfig(req, obs.ConnectionDetails)
	obs = &withPeople
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

// guardRendering refuses a rendering that moves, replaces or leaves out what exists.
func guardRendering(backend Backend, req *Request, resources []Resource, settings []Setting) error {
	if err := checkObjectKeys(resources, req.Observed, req.Environment, settings, minorOf(req.Cluster.Spec.Kubernetes.Version)); err != nil {
		return err
	}
	return checkNothingDropped(backend.Type(), resources, req.Observed, &req.Cluster.Spec)
}

// observe fills the output with the rendering, the status, the conditions and the events.
func observe(out *Output, in Input, req *Request, env *Environment, kept recalled, rendering *Rendering, obs *Observation, events []Event) {
	pinned := pinnedBackend(in.Cluster)
	spec := &req.Cluster.Spec
	out.Rendering, out.Events, out.Created = rendering, events, kept.created
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
		Created:        kept.created,
	}
	if out.Status.Backend.NativeRef == nil && pinned.NativeRef != nil {
		// Its inputs are not observed yet; the object has not moved.
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
	status, planned, more := maintenanceStatus(req.Maintenance, in.Cluster.Status.Maintenance, kept.endOfLife, out.Status.Kubernetes, out.Status.Phase)
	out.Status.Maintenance = status
	o.Conditions = append(o.Conditions, planned)
	out.Events = append(out.Events, more...)
	out.Conditions, out.Events = compositeConditions(env, &out.Status, o.Conditions, rendering.Unsupported, out.Events)
}

// clusterName is the cluster's name in the backend: the label of its observed objects, else
// the name the status recorded, else for a cluster built before names were recorded the
// composite's, else one derived from its identity. No name of what exists ever changes.
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
	case !probing(backend.Type(), observed), b != nil && b.Type != "":
		// Built before names were recorded: with the composite's name.
		return xr.Name
	case xr.GetAnnotations()[kaasv1alpha1.AnnotationNativeName] != "":
		// Imported under the name it was made with; adopted only if handed over (checkAdoptable).
		return xr.GetAnnotations()[kaasv1alpha1.AnnotationNativeName]
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
