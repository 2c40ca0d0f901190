package e2e

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/yaml"

	"github.com/SovereignCloudStack/scs-kaas/test/e2e/backendsim"
)

// upstreamPluginRunner is the SCS compliance suite's KaaS plugin runner, as published at a
// pinned commit of SovereignCloudStack/standards (../shared/upstream/README.md).
func upstreamPluginRunner() string {
	return filepath.Join(repoRoot, "..", "shared", "upstream", "scs-standards", "Tests")
}

// pluginDir holds the project's plugin and, in upstream/, the change it proposes to the runner.
func pluginDir() string { return filepath.Join(repoRoot, "contrib", "scs-compliance-plugin") }

func upstreamRunnerPatch() string {
	return filepath.Join(pluginDir(), "upstream", "0001-run_plugin-load-a-plugin-by-module-and-class.patch")
}

// pluginRunLabel marks the clusters this test's plugin creates: the test plays their backend.
const pluginRunLabel = "kaas.scs.community/compliance-plugin-test"

// TestSCSCompliancePlugin runs the SCS compliance suite's own runner, run_plugin.py, with
// this project's plugin (contrib/scs-compliance-plugin): the runner, its interface and the
// upstream plugins are copied unmodified from the pinned commit, the change we propose
// upstream (loading a plugin by module:Class) is applied as a patch, and the runner is
// started as the suite starts it: run_plugin.py create, then delete, with the cluster
// entry of clusters.yaml.example in ~/.config/scs. The entry asks for one node in the
// namespace's default environment, the project's Gardener example, whose three zones the
// node cannot spread over: the pool gets the first zone. The test plays Gardener's
// gardenlet for the cluster, with a local kube-apiserver as the cluster behind the Shoot,
// and checks that the kubeconfig the runner's working directory receives reaches it.
func TestSCSCompliancePlugin(t *testing.T) {
	needEnv(t)
	ctx := testContext(t)
	python := pythonForPlugin(ctx, t)
	if _, err := os.Stat(upstreamPluginRunner()); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("the SCS compliance suite's runner is not at %s: %v", upstreamPluginRunner(), err)
		}
		t.Skipf("skipped: the SCS compliance suite's runner is not at %s (../shared/upstream, absent from a fresh clone)", upstreamPluginRunner())
	}
	dir := t.TempDir()
	runner := upstreamRunnerWithPatch(ctx, t, dir)

	// pytest_kind is what plugin_kind.py imports and Debian does not package; the runner
	// imports every upstream plugin, so a stub module on the Python path stands in for it.
	stubs := filepath.Join(dir, "stubs")
	writeFile(t, filepath.Join(stubs, "pytest_kind.py"), "# A stand-in: the suite's kind plugin is not used here.\n"+
		"class KindCluster:\n    def __init__(self, *args, **kwargs):\n        raise RuntimeError('pytest_kind is not installed')\n")

	// The runner reads ~/.config/scs/clusters.yaml and writes each cluster's files to a
	// directory named after it in its working directory.
	const id = "plugincheck"
	home := filepath.Join(dir, "home")
	kubeconfig, err := os.ReadFile(cp.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(home, ".config", "scs", "provider-api.kubeconfig"), string(kubeconfig))
	entry := exampleClusterEntry(t)
	entry["config"].(map[string]any)["timeoutSeconds"] = int64(faultDeadline / time.Second)
	entry["config"].(map[string]any)["labels"] = map[string]any{pluginRunLabel: id}
	clusters, err := yaml.Marshal(map[string]any{"clusters": map[string]any{
		id:           entry,
		"unknown":    map[string]any{"kind": "nosuch", "config": map[string]any{}},
		"wrongclass": map[string]any{"kind": "plugin_scs_kaas:Nope", "config": map[string]any{}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(home, ".config", "scs", "clusters.yaml"), string(clusters))
	work := filepath.Join(dir, "work")
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	runPlugin := func(ctx context.Context, action, cluster string) *exec.Cmd {
		cmd := exec.CommandContext(ctx, python, filepath.Join(runner, "run_plugin.py"), action, cluster)
		cmd.Dir = work
		cmd.Env = append(os.Environ(), "HOME="+home, "PYTHONPATH="+pluginDir()+string(os.PathListSeparator)+stubs)
		return cmd
	}

	t.Run("an unknown kind is refused with the choices", func(t *testing.T) {
		for cluster, want := range map[string]string{
			"unknown":    "unknown plugin 'nosuch': use one of clusterstacks, gardener, kind, static, t8s, or module:Class",
			"wrongclass": "plugin 'plugin_scs_kaas:Nope': plugin_scs_kaas has no subclass of KubernetesClusterPlugin named Nope",
		} {
			out, err := runPlugin(ctx, "create", cluster).CombinedOutput()
			if err == nil || !strings.Contains(string(out), want) {
				t.Errorf("run_plugin.py create %s: %v, want a failure saying %q:\n%s", cluster, err, want, out)
			}
		}
	})

	workload, err := backendsim.StartWorkload(ctx, env, "plugin-workload", "az1")
	if err != nil {
		t.Fatal(err)
	}
	simulate(t, &backendsim.Simulator{
		Crossplane: backendsim.Clients{Kube: cp.Client, Dynamic: cp.Dynamic},
		Garden:     backendsim.Clients{Kube: garden.Client, Dynamic: garden.Dynamic},
		Workloads:  backendsim.Workloads{backendsim.BackendGardener: workload},
		Selector:   pluginRunLabel,
		Logf:       logf,
	})
	t.Cleanup(func() { _ = claims().Delete(context.Background(), id, metav1.DeleteOptions{}) })

	start := time.Now()
	out, err := runWithin(ctx, runPlugin(ctx, "create", id), faultDeadline+time.Minute)
	if err != nil {
		t.Fatalf("run_plugin.py create %s: %v\n%s", id, err, out)
	}
	measure(t, "run_plugin.py create -> cluster Ready, kubeconfig.yaml written (gardenlet simulated)", start)
	t.Logf("run_plugin.py create:\n%s", out)

	claim, err := getClaim(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if got := claim.GetLabels()[pluginRunLabel]; got != id {
		t.Errorf("claim %s has label %s=%q, want %q from the plugin's labels", id, pluginRunLabel, got, id)
	}
	var zones []string
	if pools, _, _ := unstructured.NestedSlice(claim.Object, "status", "defaulted", "nodePools"); len(pools) == 1 {
		zones, _, _ = unstructured.NestedStringSlice(pools[0].(map[string]any), "zones")
	}
	if !slices.Equal(zones, []string{"az1"}) {
		t.Errorf("status.defaulted.nodePools[0].zones = %v; want [az1]: one node gets the environment's first zone", zones)
	}

	written, err := os.ReadFile(filepath.Join(work, id, "kubeconfig.yaml"))
	if err != nil {
		t.Fatalf("the runner's working directory has no %s/kubeconfig.yaml: %v", id, err)
	}
	reachCluster(ctx, t, written, workload)

	out, err = runWithin(ctx, runPlugin(ctx, "delete", id), faultDeadline+time.Minute)
	if err != nil {
		t.Fatalf("run_plugin.py delete %s: %v\n%s", id, err, out)
	}
	if _, err := getClaim(context.Background(), id); err == nil {
		t.Errorf("claim %s still there after run_plugin.py delete returned:\n%s", id, out)
	}
}

// pythonForPlugin is the python3 with what the plugin and the runner import; under CI a
// missing package fails the test (hack/python-deps.sh, run by make e2e, installs them).
func pythonForPlugin(ctx context.Context, t *testing.T) string {
	t.Helper()
	python := os.Getenv("SCS_KAAS_PYTHON")
	if python == "" {
		python = "/usr/bin/python3"
	}
	if out, err := exec.CommandContext(ctx, python, "-c", "import kubernetes, yaml, click, jinja2").CombinedOutput(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s cannot import kubernetes, yaml, click and jinja2 (hack/python-deps.sh installs them): %v\n%s", python, err, out)
		}
		t.Skipf("skipped: %s cannot import kubernetes, yaml, click and jinja2; hack/python-deps.sh installs them", python)
	}
	return python
}

// upstreamRunnerWithPatch copies the pinned Tests directory into dir, applies the change we
// propose upstream with git apply, as a reviewer would, and returns the plugin directory.
func upstreamRunnerWithPatch(ctx context.Context, t *testing.T, dir string) string {
	t.Helper()
	root := filepath.Join(dir, "standards")
	err := filepath.WalkDir(upstreamPluginRunner(), func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(upstreamPluginRunner(), path)
		if err != nil {
			return err
		}
		to := filepath.Join(root, "Tests", rel)
		if d.IsDir() {
			return os.MkdirAll(to, 0o755)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(to, b, 0o644)
	})
	if err != nil {
		t.Fatalf("copying the runner: %v", err)
	}
	apply := exec.CommandContext(ctx, "git", "apply", upstreamRunnerPatch())
	apply.Dir = root
	if out, err := apply.CombinedOutput(); err != nil {
		t.Fatalf("git apply %s (it must apply to the pinned commit unchanged): %v\n%s", upstreamRunnerPatch(), err, out)
	}
	return filepath.Join(root, "Tests", "kaas", "plugin")
}

// exampleClusterEntry is the one cluster of contrib/scs-compliance-plugin/clusters.yaml.example.
func exampleClusterEntry(t *testing.T) map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(pluginDir(), "clusters.yaml.example"))
	if err != nil {
		t.Fatal(err)
	}
	var example struct {
		Clusters map[string]map[string]any `json:"clusters"`
	}
	if err := yaml.Unmarshal(b, &example); err != nil || len(example.Clusters) != 1 {
		t.Fatalf("clusters.yaml.example: want one cluster entry, have %d (%v)", len(example.Clusters), err)
	}
	for _, entry := range example.Clusters {
		return entry
	}
	return nil
}

