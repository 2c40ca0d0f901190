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
	"github.com/SovereignCloudStack/scs-kaas/model/providerkubernetes"
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
	// Events are for the cluster's users, beyond the fields the backend cannot honour
	// (Rendering.Unsupported): callers surface them as events of the composite and claim.
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
	if err := validateDeletionPolicyAnnotation(xr); err != nil {
		return nil, err
	}
	tenant := Tenant{Namespace: IdentityOf(xr).Namespace}
	if tenant.Namespace != "" && slices.ContainsFunc(configs, usesSelector) {
		// An environment admits namespaces by label: read the claim's namespace. Only
		// then, because Crossplane needs a permission for it (package/rbac.yaml).
		// By the label every namespace carries: Crossplane refuses a required resource by
		// name without a namespace for a namespaced composite, even of a cluster-scoped kind.
		out.Requirements[NamespaceRequirement] = Selector{APIVersion: "v1", Kind: "Namespace",
			MatchLabels: map[string]string{"kubernetes.io/metadata.name": tenant.Namespace}}
		ns, fetched := in.Required[NamespaceRequirement]
		if !fetched {
			return out, nil
		}
		for _, n := range ns {
			if n.GetName() == tenant.Namespace {
				tenant.Labels = n.GetLabels()
			}
		}
	}
	pinned := kaasv1alpha1.BackendStatus{}
	if xr.Status.Backend != nil {
		pinned = *xr.Status.Backend
	}
	env, err := SelectEnvironment(xr.Spec.Environment, pinned.Environment, configs, tenant)
	if err != nil {
		return nil, err
	}
	out.Environment = env
	if pinned.Type != "" && env.Backend != pinned.Type {
		return nil, errorf(kaasv1alpha1.ReasonReplacementRefused, "environment %q (EnvironmentConfig %s) now names backend %q, but this cluster was built by backend %q: switching backends would replace the cluster, so nothing was changed; restore data.backend",
			env.Name, env.ConfigName, env.Backend, pinned.Type)
	}
	backend, err := r.For(env.Backend)
	if err != nil {
		return nil, errorf(kaasv1alpha1.ReasonInvalidEnvironment, "environment %q (EnvironmentConfig %s): %v", env.Name, env.ConfigName, err)
	}
	out.Backend = backend
	envErrs := append(ValidateEnvironment(env, r), backend.ValidateEnvironment(env)...)
	if len(envErrs) > 0 {
		return nil, &InvalidError{Reason: kaasv1alpha1.ReasonInvalidEnvironment, Subject: fmt.Sprintf("environment %q (EnvironmentConfig %s)", env.Name, env.ConfigName), Errs: envErrs}
	}
	settings := placementSettings(backend)
	placement, placementChanges := KeepPlacement(env, settings, pinned.Placement)
	if err := r.checkObservedBackends(backend, in.Observed); err != nil {
		return nil, err
	}
	if err := checkSecretsSanitized(in.Observed); err != nil {
		return nil, err
	}

	cluster := *xr
	cluster.Spec = Default(xr.Spec, env, xr.Status.Defaulted)
	out.Spec = cluster.Spec
	identity := IdentityOf(xr)
	if err := checkOwnership(backend.Type(), in.Observed, identity); err != nil {
		return nil, err
	}
	req := &Request{Cluster: &cluster, NativeName: clusterName(xr, backend, env, in.Observed), Identity: identity,
		Environment: env, Defaulted: Defaulted(&xr.Spec, &cluster.Spec),
		Observed: in.Observed, Required: in.Required, Options: in.Options}

	maps.Copy(out.Requirements, backend.Requirements(req))
	for name := range out.Requirements {
		if _, ok := in.Required[name]; !ok {
			return out, nil
		}
	}
	out.Complete = true

	subject := fmt.Sprintf("%s %q", kaasv1alpha1.CompositeKind, xr.Name)
	// The backend sees only a spec that passed the API's own rules: it may rely on them (a
	// pool has a count or autoscaling) rather than check everything again.
	invalid := func(errs field.ErrorList) error {
		return &InvalidError{Reason: kaasv1alpha1.ReasonInvalidSpec, Subject: subject, Errs: explainDefaults(errs, &xr.Spec, req.Defaulted, env)}
	}
	if errs := Validate(&cluster.Spec, env, &xr.Status); len(errs) > 0 {
		return nil, invalid(errs)
	}
	if errs := ValidateZonesKept(&cluster.Spec, req.Defaulted, &xr.Status); len(errs) > 0 {
		return nil, invalid(errs)
	}
	t, err := backend.Translate(req)
	switch {
	case err != nil:
		var me *Error
		if errors.As(err, &me) {
			return nil, me
		}
		return nil, &Error{Reason: kaasv1alpha1.ReasonRenderFailed, Message: err.Error()}
	case len(t.Invalid) > 0:
		return nil, invalid(t.Invalid)
	}
	obs, rendering := t.Observation, t.Rendering
	if errs := ValidateUpgrade(&cluster.Spec, obs.Status.Kubernetes); len(errs) > 0 {
		return nil, invalid(errs)
	}
	rendering.Unsupported = append(backend.Capabilities().Warnings(&cluster.Spec), rendering.Unsupported...)
	sortUnsupported(rendering.Unsupported)
	unobserved := Unobserved(in.Observed)
	keepUnobserved(rendering, in.Observed, unobserved)
	if err := checkIdentities(rendering, in.Observed, env, settings); err != nil {
		return nil, err
	}
	if err := checkNothingDropped(backend.Type(), rendering, in.Observed, &cluster.Spec); err != nil {
		return nil, err
	}
	out.Events = r.keepUnknown(rendering, in)
	synced := syncedCondition(rendering.Resources, in.Observed)
	if len(unobserved) > 0 {
		obs = unknownObservation(obs, &xr.Status, unobserved)
	}
	obs = keepDelivered(obs, Delivered(in))

	if in.KubeconfigSecret != "" {
		rendering.Resources = append(rendering.Resources, kubeconfigSecret(req, in.KubeconfigSecret, obs.ConnectionDetails))
		obs.ResourceReady = maps.Clone(obs.ResourceReady)
		if obs.ResourceReady == nil {
			obs.ResourceReady = map[string]bool{}
		}
		obs.ResourceReady[ResourceKubeconfigSecret] = len(obs.ConnectionDetails[ConnectionKeyKubeconfig]) > 0
	}

	out.Rendering = rendering
	out.Observation = obs
	out.Status = obs.Status
	out.Status.Backend = &kaasv1alpha1.BackendStatus{
		Type:           env.Backend,
		Environment:    env.Name,
		Region:         env.Region,
		Name:           req.NativeName,
		NativeRef:      rendering.NativeRef,
		DeletionPolicy: deletionPolicy(rendering.Resources),
		Placement:      placement,
	}
	if out.Status.Backend.NativeRef == nil && pinned.NativeRef != nil {
		// The backend could not say where its object lives this time (its inputs are
		// not observed yet); the object has not moved.
		out.Status.Backend.NativeRef = pinned.NativeRef
	}
	out.Status.Defaulted = req.Defaulted
	out.Status.Offered = offered(env, &cluster.Spec, out.Status.Kubernetes)
	version, events := versionCondition(env, &cluster.Spec, out.Status.Kubernetes, out.Status.Offered, in.Now)
	out.Events = append(out.Events, events...)
	changes := append(EnvironmentChanges(&cluster.Spec, env, out.Status.Defaulted), rendering.EnvironmentChanges...)
	changes = append(changes, placementChanges...)
	out.KubeconfigExpires = kubeconfigExpiry(obs.ConnectionDetails[ConnectionKeyKubeconfig])
	if !slices.ContainsFunc(obs.Conditions, func(c Condition) bool { return c.Type == kaasv1alpha1.ConditionKubeconfigReady }) {
		c, warning := kubeconfigCondition(obs, out.KubeconfigExpires, in.Now)
		obs.Conditions = append(obs.Conditions, c)
		if warning != nil {
			out.Events = append(out.Events, *warning)
		}
	}
	obs.Conditions = append(obs.Conditions, environmentCondition(env, changes), version, synced)
	return out, nil
}

