package model

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	envv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/environment/v1alpha1"
	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
)

// at is a time on Saturday 5 December 2026, UTC.
func at(hhmm string) time.Time {
	t, err := time.Parse("2006-01-02 15:04", "2026-12-05 "+hhmm)
	if err != nil {
		panic(err)
	}
	return t
}

func mtime(t time.Time) *metav1.Time { return &metav1.Time{Time: t} }

// TestWindow: a daily window, by day and over midnight, judged in UTC whatever offset it
// was written with, and when it next opens, the next day included.
func TestWindow(t *testing.T) {
	cases := map[string]struct {
		begin, end string
		now        time.Time
		contains   bool
		opens      time.Time
	}{
		"InsideByDay":               {begin: "020000+0000", end: "030000+0000", now: at("02:30"), contains: true, opens: at("02:30")},
		"AtTheBeginning":            {begin: "020000+0000", end: "030000+0000", now: at("02:00"), contains: true, opens: at("02:00")},
		"AtTheEndItIsOver":          {begin: "020000+0000", end: "030000+0000", now: at("03:00"), opens: at("02:00").Add(24 * time.Hour)},
		"BeforeItTheSameDay":        {begin: "020000+0000", end: "030000+0000", now: at("01:10"), opens: at("02:00")},
		"AfterItTheNextDay":         {begin: "020000+0000", end: "030000+0000", now: at("14:00"), opens: at("02:00").Add(24 * time.Hour)},
		"OverMidnightLateEvening":   {begin: "230000+0000", end: "010000+0000", now: at("23:30"), contains: true, opens: at("23:30")},
		"OverMidnightEarlyMorning":  {begin: "230000+0000", end: "010000+0000", now: at("00:30"), contains: true, opens: at("00:30")},
		"OverMidnightOutside":       {begin: "230000+0000", end: "010000+0000", now: at("01:30"), opens: at("23:00")},
		"AnOffsetIsJudgedInUTC":     {begin: "030000+0100", end: "040000+0100", now: at("02:15"), contains: true, opens: at("02:15")},
		"AnOffsetOutsideOpensInUTC": {begin: "030000+0100", end: "040000+0100", now: at("03:15"), opens: at("02:00").Add(24 * time.Hour)},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			w, ok := windowOf(&kaasv1alpha1.MaintenanceSpec{Window: &kaasv1alpha1.MaintenanceWindow{Begin: tc.begin, End: tc.end}})
			if !ok {
				t.Fatalf("window %s-%s does not parse", tc.begin, tc.end)
			}
			if got := w.Contains(tc.now); got != tc.contains {
				t.Errorf("Contains(%s) = %v, want %v", tc.now, got, tc.contains)
			}
			if got := w.Opens(tc.now); !got.Equal(tc.opens) {
				t.Errorf("Opens(%s) = %s, want %s", tc.now, got, tc.opens)
			}
		})
	}
}

