package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/SovereignCloudStack/scs-kaas/test/e2e/backendsim"
	"github.com/SovereignCloudStack/scs-kaas/test/e2e/controlplane"
	"github.com/SovereignCloudStack/scs-kaas/test/e2e/gardensim"
)

// simulate plays the backend of one claim: no gardenlet, no OpenStack and no Magnum run in
// the playground, so nothing reports on a cluster until someone writes what they would.
// For a Shoot it writes the state asked for once; for a Cluster Stacks or Magnum cluster it
// plays a healthy backend (the recorded workload API servers stand in for the clusters)
// until the claim is Ready.
func simulate(args []string) error {
	fs := flag.NewFlagSet("simulate", flag.ExitOnError)
	runDir := fs.String("run-dir", defaultRunDir(), "run directory of the playground")
	namespace := fs.String("namespace", "team1", "namespace of the claim")
	claim := fs.String("claim", "", "name of the SCSCluster whose backend is played (required)")
	state := fs.String("state", string(gardensim.Healthy), "what the backend reports: "+strings.Join(gardensim.States(), ", ")+" (Gardener); healthy (Cluster Stacks, Magnum)")
	wait := fs.Duration("wait", 2*time.Minute, "how long to wait until the claim shows it (0: do not wait)")
	_ = fs.Parse(args)
	if *claim == "" {
		fs.Usage()
		os.Exit(2)
	}
	st, err := gardensim.ParseState(*state)
	if err != nil {
		return err
	}
	s, err := readState(*runDir)
	if err != nil {
		return err
	}
	cp, garden, err := playgroundClients(s)
	if err != nil {
		return err
	}
	ctx, cancel := signalContext(*wait + time.Minute)
	defer cancel()

	c, err := getClaim(ctx, cp.dyn, *namespace, *claim)
	if err != nil {
		return err
	}
	switch c.native.Kind {
	case "Shoot":
	case "Cluster", "ClusterV1":
		if st != gardensim.Healthy {
			return fmt.Errorf("--state=%s is one of Gardener's; the backend of %s/%s (a %s) is played healthy", st, *namespace, *claim, c.native.Kind)
		}
		return simulateHealthy(ctx, s, *runDir, *namespace, *claim, *wait)
	default:
		return fmt.Errorf("claim %s/%s names no native object yet (status.backend.nativeRef: %+v); has it rendered?", *namespace, *claim, c.native)
	}
	// A healthy Shoot's cluster is the recorded Gardener workload API server, so that its
	// admin kubeconfig reaches one, as the other backends' do.
	var opts []gardensim.Option
	if w, ok := gardenerWorkload(*runDir); ok {
		opts = append(opts, gardensim.WithCluster(w))
	}
	shoot, err := gardensim.Write(ctx, garden.kube, garden.dyn, c.native.Namespace, c.native.Name, st, opts...)
	if err != nil {
		return err
	}
	fmt.Printf("Wrote the status Gardener would write (%s) on Shoot %s/%s, generation %d.\n\n",
		st, c.native.Namespace, c.native.Name, shoot.GetGeneration())
	if *wait == 0 {
		return nil
	}

	shows := map[gardensim.State]func(*claimStatus) bool{
		gardensim.Healthy: func(c *claimStatus) bool { s, _, _ := c.condition("Ready"); return s == "True" },
		gardensim.QuotaExceeded: func(c *claimStatus) bool {
			_, r, _ := c.condition("BackendReady")
			return r == gardensim.QuotaErrorCode
		},
		gardensim.Progressing: func(c *claimStatus) bool {
			_, r, _ := c.condition("BackendReady")
			return strings.HasSuffix(r, "Processing")
		},
	}[st]
	err = controlplane.WaitFor(ctx, *wait, "the claim to show it", func(ctx context.Context) (bool, error) {
		if c, err = getClaim(ctx, cp.dyn, *namespace, *claim); err != nil {
			return false, err
		}
		return shows(c), errors.New(c.describe())
	})
	if err != nil {
		return err
	}
	kubectl(s, s.CrossplaneKubeconfig, "get", "scscluster", "-n", *namespace, *claim, "-o", "wide")
	for _, t := range []string{"Ready", "BackendReady"} {
		status, reason, msg := c.condition(t)
		fmt.Printf("  %-13s %-6s %-26s %s\n", t, status, reason, msg)
	}
	if st == gardensim.Healthy {
		if secret, _, _ := unstructured.NestedString(c.claim.Object, "spec", "writeConnectionSecretToRef", "name"); secret != "" {
			fmt.Printf("\nThe connection secret (kubeconfig from provider-gardener-kubeconfig; the playground's workload API server stands in for the cluster):\n")
			kubectl(s, s.CrossplaneKubeconfig, "get", "secret", "-n", *namespace, secret)
		}
	}
	return nil
}

// simulateHealthy plays a healthy Cluster Stacks or Magnum backend for one claim until it is
// Ready: the infrastructure and control plane Cluster API's providers would report, or
// provider-openstack's status and connection secret, reaching the playground's workload API
// servers (make demo starts them).
func simulateHealthy(ctx context.Context, s controlplane.State, runDir, namespace, claim string, wait time.Duration) error {
	workloads, err := backendsim.LoadWorkloads(filepath.Join(runDir, workloadsFile))
	if err != nil {
		return fmt.Errorf("no workload API servers recorded (make demo starts them with --conformance-backends): %w", err)
	}
	cp, garden, err := playgroundClients(s)
	if err != nil {
		return err
	}
	sim := &backendsim.Simulator{
		Crossplane: backendsim.Clients{Kube: cp.kube, Dynamic: cp.dyn},
		Garden:     backendsim.Clients{Kube: garden.kube, Dynamic: garden.dyn},
		Workloads:  workloads,
		Logf:       logf,
	}
	if wait == 0 {
		wait = time.Second
	}
	var c *claimStatus
	err = controlplane.WaitFor(ctx, wait, "claim "+namespace+"/"+claim+" Ready", func(ctx context.Context) (bool, error) {
		if err := sim.StepCluster(ctx, namespace, claim); err != nil {
			return false, err
		}
		if c, err = getClaim(ctx, cp.dyn, namespace, claim); err != nil {
			return false, err
		}
		ready, _, _ := c.condition("Ready")
		return ready == "True", errors.New(c.describe())
	})
	if err != nil {
		return err
	}
	fmt.Printf("Played a healthy backend for %s/%s (%s %s/%s) until it was Ready.\n\n", namespace, claim, c.native.Kind, c.native.Namespace, c.native.Name)
	kubectl(s, s.CrossplaneKubeconfig, "get", "scscluster", "-n", namespace, claim, "-o", "wide")
	return nil
}
