package main

import (
	"context"
	"fmt"
	"net"
	"strings"
	"testing"

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

	"github.com/SovereignCloudStack/scs-kaas/functions/function-scs-kaas/internal/wire"
)

// TestServe calls the served function as Crossplane does, through both protocol versions:
// every answer is the one RunFunction gives in process, and the metrics count the calls.
func TestServe(t *testing.T) {
	wire.Register()
	registry := prometheus.NewRegistry()
	so, err := serveOptions([]function.ServeOption{function.Insecure(true), function.WithMetricsServer("127.0.0.1:0"), function.WithMetricsRegistry(registry)})
	if err != nil {
		t.Fatal(err)
	}
	fn := NewFunction(logging.NewNopLogger())
	srv, metrics := newServer(fn, so)
	if metrics == nil {
		t.Fatal("no metrics although a metrics address is set")
	}
	lis, err := (&net.ListenConfig{}).Listen(t.Context(), "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(lis) }()
	t.Cleanup(srv.Stop)
	conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })

	requests := map[string]*fnv1.RunFunctionRequest{
		"ready Gardener cluster": gardenerReady(t),
		// Refused: the Fatal result leaves the desired state as it came.
		"no environment": requestFor(t, readObject(t, exampleXR), nil, readObjects(t, exampleObservedReady)...),
	}
	// More calls at once than there are stream workers: the rest run on goroutines of their
	// own, with the same answers.
	want, err := fn.RunFunction(context.Background(), gardenerReady(t))
	if err != nil {
		t.Fatal(err)
	}
	const parallel = 8
	errs := make(chan error, parallel)
	for range parallel {
		go func() {
			got, err := fnv1.NewFunctionRunnerServiceClient(conn).RunFunction(t.Context(), gardenerReady(t))
			if err == nil && !proto.Equal(want, got) {
				err = fmt.Errorf("a parallel call (-in process +served):\n%s", cmp.Diff(want, got, protocmp.Transform()))
			}
			errs <- err
		}()
	}
	for range parallel {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	calls := parallel
	for name, req := range requests {
		t.Run(name, func(t *testing.T) {
			want, err := fn.RunFunction(context.Background(), proto.Clone(req).(*fnv1.RunFunctionRequest))
			if err != nil {
				t.Fatal(err)
			}
			got, err := fnv1.NewFunctionRunnerServiceClient(conn).RunFunction(t.Context(), req)
			calls += 2 // and the v1beta1 call below
			if err != nil {
				t.Fatal(err)
			}
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
			gotBeta, err := fnv1beta1.NewFunctionRunnerServiceClient(conn).RunFunction(t.Context(), beta)
			if err != nil {
				t.Fatal(err)
			}
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

func TestServeNeedsCredentials(t *testing.T) {
	_, err := serveOptions([]function.ServeOption{function.Listen("tcp", "127.0.0.1:0")})
	if err == nil || !strings.Contains(err.Error(), "no credentials provided") {
		t.Errorf("serveOptions without credentials: %v, want the error function.Serve gives", err)
	}
}
