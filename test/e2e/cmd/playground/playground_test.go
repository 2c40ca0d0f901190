package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/yaml"

	"github.com/SovereignCloudStack/scs-kaas/test/e2e/backendsim"
	"github.com/SovereignCloudStack/scs-kaas/test/e2e/controlplane"
)

// TestPlayground runs the README's first commands as a newcomer does, through make, from a
// fresh run directory: make demo; make simulate for every example cluster (each backend);
// make conformance; make down. It checks the exit codes, that every example SCSCluster is
// Ready after its simulation, that every conformance report passed every check, and that
// make down leaves nothing behind: no recorded process alive, no port of the playground
// answering, and a run directory from which a second make demo starts again.
//
// It starts a whole control plane and so runs only when asked (make test-playground, part
// of make test).
func TestPlayground(t *testing.T) {
	if os.Getenv("SCS_KAAS_PLAYGROUND_TEST") != "1" {
		t.Skip("skipped: set SCS_KAAS_PLAYGROUND_TEST=1 to run the playground's own test (make test-playground; needs the pinned tools)")
	}
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..", "..", "..")
	runDir := filepath.Join(t.TempDir(), "playground")
	reports := filepath.Join(t.TempDir(), "conformance")
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Minute)
	defer cancel()

	runMake := func(target string, vars ...string) {
		t.Helper()
		args := append([]string{"-C", root, "--no-print-directory", target, "PLAYGROUND_RUN_DIR=" + runDir, "CONFORMANCE_REPORTS=" + reports}, vars...)
		cmd := exec.CommandContext(ctx, "make", args...)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		start := time.Now()
		err := cmd.Run()
		t.Logf("make %s %s: %v in %.0f s", target, strings.Join(vars, " "), err, time.Since(start).Seconds())
		if err != nil {
			t.Fatalf("make %s %s: %v\n%s", target, strings.Join(vars, " "), err, out.String())
		}
	}
	t.Cleanup(func() {
		if t.Failed() {
			_ = exec.Command("make", "-C", root, "--no-print-directory", "down", "PLAYGROUND_RUN_DIR="+runDir).Run()
		}
	})

	runMake("demo")
	state, err := readState(runDir)
	if err != nil {
		t.Fatal(err)
	}
	clusters := exampleClusters(t, root)
	if len(clusters) < 3 {
		t.Fatalf("make demo applies %d example clusters; want one per backend at least", len(clusters))
	}
	for _, c := range clusters {
		runMake("simulate", "CLAIM="+c.name, "NAMESPACE="+c.namespace)
	}
	cp, _, err := playgroundClients(state)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range clusters {
		got, err := getClaim(ctx, cp.dyn, c.namespace, c.name)
		if err != nil {
			t.Fatal(err)
		}
		if ready, _, _ := got.condition("Ready"); ready != "True" {
			t.Errorf("SCSCluster %s/%s Ready=%q after make simulate; want True", c.namespace, c.name, ready)
		}
		checkKubeconfigReaches(ctx, t, cp, got)
	}
	checkAddons(ctx, t, cp, clusters)

	runMake("conformance")
	checkConformanceReports(t, reports)

	ports := playgroundPorts(t, runDir, state)
	procs, err := controlplane.RunProcesses(runDir)
	if err != nil || len(procs) == 0 {
		t.Fatalf("the run directory records %d processes (%v)", len(procs), err)
	}
	runMake("down")
	checkNothingLeft(t, runDir, procs, ports)

	// The run directory as make down left it is where the next make demo starts.
	runMake("demo")
	if again, err := readState(runDir); err != nil || again.CrossplaneKubeconfig == "" {
		t.Errorf("the second make demo left no usable state: %v", err)
	}
	procs, err = controlplane.RunProcesses(runDir)
	if err != nil {
		t.Fatal(err)
	}
	ports = playgroundPorts(t, runDir, state)
	runMake("down")
	checkNothingLeft(t, runDir, procs, ports)
}

type namespacedName struct{ namespace, name string }

// exampleClusters are the SCSClusters of examples/claims, which make demo applies.
func exampleClusters(t *testing.T, root string) []namespacedName {
	t.Helper()
	objs, err := controlplane.ReadManifests(filepath.Join(root, "examples", "claims"))
	if err != nil {
		t.Fatal(err)
	}
	var clusters []namespacedName
	for _, o := range objs {
		clusters = append(clusters, namespacedName{o.GetNamespace(), o.GetName()})
	}
	return clusters
}

// checkConformanceReports wants one report per environment of make conformance, each
// with every check passed.
func checkConformanceReports(t *testing.T, dir string) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil || len(files) != 3 {
		t.Fatalf("conformance reports: %v (%v); want one per backend", files, err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var r struct {
			Run struct {
				Invocations map[string]struct {
					RC      int            `json:"rc"`
					Results map[string]int `json:"results"`
				} `json:"invocations"`
			} `json:"run"`
		}
		if err := yaml.Unmarshal(data, &r); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if len(r.Run.Invocations) != 1 {
			t.Errorf("%s: %d invocations, want 1", f, len(r.Run.Invocations))
		}
		for _, inv := range r.Run.Invocations {
			if inv.RC != 0 || len(inv.Results) < 8 {
				t.Errorf("%s: rc %d, %d checks; want rc 0 and every check", f, inv.RC, len(inv.Results))
			}
			for id, v := range inv.Results {
				if v != 1 {
					t.Errorf("%s: check %s = %d, want 1 (passed)", f, id, v)
				}
			}
		}
	}
}

