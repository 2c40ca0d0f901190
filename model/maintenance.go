package model

import (
	"fmt"
	"hash/fnv"
	"slices"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	envv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/environment/v1alpha1"
	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
)

// Maintenance decides when the updates a cluster makes on its own may start: a newer patch
// of its minor (a Cluster Stack release, a Magnum template the environment repointed) and
// the upgrade of an expired minor. An update starts only inside the cluster's window, and
// for a later wave only its delay after the cluster first saw it offered; the edits a team
// makes itself are not updates of its own and apply at once. A started update is never cut
// off: status.maintenance.inProgress remembers it until the backend reports it finished,
// and the native object (or status.maintenance.upgradedMinor) holds it.
//
// Backends ask MayStart for each update they would make; the answers are recorded, and
// Reconcile reports them (status.maintenance, the UpdatePlanned condition, the events).
type Maintenance struct {
	// Now is the function's clock; zero: every update may start (no clock to judge by).
	Now time.Time
	// Window is the cluster's daily window; Derived: the spec and the environment name none,
	// so it is one derived from the cluster's identity, as Gardener assigns one at night.
	Window  Window
	Derived bool
	// Wave is the environment's wave of the cluster's purpose; nil: none.
	Wave *Wave
	// last is what the status recorded: when each planned update was first offered.
	last *kaasv1alpha1.MaintenanceStatus
	// decided are the answers MayStart gave, in the order asked.
	decided []Decision
	// held: nothing of the cluster is managed yet (a new cluster, or one being looked for
	// after its control plane was lost): no update of its own starts, none is planned.
	held bool
}

// Wave is the environment's wave of a cluster: its purposes and its delay.
type Wave struct {
	Purposes []kaasv1alpha1.Purpose
	Delay    time.Duration
}

// Decision is one answer of MayStart.
type Decision struct {
	Update kaasv1alpha1.PlannedUpdate
	Start  bool
	// Reason is why it waits: ReasonOutsideWindow or ReasonWaitingForWave; empty when it starts.
	Reason string
}

// Window is a daily window in UTC, which may pass midnight.
type Window struct {
	Begin, End time.Duration // since midnight UTC
}

// derivedWindowHours are the hours a derived window may begin at (UTC): the night in
// Europe, where SCS clouds run, as Gardener assigns a window to a Shoot without one.
var derivedWindowHours = []int{22, 23, 0, 1, 2, 3, 4, 5}

// NewMaintenance is the schedule of a cluster with the defaulted spec: its window (or one
// derived from id), its wave, and what its status recorded.
func NewMaintenance(now time.Time, spec *kaasv1alpha1.ClusterSpec, env *Environment, id Identity, last *kaasv1alpha1.MaintenanceStatus) *Maintenance {
	m := &Maintenance{Now: now, last: last}
	if w, ok := windowOf(spec.Maintenance); ok {
		m.Window = w
	} else {
		h := fnv.New32a()
		_, _ = h.Write([]byte(id.Namespace + "/" + id.Name))
		hours := uint32(len(derivedWindowHours)) //nolint:gosec // a list of eight
		begin := time.Duration(derivedWindowHours[h.Sum32()%hours]) * time.Hour
		m.Window, m.Derived = Window{Begin: begin, End: (begin + time.Hour) % (24 * time.Hour)}, true
	}
	m.Wave = waveOf(env, spec.Purpose)
	return m
}

// windowOf is the spec's window; false when it names none or none that parses (validation
// refuses that before anything is rendered).
func windowOf(spec *kaasv1alpha1.MaintenanceSpec) (Window, bool) {
	if spec == nil || spec.Window == nil {
		return Window{}, false
	}
	begin, errB := ParseWindowTime(spec.Window.Begin)
	end, errE := ParseWindowTime(spec.Window.End)
	if errB != nil || errE != nil {
		return Window{}, false
	}
	return Window{Begin: begin, End: end}, true
}

// waveOf is the environment's wave of purpose: the first that names it, else the last.
func waveOf(env *Environment, purpose kaasv1alpha1.Purpose) *Wave {
	if env == nil || env.Maintenance == nil || len(env.Maintenance.Waves) == 0 {
		return nil
	}
	waves := env.Maintenance.Waves
	i := slices.IndexFunc(waves, func(w envv1alpha1.MaintenanceWave) bool { return slices.Contains(w.Purposes, purpose) })
	if i < 0 {
		i = len(waves) - 1
	}
	return &Wave{Purposes: waves[i].Purposes, Delay: waves[i].Delay.Duration}
}

// Contains says whether t is inside the window.
func (w Window) Contains(t time.Time) bool {
	since := sinceMidnight(t)
	if w.Begin <= w.End {
		return since >= w.Begin && since < w.End
	}
	return since >= w.Begin || since < w.End // over midnight
}

