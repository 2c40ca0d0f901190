package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/crossplane/function-sdk-go/logging"
	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
	"github.com/go-logr/logr/funcr"
	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/testing/protocmp"
	"google.golang.org/protobuf/types/known/structpb"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/model"
	"github.com/SovereignCloudStack/scs-kaas/model/gardener"
)

// The inputs of these tests are what a review found to delete or reshape live clusters:
// observed objects whose provider has not reported them yet, zones that go away, and specs
// that bypass the API server's rules. Each test compares the whole response.

// lastApplied turns a composed resource the function desired into the observed resource
// Crossplane reports once it exists but before its provider has observed it: the same
// object with Crossplane's annotation, and no status at all.
func lastApplied(t testing.TB, desired *fnv1.Resource, name string) map[string]any {
	t.Helper()
	obj := deepCopy(desired.GetResource().AsMap())
	meta := obj["metadata"].(map[string]any)
	meta["annotations"] = map[string]any{"crossplane.io/composition-resource-name": name}
	meta["uid"] = "0b9c1f6e-8f0a-4c1e-9d55-" + name[:4] + "00000000"
	return obj
}

func run(t testing.TB, req *fnv1.RunFunctionRequest) *fnv1.RunFunctionResponse {
	t.Helper()
	fn := NewFunction(logging.NewNopLogger())
	// The function's clock at a fixed time outside every derived maintenance window, so
	// that what the clusters plan, and when, is the same on every run.
	fn.now = func() time.Time { return testNow }
	return runWith(t, fn, req)
}

// testNow is the clock of run: 3 December 2026, noon UTC.
var testNow = time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)

// runNew is run for a cluster whose natives are looked for before they are managed and
// found nowhere, as Crossplane's loop ends with for a new cluster: each lookup by name
// fetched and empty, each observe-only lookout reported as observing nothing
// (model/adopt.go). Its request says whether, and how, it looked.
func runNew(t testing.TB, req *fnv1.RunFunctionRequest) (*fnv1.RunFunctionResponse, *fnv1.RunFunctionRequest) {
	t.Helper()
	req = proto.Clone(req).(*fnv1.RunFunctionRequest)
	for range 3 {
		rsp := run(t, req)
		if fatalResult(rsp) != nil {
			return rsp, req
		}
		looked := false
		for name := range rsp.GetRequirements().GetResources() {
			if _, fetched := req.GetRequiredResources()[name]; !fetched && strings.HasPrefix(name, model.LookupRequirementPrefix) {
				if req.RequiredResources == nil {
					req.RequiredResources = map[string]*fnv1.Resources{}
				}
				req.RequiredResources[name], looked = &fnv1.Resources{}, true
			}
		}
		if c := responseCondition(rsp, "BackendReady"); c.GetReason() == kaasv1alpha1.ReasonAdopting {
			for name, d := range rsp.GetDesired().GetResources() {
				if _, observed := req.GetObserved().GetResources()[name]; !observed && observesOnly(d) {
					if req.Observed.Resources == nil {
						req.Observed.Resources = map[string]*fnv1.Resource{}
					}
					req.Observed.Resources[name], looked = &fnv1.Resource{Resource: mustStruct(t, observedNothing(t, d, name))}, true
				}
			}
		}
		if !looked {
			return rsp, req
		}
	}
	t.Fatal("the lookout before managing does not settle")
	return nil, nil
}

// lookedOut is the request of a new cluster once its natives were looked for and found
// nowhere: what a render of a cluster being created receives.
func lookedOut(t testing.TB, req *fnv1.RunFunctionRequest) *fnv1.RunFunctionRequest {
	t.Helper()
	_, req = runNew(t, req)
	return req
}

// observesOnly says whether a desired resource only observes.
func observesOnly(d *fnv1.Resource) bool {
	policies := d.GetResource().GetFields()["spec"].GetStructValue().GetFields()["managementPolicies"].GetListValue().GetValues()
	return len(policies) == 1 && policies[0].GetStringValue() == "Observe"
}

