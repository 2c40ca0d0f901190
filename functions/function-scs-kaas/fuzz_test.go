package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/crossplane/function-sdk-go/logging"
	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
	"github.com/crossplane/function-sdk-go/resource"
	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/testing/protocmp"
	"google.golang.org/protobuf/types/known/structpb"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/model"
)

// FuzzRunFunction sends RunFunction requests built from the examples (every backend,
// created, ready and failing clusters, a remote management cluster) and changed by the
// fuzzer: any spec as JSON, and a program of mutations of the composite, the environments,
// the observed composed resources and the required resources (fields deleted or of the
// wrong type, lists with duplicates, observed objects without status, manifest or
// connection details, objects gone or under two names, any setting of an environment
// edited). The bases include Ready clusters of every backend and flavour that have
// delivered their kubeconfig and recorded their placement (readyClusters). It checks the
// promises that keep clusters alive:
//
//   - the function never panics (a recovered panic counts: it is a bug);
//   - a Fatal result leaves the desired state exactly as it came in;
//   - otherwise every observed composed resource of the backend is desired again, except
//     those of a node pool the spec no longer has, and nothing is taken back
//     (checkNothingTakenBack: no resource that can hold a cluster or its credentials
//     dropped or given another identity, no data key of a Secret or of the composite's
//     connection details lost);
//   - the same request gives the same bytes.
//
// RunFunction is what function.Serve serves (TestServe): the path fuzzed is the one served.
//
// make fuzz runs it for a bounded time; failures the fuzzer finds land in testdata/fuzz
// and stay there as regression seeds (docs/reliability.md).
func FuzzRunFunction(f *testing.F) {
	bases := fuzzBases(f)
	for i, b := range bases {
		spec, err := json.Marshal(b.xr["spec"])
		if err != nil {
			f.Fatal(err)
		}
		f.Add(uint8(i), spec, []byte{})
		// A few programs that reach deep: drop the status of every observed object,
		// delete a field of the spec, duplicate a pool.
		f.Add(uint8(i), spec, []byte{3, 2, 0, 3, 2, 1, 3, 2, 2})
		f.Add(uint8(i), spec, []byte{0, 0, 1, 1, 0, 0})
		f.Add(uint8(i), spec, []byte{2, 0, 1, 3, 0})
		// Edits of the environments only: a platform team at work under the cluster, at
		// every string leaf of its environment.
		if b.ready {
			for _, program := range environmentEditPrograms(b) {
				f.Add(uint8(i), spec, program)
			}
		}
	}
	f.Fuzz(func(t *testing.T, base uint8, spec []byte, program []byte) {
		b := bases[int(base)%len(bases)]
		c := b.clone()
		var s map[string]any
		if json.Unmarshal(spec, &s) == nil && s != nil {
			c.xr["spec"] = s
		}
		c.mutate(&mutator{program: program})
		req, err := c.request()
		if err != nil {
			t.Skip("not a request Crossplane can send:", err)
		}
		rsp := checkPromises(t, c, req)
		if b.ready && c.onlyEnvironmentsDiffer(b) {
			checkEnvironmentEditChangesNoCluster(t, b, c, rsp)
		}
	})
}

// environmentEditPrograms are the mutator's programs that edit one string leaf of the
// environment of a Ready cluster each, as a platform team would (opEdit).
func environmentEditPrograms(c fuzzCase) [][]byte {
	var out [][]byte
	env := statusBackendOf(c.xr)
	for i, e := range c.envs {
		if e["metadata"].(map[string]any)["name"] != env {
			continue
		}
		var walk func(v any, program []byte)
		walk = func(v any, program []byte) {
			m, ok := v.(map[string]any)
			if !ok {
				return
			}
			ks := keys(m)
			slices.Sort(ks)
			for idx, k := range ks {
				if _, leaf := m[k].(string); leaf {
					if b, ok := pickByte(idx, len(ks), true); ok {
						out = append(out, append(slices.Clone(program), b))
					}
					continue
				}
				if b, ok := pickByte(idx, len(ks), false); ok {
					walk(m[k], append(slices.Clone(program), b))
				}
			}
		}
		walk(e, []byte{9, byte(i)})
	}
	return out
}

