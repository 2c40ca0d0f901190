package controlplane

import (
	"context"
	"crypto/tls"
	"errors"
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
	// It starts empty, also where an earlier run in this run directory left a cluster of the
	// same name (Start clears only the directories of its own clusters).
	if err := os.RemoveAll(filepath.Join(e.RunDir, name)); err != nil {
		return nil, err
	}
	return e.startCluster(ctx, name, clusterOptions{clientCAs: clientCAs})
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
