package model

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
)

// Every condition of the composite is decided here but the backend's own verdict
// (BackendReady, and KubeconfigReady where it knows about expiry); callers only map them.

// sharedConditions adds the conditions every backend shares to its observation:
// KubeconfigReady unless the backend gives it, EnvironmentUpToDate (changes),
// VersionSupported and BackendSynced (synced), with the events a team must hear of.
func sharedConditions(obs *Observation, env *Environment, spec *kaasv1alpha1.ClusterSpec, status *kaasv1alpha1.ClusterStatus,
	changes []string, synced Condition, kubeconfigExpires, now time.Time) (*Observation, []Event) {
	version, events := versionCondition(env, spec, status.Kubernetes, status.Offered, now)
	out := *obs
	out.Conditions = slices.Clone(obs.Conditions)
	if !slices.ContainsFunc(obs.Conditions, func(c Condition) bool { return c.Type == kaasv1alpha1.ConditionKubeconfigReady }) {
		c, warning := kubeconfigCondition(obs, kubeconfigExpires, now)
		out.Conditions = append(out.Conditions, c)
		if warning != nil {
			events = append(events, *warning)
		}
	}
	out.Conditions = append(out.Conditions, environmentCondition(env, changes), version, synced)
	return &out, events
}

// compositeConditions are every condition in the order callers set them, and the events
// with a Warning for each field the backend cannot honour first.
func compositeConditions(env *Environment, status *kaasv1alpha1.ClusterStatus, observed []Condition, unsupported []Unsupported, events []Event) ([]Condition, []Event) {
	out := []Condition{
		{Type: kaasv1alpha1.ConditionRendered, Status: ConditionTrue, Reason: kaasv1alpha1.ReasonRendered,
			Message: fmt.Sprintf("rendered for backend %s in environment %s", env.Backend, env.Name)},
		stalledCondition(status.Phase, observed),
	}
	out = append(out, observed...)
	supported, warnings := specSupportedCondition(unsupported)
	return append(out, supported), append(warnings, events...)
}

// stalledCondition is True when the backend gave up (phase Failed), in BackendReady's words.
func stalledCondition(phase kaasv1alpha1.Phase, observed []Condition) Condition {
	if phase == kaasv1alpha1.PhaseFailed {
		for _, c := range observed {
			if c.Type == kaasv1alpha1.ConditionBackendReady {
				return Condition{Type: kaasv1alpha1.ConditionStalled, Status: ConditionTrue, Reason: c.Reason, Message: c.Message}
			}
		}
	}
	return Condition{Type: kaasv1alpha1.ConditionStalled, Status: ConditionFalse, Reason: kaasv1alpha1.ReasonRendered, Message: "the function renders the cluster"}
}

// specSupportedCondition reports the fields the backend cannot honour, with a Warning each.
func specSupportedCondition(unsupported []Unsupported) (Condition, []Event) {
	if len(unsupported) == 0 {
		return Condition{Type: kaasv1alpha1.ConditionSpecSupported, Status: ConditionTrue, Reason: kaasv1alpha1.ReasonAllFieldsHonoured,
			Message: "the backend honours every field that is set"}, nil
	}
	msgs := make([]string, 0, len(unsupported))
	warnings := make([]Event, 0, len(unsupported))
	for _, u := range unsupported {
		msg := fmt.Sprintf("%s: %s", u.Field, u.Reason)
		msgs = append(msgs, msg)
		warnings = append(warnings, Event{Type: EventWarning, Reason: kaasv1alpha1.ReasonUnsupportedField, Message: msg})
	}
	sort.Strings(msgs)
	return Condition{Type: kaasv1alpha1.ConditionSpecSupported, Status: ConditionFalse, Reason: kaasv1alpha1.ReasonUnsupportedFields,
		Message: strings.Join(msgs, "; ")}, warnings
}

// RefusalConditions are a refused cluster's: not Rendered, Stalled until someone acts.
func RefusalConditions(reason, message string) []Condition {
	return []Condition{
		{Type: kaasv1alpha1.ConditionRendered, Status: ConditionFalse, Reason: reason, Message: message},
		{Type: kaasv1alpha1.ConditionStalled, Status: ConditionTrue, Reason: reason, Message: message},
	}
}