// pickByte is a byte of a mutator program that picks the idx-th of n keys and stops there
// (or goes on). Where n is a multiple of 5 no byte stops at a key whose index is not (the
// mutator stops on multiples of 5): that leaf gets no seed program, the fuzzer may still
// reach it by its other bytes.
func pickByte(idx, n int, stop bool) (byte, bool) {
	for b := range 256 {
		if b%n == idx && (b%5 == 0) == stop {
			return byte(b), true
		}
	}
	return 0, false
}

// statusBackendOf is the environment a composite's status names.
func statusBackendOf(xr map[string]any) string {
	s, _, _ := unstructured.NestedString(xr, "status", "backend", "environment")
	return s
}

// onlyEnvironmentsDiffer says whether c is base with edits of its environments only.
func (c fuzzCase) onlyEnvironmentsDiffer(base fuzzCase) bool {
	return reflect.DeepEqual(c.xr, base.xr) && reflect.DeepEqual(c.observed, base.observed) && reflect.DeepEqual(c.details, base.details) &&
		reflect.DeepEqual(c.required, base.required) && !reflect.DeepEqual(c.envs, base.envs)
}

// checkEnvironmentEditChangesNoCluster is the third safety property: an edit of any leaf
// of the environments under a Ready cluster changes none of its native objects, unless the
// value is one its backend declares to follow the environment. Only an edit that leaves no
// environment the cluster can use is refused.
func checkEnvironmentEditChangesNoCluster(t *testing.T, base, edited fuzzCase, rsp *fnv1.RunFunctionResponse) {
	t.Helper()
	edits := changedLeaves(base.envs, edited.envs)
	if r := fatalResult(rsp); r != nil {
		switch {
		case r.GetReason() == kaasv1alpha1.ReasonInvalidEnvironment, r.GetReason() == kaasv1alpha1.ReasonEnvironmentUnavailable:
		case r.GetReason() == kaasv1alpha1.ReasonReplacementRefused && slices.Contains(edits, "backend"):
			// Another backend would replace the cluster.
		default:
			t.Fatalf("an edit of an environment stalls a Ready cluster: %s: %s", r.GetReason(), r.GetMessage())
		}
		return
	}
	req, err := base.request()
	if err != nil {
		t.Fatal(err)
	}
	before := run(t, req)
	if maps.Equal(desiredNatives(before), desiredNatives(rsp)) {
		return
	}
	if len(edits) == 0 {
		t.Fatal("an edit of an environment's metadata changes a Ready cluster's native objects")
	}
	backend := kaasv1alpha1.BackendType(statusBackend(rsp, "type"))
	for _, path := range edits {
		if s, ok := declaredSetting(backend, path); !ok || !s.Follows {
			t.Fatalf("an edit of data.%s changes a Ready cluster's native objects, and its backend does not declare it to follow the environment", path)
		}
	}
}

// changedLeaves are the paths under data of the leaves that differ between two lists of
// EnvironmentConfigs, with [i] for list elements.
func changedLeaves(a, b []map[string]any) []string {
	var out []string
	for i := range min(len(a), len(b)) {
		da, _ := a[i]["data"].(map[string]any)
		db, _ := b[i]["data"].(map[string]any)
		for p, v := range flattenLeaves(da) {
			if w, ok := flattenLeaves(db)[p]; !ok || w != v {
				out = append(out, p)
			}
		}
		for p := range flattenLeaves(db) {
			if _, ok := flattenLeaves(da)[p]; !ok {
				out = append(out, p)
			}
		}
	}
	return out
}

// flattenLeaves lists the leaves of a JSON value by path, as JSON.
func flattenLeaves(v any) map[string]string {
	out := map[string]string{}
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				walk(join(path, k), e)
			}
		case []any:
			for i, e := range x {
				walk(fmt.Sprintf("%s[%d]", path, i), e)
			}
		default:
			raw, _ := json.Marshal(x)
			out[path] = string(raw)
		}
	}
	walk("", v)
	return out
}

