package controlplane

import (
	"context"
	"fmt"
	"sort"
	"time"
)

// RestartProcess stops a running process of the control plane (SIGTERM, SIGKILL after 15 s)
// and starts it again with the same command line and environment, as an operator's restart
// or a crash loop would, after down (zero: at once). ready, when not nil, is waited for (two
// minutes at most) before it returns. Fault tests use it on any process: an API server, etcd,
// Crossplane, a provider, the function.
func (e *Env) RestartProcess(ctx context.Context, name string, down time.Duration, ready func(context.Context) (bool, error)) error {
	p, ok := e.proc(name)
	if !ok {
		return fmt.Errorf("no process %s runs", name)
	}
	if err := e.stopProcess(name); err != nil {
		return fmt.Errorf("stopping %s: %w", name, err)
	}
	if down > 0 {
		select {
		case <-time.After(down):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	np, err := e.startProcess(name, p.rec.Args[0], p.rec.Args[1:], p.env)
	if err != nil {
		return err
	}
	if ready == nil {
		return nil
	}
	return waitFor(ctx, 2*time.Minute, name+" ready again", np.exited, ready)
}

// RestartExited starts again every process of the control plane that has exited since it
// was started, with its command line and environment, and names them. In a real
// installation the kubelet does this (restartPolicy Always): Crossplane and the providers
// exit by design when they lose their API server for too long. Fault tests call it after
// a fault, so that what they measure is the recovery, and report what had to be restarted.
func (e *Env) RestartExited() ([]string, error) {
	e.mu.Lock()
	var exited []*process
	for _, p := range e.procs {
		if p.exited() != nil {
			exited = append(exited, p)
		}
	}
	e.mu.Unlock()
	sort.Slice(exited, func(i, j int) bool { return exited[i].rec.Name < exited[j].rec.Name })
	names := make([]string, 0, len(exited))
	for _, p := range exited {
		if _, err := e.startProcess(p.rec.Name, p.rec.Args[0], p.rec.Args[1:], p.env); err != nil {
			return names, err
		}
		names = append(names, p.rec.Name)
	}
	return names, nil
}
