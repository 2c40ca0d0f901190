package controlplane

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
)

// Resources this test touches directly.
var (
	shootGVR = schema.GroupVersionResource{Group: "core.gardener.cloud", Version: "v1beta1", Resource: "shoots"}
	smokeGVR = schema.GroupVersionResource{Group: "e2e.scs.community", Version: "v1alpha1", Resource: "smokes"}
)

// TestControlPlaneSmoke proves the whole chain with a stand-in function:
// claim -> XR -> function (mTLS) -> provider-kubernetes Object -> ConfigMap
// in the garden cluster; update and delete propagate; the function can be
// killed and restarted; the Shoot CRD accepts a rendered Shoot; Stop leaves
// nothing running. It logs start-up time, latencies and memory use.
//
// It needs the pinned tools (hack/tools/build.sh; the first build on a
// machine takes ~25 min) and runs only with SCS_KAAS_E2E=1.
func TestControlPlaneSmoke(t *testing.T) {
	if os.Getenv("SCS_KAAS_E2E") == "" {
		t.Skip("set SCS_KAAS_E2E=1 to run the control plane smoke test (builds/uses the pinned tools)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()

	fnBin := filepath.Join(t.TempDir(), "fakefn")
	build := exec.CommandContext(ctx, "go", "build", "-o", fnBin, "../internal/fakefn")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		t.Fatalf("building the stand-in function: %v", err)
	}

	runDir := os.Getenv("SCS_KAAS_E2E_RUN_DIR")
	if runDir == "" {
		runDir = t.TempDir()
	}
	start := time.Now()
	env, err := Start(ctx, Options{
		RunDir:         runDir,
		FunctionBinary: fnBin,
		FunctionName:   "e2e-fakefn",
		GardenProjects: []string{"smoke"},
		Manifests:      []string{"testdata/xrd.yaml", "testdata/composition.yaml"},
		Logf:           t.Logf,
	})
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	t.Logf("MEASURE cold start to ready: %.1fs", time.Since(start).Seconds())
	pids := env.PIDs()
	stopped := false
	t.Cleanup(func() {
		if t.Failed() {
			dumpLogs(t, env)
		}
		if !stopped {
			_ = env.Stop()
		}
	})

	cp, garden := env.Crossplane, env.Garden
	cmGone := func(name string) func(ctx context.Context) (bool, error) {
		return func(ctx context.Context) (bool, error) {
			_, err := garden.Client.CoreV1().ConfigMaps("garden-smoke").Get(ctx, name, metav1.GetOptions{})
			return apierrors.IsNotFound(err), err
		}
	}
	cmHas := func(name, message string) func(ctx context.Context) (bool, error) {
		return func(ctx context.Context) (bool, error) {
			cm, err := garden.Client.CoreV1().ConfigMaps("garden-smoke").Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			return cm.Data["message"] == message, nil
		}
	}
	claim := func(name, message string) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "e2e.scs.community/v1alpha1", "kind": "Smoke",
			"metadata": map[string]any{"name": name, "namespace": "default"},
			"spec":     map[string]any{"project": "smoke", "message": message},
		}}
	}
	xrName := func(claimName string) string {
		var name string
		_ = WaitFor(ctx, time.Minute, "claim bound", func(ctx context.Context) (bool, error) {
			c, err := cp.Get(ctx, "e2e.scs.community/v1alpha1", "Smoke", "default", claimName)
			if err != nil {
				return false, err
			}
			name, _, _ = unstructured.NestedString(c.Object, "spec", "resourceRef", "name")
			return name != "", nil
		})
		return name
	}

	// 1. A claim becomes a ConfigMap in the garden cluster.
	t0 := time.Now()
	if err := cp.ApplyObjects(ctx, claim("one", "hello")); err != nil {
		t.Fatal(err)
	}
	xr := xrName("one")
	if err := WaitFor(ctx, 2*time.Minute, "ConfigMap from claim one", cmHas(xr, "hello")); err != nil {
		t.Fatal(err)
	}
	t.Logf("MEASURE claim -> garden ConfigMap: %.2fs", time.Since(t0).Seconds())
	if err := WaitFor(ctx, 2*time.Minute, "claim one Ready", func(ctx context.Context) (bool, error) {
		c, err := cp.Get(ctx, "e2e.scs.community/v1alpha1", "Smoke", "default", "one")
		return err == nil && ConditionTrue(c, "Ready"), err
	}); err != nil {
		t.Fatal(err)
	}
	t.Logf("MEASURE claim -> claim Ready: %.2fs", time.Since(t0).Seconds())

	// 2. An update reaches the garden object.
	t0 = time.Now()
	if err := cp.ApplyObjects(ctx, claim("one", "updated")); err != nil {
		t.Fatal(err)
	}
	if err := WaitFor(ctx, 2*time.Minute, "ConfigMap updated", cmHas(xr, "updated")); err != nil {
		t.Fatal(err)
	}
	t.Logf("MEASURE claim update -> garden ConfigMap updated: %.2fs", time.Since(t0).Seconds())

	// 3. The function dies and comes back; Crossplane reconnects.
	if err := env.KillFunction(); err != nil {
		t.Fatal(err)
	}
	if err := env.StartFunction(ctx); err != nil {
		t.Fatal(err)
	}
	t0 = time.Now()
	if err := cp.ApplyObjects(ctx, claim("one", "after-restart")); err != nil {
		t.Fatal(err)
	}
	if err := WaitFor(ctx, 3*time.Minute, "ConfigMap updated after function restart", cmHas(xr, "after-restart")); err != nil {
		t.Fatal(err)
	}
	t.Logf("MEASURE update after function restart -> garden: %.2fs", time.Since(t0).Seconds())

	// 4. gardener-apiserver admits a rendered Shoot, defaults it from the CloudProfile, and
	// stores its status; its admission refuses what the CloudProfile does not offer.
	if err := garden.Apply(ctx, "testdata/shoot.yaml"); err != nil {
		t.Fatalf("garden rejected the sample Shoot: %v", err)
	}
	// Gardener's validation requires uid, technicalID, hibernated and gardener in a Shoot
	// status (a real one always has them).
	status := fmt.Sprintf(`{"status":{"uid":%q,"technicalID":"shoot--smoke--smoke","hibernated":false,`+
		`"gardener":{"id":"local","name":"local","version":"v1.149.3"},"observedGeneration":1,`+
		`"lastOperation":{"type":"Create","state":"Succeeded","progress":100,"description":"test","lastUpdateTime":"2026-01-01T00:00:00Z"}}}`,
		shootUID(ctx, t, garden))
	if _, err := garden.Dynamic.Resource(shootGVR).Namespace("garden-smoke").Patch(ctx, "smoke", types.MergePatchType, []byte(status), metav1.PatchOptions{}, "status"); err != nil {
		t.Fatalf("patching Shoot status: %v", err)
	}
	shoot, err := garden.Get(ctx, "core.gardener.cloud/v1beta1", "Shoot", "garden-smoke", "smoke")
	if err != nil {
		t.Fatal(err)
	}
	if cfg, _, _ := unstructured.NestedString(shoot.Object, "spec", "provider", "infrastructureConfig", "floatingPoolName"); cfg != "ext01" {
		t.Errorf("infrastructureConfig was pruned: floatingPoolName %q", cfg)
	}
	// The CloudProfile's supported 1.34 patch, picked by gardener-apiserver for "1.34".
	if v, _, _ := unstructured.NestedString(shoot.Object, "spec", "kubernetes", "version"); v != "1.34.2" {
		t.Errorf("spec.kubernetes.version = %q, want 1.34.2 (defaulted by gardener-apiserver)", v)
	}
	if st, _, _ := unstructured.NestedString(shoot.Object, "status", "lastOperation", "state"); st != "Succeeded" {
		t.Errorf("status not stored: lastOperation.state %q", st)
	}
	bad := shoot.DeepCopy()
	bad.SetName("smoke-bad")
	bad.SetResourceVersion("")
	delete(bad.Object, "status")
	workers, _, _ := unstructured.NestedSlice(bad.Object, "spec", "provider", "workers")
	_ = unstructured.SetNestedField(workers[0].(map[string]any), "SCS-99V-1", "machine", "type")
	_ = unstructured.SetNestedSlice(bad.Object, workers, "spec", "provider", "workers")
	_, err = garden.Dynamic.Resource(shootGVR).Namespace("garden-smoke").Create(ctx, bad, metav1.CreateOptions{})
	if err == nil || !strings.Contains(err.Error(), `spec.provider.workers[0].machine.type: Unsupported value: "SCS-99V-1"`) {
		t.Errorf("a Shoot with a machine type the CloudProfile lacks: %v, want gardener-apiserver's admission refusal", err)
	}

	// 5. Memory, with everything warm.
	rss := env.RSS()
	var total int64
	names := make([]string, 0, len(rss))
	for n, kib := range rss {
		total += kib
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		t.Logf("MEASURE RSS %-32s %6d MiB", n, rss[n]/1024)
	}
	t.Logf("MEASURE RSS total %d MiB", total/1024)

	// 6. Deleting the claim deletes the garden object (through the garbage
	// collector of kube-controller-manager and provider-kubernetes).
	t0 = time.Now()
	if err := cp.Dynamic.Resource(smokeGVR).Namespace("default").Delete(ctx, "one", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := WaitFor(ctx, 3*time.Minute, "garden ConfigMap deleted", cmGone(xr)); err != nil {
		t.Fatal(err)
	}
	t.Logf("MEASURE claim delete -> garden ConfigMap gone: %.2fs", time.Since(t0).Seconds())

	// 7. Stop leaves nothing running and forgets its PIDs.
	if err := env.Stop(); err != nil {
		t.Fatal(err)
	}
	stopped = true
	for name, pid := range pids {
		if err := syscall.Kill(pid, 0); err == nil && !isZombie(pid) {
			t.Errorf("%s (pid %d) still running after Stop", name, pid)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(pidDir(env.RunDir), "*.json")); len(left) > 0 {
		t.Errorf("PID files left after Stop: %v", left)
	}
}

// TestStopRunOnlyStopsItsOwnProcesses checks the guard against recycled PIDs
// and that StopRun works from PID files alone (as `playground down` does).
func TestStopRunOnlyStopsItsOwnProcesses(t *testing.T) {
	runDir := t.TempDir()
	cmd := exec.Command("sleep", "300")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	t.Cleanup(func() { _ = cmd.Process.Kill() })

	st, err := procStartTime(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	write := func(rec pidRecord) {
		t.Helper()
		if err := os.MkdirAll(pidDir(runDir), 0o755); err != nil {
			t.Fatal(err)
		}
		data, _ := json.Marshal(rec)
		if err := os.WriteFile(pidFile(runDir, rec.Name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	// A record whose start time does not match is someone else's process.
	write(pidRecord{Name: "sleep", PID: cmd.Process.Pid, StartTime: st + 1, Seq: 1})
	if err := StopRun(runDir); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
		t.Fatal("StopRun killed a process whose start time did not match")
	case <-time.After(200 * time.Millisecond):
	}

	write(pidRecord{Name: "sleep", PID: cmd.Process.Pid, StartTime: st, Seq: 1})
	if err := StopRun(runDir); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("StopRun did not stop the recorded process")
	}
	if left, _ := filepath.Glob(filepath.Join(pidDir(runDir), "*.json")); len(left) > 0 {
		t.Errorf("PID files left: %v", left)
	}
}

func shootUID(ctx context.Context, t *testing.T, garden *Cluster) string {
	t.Helper()
	shoot, err := garden.Get(ctx, "core.gardener.cloud/v1beta1", "Shoot", "garden-smoke", "smoke")
	if err != nil {
		t.Fatal(err)
	}
	return string(shoot.GetUID())
}

// dumpLogs shows the end of every process log, lines cut short: the
// provider logs whole objects per line.
func dumpLogs(t *testing.T, env *Env) {
	logs, _ := filepath.Glob(filepath.Join(env.RunDir, "logs", "*.log"))
	for _, l := range logs {
		lines := strings.Split(tail(l, 12), "\n")
		for i, line := range lines {
			if len(line) > 300 {
				lines[i] = line[:300] + " ..."
			}
		}
		t.Logf("--- %s (last lines)\n    %s", filepath.Base(l), strings.Join(lines, "\n    "))
	}
}