// TestMayStart: an update of the cluster's own starts inside its window only, and in a
// later wave only after the wave's delay from when it was first offered; what it waits for
// is said with the time.
func TestMayStart(t *testing.T) {
	window := &kaasv1alpha1.MaintenanceWindow{Begin: "020000+0000", End: "030000+0000"}
	production := envv1alpha1.MaintenanceWave{Purposes: []kaasv1alpha1.Purpose{kaasv1alpha1.PurposeProduction}, Delay: metav1.Duration{Duration: 72 * time.Hour}}
	early := envv1alpha1.MaintenanceWave{Purposes: []kaasv1alpha1.Purpose{kaasv1alpha1.PurposeEvaluation, kaasv1alpha1.PurposeDevelopment}}
	waves := &envv1alpha1.MaintenancePolicy{Waves: []envv1alpha1.MaintenanceWave{early, production}}
	firstOffered := at("01:00").Add(-48 * time.Hour)
	cases := map[string]struct {
		now     time.Time
		window  *kaasv1alpha1.MaintenanceWindow
		purpose kaasv1alpha1.Purpose
		policy  *envv1alpha1.MaintenancePolicy
		last    *kaasv1alpha1.MaintenanceStatus
		want    Decision
	}{
		"InsideTheWindow": {now: at("02:10"), window: window,
			want: Decision{Start: true, Update: kaasv1alpha1.PlannedUpdate{Kind: kaasv1alpha1.UpdateKubernetesPatch, From: "v1.34.7", To: "v1.34.8",
				Since: mtime(at("02:10")), Message: "v1.34.7 -> v1.34.8 in the window 02:00-03:00 UTC"}}},
		"OutsideTheWindow": {now: at("14:00"), window: window,
			want: Decision{Reason: kaasv1alpha1.ReasonOutsideWindow, Update: kaasv1alpha1.PlannedUpdate{Kind: kaasv1alpha1.UpdateKubernetesPatch, From: "v1.34.7", To: "v1.34.8",
				Since: mtime(at("14:00")), NotBefore: mtime(at("02:00").Add(24 * time.Hour)),
				Message: "v1.34.7 -> v1.34.8 in the window 02:00-03:00 UTC, from Sun, 06 Dec 2026 02:00:00 UTC"}}},
		"NoWindowOneIsDerivedFromTheIdentity": {now: at("14:00"),
			want: Decision{Reason: kaasv1alpha1.ReasonOutsideWindow, Update: kaasv1alpha1.PlannedUpdate{Kind: kaasv1alpha1.UpdateKubernetesPatch, From: "v1.34.7", To: "v1.34.8",
				Since: mtime(at("14:00")), NotBefore: mtime(at("05:00").Add(24 * time.Hour)),
				Message: "v1.34.7 -> v1.34.8 in the window 05:00-06:00 UTC (derived: the cluster names no window), from Sun, 06 Dec 2026 05:00:00 UTC"}}},
		"AnEarlyWaveTakesItInItsWindow": {now: at("02:10"), window: window, purpose: kaasv1alpha1.PurposeDevelopment, policy: waves,
			want: Decision{Start: true, Update: kaasv1alpha1.PlannedUpdate{Kind: kaasv1alpha1.UpdateKubernetesPatch, From: "v1.34.7", To: "v1.34.8",
				Since: mtime(at("02:10")), Message: "v1.34.7 -> v1.34.8 in the window 02:00-03:00 UTC"}}},
		"ProductionWaitsForItsWave": {now: at("02:10"), window: window, purpose: kaasv1alpha1.PurposeProduction, policy: waves,
			last: &kaasv1alpha1.MaintenanceStatus{Planned: &kaasv1alpha1.PlannedUpdate{Kind: kaasv1alpha1.UpdateKubernetesPatch, From: "v1.34.7", To: "v1.34.8", Since: mtime(firstOffered)}},
			want: Decision{Reason: kaasv1alpha1.ReasonWaitingForWave, Update: kaasv1alpha1.PlannedUpdate{Kind: kaasv1alpha1.UpdateKubernetesPatch, From: "v1.34.7", To: "v1.34.8",
				Since: mtime(firstOffered), NotBefore: mtime(at("02:00").Add(24 * time.Hour)),
				Message: "v1.34.7 -> v1.34.8 in the window 02:00-03:00 UTC, from Sun, 06 Dec 2026 02:00:00 UTC (the wave of [production] waits 72h0m0s after the update was first offered, Thu, 03 Dec 2026 01:00:00 UTC)"}}},
		"ProductionAfterItsWaveInTheWindow": {now: at("02:10").Add(24 * time.Hour), window: window, purpose: kaasv1alpha1.PurposeProduction, policy: waves,
			last: &kaasv1alpha1.MaintenanceStatus{Planned: &kaasv1alpha1.PlannedUpdate{Kind: kaasv1alpha1.UpdateKubernetesPatch, From: "v1.34.7", To: "v1.34.8", Since: mtime(firstOffered)}},
			want: Decision{Start: true, Update: kaasv1alpha1.PlannedUpdate{Kind: kaasv1alpha1.UpdateKubernetesPatch, From: "v1.34.7", To: "v1.34.8",
				Since: mtime(firstOffered), Message: "v1.34.7 -> v1.34.8 in the window 02:00-03:00 UTC"}}},
		"ANewerReleaseRestartsTheWave": {now: at("02:10").Add(24 * time.Hour), window: window, purpose: kaasv1alpha1.PurposeProduction, policy: waves,
			last: &kaasv1alpha1.MaintenanceStatus{Planned: &kaasv1alpha1.PlannedUpdate{Kind: kaasv1alpha1.UpdateKubernetesPatch, From: "v1.34.7", To: "v1.34.9", Since: mtime(firstOffered)}},
			want: Decision{Reason: kaasv1alpha1.ReasonWaitingForWave, Update: kaasv1alpha1.PlannedUpdate{Kind: kaasv1alpha1.UpdateKubernetesPatch, From: "v1.34.7", To: "v1.34.8",
				Since: mtime(at("02:10").Add(24 * time.Hour)), NotBefore: mtime(at("02:10").Add(4 * 24 * time.Hour)),
				Message: "v1.34.7 -> v1.34.8 in the window 02:00-03:00 UTC, from Wed, 09 Dec 2026 02:10:00 UTC (the wave of [production] waits 72h0m0s after the update was first offered, Sun, 06 Dec 2026 02:10:00 UTC)"}}},
		"APurposeNoWaveNamesWaitsAsTheLast": {now: at("02:10"), window: window, purpose: "", policy: waves,
			want: Decision{Reason: kaasv1alpha1.ReasonWaitingForWave, Update: kaasv1alpha1.PlannedUpdate{Kind: kaasv1alpha1.UpdateKubernetesPatch, From: "v1.34.7", To: "v1.34.8",
				Since: mtime(at("02:10")), NotBefore: mtime(at("02:10").Add(72 * time.Hour)),
				Message: "v1.34.7 -> v1.34.8 in the window 02:00-03:00 UTC, from Tue, 08 Dec 2026 02:10:00 UTC (the wave of [production] waits 72h0m0s after the update was first offered, Sat, 05 Dec 2026 02:10:00 UTC)"}}},
		"WithoutAClockEverythingStarts": {window: window,
			want: Decision{Start: true, Update: kaasv1alpha1.PlannedUpdate{Kind: kaasv1alpha1.UpdateKubernetesPatch, From: "v1.34.7", To: "v1.34.8", Message: "v1.34.7 -> v1.34.8"}}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			spec := &kaasv1alpha1.ClusterSpec{Purpose: tc.purpose, Maintenance: &kaasv1alpha1.MaintenanceSpec{Window: tc.window}}
			env := &Environment{Name: "regionone", Environment: envv1alpha1.Environment{Maintenance: tc.policy}}
			m := NewMaintenance(tc.now, spec, env, Identity{Namespace: "team-a", Name: "shop"}, tc.last)
			if got := m.MayStart(kaasv1alpha1.UpdateKubernetesPatch, "v1.34.7", "v1.34.8"); got != tc.want.Start {
				t.Errorf("MayStart = %v, want %v", got, tc.want.Start)
			}
			if diff := cmp.Diff([]Decision{tc.want}, m.Decided()); diff != "" {
				t.Errorf("decided (-want, +got):\n%s", diff)
			}
		})
	}
}

