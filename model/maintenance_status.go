package model

import (
	"fmt"
	"slices"
	"strings"
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
			want = up
			out.Version, out.Upgraded = up.MinorString(), up.MinorString()
		}
	}
	if env.Maintenance != nil && env.Maintenance.UpgradeExpiredMinors != nil && !*env.Maintenance.UpgradeExpiredMinors {
		return out
	}
	// The minor the cluster runs now, the spec's or one it was upgraded to, may expire in
	// turn: one minor per window, as Gardener's force update goes.
	life := lifecycleOf(env, want.MinorString())
	if life.ExpirationDate == nil || m.Now.IsZero() || m.Now.Before(life.ExpirationDate.Time) {
		return out
	}
	next := Version{Major: want.Major, Minor: want.Minor + 1, Patch: -1}.MinorString()
	expired := fmt.Sprintf("%s expired on %s and stays as it is: ", want.MinorString(), life.ExpirationDate.UTC().Format(time.DateOnly))
	from := out.Version
	if running != "" {
		from = running
	}
	switch {
	case !slices.Contains(env.Catalog.KubernetesVersions, next):
		out.Blocked = expired + upgradePath(env, want, "")
	case refused != "":
		out.Blocked = expired + fmt.Sprintf("the upgrade to %s is refused: %s", next, refused)
		m.refused(kaasv1alpha1.UpdateEndOfLife, from, next, out.Blocked)
	case m.MayStart(kaasv1alpha1.UpdateEndOfLife, from, next):
		out.Version, out.Upgraded, out.Started = next, next, true
	}
	return out
}

// maintenanceStatus reports the cluster's own updates: what it plans and when, what rolls,
// the minor it upgraded; the UpdatePlanned condition; Normal events while an update is
// planned and while it rolls, and one when it has finished. running is the version the
// backend reports (nil: not known yet), phase the cluster's.
func maintenanceStatus(m *Maintenance, last *kaasv1alpha1.MaintenanceStatus, eol endOfLife, running *kaasv1alpha1.KubernetesStatus, phase kaasv1alpha1.Phase) (*kaasv1alpha1.MaintenanceStatus, Condition, []Event) {
	out := &kaasv1alpha1.MaintenanceStatus{UpgradedMinor: eol.Upgraded}
	var events []Event
	var waiting *Decision
	for _, d := range m.Decided() {
		switch {
		case d.Start && out.InProgress == nil:
			out.InProgress = started(d.Update, last, m.Now)
		case !d.Start && waiting == nil:
			waiting = &d
			out.Planned = d.Update.DeepCopy()
		}
	}
	if out.InProgress == nil && last != nil && last.InProgress != nil {
		if finished(last.InProgress, running, phase) {
			events = append(events, Event{Type: EventNormal, Reason: kaasv1alpha1.ReasonMaintenanceCompleted,
				Message: fmt.Sprintf("finished %s -> %s: the cluster runs %s", last.InProgress.From, last.InProgress.To, running.Version)})
		} else {
			out.InProgress = last.InProgress.DeepCopy()
		}
	}
	// Said on every call while it holds, as every event of the API: Kubernetes folds the
	// repeats into one event with a count, and a single event may be dropped by the event
	// recorder's rate limit on an object that says much.
	if out.InProgress != nil {
		events = append(events, Event{Type: EventNormal, Reason: kaasv1alpha1.ReasonMaintenanceStarted,
			Message: "started " + out.InProgress.Message + startedAt(out.InProgress)})
	}
	if waiting != nil && waiting.Reason != kaasv1alpha1.ReasonNoUpgradePath {
		events = append(events, Event{Type: EventNormal, Reason: kaasv1alpha1.ReasonUpdatePlanned, Message: "planned " + waiting.Update.Message})
	}
	c := Condition{Type: kaasv1alpha1.ConditionUpdatePlanned, Status: ConditionFalse, Reason: kaasv1alpha1.ReasonNothingPlanned,
		Message: "no update of its own is due; its own updates start in the window " + m.windowName()}
	switch {
	case out.InProgress != nil:
		c.Reason, c.Message = kaasv1alpha1.ReasonUpdateInProgress, "rolling "+out.InProgress.Message
	case waiting != nil && waiting.Reason == kaasv1alpha1.ReasonNoUpgradePath:
		c.Reason, c.Message = waiting.Reason, waiting.Update.Message
	case waiting != nil:
		c.Status, c.Reason, c.Message = ConditionTrue, waiting.Reason, waiting.Update.Message
	case eol.Blocked != "":
		c.Reason, c.Message = kaasv1alpha1.ReasonNoUpgradePath, eol.Blocked
	}
	if eol.Blocked != "" && c.Reason != kaasv1alpha1.ReasonNoUpgradePath && !strings.Contains(c.Message, eol.Blocked) {
		c.Message += "; " + eol.Blocked // the other update goes on; the expired minor stays
	}
	if *out == (kaasv1alpha1.MaintenanceStatus{}) {
		out = nil
	}
	return out, c, events
}

// startedAt says when an update in progress started, where the clock said.
func startedAt(u *kaasv1alpha1.PlannedUpdate) string {
	if u.Started == nil {
		return ""
	}
	return " at " + u.Started.UTC().Format(time.RFC3339)
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

// finished says whether an update in progress is done: the backend reports the cluster
// Ready at the version it moved to. An update to another release of the same patch (To
// names a ClusterClass) is done once the cluster is Ready on it: the backend no longer asks
// for it, since the native object carries it.
func finished(u *kaasv1alpha1.PlannedUpdate, running *kaasv1alpha1.KubernetesStatus, phase kaasv1alpha1.Phase) bool {
	if phase != kaasv1alpha1.PhaseReady {
		return false
	}
	if _, err := ParseVersion(u.To); err != nil {
		return true
	}
	return reached(running, u.To)
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