// playgroundPorts are the loopback addresses the playground serves on: both API servers,
// the function, and the workload API servers standing in for clusters.
func playgroundPorts(t *testing.T, runDir string, s controlplane.State) []string {
	t.Helper()
	var addrs []string
	for _, kc := range []string{s.CrossplaneKubeconfig, s.GardenKubeconfig} {
		cfg, err := clientcmd.BuildConfigFromFlags("", kc)
		if err != nil {
			t.Fatal(err)
		}
		u, err := url.Parse(cfg.Host)
		if err != nil {
			t.Fatal(err)
		}
		addrs = append(addrs, u.Host)
	}
	addrs = append(addrs, s.FunctionAddress)
	if data, err := os.ReadFile(filepath.Join(runDir, workloadsFile)); err == nil {
		var w backendsim.Workloads
		if err := json.Unmarshal(data, &w); err != nil {
			t.Fatal(err)
		}
		for _, wl := range w {
			u, err := url.Parse(wl.URL)
			if err != nil {
				t.Fatal(err)
			}
			addrs = append(addrs, u.Host)
		}
	}
	return addrs
}

// checkNothingLeft wants every recorded process gone and no playground port answering.
func checkNothingLeft(t *testing.T, runDir string, started []controlplane.RunProcess, addrs []string) {
	t.Helper()
	for _, p := range started {
		if processAlive(p.PID) {
			t.Errorf("process %s (pid %d) is alive after make down", p.Name, p.PID)
		}
	}
	if procs, err := controlplane.RunProcesses(runDir); err != nil {
		t.Error(err)
	} else {
		for _, p := range procs {
			if p.Running {
				t.Errorf("the run directory says %s (pid %d) runs after make down", p.Name, p.PID)
			}
		}
	}
	for _, a := range addrs {
		if c, err := net.DialTimeout("tcp", a, time.Second); err == nil {
			_ = c.Close()
			t.Errorf("%s still answers after make down", a)
		}
	}
}

// processAlive says whether pid is a process that has not ended (a zombie has).
func processAlive(pid int) bool {
	stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return false
	}
	// pid (comm) state ...: the state follows the last parenthesis.
	rest := string(stat[bytes.LastIndexByte(stat, ')')+1:])
	return !strings.HasPrefix(strings.TrimSpace(rest), "Z")
}

// checkKubeconfigReaches checks that the kubeconfig a simulated cluster delivered reaches a
// workload API server of the playground, whatever its backend (a Shoot's once named a host
// that does not resolve).
func checkKubeconfigReaches(ctx context.Context, t *testing.T, cp *clients, c *claimStatus) {
	t.Helper()
	name, _, _ := unstructured.NestedString(c.claim.Object, "spec", "writeConnectionSecretToRef", "name")
	if name == "" {
		return
	}
	secret, err := cp.kube.CoreV1().Secrets(c.claim.GetNamespace()).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Errorf("the kubeconfig Secret of %s: %v", c.claim.GetName(), err)
		return
	}
	rc, err := clientcmd.RESTConfigFromKubeConfig(secret.Data["kubeconfig"])
	if err != nil {
		t.Errorf("the kubeconfig of %s: %v", c.claim.GetName(), err)
		return
	}
	kube, err := kubernetes.NewForConfig(rc)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kube.Discovery().ServerVersion(); err != nil {
		t.Errorf("the kubeconfig of %s does not reach a workload API server: %v", c.claim.GetName(), err)
	}
}

// checkAddons checks that every example cluster gets the example add-ons, applied by Flux
// and healthy (make demo's --addons), and is registered for Argo CD.
func checkAddons(ctx context.Context, t *testing.T, cp *clients, clusters []namespacedName) {
	t.Helper()
	for _, c := range clusters {
		err := controlplane.WaitFor(ctx, 5*time.Minute, "add-ons of "+c.name, func(ctx context.Context) (bool, error) {
			got, err := getClaim(ctx, cp.dyn, c.namespace, c.name)
			if err != nil {
				return false, err
			}
			status, reason, msg := got.condition("AddonsReady")
			return status == "True", fmt.Errorf("AddonsReady %s %s: %s", status, reason, msg)
		})
		if err != nil {
			t.Errorf("the example add-ons on %s/%s: %v", c.namespace, c.name, err)
		}
	}
	// A claim's in argocd, a namespaced composite's in its own namespace (docs/addons.md).
	secrets, err := cp.kube.CoreV1().Secrets("").List(ctx, metav1.ListOptions{LabelSelector: "argocd.argoproj.io/secret-type=cluster"})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(secrets.Items); n != len(clusters) {
		t.Errorf("%d Argo CD cluster Secrets, want one per example cluster (%d)", n, len(clusters))
	}
}