func checkPromises(t *testing.T, c fuzzCase, req *fnv1.RunFunctionRequest) *fnv1.RunFunctionResponse {
	t.Helper()
	fn := NewFunction(logging.NewNopLogger())
	rsp, err := fn.RunFunction(context.Background(), proto.Clone(req).(*fnv1.RunFunctionRequest))
	if err != nil {
		t.Fatalf("RunFunction returned an error: %v", err)
	}
	fatal := false
	for _, r := range rsp.GetResults() {
		fatal = fatal || r.GetSeverity() == fnv1.Severity_SEVERITY_FATAL
	}
	for _, c := range rsp.GetConditions() {
		if c.GetType() == "Rendered" && c.GetReason() == kaasv1alpha1.ReasonInternalError {
			t.Fatalf("the function panicked (recovered): %s", c.GetMessage())
		}
	}
	if fatal || rsp.GetDesired().GetComposite() == nil {
		// Refused, or still asking for requirements: nothing of ours is desired.
		if !proto.Equal(req.GetDesired(), rsp.GetDesired()) {
			t.Fatalf("a response without a rendering changed the desired state:\nin:  %v\nout: %v", req.GetDesired(), rsp.GetDesired())
		}
	} else {
		pools := c.poolNames()
		for name, o := range req.GetObserved().GetResources() {
			if _, ok := rsp.GetDesired().GetResources()[name]; ok || !isBackendResource(name) {
				continue
			}
			pool := o.GetResource().GetFields()["metadata"].GetStructValue().GetFields()["labels"].GetStructValue().GetFields()[model.LabelNodePool].GetStringValue()
			if pool == "" || slices.Contains(pools, pool) {
				t.Fatalf("observed %s is no longer desired and belongs to no removed pool (label %q, pools %v): Crossplane would delete it", name, pool, pools)
			}
		}
		if _, ok := rsp.GetDesired().GetResources()["platform-extra"]; !ok {
			t.Fatal("the earlier step's resource is gone from the desired state")
		}
		checkNothingTakenBack(t, req, rsp)
	}
	again, err := fn.RunFunction(context.Background(), proto.Clone(req).(*fnv1.RunFunctionRequest))
	if err != nil {
		t.Fatal(err)
	}
	det := proto.MarshalOptions{Deterministic: true}
	a, _ := det.Marshal(rsp)
	b, _ := det.Marshal(again)
	if string(a) != string(b) {
		t.Fatalf("the same request gave different responses:\n%s", responseDifference(rsp, again))
	}
	return rsp
}