// observedNothing is an observe-only resource as its provider reports it when what it
// observes does not exist, in crossplane-runtime's words.
func observedNothing(t testing.TB, desired *fnv1.Resource, name string) map[string]any {
	o := lastApplied(t, desired, name)
	o["status"] = map[string]any{"conditions": []any{map[string]any{"type": "Synced", "status": "False", "reason": "ReconcileError",
		"message": "observe failed: external resource does not exist"}}}
	return o
}

func runWith(t testing.TB, fn *Function, req *fnv1.RunFunctionRequest) *fnv1.RunFunctionResponse {
	t.Helper()
	rsp, err := fn.RunFunction(context.Background(), req)
	if err != nil {
		t.Fatalf("RunFunction returned an error: %v", err)
	}
	return rsp
}

// specOf is the spec of a resource in a response.
func specOf(t *testing.T, rsp *fnv1.RunFunctionResponse, name string) *structpb.Value {
	t.Helper()
	r, ok := rsp.GetDesired().GetResources()[name]
	if !ok {
		t.Fatalf("the response does not desire %s; it desires %v", name, keys(rsp.GetDesired().GetResources()))
	}
	return r.GetResource().GetFields()["spec"]
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestObservedButNotYetReportedIsKept: an Object around a Shoot or a Cluster that exists
// but carries no observed manifest yet (a provider that has not synced, a restore from
// backup) is a cluster that exists. It is kept as it was last applied: not dropped (the
// Cluster Stacks case, while the releases are unknown too, deleted the CAPI Cluster), and
// not rendered as new (the Gardener case dropped the patch and machine images Gardener
// chose, and skipped every update check).
func TestObservedButNotYetReportedIsKept(t *testing.T) {
	gardenerApplied := lastApplied(t, run(t, gardenerReady(t)).GetDesired().GetResources()["gardener-shoot"], "gardener-shoot")
	gardener := requestFor(t, readObject(t, exampleXR), readObjects(t, exampleEnvironment), gardenerApplied)
	// The user asks for another maintenance window meanwhile: it must wait until the Shoot
	// is observed, because only then can the update be checked against what runs.
	spec := gardener.GetObserved().GetComposite().GetResource().GetFields()["spec"].GetStructValue()
	spec.Fields["maintenance"] = structpb.NewStructValue(mustStruct(t, map[string]any{"window": map[string]any{"begin": "020000+0000", "end": "030000+0000"}}))

	remoteXR := deepCopy(readObject(t, exampleCAPIXR))
	remoteXR["spec"].(map[string]any)["environment"] = "clusterstack-remote"
	created, _ := runNew(t, withRequired(t, requestFor(t, remoteXR, readDir(t, exampleEnvironments)), "clusterstack-releases", remoteReleases(t)))
	clusterApplied := lastApplied(t, created.GetDesired().GetResources()["clusterstack-cluster"], "clusterstack-cluster")
	// The releases' Objects are gone from the management cluster's view (a provider
	// restart): the collection is fetched but empty.
	clusterstack := withRequired(t, requestFor(t, remoteXR, readDir(t, exampleEnvironments), clusterApplied), "clusterstack-releases", nil)

	cases := map[string]struct {
		req      *fnv1.RunFunctionRequest
		resource string
		applied  map[string]any
		golden   string
	}{
		"GardenerShoot":             {req: gardener, resource: "gardener-shoot", applied: gardenerApplied, golden: "gardener-shoot-not-observed-yet"},
		"RemoteClusterStackCluster": {req: clusterstack, resource: "clusterstack-cluster", applied: clusterApplied, golden: "clusterstack-cluster-not-observed-yet"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			rsp := run(t, tc.req)
			want := mustStruct(t, tc.applied).GetFields()["spec"]
			if diff := cmp.Diff(want, specOf(t, rsp, tc.resource), protocmp.Transform()); diff != "" {
				t.Errorf("%s is not desired as it was last applied (-applied, +desired):\n%s", tc.resource, diff)
			}
			compareGolden(t, tc.golden, rsp)
		})
	}
}

