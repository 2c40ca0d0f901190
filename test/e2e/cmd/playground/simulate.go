package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/SovereignCloudStack/scs-kaas/test/e2e/controlplane"
	"github.com/SovereignCloudStack/scs-kaas/test/e2e/gardensim"
)

// simulate plays Gardener for one claim: no Gardener runs in the playground, so nothing
// reports on its Shoots until someone writes the status Gardener would write.
func simulate(args []string) error {
	fs := flag.NewFlagSet("simulate", flag.ExitOnError)
	runDir := fs.String("run-dir", defaultRunDir(), "run directory of the playground")
	namespace := fs.String("namespace", "team1", "namespace of the claim")
	claim := fs.String("claim", "", "name of the SCSCluster claim whose Shoot gets the status (required)")
	state := fs.String("state", string(gardensim.Healthy), "what Gardener reports: "+strings.Join(gardensim.States(), ", "))
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
	if c.native.Kind != "Shoot" {
		return fmt.Errorf("claim %s/%s has no Shoot (status.backend.nativeRef: %+v); is its backend Gardener, and has it rendered?", *namespace, *claim, c.native)
	}
	shoot, err := gardensim.Write(ctx, garden.kube, garden.dyn, c.native.Namespace, c.native.Name, st)
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
			fmt.Printf("\nThe connection secret (kubeconfig from provider-gardener-kubeconfig; no cluster runs behind it):\n")
			kubectl(s, s.CrossplaneKubeconfig, "get", "secret", "-n", *namespace, secret)
		}
	}
	return nil
}
