package controlplane

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"
)

// RebuildCrossplane destroys the Crossplane cluster and builds a new one in its place, as a
// platform does that lost its control plane: every process of the Crossplane side stops
// (Crossplane, the package runtime, the providers, the function, Cluster API and the
// controller manager of that cluster, the API server and etcd), etcd's data and Crossplane's
// package caches are deleted, and Start's steps for that cluster run again on an empty etcd:
// the core's CRDs, Cluster API, the function, the packages installed from the registry,
// provider-kubernetes' configs and Options.Manifests. The new cluster answers at the same
// address with the same certificates, so clients of Crossplane keep working, as after a
// restore of the control plane's endpoint. Everything outside stays: the garden, the remote
// management cluster, the registry, the signing key and further clusters and processes.
//
// also names further processes that belong to the Crossplane side (a provider a test
// started); they are stopped, and starting them again is the caller's.
func (e *Env) RebuildCrossplane(ctx context.Context, also ...string) error {
	start := time.Now()
	c := e.Crossplane
	etcd, ok := e.proc("etcd-" + c.Name)
	if !ok {
		return fmt.Errorf("etcd-%s does not run", c.Name)
	}
	api, ok := e.proc("kube-apiserver-" + c.Name)
	if !ok {
		return fmt.Errorf("kube-apiserver-%s does not run", c.Name)
	}

	// The loss: everything of the Crossplane side stops, newest first, and its data goes.
	// fnMu: the function is among them (StopFunction, KillFunction).
	if err := e.stopCrossplaneSide(also); err != nil {
		return err
	}
	dir := filepath.Join(e.RunDir, c.Name)
	for _, d := range []string{"etcd", "xpkg-cache", "xfn-cache"} {
		if err := os.RemoveAll(filepath.Join(dir, d)); err != nil {
			return err
		}
	}
	e.logf("destroyed the Crossplane cluster: its processes stopped, its etcd and caches deleted")

	// The new cluster: an empty etcd and the API server on the same address.
	np, err := e.startProcess(etcd.rec.Name, etcd.rec.Args[0], etcd.rec.Args[1:], etcd.env)
	if err != nil {
		return err
	}
	if err := waitEtcd(ctx, c, np); err != nil {
		return err
	}
	if np, err = e.startProcess(api.rec.Name, api.rec.Args[0], api.rec.Args[1:], api.env); err != nil {
		return err
	}
	if err := waitAPIServer(ctx, c, np); err != nil {
		return err
	}
	c.Mapper.Reset()
	if err := e.runSteps(ctx, e.crossplaneSteps(nil), true); err != nil {
		return err
	}
	if err := e.writeState(); err != nil {
		return err
	}
	e.logf("rebuilt the Crossplane cluster in %.1fs", time.Since(start).Seconds())
	return nil
}

// stopCrossplaneSide stops the package runtime and the processes of the Crossplane side.
func (e *Env) stopCrossplaneSide(also []string) error {
	e.fnMu.Lock()
	defer e.fnMu.Unlock()
	if e.stopPackageRuntime != nil {
		e.stopPackageRuntime()
		e.stopPackageRuntime = nil
	}
	for _, name := range e.crossplaneProcesses(also) {
		if err := e.stopProcess(name); err != nil {
			return fmt.Errorf("stopping %s: %w", name, err)
		}
	}
	return nil
}

// crossplaneProcesses are the running processes of the Crossplane side, newest first: those
// of its cluster (etcd, API server, controller manager, Cluster API's managers), Crossplane,
// provider-kubernetes, the function, the package runtime, and also.
func (e *Env) crossplaneProcesses(also []string) []string {
	name := e.Crossplane.Name
	fixed := append([]string{name, "provider-kubernetes", functionProcess, "package-runtime"}, also...)
	e.mu.Lock()
	defer e.mu.Unlock()
	var names []string
	for n := range e.procs {
		if strings.HasSuffix(n, "-"+name) || strings.HasPrefix(n, name+"-") || slices.Contains(fixed, n) {
			names = append(names, n)
		}
	}
	sort.Slice(names, func(i, j int) bool { return e.procs[names[i]].rec.Seq > e.procs[names[j]].rec.Seq })
	return names
}