// kubeconfigCondition says whether a kubeconfig was delivered, Expired or about to expire,
// where the credentials and the caller say when: the backend renews it or the users must
// know (docs/kubeconfig.md).
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

// adoptionEvents tell a cluster's users what adopting its environment's values did.
func adoptionEvents(env *Environment, k kept) []Event {
	took := "its values did not differ from the environment's"
	if len(k.adopted) > 0 {
		took = strings.Join(k.adopted, "; ")
	}
	out := []Event{{Type: EventNormal, Reason: kaasv1alpha1.ReasonEnvironmentAdopted, Message: Truncate(fmt.Sprintf(
		"the cluster took the values of environment %s where its backend can change them in place, and its defaults for maintenance and root disks: %s", env.Name, took))}}
	if len(k.refused) > 0 {
		out = append(out, Event{Type: EventWarning, Reason: kaasv1alpha1.ReasonAdoptionRefused, Message: Truncate(
			"the cluster keeps what it cannot take without being replaced: " + strings.Join(k.refused, "; "))})
	}
	return out
}

// environmentCondition says whether the cluster uses what its environment offers today.
func environmentCondition(env *Environment, changes []string) Condition {
	if len(changes) == 0 {
		return Condition{Type: kaasv1alpha1.ConditionEnvironmentUpToDate, Status: ConditionTrue, Reason: kaasv1alpha1.ReasonUpToDate,
			Message: fmt.Sprintf("the cluster uses what environment %s offers and defaults", env.Name)}
	}
	return Condition{Type: kaasv1alpha1.ConditionEnvironmentUpToDate, Status: ConditionFalse, Reason: kaasv1alpha1.ReasonEnvironmentChanged,
		Message: Truncate(fmt.Sprintf("environment %s changed since the cluster was created; the cluster is left as it is: %s", env.Name, strings.Join(changes, "; ")))}
}

// The condition types of Crossplane's managed resources and provider-kubernetes' Objects
// (crossplane-runtime's, which the model layer does not import): read, never written.
const (
	ManagedConditionReady  = "Ready"
	ManagedConditionSynced = "Synced"
)

// errCreateFailed starts crossplane-runtime's Synced message when a provider could not
// create a missing external object.
const errCreateFailed = "create failed"

// createFailed says whether nothing exists behind a managed resource, whatever was applied.
func createFailed(u *unstructured.Unstructured) bool {
	s := ConditionOf(u, ManagedConditionSynced)
	return s.Found && s.Status == string(ConditionFalse) && strings.HasPrefix(s.Message, errCreateFailed)
}

// syncedCondition is BackendSynced: whether the providers applied what the backend
// rendered, in their words where not. A plain object (a local Cluster API Cluster) is
// applied once observed; a refusal of it is Crossplane's to report.
func syncedCondition(rendered []Resource, observed map[string]ObservedResource) Condition {
	var failed, pending []string
	for _, r := range rendered {
		if r.Name == ResourceKubeconfigSecret {
			continue
		}
		o, ok := observed[r.Name]
		if !ok || o.Object == nil {
			pending = append(pending, r.Name)
			continue
		}
		s := ConditionOf(o.Object, ManagedConditionSynced)
		switch {
		case onlyObserves(o.Object) && reportsNotThere(o.Object):
			// What it observes is not there yet (a kubeconfig Secret), or was not when it
			// was looked for before managing: nothing failed.
			pending = append(pending, r.Name)
		case s.Found && s.Status == string(ConditionFalse):
			failed = append(failed, fmt.Sprintf("%s (%s %s): %s", r.Name, o.Object.GetKind(), o.Object.GetName(), s.Message))
		case !s.Found && isManaged(o.Object):
			pending = append(pending, r.Name)
		}
	}
	sort.Strings(failed)
	sort.Strings(pending)
	c := Condition{Type: kaasv1alpha1.ConditionBackendSynced}
	switch {
	case len(failed) > 0:
		c.Status, c.Reason = ConditionFalse, kaasv1alpha1.ReasonApplyFailed
		c.Message = Truncate("the backend did not take the rendered objects: " + strings.Join(failed, "; "))
	case len(pending) > 0:
		c.Status, c.Reason = ConditionUnknown, kaasv1alpha1.ReasonApplyPending
		c.Message = "waiting for " + strings.Join(pending, ", ") + " to be reported applied"
	default:
		c.Status, c.Reason, c.Message = ConditionTrue, kaasv1alpha1.ReasonSynced, "every native object is applied as rendered"
	}
	return c
}