// offered is what the environment offers the cluster's team, and the minor it may move to
// next: one above what runs (or, before anything runs, above the spec's).
func offered(env *Environment, spec *kaasv1alpha1.ClusterSpec, running *kaasv1alpha1.KubernetesStatus) *kaasv1alpha1.OfferedStatus {
	o := &kaasv1alpha1.OfferedStatus{
		KubernetesVersions: slices.Clone(env.Catalog.KubernetesVersions),
		MachineTypes:       slices.Clone(env.Catalog.MachineTypes),
		Zones:              slices.Clone(env.Catalog.Zones),
	}
	current := spec.Kubernetes.Version
	if running != nil && running.Version != "" {
		current = running.Version
	}
	if v, err := ParseVersion(current); err == nil {
		next := Version{Major: v.Major, Minor: v.Minor + 1, Patch: -1}.MinorString()
		if slices.Contains(env.Catalog.KubernetesVersions, next) {
			o.NextMinor = next
		}
	}
	return o
}

// clusterName is the cluster's name in the backend. What exists decides: the name the
// backend's observed objects are labelled with. Else the name the status recorded when the
// cluster was created; else, for a cluster built before names were recorded, the
// composite's name, which it was built with (so are objects that carry no name label);
// else, for a new cluster, a name derived from its identity. So no name of anything that
// exists ever changes, and checkReplacements refuses a rendering that would rename one.
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

