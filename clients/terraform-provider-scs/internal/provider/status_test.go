package provider

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

type cond struct {
	typ, status, reason, message string
	gen                          int64
}

// testObject is an SCSCluster (claim: spec.resourceRef, or namespaced: spec.crossplane)
// or a composite with a generation and conditions.
func testObject(name string, generation int64, spec map[string]any, status map[string]any, conds ...cond) *unstructured.Unstructured {
	var cs []any
	for _, c := range conds {
		m := map[string]any{"type": c.typ, "status": c.status, "reason": c.reason, "message": c.message}
		if c.gen != 0 {
			m["observedGeneration"] = c.gen
		}
		cs = append(cs, m)
	}
	if status == nil {
		status = map[string]any{}
	}
	status["conditions"] = cs
	if spec == nil {
		spec = map[string]any{}
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"metadata": map[string]any{"name": name, "namespace": "team1", "generation": generation},
		"spec":     spec,
		"status":   status,
	}}
}

var (
	claimSpec      = map[string]any{"resourceRef": map[string]any{"name": "dev-x7k2p"}}
	namespacedSpec = map[string]any{"crossplane": map[string]any{"compositionRef": map[string]any{"name": "c"}}}
)

// TestObserve: the conditions count only once Crossplane has reconciled the latest spec.
func TestObserve(t *testing.T) {
	type result struct {
		Current, Refused, Failed, Rendered, Ready bool
		Why                                       string
	}
	for _, tc := range []struct {
		name    string
		obj, xr *unstructured.Unstructured
		want    result
	}{
		{
			name: "namespaced, ready",
			obj: testObject("dev", 3, namespacedSpec, map[string]any{"phase": "Ready"},
				cond{"Synced", "True", "ReconcileSuccess", "", 3}, cond{"Rendered", "True", "Rendered", "", 0}, cond{"Ready", "True", "Available", "", 3}),
			want: result{Current: true, Rendered: true, Ready: true},
		},
		{
			name: "namespaced, new generation not reconciled: Ready is about the old spec",
			obj: testObject("dev", 4, namespacedSpec, nil,
				cond{"Synced", "True", "ReconcileSuccess", "", 3}, cond{"Rendered", "True", "Rendered", "", 0}, cond{"Ready", "True", "Available", "", 3}),
			want: result{Why: "SCSCluster generation 4 not reconciled yet (Synced is for 3)"},
		},
		{
			name: "namespaced, refused",
			obj: testObject("dev", 4, namespacedSpec, nil,
				cond{"Synced", "False", "ReconcileError", "fatal", 4}, cond{"Rendered", "False", "InvalidSpec", "spec.x: bad", 0}, cond{"Ready", "True", "Available", "", 3}),
			want: result{Current: true, Refused: true},
		},
		{
			name: "namespaced, failed",
			obj: testObject("dev", 2, namespacedSpec, map[string]any{"phase": "Failed"},
				cond{"Synced", "True", "ReconcileSuccess", "", 2}, cond{"Rendered", "True", "Rendered", "", 0}),
			want: result{Current: true, Rendered: true, Failed: true},
		},
		{
			name: "nothing reported",
			obj:  testObject("dev", 1, namespacedSpec, nil),
			want: result{Why: "SCSCluster not reconciled yet"},
		},
		{
			name: "claim not bound yet",
			obj:  testObject("dev", 1, nil, nil, cond{"Synced", "True", "ReconcileSuccess", "", 1}),
			want: result{Why: "claim not bound to a composite resource yet"},
		},
		{
			name: "claim synced, composite behind: the claim's copies are older",
			obj: testObject("dev", 2, claimSpec, nil,
				cond{"Synced", "True", "ReconcileSuccess", "", 2}, cond{"Rendered", "True", "Rendered", "", 2}, cond{"Ready", "True", "Available", "", 2}),
			xr: testObject("dev-x7k2p", 5, nil, nil,
				cond{"Synced", "True", "ReconcileSuccess", "", 4}, cond{"Rendered", "True", "Rendered", "", 0}),
			want: result{Why: "composite resource dev-x7k2p generation 5 not reconciled yet (Synced is for 4)"},
		},
		{
			name: "claim and composite current, the composite refuses (the claim's copy still True)",
			obj: testObject("dev", 2, claimSpec, nil,
				cond{"Synced", "True", "ReconcileSuccess", "", 2}, cond{"Rendered", "True", "Rendered", "", 2}, cond{"Ready", "True", "Available", "", 2}),
			xr: testObject("dev-x7k2p", 5, nil, nil,
				cond{"Synced", "False", "ReconcileError", "", 5}, cond{"Rendered", "False", "ReplacementRefused", "no", 0}),
			want: result{Current: true, Refused: true},
		},
		{
			name: "claim that could not sync to its composite",
			obj: testObject("dev", 2, claimSpec, nil,
				cond{"Synced", "False", "ReconcileError", "cannot apply composite resource", 2}, cond{"Rendered", "True", "Rendered", "", 2}),
			xr:   testObject("dev-x7k2p", 4, nil, nil, cond{"Synced", "True", "ReconcileSuccess", "", 4}, cond{"Rendered", "True", "Rendered", "", 0}),
			want: result{Why: "claim not synced to its composite resource: cannot apply composite resource"},
		},
		{
			name: "claim whose composite may not be read: the claim's conditions",
			obj: testObject("dev", 2, claimSpec, nil,
				cond{"Synced", "True", "ReconcileSuccess", "", 2}, cond{"Rendered", "True", "Rendered", "", 2}, cond{"Ready", "True", "Available", "", 2}),
			want: result{Current: true, Rendered: true, Ready: true},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := observe(tc.obj, tc.xr)
			got := result{Current: o.Current, Refused: o.refused(), Failed: o.failed(), Rendered: o.rendered(), Ready: o.ready(), Why: o.Why}
			if got.Current {
				got.Why = ""
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestObservationSummary(t *testing.T) {
	o := observe(testObject("dev", 1, namespacedSpec, map[string]any{"phase": "Provisioning"},
		cond{"Synced", "True", "ReconcileSuccess", "", 1}, cond{"Rendered", "True", "Rendered", "", 0},
		cond{"Ready", "False", "Creating", "", 1}, cond{"BackendReady", "False", "Pending", "waiting for Gardener", 0}), nil)
	want := "phase Provisioning; Ready False (Creating); Synced True (ReconcileSuccess); Rendered True (Rendered); BackendReady False (Pending): waiting for Gardener"
	if got := o.summary(); got != want {
		t.Errorf("summary:\n got %s\nwant %s", got, want)
	}
}

func TestStatusValue(t *testing.T) {
	obj := testObject("dev", 1, namespacedSpec, map[string]any{
		"phase":        "Ready",
		"apiServerURL": "https://api.dev.team1.example",
		"kubernetes":   map[string]any{"version": "1.34.2"},
		"backend":      map[string]any{"type": "gardener", "name": "dev-abc123", "environment": "gardener-regionone", "region": "RegionOne"},
		"offered":      map[string]any{"nextMinor": "1.35"},
		"maintenance": map[string]any{
			"planned": map[string]any{"kind": "EndOfLifeUpgrade", "from": "v1.34.2", "to": "1.35",
				"since": "2026-12-01T10:00:00Z", "notBefore": "2026-12-05T02:00:00Z",
				"message": "v1.34.2 -> 1.35 in the window 02:00-03:00 UTC, from Sat, 05 Dec 2026 02:00 UTC"},
			"inProgress": map[string]any{"kind": "KubernetesPatch", "from": "v1.34.1", "to": "v1.34.2",
				"since": "2026-11-20T10:00:00Z", "started": "2026-11-28T02:00:05Z", "message": "v1.34.1 -> v1.34.2 in the window 02:00-03:00 UTC"},
			"upgradedMinor": "1.34",
		},
		"addons": []any{
			map[string]any{"name": "hello", "ready": true, "revision": "1@sha256:2a"},
			map[string]any{"name": "web", "ready": false, "message": "False (HealthCheckFailed): timeout", "retained": true},
		},
	}, cond{"Ready", "True", "Available", "", 1})
	got := statusValue(obj)
	condList := types.ListValueMust(types.ObjectType{AttrTypes: conditionAttrTypes}, []attr.Value{
		types.ObjectValueMust(conditionAttrTypes, map[string]attr.Value{
			"type": str("Ready"), "status": str("True"), "reason": str("Available"), "message": str("")}),
	})
	want := types.ObjectValueMust(statusAttrTypes, map[string]attr.Value{
		"phase": str("Ready"), "ready": types.BoolValue(true), "kubernetes_version": str("1.34.2"),
		"api_server_url": str("https://api.dev.team1.example"), "backend_type": str("gardener"),
		"backend_name": str("dev-abc123"), "backend_environment": str("gardener-regionone"),
		"backend_region": str("RegionOne"), "next_minor": str("1.35"), "conditions": condList,
		"planned_update": types.ObjectValueMust(plannedUpdateAttrTypes, map[string]attr.Value{
			"kind": str("EndOfLifeUpgrade"), "from": str("v1.34.2"), "to": str("1.35"), "not_before": str("2026-12-05T02:00:00Z"),
			"message": str("v1.34.2 -> 1.35 in the window 02:00-03:00 UTC, from Sat, 05 Dec 2026 02:00 UTC")}),
		"update_in_progress": types.ObjectValueMust(updateInProgressAttrTypes, map[string]attr.Value{
			"kind": str("KubernetesPatch"), "from": str("v1.34.1"), "to": str("v1.34.2"), "started": str("2026-11-28T02:00:05Z"),
			"message": str("v1.34.1 -> v1.34.2 in the window 02:00-03:00 UTC")}),
		"upgraded_minor": str("1.34"),
		"addons": types.ListValueMust(types.ObjectType{AttrTypes: addonAttrTypes}, []attr.Value{
			types.ObjectValueMust(addonAttrTypes, map[string]attr.Value{"name": str("hello"), "ready": types.BoolValue(true),
				"revision": str("1@sha256:2a"), "message": str(""), "retained": types.BoolValue(false)}),
			types.ObjectValueMust(addonAttrTypes, map[string]attr.Value{"name": str("web"), "ready": types.BoolValue(false),
				"revision": str(""), "message": str("False (HealthCheckFailed): timeout"), "retained": types.BoolValue(true)}),
		}),
	})
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}

	// Before anything is reported: nulls, not ready, no conditions.
	empty := statusValue(&unstructured.Unstructured{Object: map[string]any{}})
	if r := empty.Attributes()["ready"]; !r.Equal(types.BoolValue(false)) {
		t.Errorf("ready = %v", r)
	}
	for _, n := range []string{"phase", "planned_update", "update_in_progress", "upgraded_minor"} {
		if v := empty.Attributes()[n]; !v.IsNull() {
			t.Errorf("%s = %v, want null", n, v)
		}
	}

	// Only a planned patch, not in progress, its time not set yet: the other update and the
	// minor are null, and so is the time.
	planned := statusValue(testObject("dev", 1, namespacedSpec, map[string]any{
		"maintenance": map[string]any{"planned": map[string]any{"kind": "KubernetesPatch", "from": "v1.34.7", "to": "v1.34.8",
			"message": "v1.34.7 -> v1.34.8 in the window 02:00-03:00 UTC"}},
	}))
	wantPlanned := map[string]attr.Value{
		"planned_update": types.ObjectValueMust(plannedUpdateAttrTypes, map[string]attr.Value{
			"kind": str("KubernetesPatch"), "from": str("v1.34.7"), "to": str("v1.34.8"), "not_before": types.StringNull(),
			"message": str("v1.34.7 -> v1.34.8 in the window 02:00-03:00 UTC")}),
		"update_in_progress": types.ObjectNull(updateInProgressAttrTypes),
		"upgraded_minor":     types.StringNull(),
	}
	gotPlanned := map[string]attr.Value{}
	for n := range wantPlanned {
		gotPlanned[n] = planned.Attributes()[n]
	}
	if diff := cmp.Diff(wantPlanned, gotPlanned); diff != "" {
		t.Errorf("planned only (-want +got):\n%s", diff)
	}
}

// TestWaitErrorMessages: what the provider prints of the conditions when a wait ends
// without the cluster getting there (the apply's diagnostics), word for word.
func TestWaitErrorMessages(t *testing.T) {
	for name, tc := range map[string]struct {
		reason string
		err    waitError
		want   string
	}{
		"Refused": {
			reason: "A refusal names the condition with its status, reason and message.",
			err: waitError{Refused: true, Last: observe(testObject("dev", 2, namespacedSpec, nil,
				cond{"Synced", "True", "ReconcileSuccess", "", 2}, cond{"Rendered", "False", "InvalidSpec", "spec.x: bad", 0}), nil)},
			want: "refused: Rendered False (InvalidSpec): spec.x: bad",
		},
		"RefusedWithoutReasonOrMessage": {
			reason: "The parts that are not set are left out.",
			err: waitError{Refused: true, Last: observe(testObject("dev", 2, namespacedSpec, nil,
				cond{"Synced", "True", "ReconcileSuccess", "", 2}, cond{"Rendered", "False", "", "", 0}), nil)},
			want: "refused: Rendered False",
		},
		"NotReported": {
			reason: "A condition the object does not have is not reported yet.",
			err: waitError{Refused: true, Last: observe(testObject("dev", 2, namespacedSpec, nil,
				cond{"Synced", "True", "ReconcileSuccess", "", 2}), nil)},
			want: "refused: Rendered not reported yet",
		},
		"TimedOut": {
			reason: "A timeout says why the conditions do not count yet, then the reported ones.",
			err: waitError{What: "the cluster is Ready", After: 30 * time.Second, Last: observe(testObject("dev", 2, namespacedSpec, map[string]any{"phase": "Provisioning"},
				cond{"Synced", "True", "ReconcileSuccess", "", 1}, cond{"Ready", "False", "Creating", "", 1}), nil)},
			want: "timed out after 30s waiting until the cluster is Ready: SCSCluster generation 2 not reconciled yet (Synced is for 1); phase Provisioning; Ready False (Creating); Synced True (ReconcileSuccess)",
		},
	} {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, tc.err.Error()); diff != "" {
				t.Errorf("%s\nError(): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
