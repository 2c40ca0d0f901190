package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/crossplane/function-sdk-go/logging"
	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
	"github.com/crossplane/function-sdk-go/resource"
	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/testing/protocmp"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/structpb"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"
)

var update = flag.Bool("update", false, "rewrite the golden responses in testdata/golden")

// fromPreviousStep is a desired resource an earlier pipeline step produced. Every error
// path must hand it back untouched: Crossplane deletes what the desired state lacks.
const fromPreviousStep = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"platform-extra"}}`

func withPreviousStep(req *fnv1.RunFunctionRequest) *fnv1.RunFunctionRequest {
	req.Desired = &fnv1.State{Resources: map[string]*fnv1.Resource{
		"platform-extra": {Resource: resource.MustStructJSON(fromPreviousStep)},
	}}
	return req
}

func refused(reason, msg string) *fnv1.RunFunctionResponse {
	return &fnv1.RunFunctionResponse{
		Meta: &fnv1.ResponseMeta{Tag: "test", Ttl: durationpb.New(ttlConverging)},
		Desired: &fnv1.State{Resources: map[string]*fnv1.Resource{
			"platform-extra": {Resource: resource.MustStructJSON(fromPreviousStep)},
		}},
		Results: []*fnv1.Result{
			// The claim's event: Crossplane emits it before the Fatal result stops it.
			{Severity: fnv1.Severity_SEVERITY_WARNING, Message: msg, Reason: ptr.To(reason), Target: fnv1.Target_TARGET_COMPOSITE_AND_CLAIM.Enum()},
			{Severity: fnv1.Severity_SEVERITY_FATAL, Message: msg, Reason: ptr.To(reason), Target: fnv1.Target_TARGET_COMPOSITE.Enum()},
		},
		Conditions: []*fnv1.Condition{{
			Type: "Rendered", Status: fnv1.Status_STATUS_CONDITION_FALSE, Reason: reason,
			Message: ptr.To(msg), Target: fnv1.Target_TARGET_COMPOSITE_AND_CLAIM.Enum(),
		}, {
			// kstatus readers (Flux) see a refused cluster as Failed.
			Type: "Stalled", Status: fnv1.Status_STATUS_CONDITION_TRUE, Reason: reason,
			Message: ptr.To(msg), Target: fnv1.Target_TARGET_COMPOSITE_AND_CLAIM.Enum(),
		}},
	}
}

// TestRunFunction covers the first call and every path that must refuse: each ends in a
// Fatal result with the desired state exactly as it came in.
func TestRunFunction(t *testing.T) {
	xr := readObject(t, exampleXR)
	env := readObject(t, exampleEnvironment)
	envs := []map[string]any{env}

	edit := func(obj map[string]any, f func(m map[string]any)) map[string]any {
		c := deepCopy(obj)
		f(c)
		return c
	}
	spec := func(m map[string]any) map[string]any { return m["spec"].(map[string]any) }
	otherEnv := edit(env, func(m map[string]any) {
		m["metadata"] = map[string]any{"name": "magnum-cfg", "labels": map[string]any{"kaas.scs.community/environment": "magnum-regionone"}}
	})

	cases := map[string]struct {
		req  *fnv1.RunFunctionRequest
		want *fnv1.RunFunctionResponse
	}{
		"FirstCallAsksForTheEnvironments": {
			req: withPreviousStep(requestFor(t, xr, nil)),
			want: &fnv1.RunFunctionResponse{
				Meta: &fnv1.ResponseMeta{Tag: "test", Ttl: durationpb.New(ttlConverging)},
				Desired: &fnv1.State{Resources: map[string]*fnv1.Resource{
					"platform-extra": {Resource: resource.MustStructJSON(fromPreviousStep)},
				}},
				Requirements: &fnv1.Requirements{Resources: map[string]*fnv1.ResourceSelector{
					"environments": {
						ApiVersion: "apiextensions.crossplane.io/v1beta1", Kind: "EnvironmentConfig",
						Match: &fnv1.ResourceSelector_MatchLabels{MatchLabels: &fnv1.MatchLabels{Labels: map[string]string{}}},
					},
				}},
			},
		},
		"CompositeNotDecodable": {
			req: withPreviousStep(requestFor(t, edit(xr, func(m map[string]any) {
				spec(m)["nodePools"] = "three"
			}), envs)),
			want: refused("RenderFailed",
				"cannot decode the observed composite resource as XSCSCluster: json: cannot unmarshal string into Go struct field ClusterSpec.spec.nodePools of type []v1alpha1.NodePool"),
		},
		"NoEnvironmentConfigAtAll": {
			req: withPreviousStep(requestFor(t, xr, []map[string]any{})),
			want: refused("EnvironmentUnavailable",
				`environment "gardener-regionone" is not offered to namespace team1; no environment is offered to namespace team1: the platform team admits namespaces in an EnvironmentConfig's data.access`),
		},
		"NamedEnvironmentMissing": {
			req: withPreviousStep(requestFor(t, xr, []map[string]any{otherEnv})),
			want: refused("EnvironmentUnavailable",
				`environment "gardener-regionone" is not offered to namespace team1; environments offered to namespace team1: magnum-regionone`),
		},
		// Another team asks for team1's environment: refused in the same words as for one
		// that does not exist, naming only what the team may use (nothing).
		"AnotherTeamsEnvironment": {
			req: withPreviousStep(requestFor(t, edit(xr, func(m map[string]any) {
				m["metadata"].(map[string]any)["labels"].(map[string]any)["crossplane.io/claim-namespace"] = "team3"
			}), readDir(t, exampleEnvironments))),
			want: refused("EnvironmentUnavailable",
				`environment "gardener-regionone" is not offered to namespace team3; no environment is offered to namespace team3: the platform team admits namespaces in an EnvironmentConfig's data.access`),
		},
		// A team writes Crossplane's claim labels on its namespaced SCSCluster to speak for
		// team1: the composite is still its own namespace's, and gets nothing of team1's.
		"ForgedClaimLabelsOnANamespacedComposite": {
			req: withPreviousStep(requestFor(t, edit(namespacedXR(t, exampleXR), func(m map[string]any) {
				m["metadata"] = map[string]any{"name": "shop", "namespace": "team3",
					"labels": map[string]any{"crossplane.io/claim-namespace": "team1", "crossplane.io/claim-name": "shop"}}
			}), readDir(t, exampleEnvironments))),
			want: refused("EnvironmentUnavailable",
				`environment "gardener-regionone" is not offered to namespace team3; no environment is offered to namespace team3: the platform team admits namespaces in an EnvironmentConfig's data.access`),
		},
		"AmbiguousEnvironment": {
			req: withPreviousStep(requestFor(t, xr, []map[string]any{env, edit(env, func(m map[string]any) {
				m["metadata"].(map[string]any)["name"] = "gardener-regionone-copy"
			})})),
			want: refused("EnvironmentUnavailable",
				`environment "gardener-regionone" is ambiguous: EnvironmentConfigs gardener-regionone, gardener-regionone-copy are all labelled kaas.scs.community/environment=gardener-regionone; exactly one may be`),
		},
		"UnknownBackend": {
			req: withPreviousStep(requestFor(t, xr, []map[string]any{edit(env, func(m map[string]any) { m["data"].(map[string]any)["backend"] = "openshift" })})),
			want: refused("InvalidEnvironment",
				`environment "gardener-regionone" (EnvironmentConfig gardener-regionone): unknown backend "openshift": supported backends are clusterstack, gardener, magnum`),
		},
		// Refused once the lookout found nothing that runs (observe before managing); while
		// it looks, a Warning says so (TestInvalidSpecWhileLooking).
		"InvalidSpec": {
			req: lookedOut(t, withPreviousStep(requestFor(t, edit(xr, func(m map[string]any) {
				spec(m)["kubernetes"] = map[string]any{"version": "1.30"}
				spec(m)["nodePools"].([]any)[1].(map[string]any)["autoscaling"] = map[string]any{"min": 9, "max": 3}
			}), envs))),
			want: refused("InvalidSpec",
				`XSCSCluster "shop-x7k2p" is invalid (2 problems): spec.kubernetes.version: Unsupported value: "1.30": supported values: "1.33", "1.34", "1.35"; spec.nodePools[1].autoscaling.min: Invalid value: 9: must not be greater than autoscaling.max (3)`),
		},
		// An add-on catalog the platform got wrong refuses the cluster, not only its add-ons:
		// rendering without them would have Crossplane delete the installed ones.
		"InvalidAddonCatalog": {
			req: withPreviousStep(requestFor(t, xr, []map[string]any{edit(env, func(m map[string]any) {
				m["data"].(map[string]any)["addons"] = []any{map[string]any{"name": "base", "source": map[string]any{}}}
			})})),
			want: refused("InvalidEnvironment",
				`environment "gardener-regionone" (EnvironmentConfig gardener-regionone) is invalid (1 problem): data.addons[0].source: Required value: exactly one of oci, git and sourceRef`),
		},
		"EnforcedAddonDisabled": {
			req: lookedOut(t, withPreviousStep(requestFor(t, edit(xr, func(m map[string]any) {
				spec(m)["addons"] = map[string]any{"disable": []any{"base"}}
			}), []map[string]any{edit(env, func(m map[string]any) {
				m["data"].(map[string]any)["addons"] = []any{map[string]any{"name": "base", "enforced": true,
					"source": map[string]any{"oci": map[string]any{"url": "oci://registry.example/base", "tag": "1"}}}}
			})}))),
			want: refused("InvalidSpec",
				`XSCSCluster "shop-x7k2p" is invalid (1 problem): spec.addons.disable[0]: Forbidden: add-on base is enforced by environment gardener-regionone (EnvironmentConfig gardener-regionone): every cluster there has it`),
		},
		"ObservedResourceOfAnotherBackend": {
			req: withPreviousStep(requestFor(t, xr, envs, map[string]any{
				"apiVersion": "containerinfra.openstack.crossplane.io/v1alpha1", "kind": "ClusterV1",
				"metadata": map[string]any{"name": "shop", "annotations": map[string]any{"crossplane.io/composition-resource-name": "magnum-cluster"}},
			})),
			want: refused("ReplacementRefused",
				`the cluster has resources of another backend than "gardener", which its environment names now: magnum-cluster (backend magnum); switching backends would delete them and replace the cluster, so nothing was changed`),
		},
		"UndecodableObservedShoot": {
			req: withPreviousStep(requestFor(t, xr, envs, map[string]any{
				"apiVersion": "kubernetes.crossplane.io/v1alpha2", "kind": "Object",
				"metadata": map[string]any{"name": "shop-x7k2p-shoot", "annotations": map[string]any{"crossplane.io/composition-resource-name": "gardener-shoot"}},
				"status":   map[string]any{"atProvider": map[string]any{"manifest": "garbage"}},
			})),
			want: refused("ObservedStateUnreadable", `Object shop-x7k2p-shoot: status.atProvider.manifest is a string, not an object`),
		},
		// A ForceNew change on Magnum: refused, and the existing ClusterV1 stays desired
		// as it was (nothing of ours is in the response, so nothing is changed).
		"MagnumForceNewChange": {
			req: withPreviousStep(requestFor(t, edit(readObject(t, exampleMagnumXR), func(m map[string]any) {
				spec(m)["nodePools"].([]any)[0].(map[string]any)["machineType"] = "SCS-8V-32"
			}), readDir(t, exampleEnvironments), readObject(t, exampleMagnumObservedCreated))),
			want: refused("InvalidSpec",
				`XSCSCluster "shop-4h7tw" is invalid (1 problem): spec.nodePools[0].machineType: Forbidden: Magnum cannot change flavor of the Magnum cluster in place ("SCS-4V-8", now "SCS-8V-32"): it would need a new cluster or node group, so nothing was changed; revert the change or create a new cluster`),
		},
		"NotAnXSCSCluster": {
			req:  withPreviousStep(requestFor(t, map[string]any{"apiVersion": "example.org/v1", "kind": "XDatabase", "metadata": map[string]any{"name": "db"}}, envs)),
			want: refused("RenderFailed", "the composite resource is a example.org/v1 XDatabase; this function composes kaas.scs.community/v1alpha1 XSCSCluster (cluster-scoped, with claims) and namespaced SCSCluster only"),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := NewFunction(logging.NewNopLogger()).RunFunction(context.Background(), tc.req)
			if err != nil {
				t.Fatalf("RunFunction returned an error: %v", err)
			}
			if diff := cmp.Diff(tc.want, got, protocmp.Transform()); diff != "" {
				t.Errorf("RunFunction: -want, +got:\n%s", diff)
			}
		})
	}
}

