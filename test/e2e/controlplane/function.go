package controlplane

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"strconv"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
)

const functionProcess = "function"

var functionRevisionGVR = schema.GroupVersionResource{Group: "pkg.crossplane.io", Version: "v1", Resource: "functionrevisions"}

// setupFunctionTLS makes the mutual TLS material for Crossplane <-> function:
// Crossplane has no insecure mode for functions. One CA signs the function's
// server certificate and Crossplane's client certificate; each side trusts it.
func (e *Env) setupFunctionTLS() error {
	ca, err := newCA("function-ca")
	if err != nil {
		return err
	}
	server, err := ca.issue(certSpec{cn: e.opts.FunctionName, server: true})
	if err != nil {
		return err
	}
	client, err := ca.issue(certSpec{cn: "crossplane", client: true})
	if err != nil {
		return err
	}
	if err := writeTLSDir(e.FunctionTLSDir(), ca, server); err != nil {
		return err
	}
	if err := writeTLSDir(e.crossplaneTLSDir(), ca, client); err != nil {
		return err
	}
	e.fnClientTLS, err = tlsConfig(ca, client)
	return err
}

func tlsConfig(ca *certAuthority, kp *keyPair) (*tls.Config, error) {
	cert, err := tls.X509KeyPair(kp.certPEM, kp.keyPEM)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	pool.AddCert(ca.cert)
	return &tls.Config{Certificates: []tls.Certificate{cert}, RootCAs: pool, ServerName: "localhost", MinVersion: tls.VersionTLS12}, nil
}

// FunctionTLSDir holds ca.crt, tls.crt and tls.key for the function's server side.
func (e *Env) FunctionTLSDir() string { return filepath.Join(e.RunDir, "function", "tls") }

// FunctionAddress is the function's gRPC address, 127.0.0.1:PORT; it stays
// the same across StopFunction/StartFunction so Crossplane's endpoint holds.
func (e *Env) FunctionAddress() string { return "127.0.0.1:" + strconv.Itoa(e.fnPort) }

// functionArgs is the command line of the function: the conventional flags of
// a function-template-go style function. The server certificate directory is
// passed as TLS_SERVER_CERTS_DIR (the environment variable the template binds
// to its certificate flag, whatever the flag is called) and, when
// Options.FunctionCertsDirFlag is set, also as that flag.
func (e *Env) functionArgs() (args, env []string) {
	args = []string{
		"--address=" + e.FunctionAddress(),
		"--metrics-address=127.0.0.1:" + strconv.Itoa(e.fnMetricsPort),
		"--debug",
	}
	if e.opts.FunctionCertsDirFlag != "" {
		args = append(args, e.opts.FunctionCertsDirFlag+"="+e.FunctionTLSDir())
	}
	args = append(args, e.opts.FunctionExtraArgs...)
	return args, []string{"TLS_SERVER_CERTS_DIR=" + e.FunctionTLSDir()}
}

// StartFunction starts the function process (Options.FunctionBinary) and
// waits until it completes a mutual TLS handshake on its gRPC port.
func (e *Env) StartFunction(ctx context.Context) error {
	e.fnMu.Lock()
	defer e.fnMu.Unlock()
	if e.opts.FunctionBinary == "" {
		return errors.New("no function binary configured (Options.FunctionBinary)")
	}
	if _, running := e.proc(functionProcess); running {
		return errors.New("function already running")
	}
	args, env := e.functionArgs()
	p, err := e.startProcess(functionProcess, e.opts.FunctionBinary, args, env)
	if err != nil {
		return err
	}
	return waitFor(ctx, 60*time.Second, "function serving mTLS on "+e.FunctionAddress(), p.exited, func(ctx context.Context) (bool, error) {
		d := tls.Dialer{NetDialer: &net.Dialer{}, Config: e.fnClientTLS.Clone()}
		d.Config.NextProtos = []string{"h2"} // gRPC servers insist on ALPN h2
		conn, err := d.DialContext(ctx, "tcp", e.FunctionAddress())
		if err != nil {
			return false, err
		}
		conn.Close()
		return true, nil
	})
}

// StopFunction stops the function process (SIGTERM, then SIGKILL after 15 s).
// Crossplane keeps its endpoint; XRs reconciled meanwhile fail and back off.
func (e *Env) StopFunction() error {
	e.fnMu.Lock()
	defer e.fnMu.Unlock()
	return e.stopProcess(functionProcess)
}

// KillFunction kills the function process at once (SIGKILL), as a crash would.
func (e *Env) KillFunction() error {
	e.fnMu.Lock()
	defer e.fnMu.Unlock()
	p, ok := e.proc(functionProcess)
	if !ok {
		return nil
	}
	if err := stopPID(p.rec, 0); err != nil {
		return err
	}
	return e.stopProcess(functionProcess)
}

// RestartFunction stops and starts the function on the same address, e.g.
// after rebuilding its binary.
func (e *Env) RestartFunction(ctx context.Context) error {
	if err := e.StopFunction(); err != nil {
		return err
	}
	return e.StartFunction(ctx)
}

// registerFunction makes Crossplane call our process without its package
// manager: a paused FunctionRevision labelled with the function's name,
// whose status carries the endpoint and the `composition` capability
// (without it a CompositionRevision reports MissingCapabilities), and a
// paused Function of the same name for tools that list functions.
func (e *Env) registerFunction(ctx context.Context) error {
	return e.registerFunctionAt(ctx, e.opts.FunctionName, e.fnPort)
}

// registerFunctionAt registers a function served on a loopback port under name.
func (e *Env) registerFunctionAt(ctx context.Context, name string, port int) error {
	image := "local.invalid/" + name + ":dev" // never pulled: the runtime is External
	paused := map[string]any{"crossplane.io/paused": "true"}
	rev := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "pkg.crossplane.io/v1",
		"kind":       "FunctionRevision",
		"metadata": map[string]any{
			"name":        name,
			"labels":      map[string]any{"pkg.crossplane.io/package": name},
			"annotations": paused,
		},
		"spec": map[string]any{"desiredState": "Active", "image": image, "revision": int64(1)},
	}}
	fn := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "pkg.crossplane.io/v1",
		"kind":       "Function",
		"metadata":   map[string]any{"name": name, "annotations": paused},
		"spec":       map[string]any{"package": image},
	}}
	if err := e.Crossplane.ApplyObjects(ctx, rev, fn); err != nil {
		return err
	}
	status := fmt.Sprintf(`{"status":{"endpoint":"dns:///localhost:%d","capabilities":["composition"]}}`, port)
	_, err := e.Crossplane.Dynamic.Resource(functionRevisionGVR).Patch(ctx, name, types.MergePatchType, []byte(status), metav1.PatchOptions{}, "status")
	return err
}

// FunctionMetricsURL is the function's Prometheus endpoint (its gRPC server's counters).
func (e *Env) FunctionMetricsURL() string {
	return "http://127.0.0.1:" + strconv.Itoa(e.fnMetricsPort) + "/metrics"
}