// remoteReleases are the example releases as a remote management cluster reports them:
// each wrapped in an observe-only Object of the collection.
func remoteReleases(t testing.TB) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, rel := range readObjects(t, exampleCAPIReleases) {
		out = append(out, map[string]any{
			"apiVersion": "kubernetes.crossplane.io/v1alpha2", "kind": "Object",
			"metadata": map[string]any{"name": "shop-9q8rz-releases-" + rel["metadata"].(map[string]any)["name"].(string),
				"labels": map[string]any{"kubernetes.crossplane.io/owned-by-collection": "shop-9q8rz-releases"}},
			"spec":   map[string]any{"managementPolicies": []any{"Observe"}, "forProvider": map[string]any{"manifest": map[string]any{}}},
			"status": map[string]any{"atProvider": map[string]any{"manifest": rel}},
		})
	}
	return out
}

// compareGolden compares a response with testdata/golden/<name>.yaml (go test -update
// rewrites it; review the diff).
func compareGolden(t *testing.T, name string, rsp *fnv1.RunFunctionResponse) {
	t.Helper()
	checkGolden(t, name, responseYAML(t, proto.Clone(rsp).(*fnv1.RunFunctionResponse)))
}

// magnumTwoZones is the example Magnum environment with a second zone, nova2.
func magnumTwoZones(t *testing.T, zones ...any) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, e := range readDir(t, exampleEnvironments) {
		if e["metadata"].(map[string]any)["name"] == "magnum-regionone" {
			e = deepCopy(e)
			e["data"].(map[string]any)["catalog"].(map[string]any)["zones"] = zones
		}
		out = append(out, e)
	}
	return out
}

// magnumWithZones is the example Magnum XR whose default pool stays in nova and whose
// second pool has the given zones (none: the environment's).
func magnumWithZones(t *testing.T, zones ...any) map[string]any {
	t.Helper()
	xr := deepCopy(readObject(t, exampleMagnumXR))
	pools := xr["spec"].(map[string]any)["nodePools"].([]any)
	pools[0].(map[string]any)["zones"] = []any{"nova"}
	if len(zones) > 0 {
		pools[1].(map[string]any)["zones"] = zones
	}
	return xr
}

// magnumBuilt is the observed state of a Magnum cluster once the function built it: the
// ClusterV1 with its id and the node groups the function desired for it, and the
// composite with the status the function wrote.
func magnumBuilt(t *testing.T, xr map[string]any, envs []map[string]any) (map[string]any, []map[string]any) {
	t.Helper()
	cluster := readObject(t, exampleMagnumObservedCreated)
	rsp := run(t, requestFor(t, xr, envs, cluster))
	for _, r := range rsp.GetResults() {
		if r.GetSeverity() == fnv1.Severity_SEVERITY_FATAL {
			t.Fatalf("building the cluster was refused: %s", r.GetMessage())
		}
	}
	observed := []map[string]any{cluster}
	for name, r := range rsp.GetDesired().GetResources() {
		if name != "magnum-cluster" {
			observed = append(observed, lastApplied(t, r, name))
		}
	}
	built := deepCopy(xr)
	built["status"] = rsp.GetDesired().GetComposite().GetResource().GetFields()["status"].GetStructValue().AsMap()
	return built, observed
}