// TestRunFunctionGolden renders the examples and compares whole responses with reviewed
// golden files. The same files are checked against Gardener's schema and Gardener's own
// validation (test/gardener), so a golden file is never merely what the code happens to do.
// Run go test -update after an intended change and review the diff.
func TestRunFunctionGolden(t *testing.T) {
	xr := readObject(t, exampleXR)
	envs := readObjects(t, exampleEnvironment)
	allEnvs := readDir(t, exampleEnvironments)
	capi := readObject(t, exampleCAPIXR)
	releases := readObjects(t, exampleCAPIReleases)
	kubeconfig := readObjects(t, exampleCAPIKubeconfig)
	capiRequest := func(secret []map[string]any, observed ...map[string]any) *fnv1.RunFunctionRequest {
		req := withRequired(t, requestFor(t, capi, allEnvs, observed...), "clusterstack-releases", releases)
		return withRequired(t, req, "clusterstack-kubeconfig", secret)
	}
	magnumXR := readObject(t, exampleMagnumXR)
	magnumReady := withConnectionSecret(t, requestFor(t, magnumXR, allEnvs, readObjects(t, exampleMagnumObservedReady)...), "magnum-cluster", exampleMagnumSecret)
	cases := map[string]*fnv1.RunFunctionRequest{
		// A new cluster first looks whether its Shoot exists, writing nothing (observe-only).
		"gardener-looks-before-creating": requestFor(t, xr, envs),
		"gardener-create":                lookedOut(t, requestFor(t, xr, envs)),
		"gardener-ready":                 gardenerReady(t),
		"gardener-quota-exceeded":        requestFor(t, xr, envs, readObject(t, exampleObservedQuota)),
		// A local Cluster is looked for by name, in the same call.
		"clusterstack-looks-before-creating": capiRequest(nil),
		"clusterstack-create":                lookedOut(t, capiRequest(nil)),
		"clusterstack-ready":                 capiRequest(kubeconfig, readObject(t, exampleCAPIObservedReady)),
		"clusterstack-unavailable":           capiRequest(nil, readObject(t, exampleCAPIObservedFailed)),
		// The releases are fetched only once the environment is known.
		"clusterstack-asks-for-releases": requestFor(t, capi, allEnvs),
		"magnum-create":                  requestFor(t, magnumXR, allEnvs),
		// The cluster id is known: the second pool becomes a NodegroupV1.
		"magnum-cluster-created": requestFor(t, magnumXR, allEnvs, readObject(t, exampleMagnumObservedCreated)),
		"magnum-ready":           magnumReady,
		"magnum-quota-exceeded":  requestFor(t, magnumXR, allEnvs, readObject(t, exampleMagnumObservedQuota)),
	}
	for name, req := range cases {
		t.Run(name, func(t *testing.T) {
			compareGolden(t, name, run(t, req))
		})
	}
}

