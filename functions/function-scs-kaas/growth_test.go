package main

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/crossplane/function-sdk-go/logging"
	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/SovereignCloudStack/scs-kaas/model"
)

// grpcMessageLimit is gRPC's default maximum message size, which Crossplane does not raise
// for the responses of functions: a larger response fails the composite's reconcile.
const grpcMessageLimit = 4 << 20

// growthPools are the pool counts docs/performance.md reports; the API allows at most
// model.MaxNodePools, so more are refused before anything is rendered.
var growthPools = []int{1, 5, 20, model.MaxNodePools}

// growthBackend is a backend's example request, with the pools of the composite replaced.
type growthBackend struct {
	name string
	// request returns the request for a composite with the given pools, in an
	// environment changed by env (nil: as in the examples).
	request func(t testing.TB, pools []any, env func(map[string]any)) *fnv1.RunFunctionRequest
}

func growthBackends() []growthBackend {
	withPools := func(t testing.TB, file string, pools []any) map[string]any {
		xr := readObject(t, file)
		xr["spec"].(map[string]any)["nodePools"] = pools
		return xr
	}
	editEnvs := func(envs []map[string]any, env func(map[string]any)) []map[string]any {
		if env != nil {
			for _, e := range envs {
				env(e["data"].(map[string]any))
			}
		}
		return envs
	}
	return []growthBackend{
		{"gardener", func(t testing.TB, pools []any, env func(map[string]any)) *fnv1.RunFunctionRequest {
			return lookedOut(t, requestFor(t, withPools(t, exampleXR, pools), editEnvs(readObjects(t, exampleEnvironment), env)))
		}},
		// Cluster Stacks with its releases fetched: the Cluster's topology has a machine
		// deployment per pool and zone.
		{"clusterstack", func(t testing.TB, pools []any, env func(map[string]any)) *fnv1.RunFunctionRequest {
			req := requestFor(t, withPools(t, exampleCAPIXR, pools), editEnvs(readDir(t, exampleEnvironments), env))
			req = withRequired(t, req, "clusterstack-releases", readObjects(t, exampleCAPIReleases))
			return lookedOut(t, withRequired(t, req, "clusterstack-kubeconfig", nil))
		}},
		// Magnum once the cluster exists, as first rendered: every pool but the first
		// becomes a NodegroupV1.
		{"magnum", func(t testing.TB, pools []any, env func(map[string]any)) *fnv1.RunFunctionRequest {
			xr := withPools(t, exampleMagnumXR, pools)
			created := mustRender(t, requestFor(t, xr, editEnvs(readDir(t, exampleEnvironments), env)))
			cluster := created.GetDesired().GetResources()["magnum-cluster"].GetResource().AsMap()
			cluster["metadata"].(map[string]any)["annotations"] = map[string]any{"crossplane.io/composition-resource-name": "magnum-cluster"}
			cluster["status"] = map[string]any{"atProvider": map[string]any{"id": "5d2f8c1a-3b4e-4f6a-8c9d-0e1f2a3b4c5d"}}
			return requestFor(t, xr, editEnvs(readDir(t, exampleEnvironments), env), cluster)
		}},
	}
}

// examplePools are n pools like those of the examples: a fixed-size system pool with a
// taint, the others autoscaled, each with a label.
func examplePools(n int) []any {
	pools := make([]any, 0, n)
	for i := range n {
		p := map[string]any{
			"name":        fmt.Sprintf("pool%d", i),
			"machineType": "SCS-4V-8",
			"labels":      map[string]any{"node.scs.community/pool": fmt.Sprintf("pool%d", i)},
		}
		if i == 0 {
			p["count"] = 3
			p["taints"] = []any{map[string]any{"key": "node.scs.community/system", "value": "true", "effect": "NoSchedule"}}
		} else {
			p["autoscaling"] = map[string]any{"min": 1, "max": 6}
		}
		pools = append(pools, p)
	}
	return pools
}