// reachCluster checks that a delivered kubeconfig reaches the workload API server that
// stands in for the cluster, and sees its Node.
func reachCluster(ctx context.Context, t *testing.T, kubeconfig []byte, workload *backendsim.Workload) {
	t.Helper()
	cfg, err := clientcmd.RESTConfigFromKubeConfig(kubeconfig)
	if err != nil {
		t.Fatalf("kubeconfig.yaml does not load: %v", err)
	}
	if cfg.Host != workload.URL {
		t.Errorf("kubeconfig.yaml names the API server %s, want the cluster's, %s", cfg.Host, workload.URL)
	}
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	nodes, err := client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatalf("listing the cluster's nodes with kubeconfig.yaml: %v", err)
	}
	if len(nodes.Items) != 1 || nodes.Items[0].Labels["topology.kubernetes.io/zone"] != "az1" {
		t.Errorf("the cluster's nodes seen with kubeconfig.yaml: %d, want the one in az1", len(nodes.Items))
	}
}

// runWithin runs cmd and returns what it printed; it fails when cmd does not end within d.
func runWithin(ctx context.Context, cmd *exec.Cmd, d time.Duration) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.WaitDelay = time.Second
	if err := cmd.Start(); err != nil {
		return "", err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return out.String(), err
	case <-ctx.Done():
		_ = cmd.Process.Kill()
		<-done
		return out.String(), fmt.Errorf("did not end within %s", d)
	}
}

// writeFile writes content to path, making its directory.
func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}