// checkGolden compares got with testdata/golden/<name>.yaml; go test -update rewrites the
// file. A golden file is reviewed, never merely what the code happens to do.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name+".yaml")
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("cannot read %s (run go test -update to create it): %v", path, err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("response differs from %s (-want, +got); if intended, run go test -update and review:\n%s", path, diff)
	}
}

// TestRunFunctionIsDeterministic: the same request gives the same bytes, every time, so
// GitOps diffs and offline renders are stable.
func TestRunFunctionIsDeterministic(t *testing.T) {
	req := gardenerReady(t)
	fn := NewFunction(logging.NewNopLogger())
	marshal := proto.MarshalOptions{Deterministic: true}
	var first []byte
	for i := range 50 {
		rsp, err := fn.RunFunction(context.Background(), proto.Clone(req).(*fnv1.RunFunctionRequest))
		if err != nil {
			t.Fatal(err)
		}
		got, err := marshal.Marshal(rsp)
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			first = got
			continue
		}
		if string(got) != string(first) {
			t.Fatalf("call %d returned other bytes than call 0", i)
		}
	}
}

// TestRunFunctionTTL: a ready cluster is checked less often than one on its way, unless
// Crossplane drops its watch events.
func TestRunFunctionTTL(t *testing.T) {
	xr := readObject(t, exampleXR)
	envs := readObjects(t, exampleEnvironment)
	responsive := func(status, reason string) *fnv1.RunFunctionRequest {
		req := gardenerReady(t)
		composite := req.GetObserved().GetComposite().GetResource().AsMap()
		xrStatus, _ := composite["status"].(map[string]any)
		if xrStatus == nil {
			xrStatus = map[string]any{}
			composite["status"] = xrStatus
		}
		conditions, _ := xrStatus["conditions"].([]any)
		xrStatus["conditions"] = append(conditions, map[string]any{"type": "Responsive", "status": status, "reason": reason})
		req.Observed.Composite.Resource = mustStruct(t, composite)
		return req
	}
	cases := map[string]struct {
		req  *fnv1.RunFunctionRequest
		want time.Duration
	}{
		"Provisioning": {req: requestFor(t, xr, envs), want: ttlConverging},
		"Ready":        {req: gardenerReady(t), want: ttlReady},
		// The team's edits wait for the TTL while the circuit is open.
		"ReadyWatchCircuitOpen":   {req: responsive("False", "WatchCircuitOpen"), want: ttlConverging},
		"ReadyWatchCircuitClosed": {req: responsive("True", "WatchCircuitClosed"), want: ttlReady},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			rsp, err := NewFunction(logging.NewNopLogger()).RunFunction(context.Background(), tc.req)
			if err != nil {
				t.Fatal(err)
			}
			if got := rsp.GetMeta().GetTtl().AsDuration(); got != tc.want {
				t.Errorf("ttl = %s, want %s", got, tc.want)
			}
		})
	}
}