// TestUpgradeExpired: an expired minor moves to the next offered one in the window, stays
// moved, is left with the reason where there is no path or the backend refuses, and the
// environment may turn it off.
func TestUpgradeExpired(t *testing.T) {
	expired := map[string]kaasv1alpha1.VersionLifecycle{"1.33": {ExpirationDate: mtime(at("00:00").Add(-24 * time.Hour))}}
	window := &kaasv1alpha1.MaintenanceWindow{Begin: "020000+0000", End: "030000+0000"}
	off := false
	cases := map[string]struct {
		now      time.Time
		spec     string
		offered  []string
		life     map[string]kaasv1alpha1.VersionLifecycle
		policy   *envv1alpha1.MaintenancePolicy
		last     *kaasv1alpha1.MaintenanceStatus
		refused  string
		want     endOfLife
		decision []Decision
	}{
		"InTheWindowToTheNextMinor": {now: at("02:10"), spec: "1.33", offered: []string{"1.33", "1.34"}, life: expired,
			want: endOfLife{Version: "1.34", Upgraded: "1.34", Started: true},
			decision: []Decision{{Start: true, Update: kaasv1alpha1.PlannedUpdate{Kind: kaasv1alpha1.UpdateEndOfLife, From: "v1.33.9", To: "1.34",
				Since: mtime(at("02:10")), Message: "v1.33.9 -> 1.34 in the window 02:00-03:00 UTC"}}}},
		"OutsideTheWindowPlanned": {now: at("14:00"), spec: "1.33", offered: []string{"1.33", "1.34"}, life: expired,
			want: endOfLife{Version: "1.33"},
			decision: []Decision{{Reason: kaasv1alpha1.ReasonOutsideWindow, Update: kaasv1alpha1.PlannedUpdate{Kind: kaasv1alpha1.UpdateEndOfLife, From: "v1.33.9", To: "1.34",
				Since: mtime(at("14:00")), NotBefore: mtime(at("02:00").Add(24 * time.Hour)), Message: "v1.33.9 -> 1.34 in the window 02:00-03:00 UTC, from Sun, 06 Dec 2026 02:00:00 UTC"}}}},
		"StartedItStaysUpgradedOutsideTheWindow": {now: at("14:00"), spec: "1.33", offered: []string{"1.33", "1.34"}, life: expired,
			last: &kaasv1alpha1.MaintenanceStatus{UpgradedMinor: "1.34"},
			want: endOfLife{Version: "1.34", Upgraded: "1.34"}},
		"TheSpecCaughtUp": {now: at("14:00"), spec: "1.34", offered: []string{"1.33", "1.34"}, life: expired,
			last: &kaasv1alpha1.MaintenanceStatus{UpgradedMinor: "1.34"},
			want: endOfLife{Version: "1.34"}},
		"NoPath": {now: at("02:10"), spec: "1.33", offered: []string{"1.33", "1.35"}, life: expired,
			want: endOfLife{Version: "1.33", Blocked: "1.33 expired on 2026-12-04 and stays as it is: no upgrade path is offered: environment regionone does not offer the next minor, 1.34 (data.catalog.kubernetesVersions: 1.33, 1.35)"}},
		"RefusedByTheBackend": {now: at("02:10"), spec: "1.33", offered: []string{"1.33", "1.34"}, life: expired, refused: "no ready release of 1.34",
			want: endOfLife{Version: "1.33", Blocked: "1.33 expired on 2026-12-04 and stays as it is: the upgrade to 1.34 is refused: no ready release of 1.34"},
			decision: []Decision{{Reason: kaasv1alpha1.ReasonNoUpgradePath, Update: kaasv1alpha1.PlannedUpdate{Kind: kaasv1alpha1.UpdateEndOfLife, From: "v1.33.9", To: "1.34",
				Since: mtime(at("02:10")), Message: "1.33 expired on 2026-12-04 and stays as it is: the upgrade to 1.34 is refused: no ready release of 1.34"}}}},
		"AnUpgradedMinorExpiresInTurn": {now: at("02:10"), spec: "1.33", offered: []string{"1.33", "1.34", "1.35"},
			life: map[string]kaasv1alpha1.VersionLifecycle{"1.33": {ExpirationDate: mtime(at("00:00").Add(-24 * time.Hour))}, "1.34": {ExpirationDate: mtime(at("00:00"))}},
			last: &kaasv1alpha1.MaintenanceStatus{UpgradedMinor: "1.34"},
			want: endOfLife{Version: "1.35", Upgraded: "1.35", Started: true},
			decision: []Decision{{Start: true, Update: kaasv1alpha1.PlannedUpdate{Kind: kaasv1alpha1.UpdateEndOfLife, From: "v1.33.9", To: "1.35",
				Since: mtime(at("02:10")), Message: "v1.33.9 -> 1.35 in the window 02:00-03:00 UTC"}}}},
		"TurnedOff": {now: at("02:10"), spec: "1.33", offered: []string{"1.33", "1.34"}, life: expired,
			policy: &envv1alpha1.MaintenancePolicy{UpgradeExpiredMinors: &off},
			want:   endOfLife{Version: "1.33"}},
		"NotExpiredYet": {now: at("02:10"), spec: "1.33", offered: []string{"1.33", "1.34"},
			life: map[string]kaasv1alpha1.VersionLifecycle{"1.33": {ExpirationDate: mtime(at("00:00").Add(24 * time.Hour))}},
			want: endOfLife{Version: "1.33"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			spec := &kaasv1alpha1.ClusterSpec{Kubernetes: kaasv1alpha1.KubernetesSpec{Version: tc.spec}, Maintenance: &kaasv1alpha1.MaintenanceSpec{Window: window}}
			env := &Environment{Name: "regionone", Environment: envv1alpha1.Environment{Maintenance: tc.policy,
				Catalog: envv1alpha1.Catalog{KubernetesVersions: tc.offered, KubernetesVersionLifecycle: tc.life}}}
			m := NewMaintenance(tc.now, spec, env, Identity{Namespace: "team-a", Name: "shop"}, tc.last)
			got := upgradeExpired(spec, env, m, tc.last, "v1.33.9", tc.refused)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("endOfLife (-want, +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.decision, m.Decided()); diff != "" {
				t.Errorf("decided (-want, +got):\n%s", diff)
			}
		})
	}
}

