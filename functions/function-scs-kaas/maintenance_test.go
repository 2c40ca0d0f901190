package main

import (
	"strings"
	"testing"
	"time"

	"github.com/crossplane/function-sdk-go/logging"
	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
)

// TestOwnUpdatesWaitForTheWindow: on every backend, an update a Ready cluster makes on its
// own (a newer Cluster Stack release of its minor, the environment's Magnum template of the
// minor with a newer patch, the next minor once its own expired) changes nothing outside the
// cluster's window, while UpdatePlanned says what and from when; inside the window the native
// object carries it, with a MaintenanceStarted event; once started it is not taken back when
// the window has ended. The cluster's window is 02:00-03:00 UTC.
func TestOwnUpdatesWaitForTheWindow(t *testing.T) {
	outside := time.Date(2026, 12, 3, 14, 0, 0, 0, time.UTC)
	inside := time.Date(2026, 12, 4, 2, 10, 0, 0, time.UTC)
	after := time.Date(2026, 12, 4, 3, 30, 0, 0, time.UTC)
	expired := func(minor string) func(t *testing.T, req *fnv1.RunFunctionRequest, env string) {
		return func(t *testing.T, req *fnv1.RunFunctionRequest, env string) {
			editEnvironmentLeaf(t, req, env, leafEdit{path: "catalog.kubernetesVersionLifecycle",
				value: map[string]any{minor: map[string]any{"expirationDate": "2026-12-01T00:00:00Z"}}})
		}
	}
	cases := []struct {
		cluster string
		what    string
		edit    func(t *testing.T, req *fnv1.RunFunctionRequest, env string)
		// resource and path of the native field the update changes, its value before and after
		resource     string
		path         []string
		before, then string
		planned      string
	}{
		{cluster: "clusterstack/legacy", what: "a newer ready release of the running minor",
			edit:     func(t *testing.T, req *fnv1.RunFunctionRequest, _ string) { withNewerRelease(t, req) },
			resource: "clusterstack-cluster", path: []string{"spec", "topology", "classRef", "name"},
			before: "openstack-scs2-1-34-v3", then: "openstack-scs2-1-34-v4",
			planned: "v1.34.7 -> v1.34.8 in the window 02:00-03:00 UTC, from Fri, 04 Dec 2026 02:00:00 UTC"},
		{cluster: "magnum/legacy", what: "the minor's template repointed to a newer patch",
			edit: func(t *testing.T, req *fnv1.RunFunctionRequest, env string) {
				editEnvironmentLeaf(t, req, env, leafEdit{path: "magnum.templates[1].id", value: "5e1d9c2b-patched"})
				editEnvironmentLeaf(t, req, env, leafEdit{path: "magnum.templates[1].kubeTag", value: "v1.34.5"})
			},
			resource: "magnum-cluster", path: []string{"spec", "forProvider", "clusterTemplateId"},
			before: "2f6b1d3e-7a8c-4e5f-9b0a-1c2d3e4f5a6b", then: "5e1d9c2b-patched",
			planned: "v1.34.3 -> v1.34.5 in the window 02:00-03:00 UTC, from Fri, 04 Dec 2026 02:00:00 UTC"},
		{cluster: "gardener/legacy", what: "an expired minor", edit: expired("1.34"),
			resource: "gardener-shoot", path: []string{"spec", "forProvider", "manifest", "spec", "kubernetes", "version"},
			before: "1.34.5", then: "1.35",
			planned: "1.34.5 -> 1.35 in the window 02:00-03:00 UTC, from Fri, 04 Dec 2026 02:00:00 UTC"},
	}
	for _, tc := range cases {
		t.Run(tc.cluster+"/"+tc.what, func(t *testing.T) {
			c := readyClusterNamed(t, tc.cluster)
			req := withWindow(t, remembered(t, c.req), "020000+0000", "030000+0000")
			if tc.edit != nil {
				tc.edit(t, req, c.environment)
			}

			held := runAt(t, req, outside)
			if got := nativeField(t, held, tc.resource, tc.path...); got != tc.before {
				t.Errorf("outside the window %s = %q, want %q (unchanged)", strings.Join(tc.path, "."), got, tc.before)
			}
			cond := responseCondition(held, kaasv1alpha1.ConditionUpdatePlanned)
			if cond.GetStatus() != fnv1.Status_STATUS_CONDITION_TRUE || cond.GetReason() != kaasv1alpha1.ReasonOutsideWindow || cond.GetMessage() != tc.planned {
				t.Errorf("UpdatePlanned = %s %s %q, want True OutsideWindow %q", cond.GetStatus(), cond.GetReason(), cond.GetMessage(), tc.planned)
			}
			if e := eventsOf(held, kaasv1alpha1.ReasonMaintenanceStarted); e != "" {
				t.Errorf("an update started outside the window: %s", e)
			}

			started := runAt(t, withStatusOf(t, req, held), inside)
			if got := nativeField(t, started, tc.resource, tc.path...); got != tc.then {
				t.Errorf("inside the window %s = %q, want %q", strings.Join(tc.path, "."), got, tc.then)
			}
			if e := eventsOf(started, kaasv1alpha1.ReasonMaintenanceStarted); !strings.Contains(e, "started") {
				t.Errorf("no MaintenanceStarted event inside the window; events: %v", started.GetResults())
			}
			if cond := responseCondition(started, kaasv1alpha1.ConditionUpdatePlanned); cond.GetReason() != kaasv1alpha1.ReasonUpdateInProgress {
				t.Errorf("UpdatePlanned = %s %q, want UpdateInProgress", cond.GetReason(), cond.GetMessage())
			}

			// The window ends; what the function rendered is applied (observed) and stays.
			applied := withStatusOf(t, req, started)
			applied.GetObserved().GetResources()[tc.resource] = &fnv1.Resource{
				Resource:          mustStruct(t, asObserved(t, started, req, tc.resource)),
				ConnectionDetails: req.GetObserved().GetResources()[tc.resource].GetConnectionDetails()}
			later := runAt(t, applied, after)
			if got := nativeField(t, later, tc.resource, tc.path...); got != tc.then {
				t.Errorf("after the window %s = %q, want %q: a started update is never cut off", strings.Join(tc.path, "."), got, tc.then)
			}
			if r := fatalResult(later); r != nil {
				t.Fatalf("refused after the window: %s", r.GetMessage())
			}
		})
	}
}

