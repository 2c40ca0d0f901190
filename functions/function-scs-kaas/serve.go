package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"runtime"
	"time"

	"github.com/crossplane/function-sdk-go"
	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
	fnv1beta1 "github.com/crossplane/function-sdk-go/proto/v1beta1"
	grpcprometheus "github.com/grpc-ecosystem/go-grpc-middleware/providers/prometheus"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"google.golang.org/grpc"
	healthgrpc "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/reflection"

	"github.com/SovereignCloudStack/scs-kaas/functions/function-scs-kaas/internal/wire"
)

// serve serves f as function.Serve does: the same options, listener, credentials, message
// limit, reflection, v1beta1 service and Prometheus metrics. It differs in two things
// function.Serve has no option for: the v1 service decodes requests with package wire
// straight into the maps the function reads (runnerService), and calls run on stream
// workers (newServer).
func serve(f *Function, opts ...function.ServeOption) error {
	so, err := serveOptions(opts)
	if err != nil {
		return err
	}
	// The codec decodes the wire.Requests of runnerService; without it gRPC's own could not.
	wire.Register()
	srv, metrics := newServer(f, so)
	lis, err := (&net.ListenConfig{}).Listen(context.Background(), so.Network, so.Address)
	if err != nil {
		return fmt.Errorf("cannot listen for %s connections at address %q: %w", so.Network, so.Address, err)
	}
	if metrics != nil {
		metrics.InitializeMetrics(srv)
		ms := &http.Server{
			Addr:              so.MetricsAddress,
			Handler:           promhttp.HandlerFor(so.MetricsRegistry, promhttp.HandlerOpts{}),
			ReadHeaderTimeout: 30 * time.Second,
		}
		// As function.Serve: the function serves without its metrics rather than not at all.
		go func() { _ = ms.ListenAndServe() }()
	}
	if err := srv.Serve(lis); err != nil {
		return fmt.Errorf("cannot serve mTLS gRPC connections: %w", err)
	}
	return nil
}

// serveOptions applies opts to function.Serve's defaults.
func serveOptions(opts []function.ServeOption) (*function.ServeOptions, error) {
	registry, ok := prometheus.DefaultRegisterer.(*prometheus.Registry)
	if !ok {
		return nil, errors.New("the default Prometheus registerer is not a registry")
	}
	so := &function.ServeOptions{
		Network:         function.DefaultNetwork,
		Address:         function.DefaultAddress,
		MaxRecvMsgSize:  function.DefaultMaxRecvMsgSize,
		MetricsAddress:  function.DefaultMetricsAddress,
		MetricsRegistry: registry,
	}
	for _, o := range opts {
		if err := o(so); err != nil {
			return nil, fmt.Errorf("cannot apply ServeOption: %w", err)
		}
	}
	if so.Credentials == nil {
		return nil, errors.New("no credentials provided - did you specify the Insecure or MTLSCertificates options?")
	}
	return so, nil
}

// newServer returns the gRPC server of f, and its metrics where so asks for them, as
// function.Serve builds it but for the v1 service and stream workers.
//
// Stream workers: gRPC runs each call on a goroutine of its own by default, whose stack
// starts small and is grown, by copying it, several times during a render: 5 % of the served
// function's CPU, on the path of every call. Long-lived workers, one per CPU, keep their
// grown stacks (gRPC replaces each after 65,536 calls, and starts a goroutine as before
// when all are busy): p50 at one caller 4 % lower (docs/performance.md).
func newServer(f *Function, so *function.ServeOptions) (*grpc.Server, *grpcprometheus.ServerMetrics) {
	opts := []grpc.ServerOption{
		grpc.MaxRecvMsgSize(so.MaxRecvMsgSize),
		grpc.Creds(so.Credentials),
		grpc.NumStreamWorkers(uint32(runtime.GOMAXPROCS(0))), //nolint:gosec // GOMAXPROCS is positive and small
	}
	var metrics *grpcprometheus.ServerMetrics
	if so.MetricsAddress != "" {
		metrics = grpcprometheus.NewServerMetrics(so.MetricsServerOpts...)
		opts = append(opts, grpc.ChainUnaryInterceptor(append([]grpc.UnaryServerInterceptor{metrics.UnaryServerInterceptor()}, so.UnaryInterceptors...)...))
		so.MetricsRegistry.MustRegister(metrics)
	}
	srv := grpc.NewServer(opts...)
	reflection.Register(srv)
	srv.RegisterService(&runnerService, f)
	fnv1beta1.RegisterFunctionRunnerServiceServer(srv, function.ServeBeta(f))
	if so.HealthServer != nil {
		healthgrpc.RegisterHealthServer(srv, so.HealthServer)
	}
	return srv, metrics
}

// runnerService is the v1 FunctionRunnerService, as function-sdk-go generates it but for
// the type its method decodes requests into: a wire.Request, whose observed and required
// resources go from the wire straight into maps, rather than a RunFunctionRequest of
// protobuf Structs that the function would convert to maps (docs/performance.md).
var runnerService = grpc.ServiceDesc{
	ServiceName: fnv1.FunctionRunnerService_ServiceDesc.ServiceName,
	HandlerType: (*fnv1.FunctionRunnerServiceServer)(nil),
	Methods:     []grpc.MethodDesc{{MethodName: "RunFunction", Handler: runFunctionHandler}},
	Metadata:    fnv1.FunctionRunnerService_ServiceDesc.Metadata,
}

// runFunctionHandler is the generated handler of RunFunction with a wire.Request, answered
// with a wire.Response, which the codec encodes as the RunFunctionResponse it stands for.
func runFunctionHandler(srv any, ctx context.Context, dec func(any) error, interceptor grpc.UnaryServerInterceptor) (any, error) { //nolint:revive // gRPC's handler signature
	req := &wire.Request{}
	if err := dec(req); err != nil {
		return nil, err
	}
	f, ok := srv.(*Function)
	if !ok {
		return nil, fmt.Errorf("the RunFunction service is a %T, not the function", srv)
	}
	run := func(_ context.Context, req any) (any, error) {
		r, ok := req.(*wire.Request)
		if !ok {
			return nil, fmt.Errorf("the RunFunction request is a %T, not a wire.Request", req)
		}
		return f.run(r), nil
	}
	if interceptor == nil {
		return run(ctx, req)
	}
	return interceptor(ctx, req, &grpc.UnaryServerInfo{Server: srv, FullMethod: fnv1.FunctionRunnerService_RunFunction_FullMethodName}, run)
}