// TestMaintenanceStatus: the status says what is planned and what rolls; a Normal event when
// an update starts and when it ends; an update in progress is carried until the backend
// reports its version, also after the window closed.
func TestMaintenanceStatus(t *testing.T) {
	window := &kaasv1alpha1.MaintenanceWindow{Begin: "020000+0000", End: "030000+0000"}
	patch := kaasv1alpha1.PlannedUpdate{Kind: kaasv1alpha1.UpdateKubernetesPatch, From: "v1.34.7", To: "v1.34.8"}
	rolling := patch
	rolling.Started, rolling.Message = mtime(at("02:10")), "v1.34.7 -> v1.34.8 in the window 02:00-03:00 UTC"
	planned := func(reason, msg string) Condition {
		return Condition{Type: kaasv1alpha1.ConditionUpdatePlanned, Status: ConditionTrue, Reason: reason, Message: msg}
	}
	notPlanned := func(reason, msg string) Condition {
		return Condition{Type: kaasv1alpha1.ConditionUpdatePlanned, Status: ConditionFalse, Reason: reason, Message: msg}
	}
	cases := map[string]struct {
		now        time.Time
		ask        bool // the backend asks for patch
		last       *kaasv1alpha1.MaintenanceStatus
		eol        endOfLife
		running    string
		phase      kaasv1alpha1.Phase
		wantStatus *kaasv1alpha1.MaintenanceStatus
		wantCond   Condition
		wantEvents []Event
	}{
		"NothingDue": {now: at("14:00"), running: "v1.34.7",
			wantCond: notPlanned(kaasv1alpha1.ReasonNothingPlanned, "no update of its own is due; its own updates start in the window 02:00-03:00 UTC")},
		"PlannedOutsideTheWindow": {now: at("14:00"), ask: true, running: "v1.34.7",
			wantStatus: &kaasv1alpha1.MaintenanceStatus{Planned: &kaasv1alpha1.PlannedUpdate{Kind: patch.Kind, From: patch.From, To: patch.To, Since: mtime(at("14:00")),
				NotBefore: mtime(at("02:00").Add(24 * time.Hour)), Message: "v1.34.7 -> v1.34.8 in the window 02:00-03:00 UTC, from Sun, 06 Dec 2026 02:00:00 UTC"}},
			wantCond:   planned(kaasv1alpha1.ReasonOutsideWindow, "v1.34.7 -> v1.34.8 in the window 02:00-03:00 UTC, from Sun, 06 Dec 2026 02:00:00 UTC"),
			wantEvents: []Event{{Type: EventNormal, Reason: kaasv1alpha1.ReasonUpdatePlanned, Message: "planned v1.34.7 -> v1.34.8 in the window 02:00-03:00 UTC, from Sun, 06 Dec 2026 02:00:00 UTC"}}},
		"PlannedSaidAgain": {now: at("15:00"), ask: true, running: "v1.34.7",
			last: &kaasv1alpha1.MaintenanceStatus{Planned: &kaasv1alpha1.PlannedUpdate{Kind: patch.Kind, From: patch.From, To: patch.To, Since: mtime(at("14:00"))}},
			wantStatus: &kaasv1alpha1.MaintenanceStatus{Planned: &kaasv1alpha1.PlannedUpdate{Kind: patch.Kind, From: patch.From, To: patch.To, Since: mtime(at("14:00")),
				NotBefore: mtime(at("02:00").Add(24 * time.Hour)), Message: "v1.34.7 -> v1.34.8 in the window 02:00-03:00 UTC, from Sun, 06 Dec 2026 02:00:00 UTC"}},
			wantCond:   planned(kaasv1alpha1.ReasonOutsideWindow, "v1.34.7 -> v1.34.8 in the window 02:00-03:00 UTC, from Sun, 06 Dec 2026 02:00:00 UTC"),
			wantEvents: []Event{{Type: EventNormal, Reason: kaasv1alpha1.ReasonUpdatePlanned, Message: "planned v1.34.7 -> v1.34.8 in the window 02:00-03:00 UTC, from Sun, 06 Dec 2026 02:00:00 UTC"}}},
		"StartsInTheWindow": {now: at("02:10"), ask: true, running: "v1.34.7",
			wantStatus: &kaasv1alpha1.MaintenanceStatus{InProgress: &kaasv1alpha1.PlannedUpdate{Kind: patch.Kind, From: patch.From, To: patch.To, Since: mtime(at("02:10")),
				Started: mtime(at("02:10")), Message: "v1.34.7 -> v1.34.8 in the window 02:00-03:00 UTC"}},
			wantCond:   notPlanned(kaasv1alpha1.ReasonUpdateInProgress, "rolling v1.34.7 -> v1.34.8 in the window 02:00-03:00 UTC"),
			wantEvents: []Event{{Type: EventNormal, Reason: kaasv1alpha1.ReasonMaintenanceStarted, Message: "started v1.34.7 -> v1.34.8 in the window 02:00-03:00 UTC at 2026-12-05T02:10:00Z"}}},
		"InProgressAfterTheWindowClosed": {now: at("03:30"), running: "v1.34.7",
			last:       &kaasv1alpha1.MaintenanceStatus{InProgress: &rolling},
			wantStatus: &kaasv1alpha1.MaintenanceStatus{InProgress: &rolling},
			wantCond:   notPlanned(kaasv1alpha1.ReasonUpdateInProgress, "rolling v1.34.7 -> v1.34.8 in the window 02:00-03:00 UTC"),
			wantEvents: []Event{{Type: EventNormal, Reason: kaasv1alpha1.ReasonMaintenanceStarted, Message: "started v1.34.7 -> v1.34.8 in the window 02:00-03:00 UTC at 2026-12-05T02:10:00Z"}}},
		"NotFinishedWhileTheBackendRolls": {now: at("03:30"), running: "v1.34.8", phase: kaasv1alpha1.PhaseUpdating,
			last:       &kaasv1alpha1.MaintenanceStatus{InProgress: &rolling},
			wantStatus: &kaasv1alpha1.MaintenanceStatus{InProgress: &rolling},
			wantCond:   notPlanned(kaasv1alpha1.ReasonUpdateInProgress, "rolling v1.34.7 -> v1.34.8 in the window 02:00-03:00 UTC"),
			wantEvents: []Event{{Type: EventNormal, Reason: kaasv1alpha1.ReasonMaintenanceStarted, Message: "started v1.34.7 -> v1.34.8 in the window 02:00-03:00 UTC at 2026-12-05T02:10:00Z"}}},
		"StartedAndAskedAgainAfterTheWindowItGoesOn": {now: at("03:30"), ask: true, running: "v1.34.7", phase: kaasv1alpha1.PhaseUpdating,
			last:       &kaasv1alpha1.MaintenanceStatus{InProgress: &rolling},
			wantStatus: &kaasv1alpha1.MaintenanceStatus{InProgress: &rolling},
			wantCond:   notPlanned(kaasv1alpha1.ReasonUpdateInProgress, "rolling v1.34.7 -> v1.34.8 in the window 02:00-03:00 UTC"),
			wantEvents: []Event{{Type: EventNormal, Reason: kaasv1alpha1.ReasonMaintenanceStarted, Message: "started v1.34.7 -> v1.34.8 in the window 02:00-03:00 UTC at 2026-12-05T02:10:00Z"}}},
		"Finished": {now: at("03:30"), running: "v1.34.8",
			last:       &kaasv1alpha1.MaintenanceStatus{InProgress: &rolling},
			wantCond:   notPlanned(kaasv1alpha1.ReasonNothingPlanned, "no update of its own is due; its own updates start in the window 02:00-03:00 UTC"),
			wantEvents: []Event{{Type: EventNormal, Reason: kaasv1alpha1.ReasonMaintenanceCompleted, Message: "finished v1.34.7 -> v1.34.8: the cluster runs v1.34.8"}}},
		"AnExpiredMinorWithoutAPath": {now: at("02:10"), running: "v1.33.9", eol: endOfLife{Version: "1.33", Blocked: "1.33 expired on 2026-12-04 and stays as it is: no path"},
			wantCond: notPlanned(kaasv1alpha1.ReasonNoUpgradePath, "1.33 expired on 2026-12-04 and stays as it is: no path")},
		"UpgradedMinorRemembered": {now: at("14:00"), running: "v1.34.1", eol: endOfLife{Version: "1.34", Upgraded: "1.34"},
			wantStatus: &kaasv1alpha1.MaintenanceStatus{UpgradedMinor: "1.34"},
			wantCond:   notPlanned(kaasv1alpha1.ReasonNothingPlanned, "no update of its own is due; its own updates start in the window 02:00-03:00 UTC")},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			spec := &kaasv1alpha1.ClusterSpec{Maintenance: &kaasv1alpha1.MaintenanceSpec{Window: window}}
			m := NewMaintenance(tc.now, spec, &Environment{}, Identity{Name: "shop"}, tc.last)
			if tc.ask {
				m.MayStart(patch.Kind, patch.From, patch.To)
			}
			status, cond, events := maintenanceStatus(m, tc.last, tc.eol, &kaasv1alpha1.KubernetesStatus{Version: tc.running}, phaseOr(tc.phase))
			if diff := cmp.Diff(tc.wantStatus, status); diff != "" {
				t.Errorf("status (-want, +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantCond, cond); diff != "" {
				t.Errorf("condition (-want, +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantEvents, events); diff != "" {
				t.Errorf("events (-want, +got):\n%s", diff)
			}
		})
	}
}

func phaseOr(p kaasv1alpha1.Phase) kaasv1alpha1.Phase {
	if p == "" {
		return kaasv1alpha1.PhaseReady
	}
	return p
}
