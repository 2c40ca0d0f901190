package model

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
)

// TestVersionCondition: where the running minor is in its life, as the environment's catalog
// says, in the VersionSupported condition, the events while it holds, and the lifecycle in
// the status; and the upgrade path said plainly, also when there is none.
func TestVersionCondition(t *testing.T) {
	now := time.Date(2027, 1, 10, 12, 0, 0, 0, time.UTC)
	date := func(s string) *metav1.Time {
		d, err := time.Parse(time.DateOnly, s)
		if err != nil {
			t.Fatal(err)
		}
		return &metav1.Time{Time: d}
	}
	type want struct {
		condition Condition
		events    []Event
		lifecycle *kaasv1alpha1.MinorLifecycle
	}
	supported := func(status ConditionStatus, reason, msg string) Condition {
		return Condition{Type: kaasv1alpha1.ConditionVersionSupported, Status: status, Reason: reason, Message: msg}
	}
	cases := map[string]struct {
		versions  []string
		lifecycle map[string]kaasv1alpha1.VersionLifecycle
		spec      string
		running   string
		want      want
	}{
		"OfferedWithTheNextMinor": {
			versions: []string{"1.33", "1.34"}, spec: "1.33", running: "1.33.4",
			want: want{
				condition: supported(ConditionTrue, kaasv1alpha1.ReasonVersionOffered, "1.33 is offered by environment regionone; the next minor, 1.34, is offered"),
				lifecycle: &kaasv1alpha1.MinorLifecycle{Minor: "1.33", Offered: true},
			},
		},
		"OfferedWithoutAnUpgradePath": {
			versions: []string{"1.33", "1.35"}, spec: "1.33", running: "1.33.4",
			want: want{
				condition: supported(ConditionTrue, kaasv1alpha1.ReasonVersionOffered, "1.33 is offered by environment regionone; no upgrade path is offered: environment regionone does not offer the next minor, 1.34 (data.catalog.kubernetesVersions: 1.33, 1.35)"),
				lifecycle: &kaasv1alpha1.MinorLifecycle{Minor: "1.33", Offered: true},
			},
		},
		"BeforeItRunsTheSpecsMinorCounts": {
			versions: []string{"1.34"}, spec: "1.34",
			want: want{
				condition: supported(ConditionTrue, kaasv1alpha1.ReasonVersionOffered, "1.34 is offered by environment regionone; no upgrade path is offered: environment regionone does not offer the next minor, 1.35 (data.catalog.kubernetesVersions: 1.34)"),
				lifecycle: &kaasv1alpha1.MinorLifecycle{Minor: "1.34", Offered: true},
			},
		},
		"NoLongerOffered": {
			versions: []string{"1.34", "1.35"}, spec: "1.33", running: "1.33.9",
			want: want{
				condition: supported(ConditionFalse, kaasv1alpha1.ReasonVersionNotOffered, "1.33 is no longer offered by environment regionone (data.catalog.kubernetesVersions: 1.34, 1.35); the cluster keeps running it; the next minor, 1.34, is offered"),
				events:    []Event{{Type: EventWarning, Reason: kaasv1alpha1.ReasonVersionNotOffered, Message: "1.33 is no longer offered by environment regionone (data.catalog.kubernetesVersions: 1.34, 1.35); the cluster keeps running it; the next minor, 1.34, is offered"}},
				lifecycle: &kaasv1alpha1.MinorLifecycle{Minor: "1.33"},
			},
		},
		"Deprecated": {
			versions: []string{"1.33", "1.34"}, lifecycle: map[string]kaasv1alpha1.VersionLifecycle{"1.33": {Deprecated: true}}, spec: "1.33", running: "1.33.4",
			want: want{
				condition: supported(ConditionTrue, kaasv1alpha1.ReasonVersionDeprecated, "1.33 is deprecated in environment regionone (data.catalog.kubernetesVersionLifecycle); the next minor, 1.34, is offered"),
				events:    []Event{{Type: EventWarning, Reason: kaasv1alpha1.ReasonVersionDeprecated, Message: "1.33 is deprecated in environment regionone (data.catalog.kubernetesVersionLifecycle); the next minor, 1.34, is offered"}},
				lifecycle: &kaasv1alpha1.MinorLifecycle{Minor: "1.33", Offered: true, VersionLifecycle: kaasv1alpha1.VersionLifecycle{Deprecated: true}},
			},
		},
		"DeprecatedExpiringLater": {
			versions: []string{"1.33", "1.34"}, lifecycle: map[string]kaasv1alpha1.VersionLifecycle{"1.33": {Deprecated: true, ExpirationDate: date("2027-06-30")}}, spec: "1.33", running: "1.33.4",
			want: want{
				condition: supported(ConditionTrue, kaasv1alpha1.ReasonVersionDeprecated, "1.33 is deprecated in environment regionone (data.catalog.kubernetesVersionLifecycle) and expires on 2027-06-30; the next minor, 1.34, is offered"),
				events:    []Event{{Type: EventWarning, Reason: kaasv1alpha1.ReasonVersionDeprecated, Message: "1.33 is deprecated in environment regionone (data.catalog.kubernetesVersionLifecycle) and expires on 2027-06-30; the next minor, 1.34, is offered"}},
				lifecycle: &kaasv1alpha1.MinorLifecycle{Minor: "1.33", Offered: true, VersionLifecycle: kaasv1alpha1.VersionLifecycle{Deprecated: true, ExpirationDate: date("2027-06-30")}},
			},
		},
		"ExpiringWithinAMonth": {
			versions: []string{"1.33", "1.34"}, lifecycle: map[string]kaasv1alpha1.VersionLifecycle{"1.33": {ExpirationDate: date("2027-02-01")}}, spec: "1.33", running: "1.33.4",
			want: want{
				condition: supported(ConditionTrue, kaasv1alpha1.ReasonVersionExpiring, "1.33 expires on 2027-02-01 in environment regionone (data.catalog.kubernetesVersionLifecycle); the next minor, 1.34, is offered"),
				events:    []Event{{Type: EventWarning, Reason: kaasv1alpha1.ReasonVersionExpiring, Message: "1.33 expires on 2027-02-01 in environment regionone (data.catalog.kubernetesVersionLifecycle); the next minor, 1.34, is offered"}},
				lifecycle: &kaasv1alpha1.MinorLifecycle{Minor: "1.33", Offered: true, VersionLifecycle: kaasv1alpha1.VersionLifecycle{ExpirationDate: date("2027-02-01")}},
			},
		},
		"Expired": {
			versions: []string{"1.33", "1.34"}, lifecycle: map[string]kaasv1alpha1.VersionLifecycle{"1.33": {Deprecated: true, ExpirationDate: date("2027-01-01")}}, spec: "1.33", running: "1.33.4",
			want: want{
				condition: supported(ConditionFalse, kaasv1alpha1.ReasonVersionExpired, "1.33 expired on 2027-01-01 in environment regionone (data.catalog.kubernetesVersionLifecycle); the next minor, 1.34, is offered"),
				events:    []Event{{Type: EventWarning, Reason: kaasv1alpha1.ReasonVersionExpired, Message: "1.33 expired on 2027-01-01 in environment regionone (data.catalog.kubernetesVersionLifecycle); the next minor, 1.34, is offered"}},
				lifecycle: &kaasv1alpha1.MinorLifecycle{Minor: "1.33", Offered: true, VersionLifecycle: kaasv1alpha1.VersionLifecycle{Deprecated: true, ExpirationDate: date("2027-01-01")}},
			},
		},
		"UpgradeUnderWay": {
			versions: []string{"1.33", "1.34"}, lifecycle: map[string]kaasv1alpha1.VersionLifecycle{"1.33": {Deprecated: true}}, spec: "1.34", running: "1.33.4",
			want: want{
				condition: supported(ConditionTrue, kaasv1alpha1.ReasonVersionDeprecated, "1.33 is deprecated in environment regionone (data.catalog.kubernetesVersionLifecycle); the next minor, 1.34, is offered"),
				events: []Event{
					{Type: EventNormal, Reason: kaasv1alpha1.ReasonUpgradeStarted, Message: "upgrading from 1.33.4 to 1.34"},
					{Type: EventWarning, Reason: kaasv1alpha1.ReasonVersionDeprecated, Message: "1.33 is deprecated in environment regionone (data.catalog.kubernetesVersionLifecycle); the next minor, 1.34, is offered"},
				},
				lifecycle: &kaasv1alpha1.MinorLifecycle{Minor: "1.33", Offered: true, VersionLifecycle: kaasv1alpha1.VersionLifecycle{Deprecated: true}},
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			env := testEnvironment()
			env.Catalog.KubernetesVersions = tc.versions
			env.Catalog.KubernetesVersionLifecycle = tc.lifecycle
			spec := kaasv1alpha1.ClusterSpec{Kubernetes: kaasv1alpha1.KubernetesSpec{Version: tc.spec}}
			var running *kaasv1alpha1.KubernetesStatus
			if tc.running != "" {
				running = &kaasv1alpha1.KubernetesStatus{Version: tc.running}
			}
			offered := offered(env, &spec, running)
			c, events := versionCondition(env, &spec, running, offered, now)
			got := want{condition: c, events: events, lifecycle: offered.Lifecycle}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("-want +got:\n%s", diff)
			}
		})
	}
}