// responseYAML renders a response for a golden file. Connection details are replaced by
// their SHA-256, so that golden files and test output never hold credentials while a
// changed kubeconfig still changes the file.
func responseYAML(t *testing.T, rsp *fnv1.RunFunctionResponse) []byte {
	t.Helper()
	rsp = proto.Clone(rsp).(*fnv1.RunFunctionResponse)
	hash := func(v []byte) string {
		sum := sha256.Sum256(v)
		return "sha256:" + hex.EncodeToString(sum[:])
	}
	if c := rsp.GetDesired().GetComposite(); c != nil {
		for k, v := range c.ConnectionDetails {
			c.ConnectionDetails[k] = []byte(hash(v))
		}
	}
	// So are the data of composed Secrets (a namespaced composite's kubeconfig Secret).
	for _, r := range rsp.GetDesired().GetResources() {
		f := r.GetResource().GetFields()
		if f["kind"].GetStringValue() != "Secret" {
			continue
		}
		for k, v := range f["data"].GetStructValue().GetFields() {
			f["data"].GetStructValue().Fields[k] = structpb.NewStringValue(hash([]byte(v.GetStringValue())))
		}
	}
	j, err := protojson.Marshal(rsp)
	if err != nil {
		t.Fatal(err)
	}
	y, err := yaml.JSONToYAML(j)
	if err != nil {
		t.Fatal(err)
	}
	return y
}