// isManaged says whether a composed resource is a managed resource, with a Synced condition.
func isManaged(u *unstructured.Unstructured) bool {
	v, _, _ := unstructured.NestedFieldNoCopy(u.Object, "spec", "forProvider")
	_, ok := v.(map[string]any)
	return ok
}

// versionCondition is VersionSupported, where the running minor is in its life and the
// path on, with the events a team must hear of. A zero now compares no expiration date.
func versionCondition(env *Environment, spec *kaasv1alpha1.ClusterSpec, running *kaasv1alpha1.KubernetesStatus, offered *kaasv1alpha1.OfferedStatus, now time.Time) (Condition, []Event) {
	var events []Event
	current := spec.Kubernetes.Version
	if running != nil && running.Version != "" {
		current = running.Version
		if have, err := ParseVersion(running.Version); err == nil {
			if want, err := ParseVersion(spec.Kubernetes.Version); err == nil && want.Minor > have.Minor {
				events = append(events, Event{Type: EventNormal, Reason: kaasv1alpha1.ReasonUpgradeStarted,
					Message: fmt.Sprintf("upgrading from %s to %s", running.Version, spec.Kubernetes.Version)})
			}
		}
	}
	v, err := ParseVersion(current)
	if err != nil {
		return Condition{Type: kaasv1alpha1.ConditionVersionSupported, Status: ConditionUnknown, Reason: kaasv1alpha1.ReasonVersionUnknown,
			Message: fmt.Sprintf("the cluster's version %q is not a Kubernetes version", current)}, events
	}
	minor := v.MinorString()
	offered.Lifecycle = minorLifecycle(env, minor)
	life := offered.Lifecycle
	path := upgradePath(env, v, offered.NextMinor)

	c := Condition{Type: kaasv1alpha1.ConditionVersionSupported, Status: ConditionTrue, Reason: kaasv1alpha1.ReasonVersionOffered,
		Message: fmt.Sprintf("%s is offered by environment %s; %s", minor, env.Name, path)}
	var expires string
	if life.ExpirationDate != nil {
		expires = life.ExpirationDate.UTC().Format(time.DateOnly)
	}
	switch {
	case !life.Offered:
		c.Status, c.Reason = ConditionFalse, kaasv1alpha1.ReasonVersionNotOffered
		c.Message = fmt.Sprintf("%s is no longer offered by environment %s (data.catalog.kubernetesVersions: %s); the cluster keeps running it; %s",
			minor, env.Name, strings.Join(env.Catalog.KubernetesVersions, ", "), path)
	case expires != "" && !now.IsZero() && !now.Before(life.ExpirationDate.Time):
		c.Status, c.Reason = ConditionFalse, kaasv1alpha1.ReasonVersionExpired
		c.Message = fmt.Sprintf("%s expired on %s in environment %s (data.catalog.kubernetesVersionLifecycle); %s", minor, expires, env.Name, path)
	case expires != "" && !now.IsZero() && life.ExpirationDate.Sub(now) < VersionExpiryWarning:
		c.Reason = kaasv1alpha1.ReasonVersionExpiring
		c.Message = fmt.Sprintf("%s expires on %s in environment %s (data.catalog.kubernetesVersionLifecycle); %s", minor, expires, env.Name, path)
	case life.Deprecated:
		c.Reason = kaasv1alpha1.ReasonVersionDeprecated
		c.Message = fmt.Sprintf("%s is deprecated in environment %s (data.catalog.kubernetesVersionLifecycle)", minor, env.Name)
		if expires != "" {
			c.Message += " and expires on " + expires
		}
		c.Message += "; " + path
	default:
		return c, events
	}
	return c, append(events, Event{Type: EventWarning, Reason: c.Reason, Message: c.Message})
}
