package main

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/crossplane/function-sdk-go"
	"github.com/crossplane/function-sdk-go/logging"
	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
	fnv1beta1 "github.com/crossplane/function-sdk-go/proto/v1beta1"
	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/testing/protocmp"
)

// freeAddress returns a local address no process listens at just now.
func freeAddress(t *testing.T) string {
	t.Helper()
	lis, err := (&net.ListenConfig{}).Listen(t.Context(), "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := lis.Addr().String()
	if err := lis.Close(); err != nil {
		t.Fatal(err)
	}
	return addr
}

// TestServe serves the function as main does, through function.Serve, and calls it as
// Crossplane does over both protocol versions: every answer is the one RunFunction gives in
// process, and the metrics count the calls.
func TestServe(t *testing.T) {
	registry := prometheus.NewRegistry()
	fn := NewFunction(logging.NewNopLogger())
	conn, served := serve(t, fn, registry)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()

	requests := map[string]*fnv1.RunFunctionRequest{
		"ready Gardener cluster": gardenerReady(t),
		// Refused: the Fatal result leaves the desired state as it came.
		"no environment": withPreviousStep(requestFor(t, readObject(t, exampleXR), nil, readObjects(t, exampleObservedReady)...)),
	}
	calls := 0
	for name, req := range requests {
		t.Run(name, func(t *testing.T) {
			want, err := fn.RunFunction(context.Background(), proto.Clone(req).(*fnv1.RunFunctionRequest))
			if err != nil {
				t.Fatal(err)
			}
			got, err := fnv1.NewFunctionRunnerServiceClient(conn).RunFunction(ctx, req, grpc.WaitForReady(true))
			if err != nil {
				select {
				case err := <-served:
					t.Fatalf("function.Serve: %v", err)
				default:
					t.Fatal(err)
				}
			}
			calls++
			if diff := cmp.Diff(want, got, protocmp.Transform()); diff != "" {
				t.Errorf("v1 RunFunction over gRPC (-in process +served):\n%s", diff)
			}

			raw, err := proto.Marshal(req)
			if err != nil {
				t.Fatal(err)
			}
			beta := &fnv1beta1.RunFunctionRequest{}
			if err := proto.Unmarshal(raw, beta); err != nil {
				t.Fatal(err)
			}
			gotBeta, err := fnv1beta1.NewFunctionRunnerServiceClient(conn).RunFunction(ctx, beta)
			if err != nil {
				t.Fatal(err)
			}
			calls++
			if raw, err = proto.Marshal(gotBeta); err != nil {
				t.Fatal(err)
			}
			asV1 := &fnv1.RunFunctionResponse{}
			if err := proto.Unmarshal(raw, asV1); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, asV1, protocmp.Transform()); diff != "" {
				t.Errorf("v1beta1 RunFunction over gRPC (-in process +served):\n%s", diff)
			}
		})
	}

	families, err := registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	handled := 0.0
	for _, f := range families {
		if f.GetName() != "grpc_server_handled_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "grpc_method" && l.GetValue() == "RunFunction" {
					handled += m.GetCounter().GetValue()
				}
			}
		}
	}
	if handled != float64(calls) {
		t.Errorf("grpc_server_handled_total{grpc_method=\"RunFunction\"} = %v, want %d", handled, calls)
	}
}

// serve serves fn as main does, through function.Serve with its metrics in registry, and
// connects to it. served reports an error of function.Serve.
func serve(t *testing.T, fn *Function, registry *prometheus.Registry) (*grpc.ClientConn, <-chan error) {
	t.Helper()
	addr := freeAddress(t)
	served := make(chan error, 1)
	go func() {
		// function.Serve has no way to stop; the server ends with the test binary.
		served <- function.Serve(fn, function.Listen("tcp", addr), function.Insecure(true),
			function.WithMetricsServer(freeAddress(t)), function.WithMetricsRegistry(registry))
	}()
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	return conn, served
}
