package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/crossplane/function-sdk-go/logging"
	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"sigs.k8s.io/yaml"
)

// BenchmarkRunFunction measures one whole call in process, from a RunFunctionRequest for a
// five-pool Gardener cluster to the RunFunctionResponse, without gRPC. cpu-ns/op is the CPU
// time per call, which the load of a shared machine does not inflate as it does ns/op
// (docs/performance.md has the figures and the gRPC comparison with the no-op function,
// function-go-templating and function-patch-and-transform).
func BenchmarkRunFunction(b *testing.B) {
	xr := readObject(b, exampleXR)
	envs := readObjects(b, exampleEnvironment)
	cases := map[string]*fnv1.RunFunctionRequest{
		"Create": requestFor(b, xr, envs),
		"Ready":  gardenerReady(b),
	}
	fn := NewFunction(logging.NewNopLogger())
	for name, req := range cases {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			start := cpuTime()
			for b.Loop() {
				rsp, err := fn.RunFunction(context.Background(), req)
				if err != nil || fatalResult(rsp) != nil {
					b.Fatalf("RunFunction: %v %v", err, rsp.GetResults())
				}
			}
			reportCPU(b, start)
		})
	}
}

// BenchmarkRunFunctionWire includes what gRPC adds in process: decoding the request from
// bytes and encoding the response.
func BenchmarkRunFunctionWire(b *testing.B) {
	benchWire(b, gardenerReady(b))
}

// benchWire measures whole calls as the served function makes them: the request decoded
// from bytes and the response encoded, as gRPC's protobuf codec does. It returns the
// request's size in bytes.
func benchWire(b *testing.B, req *fnv1.RunFunctionRequest) int {
	b.Helper()
	raw, err := proto.Marshal(req)
	if err != nil {
		b.Fatal(err)
	}
	fn := NewFunction(logging.NewNopLogger())
	b.ReportAllocs()
	start := cpuTime()
	for b.Loop() {
		in := &fnv1.RunFunctionRequest{}
		if err := proto.Unmarshal(raw, in); err != nil {
			b.Fatal(err)
		}
		rsp, err := fn.RunFunction(context.Background(), in)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := proto.Marshal(rsp); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, start)
	return len(raw)
}

// benchRequest is the request hack/bench.sh sends over gRPC, the Wire case above as
// ../shared/tools/fnbench reads it: a five-pool Gardener cluster with its Shoot observed
// healthy and its admin kubeconfig delivered. go test -update rewrites it.
const benchRequest = "testdata/bench/request-ready.yaml"

func TestBenchRequest(t *testing.T) {
	raw, err := protojson.Marshal(gardenerReady(t))
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	out, err := yaml.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	out = append([]byte("# Written by TestBenchRequest (go test -update): the request hack/bench.sh sends.\n"), out...)
	if *update {
		if err := os.MkdirAll(filepath.Dir(benchRequest), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(benchRequest, out, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(benchRequest)
	if err != nil {
		t.Fatalf("cannot read %s (run go test -update to create it): %v", benchRequest, err)
	}
	if string(want) != string(out) {
		t.Errorf("%s is stale: run go test -update", benchRequest)
	}
}
