package controlplane

import (
	"context"
	"errors"
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
