package model

import (
	"fmt"
	"slices"
	"strings"
	"time"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
)

// VersionExpiryWarning is how long before the running minor's expiration date the cluster
// warns of it: a month, the time a team needs to plan and test an upgrade.
const VersionExpiryWarning = 30 * 24 * time.Hour

// minorLifecycle is what the environment's catalog says of minor.
func minorLifecycle(env *Environment, minor string) *kaasv1alpha1.MinorLifecycle {
	return &kaasv1alpha1.MinorLifecycle{
		Minor:            minor,
		Offered:          slices.Contains(env.Catalog.KubernetesVersions, minor),
		VersionLifecycle: lifecycleOf(env, minor),
	}
}

// versionCondition says where the minor the cluster runs is in its life, and the path on:
// the VersionSupported condition, and the events a team must hear of while it holds (a
// minor deprecated, expiring, expired or no longer offered; an upgrade under way). now is
// the time of the call; zero, expiration dates are not compared.
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

// upgradePath says where a cluster on v can go: the next minor, or plainly that the
// environment does not offer it (upgrades go one minor at a time).
func upgradePath(env *Environment, v Version, offeredNext string) string {
	if offeredNext != "" {
		return "the next minor, " + offeredNext + ", is offered"
	}
	next := Version{Major: v.Major, Minor: v.Minor + 1, Patch: -1}.MinorString()
	return fmt.Sprintf("no upgrade path is offered: environment %s does not offer the next minor, %s (data.catalog.kubernetesVersions: %s)",
		env.Name, next, strings.Join(env.Catalog.KubernetesVersions, ", "))
}

// lifecycleOf is the catalog's entry for minor, a copy; empty when it has none.
func lifecycleOf(env *Environment, minor string) kaasv1alpha1.VersionLifecycle {
	l, ok := env.Catalog.KubernetesVersionLifecycle[minor]
	if !ok {
		return kaasv1alpha1.VersionLifecycle{}
	}
	return *l.DeepCopy()
}