func mustRender(t testing.TB, req *fnv1.RunFunctionRequest) *fnv1.RunFunctionResponse {
	t.Helper()
	rsp, err := NewFunction(logging.NewNopLogger()).RunFunction(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rsp.GetResults() {
		if r.GetSeverity() == fnv1.Severity_SEVERITY_FATAL {
			t.Fatalf("refused: %s", r.GetMessage())
		}
	}
	if len(rsp.GetDesired().GetResources()) == 0 {
		t.Fatal("nothing rendered")
	}
	return rsp
}

// BenchmarkGrowth measures one call over gRPC's encoding (as BenchmarkRunFunctionWire) for
// 1 to model.MaxNodePools pools on every backend, with the response size.
func BenchmarkGrowth(b *testing.B) {
	for _, backend := range growthBackends() {
		for _, n := range growthPools {
			b.Run(fmt.Sprintf("%s/pools=%d", backend.name, n), func(b *testing.B) {
				req := backend.request(b, examplePools(n), nil)
				size := proto.Size(mustRender(b, req))
				b.ReportMetric(float64(benchWire(b, req)), "req-B")
				b.ReportMetric(float64(size), "rsp-B")
			})
		}
	}
}

// TestGrowthIsLinear: a pool costs the response about the same whatever the number of
// pools, on every backend (nothing renders a pool's neighbours into it).
func TestGrowthIsLinear(t *testing.T) {
	for _, backend := range growthBackends() {
		t.Run(backend.name, func(t *testing.T) {
			size := map[int]int{}
			for _, n := range []int{1, 2, model.MaxNodePools} {
				size[n] = proto.Size(mustRender(t, backend.request(t, examplePools(n), nil)))
			}
			perPool := size[2] - size[1]
			if perPool <= 0 {
				t.Fatalf("a second pool does not grow the response: %d, then %d bytes", size[1], size[2])
			}
			// Pool names and counts differ in length by a few bytes; a quadratic term
			// would show as many times that.
			want := size[1] + (model.MaxNodePools-1)*perPool
			if got := size[model.MaxNodePools]; got > want+want/10 {
				t.Errorf("%d pools: %d bytes, %d expected from %d bytes per pool", model.MaxNodePools, got, want, perPool)
			}
		})
	}
}

// largestPools are the largest pools the API admits: model.MaxNodePools pools, each with
// the longest name, machine type and zones, the most labels and taints with the longest
// keys and values.
func largestPools(machineType string, zones []any) []any {
	pools := make([]any, 0, model.MaxNodePools)
	for i := range model.MaxNodePools {
		labels := map[string]any{}
		for j := range model.MaxLabelsPerPool {
			labels[qualifiedName(j)] = strings.Repeat("v", 63)
		}
		taints := make([]any, 0, model.MaxTaintsPerPool)
		for j := range model.MaxTaintsPerPool {
			taints = append(taints, map[string]any{"key": qualifiedName(j), "value": strings.Repeat("v", 63), "effect": "NoSchedule"})
		}
		pools = append(pools, map[string]any{
			"name":           fmt.Sprintf("p%0*d", model.MaxNodePoolName-1, i),
			"machineType":    machineType,
			"autoscaling":    map[string]any{"min": model.MaxPoolSize, "max": model.MaxPoolSize},
			"zones":          zones,
			"labels":         labels,
			"taints":         taints,
			"rootDiskGiB":    model.MaxRootDiskGiB,
			"maxSurge":       "100%",
			"maxUnavailable": "100%",
		})
	}
	return pools
}

// qualifiedName is a label key of the greatest length: a 253-character DNS subdomain as
// prefix, a 63-character name.
func qualifiedName(i int) string {
	prefix := fmt.Sprintf("%02d", i) + strings.Repeat("a", 61) + "." + strings.Repeat("b", 63) + "." +
		strings.Repeat("c", 63) + "." + strings.Repeat("d", 61)
	return prefix + "/" + strings.Repeat("n", 63)
}

// TestLargestSpecFitsTheMessageLimit renders the largest spec the API admits on every
// backend and wants the response within gRPC's message limit, and with it the request of
// the next reconcile: the composite and what was rendered, observed.
func TestLargestSpecFitsTheMessageLimit(t *testing.T) {
	machineType := "SCS-" + strings.Repeat("9", 59)
	zones := make([]any, 0, model.MaxZonesPerPool)
	for i := range model.MaxZonesPerPool {
		zones = append(zones, fmt.Sprintf("z%d", i)+strings.Repeat("z", 61))
	}
	env := func(data map[string]any) {
		catalog, ok := data["catalog"].(map[string]any)
		if !ok {
			return
		}
		types, _ := catalog["machineTypes"].([]any)
		catalog["machineTypes"] = append(types, machineType)
		catalog["zones"] = zones
	}
	for _, backend := range growthBackends() {
		t.Run(backend.name, func(t *testing.T) {
			req := backend.request(t, largestPools(machineType, zones), env)
			rsp := mustRender(t, req)
			size := proto.Size(rsp)
			// The next request carries the composite and each rendered resource as observed
			// (the observed status only adds to that).
			next := proto.Size(req.GetObserved().GetComposite())
			largest, largestName := 0, ""
			for name, r := range rsp.GetDesired().GetResources() {
				next += proto.Size(r)
				if j, err := protojson.Marshal(r.GetResource()); err == nil && len(j) > largest {
					largest, largestName = len(j), name
				}
			}
			t.Logf("%s: %d resources, response %d bytes, next request at least %d bytes, limit %d; largest object %s, %d bytes as JSON",
				backend.name, len(rsp.GetDesired().GetResources()), size, next, grpcMessageLimit, largestName, largest)
			if size > grpcMessageLimit {
				t.Errorf("the largest spec renders a response of %d bytes, over gRPC's limit of %d", size, grpcMessageLimit)
			}
			if next > grpcMessageLimit {
				t.Errorf("the largest spec makes the next request at least %d bytes, over gRPC's limit of %d", next, grpcMessageLimit)
			}
		})
	}
}