// gardenerReady is the request for a healthy Shoot whose admin kubeconfig was issued.
func gardenerReady(t testing.TB) *fnv1.RunFunctionRequest {
	req := requestFor(t, readObject(t, exampleXR), readObjects(t, exampleEnvironment), readObjects(t, exampleObservedReady)...)
	return withConnectionSecret(t, req, "gardener-kubeconfig", exampleKubeconfig)
}

// TestRunFunctionKeepsEarlierComposite: what earlier pipeline steps desired of the composite
// resource stays, its status fields merged with this API's, which win, and the request's
// desired state is not written to.
func TestRunFunctionKeepsEarlierComposite(t *testing.T) {
	fn := NewFunction(logging.NewNopLogger())
	base, err := fn.RunFunction(context.Background(), gardenerReady(t))
	if err != nil {
		t.Fatal(err)
	}
	req := gardenerReady(t)
	req.Desired = &fnv1.State{Composite: &fnv1.Resource{
		Resource:          resource.MustStructJSON(`{"metadata":{"annotations":{"platform":"kept"}},"status":{"fromEarlierStep":"kept","phase":"Overwritten"}}`),
		ConnectionDetails: map[string][]byte{"earlier": []byte("kept")},
	}}
	before := proto.Clone(req)
	rsp, err := fn.RunFunction(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if !proto.Equal(before, req) {
		t.Error("the request changed")
	}
	want := proto.Clone(base.GetDesired().GetComposite()).(*fnv1.Resource)
	want.Resource.Fields["metadata"] = structpb.NewStructValue(resource.MustStructJSON(`{"annotations":{"platform":"kept"}}`))
	want.Resource.Fields["status"].GetStructValue().Fields["fromEarlierStep"] = structpb.NewStringValue("kept")
	want.ConnectionDetails["earlier"] = []byte("kept")
	if diff := cmp.Diff(want, rsp.GetDesired().GetComposite(), protocmp.Transform()); diff != "" {
		t.Errorf("desired composite (-want +got):\n%s", diff)
	}
}
