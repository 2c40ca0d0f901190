package main

import (
	"context"
	"testing"

	"github.com/crossplane/function-sdk-go/logging"
	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
	"google.golang.org/protobuf/proto"
)

// BenchmarkRunFunction measures one whole call in process, from a RunFunctionRequest for a
// five-pool Gardener cluster to the RunFunctionResponse, without gRPC. The target is under
// a millisecond per call (docs/performance.md has the figures and the gRPC comparison with
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
			for b.Loop() {
				rsp, err := fn.RunFunction(context.Background(), req)
				if err != nil || len(rsp.GetResults()) > 0 && rsp.GetResults()[0].GetSeverity() == fnv1.Severity_SEVERITY_FATAL {
					b.Fatalf("RunFunction: %v %v", err, rsp.GetResults())
				}
			}
		})
	}
}

// BenchmarkRunFunctionWire includes what gRPC adds in process: decoding the request from
// bytes and encoding the response.
func BenchmarkRunFunctionWire(b *testing.B) {
	req := gardenerReady(b)
	raw, err := proto.Marshal(req)
	if err != nil {
		b.Fatal(err)
	}
	fn := NewFunction(logging.NewNopLogger())
	b.ReportAllocs()
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
}
