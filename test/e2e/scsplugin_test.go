package e2e

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"
)

// TestSCSCompliancePlugin runs the SCS compliance suite's plugin
// (contrib/scs-compliance-plugin) as the suite's runner does: create a cluster from a
// clusters.yaml entry, wait until it is Ready (the test plays provider-openstack for a
// Magnum cluster meanwhile), find its kubeconfig in kubeconfig.yaml, delete it.
func TestSCSCompliancePlugin(t *testing.T) {
	needEnv(t)
	ctx := testContext(t)
	python := os.Getenv("SCS_KAAS_PYTHON")
	if python == "" {
		python = "/usr/bin/python3"
	}
	if err := exec.CommandContext(ctx, python, "-c", "import kubernetes, yaml").Run(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s lacks the kubernetes and yaml packages (hack/python-deps.sh installs them): %v", python, err)
		}
		t.Skipf("skipped: %s lacks the kubernetes and yaml packages; hack/python-deps.sh installs them", python)
	}
	const id = "plugincheck"
	dir := t.TempDir()
	kubeconfig, err := os.ReadFile(cp.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "provider-api.kubeconfig"), kubeconfig, 0o600); err != nil {
		t.Fatal(err)
	}
	clusters, err := yaml.Marshal(map[string]any{"clusters": map[string]any{id: map[string]any{
		"kind": "scs-kaas",
		"config": map[string]any{
			"kubeconfig": "provider-api.kubeconfig", "namespace": claimNamespace, "environment": magnumEnvironment,
			"kubernetesVersion": "1.34", "machineType": "SCS-4V-8", "nodes": 2, "timeoutSeconds": 300,
		},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	config := filepath.Join(dir, "clusters.yaml")
	if err := os.WriteFile(config, clusters, 0o600); err != nil {
		t.Fatal(err)
	}
	plugin := func(action string) *exec.Cmd {
		cmd := exec.CommandContext(ctx, python, filepath.Join(repoRoot, "contrib", "scs-compliance-plugin", "run.py"), action, id, "--config", config)
		cmd.Dir = dir
		return cmd
	}

	start := time.Now()
	create := plugin("create")
	var out bytes.Buffer
	create.Stdout, create.Stderr = &out, &out
	if err := create.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- create.Wait() }()
	_, native, _ := waitClusterV1(ctx, t, id)
	magnumReady(ctx, t, native)
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("plugin create: %v\n%s", err, out.String())
		}
	case <-time.After(faultDeadline):
		t.Fatalf("plugin create did not return within %s:\n%s", faultDeadline, out.String())
	case <-ctx.Done():
		t.Fatal(ctx.Err())
	}
	measure(t, "plugin create -> cluster Ready, kubeconfig.yaml written (provider-openstack simulated)", start)
	got, err := os.ReadFile(filepath.Join(dir, id, "kubeconfig.yaml"))
	if err != nil {
		t.Fatalf("the plugin wrote no kubeconfig.yaml: %v\n%s", err, out.String())
	}
	if !strings.Contains(string(got), "https://198.51.100.40:6443") {
		t.Errorf("kubeconfig.yaml does not name the cluster's API server")
	}
	t.Logf("plugin create:\n%s", out.String())

	if b, err := plugin("delete").CombinedOutput(); err != nil {
		t.Fatalf("plugin delete: %v\n%s", err, b)
	}
	if _, err := getClaim(context.Background(), id); err == nil {
		t.Errorf("claim %s still there after the plugin's delete returned", id)
	}
}