// TestAnExpiredMinorThatCannotMoveStays: a cluster whose minor expired is left as it is,
// with the reason, when the next minor is not offered (Magnum's environment offers 1.33 and
// 1.34 only) or its backend refuses it (no ready Cluster Stack release of 1.35): nothing is
// refused, its other updates go on.
func TestAnExpiredMinorThatCannotMoveStays(t *testing.T) {
	inside := time.Date(2026, 12, 4, 2, 10, 0, 0, time.UTC)
	cases := map[string]struct {
		cluster, resource string
		newerRelease      bool
		path              []string
		want              string
		reason            string
		says              string
	}{
		"NoPath": {cluster: "magnum/legacy", resource: "magnum-cluster", path: []string{"spec", "forProvider", "clusterTemplateId"},
			want: "2f6b1d3e-7a8c-4e5f-9b0a-1c2d3e4f5a6b", reason: kaasv1alpha1.ReasonNoUpgradePath,
			says: "1.34 expired on 2026-12-01 and stays as it is: no upgrade path is offered: environment magnum-regionone does not offer the next minor, 1.35"},
		"RefusedByTheBackend": {cluster: "clusterstack/legacy", resource: "clusterstack-cluster", path: []string{"spec", "topology", "classRef", "name"},
			want: "openstack-scs2-1-34-v3", reason: kaasv1alpha1.ReasonNoUpgradePath,
			says: "1.34 expired on 2026-12-01 and stays as it is: the upgrade to 1.35 is refused: "},
		"RefusedByTheBackendTheNewerPatchStillStarts": {cluster: "clusterstack/legacy", newerRelease: true, resource: "clusterstack-cluster", path: []string{"spec", "topology", "classRef", "name"},
			want: "openstack-scs2-1-34-v4", reason: kaasv1alpha1.ReasonUpdateInProgress,
			says: "1.34 expired on 2026-12-01 and stays as it is: the upgrade to 1.35 is refused: "},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := readyClusterNamed(t, tc.cluster)
			req := withWindow(t, remembered(t, c.req), "020000+0000", "030000+0000")
			editEnvironmentLeaf(t, req, c.environment, leafEdit{path: "catalog.kubernetesVersionLifecycle",
				value: map[string]any{"1.34": map[string]any{"expirationDate": "2026-12-01T00:00:00Z"}}})
			if tc.newerRelease {
				withNewerRelease(t, req)
			}
			rsp := runAt(t, req, inside)
			if r := fatalResult(rsp); r != nil {
				t.Fatalf("refused: %s", r.GetMessage())
			}
			if got := nativeField(t, rsp, tc.resource, tc.path...); got != tc.want {
				t.Errorf("%s = %q, want %q", strings.Join(tc.path, "."), got, tc.want)
			}
			cond := responseCondition(rsp, kaasv1alpha1.ConditionUpdatePlanned)
			if cond.GetReason() != tc.reason || !strings.Contains(cond.GetMessage(), tc.says) {
				t.Errorf("UpdatePlanned = %s %q, want %s saying %q", cond.GetReason(), cond.GetMessage(), tc.reason, tc.says)
			}
		})
	}
}

