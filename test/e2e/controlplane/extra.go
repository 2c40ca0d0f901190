package controlplane

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// Extra processes: programs that join a running control plane, such as a further provider
// or a stand-in for a backend API. They are managed like the built-in ones: log in
// logs/<name>.log, PID file in pids/, stopped by Stop and StopRun (newest first), killed
// with the test binary unless Options.Detach.

// StartProcess starts bin as part of the control plane under name and, when ready is not
// nil, polls it until it reports true (failing early if the process exits). The process
// runs in RunDir with env added to this process's environment.
func (e *Env) StartProcess(ctx context.Context, name, bin string, args, env []string, timeout time.Duration, ready func(context.Context) (bool, error)) error {
	if _, running := e.proc(name); running {
		return errors.New(name + " already running")
	}
	p, err := e.startProcess(name, bin, args, env)
	if err != nil {
		return err
	}
	if ready == nil {
		return nil
	}
	if err := waitFor(ctx, timeout, name+" ready", p.exited, ready); err != nil {
		_ = e.stopProcess(name)
		return err
	}
	return nil
}

// StopProcess stops a process started with StartProcess (SIGTERM, SIGKILL after 15 s).
func (e *Env) StopProcess(name string) error { return e.stopProcess(name) }

// FreePorts returns n distinct loopback ports that were free a moment ago.
func FreePorts(n int) ([]int, error) { return freePorts(n) }

// StartCluster brings up one more cluster (etcd and kube-apiserver) in the control plane,
// such as a stand-in for a workload cluster that a cluster API delivers a kubeconfig for.
// Its admin kubeconfig is Cluster.Kubeconfig. Its API server also accepts client
// certificates signed by clientCAs (PEM), such as the client CA a Gardener Shoot's admin
// kubeconfigs are signed with.
func (e *Env) StartCluster(ctx context.Context, name string, clientCAs ...[]byte) (*Cluster, error) {
	if _, err := e.freshClusterDir(name); err != nil {
		return nil, err
	}
	return e.startCluster(ctx, name, clusterOptions{clientCAs: clientCAs})
}

// StartClusterWithAuthentication is StartCluster with structured authentication: the API
// server also reads <RunDir>/<name>/authentication.yaml (--authentication-config), which
// starts without JWT authenticators and which SetJWTAuthenticators rewrites, for people who
// sign in through OIDC. Client certificates keep working beside it (Kubeconfig, clientCAs).
func (e *Env) StartClusterWithAuthentication(ctx context.Context, name string, clientCAs ...[]byte) (*Cluster, error) {
	dir, err := e.freshClusterDir(name)
	if err != nil {
		return nil, err
	}
	config := filepath.Join(dir, authenticationConfigFile)
	if err := writeAuthenticationConfiguration(config, nil); err != nil {
		return nil, err
	}
	return e.startCluster(ctx, name, clusterOptions{clientCAs: clientCAs, extraArgs: []string{"--authentication-config=" + config}})
}

// freshClusterDir empties the directory of cluster name: it starts empty, also where an
// earlier run in this run directory left a cluster of the same name (Start clears only the
// directories of its own clusters).
func (e *Env) freshClusterDir(name string) (string, error) {
	dir := filepath.Join(e.RunDir, name)
	if err := os.RemoveAll(dir); err != nil {
		return "", err
	}
	return dir, os.MkdirAll(dir, 0o700)
}

// NewEnv returns a control plane that runs nothing yet, for a test that needs only clusters
// of its own (StartCluster, StartClusterWithAuthentication, StartProcess): unlike Start it
// resolves only etcd and Kubernetes, so it needs neither Crossplane nor Gardener built, and
// it is ready at once. Stop stops what was started in it. Options.RunDir is required: like
// Start, NewEnv stops what an earlier run left in it, and the default is the playground's.
func NewEnv(ctx context.Context, opts Options) (*Env, error) {
	if opts.RunDir == "" {
		return nil, errors.New("NewEnv needs Options.RunDir")
	}
	if err := opts.defaults(); err != nil {
		return nil, err
	}
	e := &Env{RunDir: opts.RunDir, opts: opts, procs: map[string]*process{}, tools: opts.Tools}
	if err := StopRun(e.RunDir); err != nil {
		return nil, fmt.Errorf("stopping the previous run in %s: %w", e.RunDir, err)
	}
	if err := os.MkdirAll(e.RunDir, 0o755); err != nil {
		return nil, err
	}
	var err error
	if e.tools.KubeDir == "" {
		if e.tools.KubeDir, err = toolDir(ctx, opts.RepoRoot, "kubernetes", "SCS_KAAS_TOOL_KUBERNETES", e.logf); err != nil {
			return nil, err
		}
	}
	if e.tools.EtcdDir == "" {
		if e.tools.EtcdDir, err = toolDir(ctx, opts.RepoRoot, "etcd", "SCS_KAAS_TOOL_ETCD", e.logf); err != nil {
			return nil, err
		}
	}
	for _, bin := range []string{e.tools.kube("kube-apiserver"), e.tools.etcd()} {
		if _, err := os.Stat(bin); err != nil {
			return nil, fmt.Errorf("tool missing: %w", err)
		}
	}
	return e, nil
}

// StartExtraFunction runs one more composition function next to the project's: a process
// that serves gRPC with the same server certificate (it is for localhost), registered with
// Crossplane under name the way the project's function is. bin takes the conventional
// function flags (--address) and TLS_SERVER_CERTS_DIR; args are added.
func (e *Env) StartExtraFunction(ctx context.Context, name, bin string, args []string) error {
	ports, err := freePorts(1)
	if err != nil {
		return err
	}
	address := "127.0.0.1:" + strconv.Itoa(ports[0])
	err = e.StartProcess(ctx, name, bin, append([]string{"--address=" + address}, args...),
		[]string{"TLS_SERVER_CERTS_DIR=" + e.FunctionTLSDir()}, 60*time.Second, func(ctx context.Context) (bool, error) {
			d := tls.Dialer{NetDialer: &net.Dialer{}, Config: e.fnClientTLS.Clone()}
			d.Config.NextProtos = []string{"h2"}
			conn, err := d.DialContext(ctx, "tcp", address)
			if err != nil {
				return false, err
			}
			conn.Close()
			return true, nil
		})
	if err != nil {
		return err
	}
	return e.registerFunctionAt(ctx, name, ports[0])
}
