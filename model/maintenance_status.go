package model

import (
	"fmt"
	"slices"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
)

// endOfLife is what the upgrade of an expired minor decided for one call.
type endOfLife struct {
	// Version is the version the cluster renders: the spec's, or the next minor.
	Version string
	// Upgraded is the minor the cluster was moved to past its spec (status.maintenance.upgradedMinor).
	Upgraded string
	// Started: the upgrade starts with this call (not remembered from an earlier one).
	Started bool
	// Blocked says why an expired minor stays as it is; empty when it does not.
	Blocked string
}

// upgradeExpired decides the version to render when the spec's minor has expired in the
// environment's catalog: the next offered minor, from the cluster's next window on, as
// Gardener's force update does. Once started the upgrade is remembered (upgraded), so that
// it is never cut off, until the spec names that minor or a newer one. refused is why the
// backend refused it on an earlier try of this call; then the cluster stays as it is.
func upgradeExpired(spec *kaasv1alpha1.ClusterSpec, env *Environment, m *Maintenance, last *kaasv1alpha1.MaintenanceStatus, running, refused string) endOfLife {
	out := endOfLife{Version: spec.Kubernetes.Version}
	want, err := ParseVersion(spec.Kubernetes.Version)
	if err != nil {
		return out
	}
	if last != nil && last.UpgradedMinor != "" {
		if up, err := ParseVersion(last.UpgradedMinor); err == nil && up.Major == want.Major && up.Minor > want.Minor {
			out.Version, out.Upgraded = up.MinorString(), up.MinorString()
			return out
		}
	}
	if env.Maintenance != nil && env.Maintenance.UpgradeExpiredMinors != nil && !*env.Maintenance.UpgradeExpiredMinors {
		return out
	}
	life := lifecycleOf(env, want.MinorString())
	if life.ExpirationDate == nil || m.Now.IsZero() || m.Now.Before(life.ExpirationDate.Time) {
		return out
	}
	next := Version{Major: want.Major, Minor: want.Minor + 1, Patch: -1}.MinorString()
	switch {
	case !slices.Contains(env.Catalog.KubernetesVersions, next):
		out.Blocked = fmt.Sprintf("%s expired on %s and stays as it is: %s", want.MinorString(), life.ExpirationDate.UTC().Format(time.DateOnly),
			upgradePath(env, want, ""))
		return out
	case refused != "":
		out.Blocked = fmt.Sprintf("%s expired on %s and stays as it is: the upgrade to %s is refused: %s", want.MinorString(),
			life.ExpirationDate.UTC().Format(time.DateOnly), next, refused)
		return out
	}
	from := spec.Kubernetes.Version
	if running != "" {
		from = running
	}
	if m.MayStart(kaasv1alpha1.UpdateEndOfLife, from, next) {
		out.Version, out.Upgraded, out.Started = next, next, true
	}
	return out
}

// maintenanceStatus reports the cluster's own updates: what it plans and when, what rolls,
// the minor it upgraded; the UpdatePlanned condition; a Normal event when an update starts
// and when it ends. running is the version the backend reports; nil: not known yet.
func maintenanceStatus(m *Maintenance, last *kaasv1alpha1.MaintenanceStatus, eol endOfLife, running *kaasv1alpha1.KubernetesStatus) (*kaasv1alpha1.MaintenanceStatus, Condition, []Event) {
	out := &kaasv1alpha1.MaintenanceStatus{UpgradedMinor: eol.Upgraded}
	var events []Event
	var waiting *Decision
	for _, d := range m.Decided() {
		switch {
		case d.Start && out.InProgress == nil:
			out.InProgress = started(d.Update, last, m.Now)
			if last == nil || last.InProgress == nil || !sameUpdate(*last.InProgress, d.Update) {
				events = append(events, Event{Type: EventNormal, Reason: kaasv1alpha1.ReasonMaintenanceStarted,
					Message: "started " + out.InProgress.Message})
			}
		case !d.Start && waiting == nil:
			waiting = &d
			out.Planned = d.Update.DeepCopy()
			if last == nil || last.Planned == nil || !sameUpdate(*last.Planned, d.Update) {
				events = append(events, Event{Type: EventNormal, Reason: kaasv1alpha1.ReasonUpdatePlanned, Message: "planned " + d.Update.Message})
			}
		}
	}
	if out.InProgress == nil && last != nil && last.InProgress != nil {
		if reached(running, last.InProgress.To) {
			events = append(events, Event{Type: EventNormal, Reason: kaasv1alpha1.ReasonMaintenanceCompleted,
				Message: fmt.Sprintf("finished %s -> %s: the cluster runs %s", last.InProgress.From, last.InProgress.To, running.Version)})
		} else {
			out.InProgress = last.InProgress.DeepCopy()
		}
	}
	c := Condition{Type: kaasv1alpha1.ConditionUpdatePlanned, Status: ConditionFalse, Reason: kaasv1alpha1.ReasonNothingPlanned,
		Message: "no update of its own is due; updates start in the window " + m.windowName()}
	switch {
	case out.InProgress != nil:
		c.Reason, c.Message = kaasv1alpha1.ReasonUpdateInProgress, "rolling "+out.InProgress.Message
	case waiting != nil:
		c.Status, c.Reason, c.Message = ConditionTrue, waiting.Reason, waiting.Update.Message
	case eol.Blocked != "":
		c.Reason, c.Message = kaasv1alpha1.ReasonNoUpgradePath, eol.Blocked
	}
	if eol.Blocked != "" && c.Reason != kaasv1alpha1.ReasonNoUpgradePath {
		c.Message += "; " + eol.Blocked // the other update goes on; the expired minor stays
	}
	if *out == (kaasv1alpha1.MaintenanceStatus{}) {
		out = nil
	}
	return out, c, events
}

// started is the update in progress: as recorded when it is the same one, else from now.
func started(u kaasv1alpha1.PlannedUpdate, last *kaasv1alpha1.MaintenanceStatus, now time.Time) *kaasv1alpha1.PlannedUpdate {
	if last != nil && last.InProgress != nil && sameUpdate(*last.InProgress, u) {
		return last.InProgress.DeepCopy()
	}
	out := u.DeepCopy()
	out.NotBefore = nil
	if !now.IsZero() {
		out.Started = &metav1.Time{Time: now.UTC()}
	}
	return out
}

func sameUpdate(a, b kaasv1alpha1.PlannedUpdate) bool {
	return a.Kind == b.Kind && a.From == b.From && a.To == b.To
}

// reached says whether the running version has arrived at to: the same patch or a newer
// one, or for a minor (an end-of-life upgrade) that minor or a newer one.
func reached(running *kaasv1alpha1.KubernetesStatus, to string) bool {
	if running == nil {
		return false
	}
	have, err := ParseVersion(running.Version)
	if err != nil {
		return false
	}
	want, err := ParseVersion(to)
	if err != nil {
		return false
	}
	switch {
	case have.Major != want.Major:
		return have.Major > want.Major
	case have.Minor != want.Minor:
		return have.Minor > want.Minor
	}
	return !want.HasPatch() || have.Patch >= want.Patch
}