// withNewerRelease adds a ready ClusterStackRelease of 1.34 newer than the one the example
// Cluster runs (openstack-scs2-1-34-v3, v1.34.7) to the request's releases, as the Cluster
// Stack operator publishes one.
func withNewerRelease(t testing.TB, req *fnv1.RunFunctionRequest) *fnv1.RunFunctionRequest {
	t.Helper()
	releases := req.GetRequiredResources()["clusterstack-releases"]
	if releases == nil {
		t.Fatal("the request has no clusterstack-releases")
	}
	releases.Items = append(releases.Items, &fnv1.Resource{Resource: mustStruct(t, map[string]any{
		"apiVersion": "clusterstack.x-k8s.io/v1alpha1", "kind": "ClusterStackRelease",
		"metadata": map[string]any{"name": "openstack-scs2-1-34-v4", "namespace": "kaas-team1"},
		"status":   map[string]any{"kubernetesVersion": "v1.34.8", "ready": true},
	})})
	return req
}

// readyClusterNamed is the Ready cluster of readyClusters by name.
func readyClusterNamed(t *testing.T, name string) readyCluster {
	t.Helper()
	for _, c := range readyClusters(t) {
		if c.name == name {
			return c
		}
	}
	t.Fatalf("no ready cluster %s", name)
	return readyCluster{}
}

// runAt runs the function with its clock at now.
func runAt(t *testing.T, req *fnv1.RunFunctionRequest, now time.Time) *fnv1.RunFunctionResponse {
	t.Helper()
	fn := NewFunction(logging.NewNopLogger())
	fn.now = func() time.Time { return now }
	return runWith(t, fn, req)
}

// remembered is the request with the status the function writes for it: its memory of the
// environment's values.
func remembered(t *testing.T, req *fnv1.RunFunctionRequest) *fnv1.RunFunctionRequest {
	t.Helper()
	return withStatusOf(t, req, run(t, req))
}

// withStatusOf is a copy of req whose composite has the status rsp desires, as Crossplane
// writes it.
func withStatusOf(t *testing.T, req *fnv1.RunFunctionRequest, rsp *fnv1.RunFunctionResponse) *fnv1.RunFunctionRequest {
	t.Helper()
	out := proto.Clone(req).(*fnv1.RunFunctionRequest)
	status, ok := rsp.GetDesired().GetComposite().GetResource().GetFields()["status"]
	if !ok {
		t.Fatal("the response desires no status")
	}
	out.Observed.Composite.Resource.Fields["status"] = status
	return out
}

// withWindow sets the composite's maintenance window.
func withWindow(t *testing.T, req *fnv1.RunFunctionRequest, begin, end string) *fnv1.RunFunctionRequest {
	t.Helper()
	out := proto.Clone(req).(*fnv1.RunFunctionRequest)
	xr := out.GetObserved().GetComposite().GetResource().AsMap()
	spec := xr["spec"].(map[string]any)
	m, _ := spec["maintenance"].(map[string]any)
	if m == nil {
		m = map[string]any{}
	}
	m["window"] = map[string]any{"begin": begin, "end": end}
	spec["maintenance"] = m
	out.Observed.Composite.Resource = mustStruct(t, xr)
	return out
}

// nativeField is a string field of a desired composed resource.
func nativeField(t *testing.T, rsp *fnv1.RunFunctionResponse, resource string, path ...string) string {
	t.Helper()
	if r := fatalResult(rsp); r != nil {
		t.Fatalf("refused: %s: %s", r.GetReason(), r.GetMessage())
	}
	d, ok := rsp.GetDesired().GetResources()[resource]
	if !ok {
		t.Fatalf("no desired %s", resource)
	}
	v := structpb.NewStructValue(d.GetResource())
	for _, p := range path {
		v = v.GetStructValue().GetFields()[p]
	}
	return v.GetStringValue()
}

// asObserved is the desired resource as its provider reports it once applied: with the
// status the observed one had.
func asObserved(t *testing.T, rsp *fnv1.RunFunctionResponse, req *fnv1.RunFunctionRequest, resource string) map[string]any {
	t.Helper()
	o := lastApplied(t, rsp.GetDesired().GetResources()[resource], resource)
	if s, ok := req.GetObserved().GetResources()[resource].GetResource().AsMap()["status"]; ok {
		o["status"] = s
	}
	return o
}

// eventsOf joins the messages of a response's results of a reason.
func eventsOf(rsp *fnv1.RunFunctionResponse, reason string) string {
	var out []string
	for _, r := range rsp.GetResults() {
		if r.GetReason() == reason {
			out = append(out, r.GetMessage())
		}
	}
	return strings.Join(out, "\n")
}