// Opens is the earliest time at or after t inside the window: t itself when it is inside,
// else the window's next beginning.
func (w Window) Opens(t time.Time) time.Time {
	t = t.UTC()
	if w.Contains(t) {
		return t
	}
	midnight := t.Truncate(24 * time.Hour)
	begin := midnight.Add(w.Begin)
	if !begin.After(t) {
		begin = begin.Add(24 * time.Hour)
	}
	return begin
}

func (w Window) String() string {
	return fmt.Sprintf("%s-%s UTC", clock(w.Begin), clock(w.End))
}

func clock(d time.Duration) string {
	return fmt.Sprintf("%02d:%02d", int(d.Hours()), int(d.Minutes())%60)
}

func sinceMidnight(t time.Time) time.Duration {
	t = t.UTC()
	return t.Sub(t.Truncate(24 * time.Hour))
}

// MayStart says whether the update from -> to of kind may start now, and records the answer.
// A nil Maintenance (a Request built without one) lets every update start.
func (m *Maintenance) MayStart(kind kaasv1alpha1.UpdateKind, from, to string) bool {
	switch {
	case m == nil:
		return true
	case m.held:
		return false
	}
	d := m.decide(kind, from, to)
	m.decided = append(m.decided, d)
	return d.Start
}

// Hold keeps every update of the cluster's own from starting or being planned in this call.
func (m *Maintenance) Hold() { m.held = true }

// refused records an update that cannot start (an end-of-life upgrade the backend refuses):
// planned, so that when it was first offered is kept, with reason NoUpgradePath.
func (m *Maintenance) refused(kind kaasv1alpha1.UpdateKind, from, to, why string) {
	if m.held {
		return
	}
	d := m.decide(kind, from, to)
	d.Start, d.Reason, d.Update.NotBefore, d.Update.Message = false, kaasv1alpha1.ReasonNoUpgradePath, nil, why
	m.decided = append(m.decided, d)
}

// Decided are the answers MayStart gave, in the order asked.
func (m *Maintenance) Decided() []Decision {
	if m == nil {
		return nil
	}
	return slices.Clone(m.decided)
}

// decide answers MayStart: the update waits for its wave's delay, counted from when the
// cluster first saw it offered, then for the window.
func (m *Maintenance) decide(kind kaasv1alpha1.UpdateKind, from, to string) Decision {
	u := kaasv1alpha1.PlannedUpdate{Kind: kind, From: from, To: to}
	if m.Now.IsZero() {
		u.Message = fmt.Sprintf("%s -> %s", from, to)
		return Decision{Update: u, Start: true}
	}
	if p := m.lastInProgress(); p != nil && p.Kind == kind && p.To == to {
		// Started in an earlier call and not finished: never cut off, whatever the clock
		// says now and however late the native object reports it.
		return Decision{Update: *p.DeepCopy(), Start: true}
	}
	now := m.Now.UTC()
	since := now
	if p := m.lastPlanned(); p != nil && p.Kind == kind && p.To == to && p.Since != nil && p.Since.Time.Before(now) {
		since = p.Since.UTC()
	}
	u.Since = &metav1.Time{Time: since}
	earliest, reason := now, kaasv1alpha1.ReasonOutsideWindow
	if m.Wave != nil && since.Add(m.Wave.Delay).After(now) {
		earliest, reason = since.Add(m.Wave.Delay), kaasv1alpha1.ReasonWaitingForWave
	}
	opens := m.Window.Opens(earliest)
	start := opens.Equal(now)
	u.Message = fmt.Sprintf("%s -> %s in the window %s", from, to, m.windowName())
	if !start {
		u.NotBefore = &metav1.Time{Time: opens}
		u.Message += ", from " + opens.Format(time.RFC1123)
		if reason == kaasv1alpha1.ReasonWaitingForWave {
			u.Message += fmt.Sprintf(" (the wave of %s waits %s after the update was first offered, %s)",
				purposes(m.Wave.Purposes), m.Wave.Delay, since.Format(time.RFC1123))
		}
		return Decision{Update: u, Reason: reason}
	}
	return Decision{Update: u, Start: true}
}

func (m *Maintenance) lastPlanned() *kaasv1alpha1.PlannedUpdate {
	if m.last == nil {
		return nil
	}
	return m.last.Planned
}

func (m *Maintenance) lastInProgress() *kaasv1alpha1.PlannedUpdate {
	if m.last == nil {
		return nil
	}
	return m.last.InProgress
}

func (m *Maintenance) windowName() string {
	if m.Derived {
		return m.Window.String() + " (derived: the cluster names no window)"
	}
	return m.Window.String()
}

func purposes(p []kaasv1alpha1.Purpose) string {
	if len(p) == 0 {
		return "the remaining purposes"
	}
	return fmt.Sprint(p)
}