// TestZonesOfAnExistingPoolStay: zones go away neither because the user removes one from
// a pool nor because the platform edits the environment's zones. Either used to drop the
// zone's NodegroupV1 on Magnum, and Crossplane deleted it with its nodes.
func TestZonesOfAnExistingPoolStay(t *testing.T) {
	t.Run("UserRemovesAZone", func(t *testing.T) {
		envs := magnumTwoZones(t, "nova", "nova2")
		built, observed := magnumBuilt(t, magnumWithZones(t, "nova", "nova2"), envs)
		if len(observed) != 3 {
			t.Fatalf("want the ClusterV1 and two node groups observed, got %d objects", len(observed))
		}
		edited := deepCopy(built)
		edited["spec"].(map[string]any)["nodePools"].([]any)[1].(map[string]any)["zones"] = []any{"nova"}
		got := run(t, withPreviousStep(requestFor(t, edited, envs, observed...)))
		want := refused("InvalidSpec", `XSCSCluster "shop-4h7tw" is invalid (1 problem): spec.nodePools[1].zones: Forbidden: the zones of an existing node pool cannot change (pool workers runs in nova, nova2; the spec asks for nova): removing a zone would delete its nodes and adding one cannot be done in place on every backend; add a new pool for other zones and remove this one when it is empty`)
		if diff := cmp.Diff(want, got, protocmp.Transform()); diff != "" {
			t.Errorf("RunFunction: -want, +got:\n%s", diff)
		}
	})
	t.Run("PlatformEditsTheEnvironmentsZones", func(t *testing.T) {
		built, observed := magnumBuilt(t, magnumWithZones(t), magnumTwoZones(t, "nova", "nova2"))
		rsp := run(t, requestFor(t, built, magnumTwoZones(t, "nova"), observed...))
		for _, o := range observed {
			name := o["metadata"].(map[string]any)["annotations"].(map[string]any)["crossplane.io/composition-resource-name"].(string)
			if _, ok := rsp.GetDesired().GetResources()[name]; !ok {
				t.Errorf("%s exists but is no longer desired: Crossplane would delete it", name)
			}
		}
		compareGolden(t, "magnum-environment-zones-edited", rsp)
	})
}

// TestSpecThatBypassedTheAPIServer: a pool with neither count nor autoscaling, which the
// XRD refuses but crossplane render and objects stored before a rule existed do not, is
// refused like any invalid spec on every backend. It used to crash the function.
func TestSpecThatBypassedTheAPIServer(t *testing.T) {
	sizeless := func(path string) map[string]any {
		xr := deepCopy(readObject(t, path))
		pool := xr["spec"].(map[string]any)["nodePools"].([]any)[1].(map[string]any)
		delete(pool, "count")
		delete(pool, "autoscaling")
		return xr
	}
	cases := map[string]struct {
		req  *fnv1.RunFunctionRequest
		want *fnv1.RunFunctionResponse
	}{
		"Gardener": {
			req:  lookedOut(t, withPreviousStep(requestFor(t, sizeless(exampleXR), readObjects(t, exampleEnvironment)))),
			want: refused("InvalidSpec", `XSCSCluster "shop-x7k2p" is invalid (1 problem): spec.nodePools[1]: Required value: set exactly one of count (a fixed size) or autoscaling (min and max)`),
		},
		"ClusterStack": {
			req: lookedOut(t, withPreviousStep(withRequired(t, withRequired(t, requestFor(t, sizeless(exampleCAPIXR), readDir(t, exampleEnvironments)),
				"clusterstack-releases", readObjects(t, exampleCAPIReleases)), "clusterstack-kubeconfig", nil))),
			want: refused("InvalidSpec", `XSCSCluster "shop-9q8rz" is invalid (1 problem): spec.nodePools[1]: Required value: set exactly one of count (a fixed size) or autoscaling (min and max)`),
		},
		"Magnum": {
			req:  withPreviousStep(requestFor(t, sizeless(exampleMagnumXR), readDir(t, exampleEnvironments), readObject(t, exampleMagnumObservedCreated))),
			want: refused("InvalidSpec", `XSCSCluster "shop-4h7tw" is invalid (1 problem): spec.nodePools[1]: Required value: set exactly one of count (a fixed size) or autoscaling (min and max)`),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, run(t, tc.req), protocmp.Transform()); diff != "" {
				t.Errorf("RunFunction: -want, +got:\n%s", diff)
			}
		})
	}
}

// panickingBackend stands for a bug on an input nobody foresaw.
type panickingBackend struct{ gardener.Backend }

func (panickingBackend) Translate(*model.Request) (*model.Translation, error) { panic("a bug") }