// unknownObservation is what can be said while a native object exists but its state is not
// known: the status as last written stays (a Ready cluster does not turn Provisioning while
// its provider restarts), the backend's verdict is Unknown, and the unobserved resources are
// not ready.
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

// kubeconfigCondition says whether a kubeconfig was delivered, for backends that give no
// verdict of their own on it (one that knows about expiry and renewal does). Where the
// kubeconfig's credentials say when they expire and the caller gives the time, an expired
// one is Expired and one about to expire is warned of: the backend renews it (a
// KubeadmControlPlane rotates its kubeconfig Secret, which the claim's follows) or the
// cluster's users must know.
func kubeconfigCondition(obs *Observation, expires, now time.Time) (Condition, *Event) {
	raw := obs.ConnectionDetails[ConnectionKeyKubeconfig]
	if len(raw) == 0 {
		return Condition{Type: kaasv1alpha1.ConditionKubeconfigReady, Status: ConditionFalse, Reason: kaasv1alpha1.ReasonKubeconfigPending,
			Message: "the backend has not delivered a kubeconfig yet"}, nil
	}
	delivered := Condition{Type: kaasv1alpha1.ConditionKubeconfigReady, Status: ConditionTrue, Reason: kaasv1alpha1.ReasonKubeconfigDelivered,
		Message: "the connection secret holds the cluster's kubeconfig"}
	if expires.IsZero() || now.IsZero() {
		return delivered, nil
	}
	until := expires.UTC().Format(time.RFC3339)
	if !now.Before(expires) {
		expired := Condition{Type: kaasv1alpha1.ConditionKubeconfigReady, Status: ConditionFalse, Reason: kaasv1alpha1.ReasonKubeconfigExpired,
			Message: "the delivered kubeconfig's credentials expired at " + until + " and the backend has not delivered renewed ones"}
		return expired, &Event{Type: EventWarning, Reason: kaasv1alpha1.ReasonKubeconfigExpiredWarning, Message: expired.Message}
	}
	delivered.Message += ", valid until " + until
	if expires.Sub(now) < KubeconfigExpiryWarning {
		return delivered, &Event{Type: EventWarning, Reason: kaasv1alpha1.ReasonKubeconfigExpiring,
			Message: "the delivered kubeconfig's credentials expire at " + until + " and the backend has not delivered renewed ones yet"}
	}
	return delivered, nil
}

// environmentCondition says whether the cluster uses what its environment offers and
// defaults today.
func environmentCondition(env *Environment, changes []string) Condition {
	if len(changes) == 0 {
		return Condition{Type: kaasv1alpha1.ConditionEnvironmentUpToDate, Status: ConditionTrue, Reason: kaasv1alpha1.ReasonUpToDate,
			Message: fmt.Sprintf("the cluster uses what environment %s offers and defaults", env.Name)}
	}
	return Condition{Type: kaasv1alpha1.ConditionEnvironmentUpToDate, Status: ConditionFalse, Reason: kaasv1alpha1.ReasonEnvironmentChanged,
		Message: Truncate(fmt.Sprintf("environment %s changed since the cluster was created; the cluster is left as it is: %s", env.Name, strings.Join(changes, "; ")))}
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

func registeredTypes(r *Registry) []kaasv1alpha1.BackendType {
	out := make([]kaasv1alpha1.BackendType, 0, len(r.backends))
	for t := range r.backends {
		out = append(out, t)
	}
	return out
}
