package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/SovereignCloudStack/scs-kaas/test/e2e/backendsim"
	"github.com/SovereignCloudStack/scs-kaas/test/e2e/controlplane"
	"github.com/SovereignCloudStack/scs-kaas/test/e2e/gardensim"
)

// workloadsFile is where the run directory records the workload API servers for the
// backend simulator (owner-readable only: it holds their CA keys).
const workloadsFile = "workloads.json"

// startBackendSimulator starts what kubectl scs conformance needs of the playground's
// backends: API servers standing in for the workload clusters (one with Nodes in az1 and
// az2 for Gardener and Cluster Stacks, one with a Node in nova for Magnum, as the example
// environments offer) and, as a process of the control plane, the backend simulator.
func startBackendSimulator(ctx context.Context, env *controlplane.Env) error {
	zoned, err := backendsim.StartWorkload(ctx, env, "workload-az", "az1", "az2")
	if err != nil {
		return err
	}
	nova, err := backendsim.StartWorkload(ctx, env, "workload-nova", "nova")
	if err != nil {
		return err
	}
	workloads := backendsim.Workloads{backendsim.BackendGardener: zoned, backendsim.BackendClusterStack: zoned, backendsim.BackendMagnum: nova}
	if err := workloads.Save(filepath.Join(env.RunDir, workloadsFile)); err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	if err := env.StartProcess(ctx, "backend-simulator", self, []string{"play-backends", "--run-dir=" + env.RunDir}, nil, 0, nil); err != nil {
		return err
	}
	logf("backend simulator started for SCSClusters labelled %s (workload API servers %s, %s)", backendsim.ConformanceRunLabel, zoned.URL, nova.URL)
	return nil
}

// playBackends is the backend simulator's process: it plays the backends of the clusters
// kubectl scs conformance creates until it is stopped.
func playBackends(args []string) error {
	fs := flag.NewFlagSet("play-backends", flag.ExitOnError)
	runDir := fs.String("run-dir", defaultRunDir(), "run directory of the playground")
	interval := fs.Duration("interval", time.Second, "how often to look at the clusters")
	_ = fs.Parse(args)
	s, err := readState(*runDir)
	if err != nil {
		return err
	}
	workloads, err := backendsim.LoadWorkloads(filepath.Join(*runDir, workloadsFile))
	if err != nil {
		return fmt.Errorf("no workload API servers recorded (make demo starts them): %w", err)
	}
	cp, garden, err := playgroundClients(s)
	if err != nil {
		return err
	}
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	sim := &backendsim.Simulator{
		Crossplane: backendsim.Clients{Kube: cp.kube, Dynamic: cp.dyn},
		Garden:     backendsim.Clients{Kube: garden.kube, Dynamic: garden.dyn},
		Workloads:  workloads,
		Selector:   backendsim.ConformanceRunLabel,
		Logf:       logf,
	}
	logf("playing the backends of the SCSClusters labelled %s", backendsim.ConformanceRunLabel)
	sim.Run(ctx, *interval)
	if err := ctx.Err(); err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	return nil
}

// gardenerWorkload is the cluster the recorded Gardener workload API server plays behind
// every Shoot of the playground, so that the admin kubeconfigs gardener-apiserver issues
// reach it; false when make demo recorded none.
func gardenerWorkload(runDir string) (gardensim.Cluster, bool) {
	workloads, err := backendsim.LoadWorkloads(filepath.Join(runDir, workloadsFile))
	if err != nil || workloads[backendsim.BackendGardener] == nil {
		return gardensim.Cluster{}, false
	}
	return workloads[backendsim.BackendGardener].Gardener(), true
}