// TestPanicEndsInAFatalResult: a panic reaches neither the process (which would crash for
// every tenant) nor the desired state (which would be half written): the response is the
// Fatal result with the desired state as it came in, and the log has the stack.
func TestPanicEndsInAFatalResult(t *testing.T) {
	var logged bytes.Buffer
	fn := NewFunction(logging.NewLogrLogger(funcr.New(func(prefix, args string) { logged.WriteString(args + "\n") }, funcr.Options{})))
	fn.backends = model.NewRegistry(panickingBackend{})
	got := runWith(t, fn, lookedOut(t, withPreviousStep(requestFor(t, readObject(t, exampleXR), readObjects(t, exampleEnvironment)))))
	want := refused("InternalError", "the function failed on this composite resource with an internal error, logged with its stack; nothing was changed: please report it")
	if diff := cmp.Diff(want, got, protocmp.Transform()); diff != "" {
		t.Errorf("RunFunction: -want, +got:\n%s", diff)
	}
	for _, w := range []string{`"panic"="a bug"`, "panickingBackend.Translate", `"xr"="shop-x7k2p"`} {
		if !strings.Contains(logged.String(), w) {
			t.Errorf("the log should contain %q:\n%s", w, logged.String())
		}
	}
}

// TestSecretInAnObjectsStatusIsRefused: provider-kubernetes without --sanitize-secrets
// copies the Cluster API kubeconfig Secret into the status of the Object that observes it.
// The function refuses, says how to fix the provider, and passes the data on nowhere.
func TestSecretInAnObjectsStatusIsRefused(t *testing.T) {
	const leaked = "a2luZDogQ29uZmlnCnVzZXJzOiBbXQo=" // what must not travel
	xr := deepCopy(readObject(t, exampleCAPIXR))
	xr["spec"].(map[string]any)["environment"] = "clusterstack-remote"
	observer := map[string]any{
		"apiVersion": "kubernetes.crossplane.io/v1alpha2", "kind": "Object",
		"metadata": map[string]any{"name": "shop-6bru6k-kubeconfig", "annotations": map[string]any{"crossplane.io/composition-resource-name": "clusterstack-kubeconfig"}},
		"spec":     map[string]any{"managementPolicies": []any{"Observe"}, "forProvider": map[string]any{"manifest": map[string]any{"apiVersion": "v1", "kind": "Secret"}}},
		"status": map[string]any{"atProvider": map[string]any{"manifest": map[string]any{
			"apiVersion": "v1", "kind": "Secret", "metadata": map[string]any{"name": "shop-9q8rz-kubeconfig", "namespace": "kaas-team1"},
			"data": map[string]any{"value": leaked},
		}}},
	}
	req := withPreviousStep(withRequired(t, requestFor(t, xr, readDir(t, exampleEnvironments), observer), "clusterstack-releases", remoteReleases(t)))
	got := run(t, req)
	want := refused("SecretExposed", "clusterstack-kubeconfig (Object shop-6bru6k-kubeconfig) carries the data of the Secret it observes in its status, readable by anyone who may read Objects: provider-kubernetes runs without --sanitize-secrets. Start it with --sanitize-secrets (a DeploymentRuntimeConfig argument); until then nothing is changed")
	if diff := cmp.Diff(want, got, protocmp.Transform()); diff != "" {
		t.Errorf("RunFunction: -want, +got:\n%s", diff)
	}

	// With --sanitize-secrets the data is a marker, and the cluster renders.
	observer["status"].(map[string]any)["atProvider"].(map[string]any)["manifest"].(map[string]any)["data"] = map[string]any{"redacted": nil}
	for _, r := range run(t, withRequired(t, requestFor(t, xr, readDir(t, exampleEnvironments), observer), "clusterstack-releases", remoteReleases(t))).GetResults() {
		if r.GetSeverity() == fnv1.Severity_SEVERITY_FATAL {
			t.Errorf("a sanitized Secret is refused: %s", r.GetMessage())
		}
	}
}