// responseDifference says where two responses differ: results and conditions in full (they
// carry messages, never secrets), desired resources and the composite by name only (they may
// carry connection details).
func responseDifference(a, b *fnv1.RunFunctionResponse) string {
	out := cmp.Diff(a.GetResults(), b.GetResults(), protocmp.Transform()) +
		cmp.Diff(a.GetConditions(), b.GetConditions(), protocmp.Transform())
	if !proto.Equal(a.GetDesired().GetComposite(), b.GetDesired().GetComposite()) {
		out += "the desired composite differs\n"
	}
	ra, rb := a.GetDesired().GetResources(), b.GetDesired().GetResources()
	names := slices.Collect(maps.Keys(ra))
	for name := range rb {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range slices.Compact(names) {
		if !proto.Equal(ra[name], rb[name]) {
			out += fmt.Sprintf("desired resource %s differs or is in one response only\n", name)
		}
	}
	if out == "" {
		out = "elsewhere: requirements, meta or TTL"
	}
	return out
}

func isBackendResource(name string) bool {
	for _, p := range []string{"gardener-", "clusterstack-", "magnum-"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// fuzzCase is a request in pieces the mutator can reach.
type fuzzCase struct {
	xr       map[string]any
	envs     []map[string]any
	observed map[string]map[string]any
	details  map[string]map[string][]byte
	required map[string][]map[string]any
	// delivered are the composite's connection details (legacy flavour).
	delivered map[string][]byte
	// ready says the case is a Ready cluster (readyClusters), whose native objects no
	// edit of an environment may change (checkEnvironmentEditChangesNoCluster).
	ready bool
}

func (c fuzzCase) clone() fuzzCase {
	out := fuzzCase{xr: deepCopy(c.xr), observed: map[string]map[string]any{}, details: maps.Clone(c.details), required: map[string][]map[string]any{},
		delivered: c.delivered, ready: c.ready}
	for _, e := range c.envs {
		out.envs = append(out.envs, deepCopy(e))
	}
	for k, v := range c.observed {
		out.observed[k] = deepCopy(v)
	}
	for k, items := range c.required {
		for _, i := range items {
			out.required[k] = append(out.required[k], deepCopy(i))
		}
		if items != nil && out.required[k] == nil {
			out.required[k] = []map[string]any{}
		}
	}
	return out
}

func (c fuzzCase) request() (*fnv1.RunFunctionRequest, error) {
	xr, err := structpb.NewStruct(c.xr)
	if err != nil {
		return nil, err
	}
	req := &fnv1.RunFunctionRequest{
		Meta:              &fnv1.RequestMeta{Tag: "fuzz"},
		Observed:          &fnv1.State{Composite: &fnv1.Resource{Resource: xr, ConnectionDetails: c.delivered}, Resources: map[string]*fnv1.Resource{}},
		Desired:           &fnv1.State{Resources: map[string]*fnv1.Resource{"platform-extra": {Resource: resource.MustStructJSON(fromPreviousStep)}}},
		RequiredResources: map[string]*fnv1.Resources{},
	}
	items := func(objs []map[string]any) (*fnv1.Resources, error) {
		out := &fnv1.Resources{}
		for _, o := range objs {
			s, err := structpb.NewStruct(o)
			if err != nil {
				return nil, err
			}
			out.Items = append(out.Items, &fnv1.Resource{Resource: s})
		}
		return out, nil
	}
	if c.envs != nil {
		if req.RequiredResources["environments"], err = items(c.envs); err != nil {
			return nil, err
		}
		if req.RequiredResources["namespace"], err = items([]map[string]any{deepCopy(exampleNamespace)}); err != nil {
			return nil, err
		}
	}
	for name, objs := range c.required {
		if req.RequiredResources[name], err = items(objs); err != nil {
			return nil, err
		}
	}
	for name, o := range c.observed {
		s, err := structpb.NewStruct(o)
		if err != nil {
			return nil, err
		}
		req.Observed.Resources[name] = &fnv1.Resource{Resource: s, ConnectionDetails: c.details[name]}
	}
	return req, nil
}

// poolNames are the names of the pools the composite's spec has, as far as they can be read.
func (c fuzzCase) poolNames() []string {
	var out []string
	spec, _ := c.xr["spec"].(map[string]any)
	pools, _ := spec["nodePools"].([]any)
	for _, p := range pools {
		if m, ok := p.(map[string]any); ok {
			if n, ok := m["name"].(string); ok {
				out = append(out, n)
			}
		}
	}
	return out
}

// mutator reads a program of bytes: each step is an operation, a target and a path.
type mutator struct {
	program []byte
	pos     int
}

func (m *mutator) next() (int, bool) {
	if m.pos >= len(m.program) {
		return 0, false
	}
	b := m.program[m.pos]
	m.pos++
	return int(b), true
}

func (c *fuzzCase) mutate(m *mutator) {
	for steps := 0; steps < 16; steps++ {
		op, ok := m.next()
		if !ok {
			return
		}
		target, _ := m.next()
		switch op % 10 {
		case 0, 1, 2: // delete, retype or duplicate somewhere in a tree
			c.mutateTree(op%3, target, m)
		case 3: // an observed object without any status
			if name := pick(keys(c.observed), target); name != "" {
				delete(c.observed[name], "status")
			}
		case 4: // an Object whose provider has not reported the remote object
			if name := pick(keys(c.observed), target); name != "" {
				if st, ok := c.observed[name]["status"].(map[string]any); ok {
					delete(st, "atProvider")
				}
			}
		case 5: // an observed object gone
			if name := pick(keys(c.observed), target); name != "" {
				delete(c.observed, name)
			}
		case 6: // an observed object under a second name
			if name := pick(keys(c.observed), target); name != "" {
				c.observed[fmt.Sprintf("%s-%d", name, target%3)] = deepCopy(c.observed[name])
			}
		case 7: // required resources fetched, but none matched
			if name := pick(keys(c.required), target); name != "" {
				c.required[name] = []map[string]any{}
			}
		case 8: // an observed object's connection details not read
			if name := pick(keys(c.observed), target); name != "" {
				delete(c.details, name)
			}
		case 9: // a platform team edits a setting of an environment
			if len(c.envs) > 0 {
				i := target % len(c.envs)
				c.envs[i] = mutateValue(c.envs[i], opEdit, m, 0).(map[string]any)
			}
		}
	}
}

func (c *fuzzCase) mutateTree(op, target int, m *mutator) {
	switch target % 4 {
	case 0:
		c.xr = mutateValue(c.xr, op, m, 0).(map[string]any)
	case 1:
		if len(c.envs) > 0 {
			i := target % len(c.envs)
			c.envs[i] = mutateValue(c.envs[i], op, m, 0).(map[string]any)
		}
	case 2:
		if name := pick(keys(c.observed), target); name != "" {
			c.observed[name] = mutateValue(c.observed[name], op, m, 0).(map[string]any)
		}
	case 3:
		if name := pick(keys(c.required), target); name != "" && len(c.required[name]) > 0 {
			items := c.required[name]
			i := target % len(items)
			items[i] = mutateValue(items[i], op, m, 0).(map[string]any)
		}
	}
}

// wrongTypes are values of every JSON type, to put where another type belongs. Each use
// takes a copy: a later mutation of the shared list could otherwise put the list into
// itself, and the next request built from it would be an endless one (a stack overflow in
// the test, never a request Crossplane can send).
var wrongTypes = []any{nil, "x", -1.0, 1e9, true, []any{}, map[string]any{}, []any{"a", "a"}, ""}

// opEdit is mutateValue's operation that gives a string another string value: an edit a
// platform team could make, which the API server would accept.
const opEdit = 3

// mutateValue walks down v along the program and changes the node where it stops: op 0
// deletes it, 1 replaces it with a value of a wrong type, 2 duplicates a list item, opEdit
// gives a string another value. The root itself stays a map.
func mutateValue(v any, op int, m *mutator, depth int) any {
	b, more := m.next()
	stop := !more || b%5 == 0 || depth > 8
	switch x := v.(type) {
	case map[string]any:
		ks := keys(x)
		slices.Sort(ks) // the same program reaches the same node on every run
		if len(ks) == 0 {
			return v
		}
		k := ks[b%len(ks)]
		if !stop {
			x[k] = mutateValue(x[k], op, m, depth+1)
			return x
		}
		switch op {
		case 0:
			delete(x, k)
		case 1:
			x[k] = copyValue(wrongTypes[b%len(wrongTypes)])
		case 2:
			if l, ok := x[k].([]any); ok && len(l) > 0 {
				x[k] = append(l, l[b%len(l)])
			}
		case opEdit:
			if _, ok := x[k].(string); ok {
				x[k] = fmt.Sprintf("edited-%d", b)
			}
		}
		return x
	case []any:
		if len(x) == 0 {
			return v
		}
		i := b % len(x)
		if !stop {
			x[i] = mutateValue(x[i], op, m, depth+1)
			return x
		}
		switch op {
		case 0:
			return append(x[:i:i], x[i+1:]...)
		case 1:
			x[i] = copyValue(wrongTypes[b%len(wrongTypes)])
		case 2:
			return append(x, copyValue(x[i]))
		case opEdit:
			if _, ok := x[i].(string); ok {
				x[i] = fmt.Sprintf("edited-%d", b)
			}
		}
		return x
	}
	return v
}

func pick(names []string, i int) string {
	if len(names) == 0 {
		return ""
	}
	slices.Sort(names)
	return names[i%len(names)]
}

// fuzzBases are the example requests of every backend and state.
func fuzzBases(t testing.TB) []fuzzCase {
	envs := readDir(t, exampleEnvironments)
	observed := func(objs ...map[string]any) map[string]map[string]any {
		out := map[string]map[string]any{}
		for _, o := range objs {
			out[o["metadata"].(map[string]any)["annotations"].(map[string]any)["crossplane.io/composition-resource-name"].(string)] = o
		}
		return out
	}
	secret := func(path string) map[string][]byte {
		out := map[string][]byte{}
		for k, v := range readObject(t, path)["data"].(map[string]any) {
			b, err := base64.StdEncoding.DecodeString(v.(string))
			if err != nil {
				t.Fatalf("%s: %s is not base64", path, k)
			}
			out[k] = b
		}
		return out
	}
	capiRequired := func(kubeconfig bool) map[string][]map[string]any {
		r := map[string][]map[string]any{"clusterstack-releases": readObjects(t, exampleCAPIReleases), "clusterstack-kubeconfig": {}}
		if kubeconfig {
			r["clusterstack-kubeconfig"] = readObjects(t, exampleCAPIKubeconfig)
		}
		return r
	}
	gardenerXR, capiXR, magnumXR := readObject(t, exampleXR), readObject(t, exampleCAPIXR), readObject(t, exampleMagnumXR)
	var namespacedReady []map[string]any
	for _, o := range readObjects(t, exampleObservedReady) {
		namespacedReady = append(namespacedReady, inNamespace(o))
	}
	remoteXR := deepCopy(capiXR)
	remoteXR["spec"].(map[string]any)["environment"] = "clusterstack-remote"
	nodegroup := map[string]any{
		"apiVersion": "containerinfra.openstack.crossplane.io/v1alpha1", "kind": "NodegroupV1",
		"metadata": map[string]any{"name": "shop-4h7tw-workers-nova", "labels": map[string]any{model.LabelNodePool: "workers"},
			"annotations": map[string]any{"crossplane.io/composition-resource-name": "magnum-nodegroup-workers-nova"}},
		"spec": map[string]any{"forProvider": map[string]any{"clusterId": "5d2f8c1a-3b4e-4f6a-8c9d-0e1f2a3b4c5d", "flavorId": "SCS-8V-32",
			"name": "workers-nova", "region": "RegionOne", "labels": map[string]any{"availability_zone": "nova"}}},
	}
	bases := []fuzzCase{
		{xr: gardenerXR, envs: envs},
		{xr: gardenerXR, envs: envs, observed: observed(readObjects(t, exampleObservedReady)...),
			details: map[string]map[string][]byte{"gardener-kubeconfig": secret(exampleKubeconfig)}},
		{xr: gardenerXR, envs: envs, observed: observed(readObject(t, exampleObservedQuota))},
		{xr: capiXR, envs: envs, required: capiRequired(false)},
		{xr: capiXR, envs: envs, required: capiRequired(true), observed: observed(readObject(t, exampleCAPIObservedReady))},
		{xr: capiXR, envs: envs, required: capiRequired(false), observed: observed(readObject(t, exampleCAPIObservedFailed))},
		{xr: remoteXR, envs: envs, required: map[string][]map[string]any{"clusterstack-releases": remoteReleases(t)}},
		{xr: magnumXR, envs: envs},
		{xr: magnumXR, envs: envs, observed: observed(readObject(t, exampleMagnumObservedCreated), nodegroup)},
		{xr: magnumXR, envs: envs, observed: observed(readObjects(t, exampleMagnumObservedReady)...),
			details: map[string]map[string][]byte{"magnum-cluster": secret(exampleMagnumSecret)}},
		// The namespaced composites of the Crossplane v2 flavour.
		{xr: namespacedXR(t, exampleXR), envs: envs},
		{xr: namespacedXR(t, exampleXR), envs: envs, observed: observed(namespacedReady...),
			details: map[string]map[string][]byte{"gardener-kubeconfig": secret(exampleKubeconfig)}},
		{xr: namespacedXR(t, exampleMagnumXR), envs: envs, observed: observed(inNamespace(readObject(t, exampleMagnumObservedCreated)))},
	}
	for _, c := range readyClusters(t) {
		r := fuzzCaseOf(c.req)
		r.ready = true
		bases = append(bases, r)
		// Empty memory (docs/recovery.md): the composite's status lost while its composed
		// resources remain, and a control plane rebuilt from Git, nothing composed yet.
		lost := fuzzCaseOf(c.req)
		delete(lost.xr, "status")
		lost.delivered = nil
		bases = append(bases, lost)
		rebuilt := lost.clone()
		rebuilt.observed, rebuilt.details = map[string]map[string]any{}, map[string]map[string][]byte{}
		bases = append(bases, rebuilt)
	}
	return bases
}

// fuzzCaseOf takes a request apart for the mutator.
func fuzzCaseOf(req *fnv1.RunFunctionRequest) fuzzCase {
	c := fuzzCase{xr: req.GetObserved().GetComposite().GetResource().AsMap(), delivered: req.GetObserved().GetComposite().GetConnectionDetails(),
		observed: map[string]map[string]any{}, details: map[string]map[string][]byte{}, required: map[string][]map[string]any{}}
	for name, r := range req.GetObserved().GetResources() {
		c.observed[name] = r.GetResource().AsMap()
		if len(r.GetConnectionDetails()) > 0 {
			c.details[name] = r.GetConnectionDetails()
		}
	}
	for name, items := range req.GetRequiredResources() {
		objs := []map[string]any{}
		for _, i := range items.GetItems() {
			objs = append(objs, i.GetResource().AsMap())
		}
		switch name {
		case "environments":
			c.envs = objs
		case "namespace":
			// request() adds the example namespace with the environments.
		default:
			c.required[name] = objs
		}
	}
	return c
}