// TestDeletionPolicyAnnotation: a value of kaas.scs.community/deletion-policy the API does
// not know is refused with the allowed values, nothing changed: guessing would delete a
// cluster meant to be kept, or the reverse. Orphan on an unprotected cluster orphans the
// Shoot's Object and says so in the status, which the deletion protection policy trusts.
func TestDeletionPolicyAnnotation(t *testing.T) {
	annotated := func(value string) map[string]any {
		xr := deepCopy(readObject(t, exampleXR))
		xr["metadata"].(map[string]any)["annotations"] = map[string]any{"kaas.scs.community/deletion-policy": value}
		xr["spec"].(map[string]any)["deletionProtection"] = false
		return xr
	}
	got := run(t, withPreviousStep(requestFor(t, annotated("Keep"), readObjects(t, exampleEnvironment))))
	want := refused("InvalidSpec", `annotation kaas.scs.community/deletion-policy: "Keep" is not a deletion policy; allowed: [Delete Orphan]`)
	if diff := cmp.Diff(want, got, protocmp.Transform()); diff != "" {
		t.Errorf("RunFunction with an unknown deletion policy: -want, +got:\n%s", diff)
	}

	for value, wantPolicy := range map[string]string{"Orphan": "Orphan", "Delete": "Delete"} {
		rsp, _ := runNew(t, requestFor(t, annotated(value), readObjects(t, exampleEnvironment)))
		shoot := specOf(t, rsp, gardener.ResourceShoot).GetStructValue().GetFields()["deletionPolicy"].GetStringValue()
		status := rsp.GetDesired().GetComposite().GetResource().GetFields()["status"].GetStructValue().GetFields()["backend"].GetStructValue().GetFields()["deletionPolicy"].GetStringValue()
		if shoot != wantPolicy || status != wantPolicy {
			t.Errorf("annotation %s on an unprotected cluster: Shoot Object deletionPolicy %q, status.backend.deletionPolicy %q; want both %s", value, shoot, status, wantPolicy)
		}
	}
}

// TestShootRefusedByTheGardenIsRenderedAnew: gardener-apiserver's admission refused the
// Shoot (a machine type the CloudProfile does not offer), so provider-kubernetes could not
// create it. The Object has nothing behind it: it is not kept as last applied, or the
// corrected claim could never reach the garden; the refusal is on the claim, in the
// garden's words.
func TestShootRefusedByTheGardenIsRenderedAnew(t *testing.T) {
	const refusal = `create failed: cannot create object: shoots.core.gardener.cloud "shop-6bru6k" is forbidden: spec.provider.workers[0].machine.type: Unsupported value: "SCS-4V-16"`
	refused := lastApplied(t, run(t, gardenerReady(t)).GetDesired().GetResources()["gardener-shoot"], "gardener-shoot")
	refused["status"] = map[string]any{"conditions": []any{
		map[string]any{"type": "Synced", "status": "False", "reason": "ReconcileError", "message": refusal},
		map[string]any{"type": "Ready", "status": "False", "reason": "Creating"},
	}}
	req := requestFor(t, readObject(t, exampleXR), readObjects(t, exampleEnvironment), refused)
	// The user corrects the machine type of the first pool meanwhile.
	pools := req.GetObserved().GetComposite().GetResource().GetFields()["spec"].GetStructValue().GetFields()["nodePools"].GetListValue()
	pools.GetValues()[0].GetStructValue().GetFields()["machineType"] = structpb.NewStringValue("SCS-8V-32")

	pool := pools.GetValues()[0].GetStructValue().GetFields()["name"].GetStringValue()

	rsp := run(t, req)
	workers := specOf(t, rsp, gardener.ResourceShoot).GetStructValue().AsMap()["forProvider"].(map[string]any)["manifest"].(map[string]any)["spec"].(map[string]any)["provider"].(map[string]any)["workers"].([]any)
	machineType := ""
	for _, w := range workers {
		if w := w.(map[string]any); w["name"] == pool {
			machineType, _ = w["machine"].(map[string]any)["type"].(string)
		}
	}
	if machineType != "SCS-8V-32" {
		t.Errorf("worker %s has machine type %q, want the corrected SCS-8V-32: the refused Shoot's Object must not be kept as last applied", pool, machineType)
	}
	var got *fnv1.Condition
	for _, c := range rsp.GetConditions() {
		if c.GetType() == "BackendSynced" {
			got = c
		}
	}
	if got == nil || got.GetStatus() != fnv1.Status_STATUS_CONDITION_FALSE || got.GetReason() != "ApplyFailed" ||
		!strings.Contains(got.GetMessage(), refusal) || got.GetTarget() != fnv1.Target_TARGET_COMPOSITE_AND_CLAIM {
		t.Errorf("BackendSynced = %v, want False/ApplyFailed for composite and claim with the garden's refusal", got)
	}
}
