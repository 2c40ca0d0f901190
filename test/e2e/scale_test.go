package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/SovereignCloudStack/scs-kaas/model"
	"github.com/SovereignCloudStack/scs-kaas/test/e2e/backendsim"
	"github.com/SovereignCloudStack/scs-kaas/test/e2e/gardensim"
)

// scaleSteady is how long the steady state after each step is measured.
const scaleSteady = 2 * time.Minute

// scaleDeadline bounds each claim's waits in a step: hundreds of claims applied at once
// queue in Crossplane and the API server for minutes, which is what a step measures.
const scaleDeadline = 15 * time.Minute

// TestScale grows one control plane to the claim counts in SCS_KAAS_E2E_SCALE (make scale:
// 50,150,300), spread evenly over the three backends and two teams' namespaces, and
// measures each step: the time until every native object exists, the time until every
// claim is Ready once the simulated backends report success, and then, with nothing
// changing, the function's calls per minute and the CPU and peak memory of the function,
// Crossplane and the API server. It logs a "SCALE" line per step (docs/scale.md has the
// table). It is bounded in count and time and not part of make test.
//
// With SCS_KAAS_E2E_SCALE_ADDONS=1 (make scale ADDONS=1) every environment offers the two
// example add-ons, which Flux's real controllers install on every cluster, and a step also
// waits until every new claim's add-ons are Ready (AddonsReady) and measures Flux's
// controllers. Two cores cannot run a workload API server per cluster: one stands in for
// every cluster, each add-on's objects named after its cluster by the substitutions.
func TestScale(t *testing.T) {
	needEnv(t)
	counts := scaleCounts(t)
	needClusterStack(t)
	ctx, cancel := context.WithTimeout(t.Context(), 170*time.Minute)
	defer cancel()

	var sim *backendsim.Simulator // with add-ons only
	if os.Getenv("SCS_KAAS_E2E_SCALE_ADDONS") == "1" {
		sim = startScaleAddons(ctx, t)
	}
	cli := newCLI(t)
	var all []scaleClaim
	for _, n := range counts {
		ok := t.Run(fmt.Sprintf("%d claims", n), func(t *testing.T) {
			if n < len(all) {
				t.Fatalf("claim counts must grow: %v", counts)
			}
			fresh := make([]scaleClaim, 0, n-len(all))
			for i := len(all); i < n; i++ {
				fresh = append(fresh, newScaleClaim(i, sim))
			}
			all = append(all, fresh...)

			// With add-ons the simulator reports success and plays the workload's Deployments
			// until the step's add-ons are Ready, not in the steady state: its reads would
			// count as the control plane's. It starts before the claims: a Cluster API
			// cluster's CA must be the workload's before Cluster API makes its own.
			stop := func() {}
			if sim != nil {
				stop = playBackends(sim, fresh)
			}
			defer stop()
			start := time.Now()
			forEach(t, fresh, func(t *testing.T, c scaleClaim) { apply(ctx, t, c.claim()) })
			forEach(t, fresh, func(t *testing.T, c scaleClaim) { c.waitNative(ctx, t) })
			exist := time.Since(start)

			start = time.Now()
			forEach(t, fresh, func(t *testing.T, c scaleClaim) { c.reportSuccess(ctx, t) })
			forEach(t, fresh, func(t *testing.T, c scaleClaim) { c.waitReady(ctx, t) })
			ready := time.Since(start)
			addons := ""
			if sim != nil {
				start = time.Now()
				forEach(t, fresh, func(t *testing.T, c scaleClaim) { c.waitAddonsReady(ctx, t) })
				addons = fmt.Sprintf(", and their add-ons Ready %.1fs later", time.Since(start).Seconds())
				stop()
			}

			steady := measureSteady(ctx, t, scaleSteady, len(all))
			fleet := fleetReport(ctx, t, cli, len(all))
			t.Logf("SCALE %d claims (%d new): every native object in %.1fs, every new claim Ready %.1fs after the backends reported success%s; steady state: %s; %s",
				len(all), len(fresh), exist.Seconds(), ready.Seconds(), addons, steady, fleet)
		})
		if !ok {
			break // the next step would measure a control plane that failed this one
		}
	}
}

// scaleCounts reads SCS_KAAS_E2E_SCALE; without it the test skips.
func scaleCounts(t *testing.T) []int {
	t.Helper()
	v := os.Getenv("SCS_KAAS_E2E_SCALE")
	if v == "" {
		t.Skip("a scale run, not part of make test: make scale (SCS_KAAS_E2E_SCALE=50,150,300) runs it")
	}
	var counts []int
	for _, f := range strings.Split(v, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 || n > 1000 {
			t.Fatalf("SCS_KAAS_E2E_SCALE=%q: want claim counts from 1 to 1000, comma separated", v)
		}
		counts = append(counts, n)
	}
	return counts
}

// scaleClaim is one claim of the scale run: every third on each backend, every second in
// the other team's namespace.
type scaleClaim struct {
	name, namespace, backend string
	native                   *string
	// sim, in a run with add-ons: the claim delivers a kubeconfig Secret, and sim plays its
	// backend with the workload API server that its add-ons are installed on.
	sim *backendsim.Simulator
}

func newScaleClaim(i int, sim *backendsim.Simulator) scaleClaim {
	ns := claimNamespace
	if i%2 == 1 {
		ns = otherTeamNamespace
	}
	backend := []string{"gardener", "clusterstack", "magnum"}[i%3]
	return scaleClaim{name: fmt.Sprintf("s%s-%03d", backend[:1], i), namespace: ns, backend: backend, native: new(string), sim: sim}
}

// claim is the claim to apply.
func (c scaleClaim) claim() *unstructured.Unstructured {
	spec := c.spec()
	if c.sim == nil {
		return newClaimIn(c.namespace, c.name, spec)
	}
	// Flux reaches the cluster with the delivered kubeconfig.
	spec["writeConnectionSecretToRef"] = map[string]any{"name": c.name + "-kubeconfig"}
	return newClaimIn(c.namespace, c.name, spec)
}

// spec is a small cluster: one pool, so that the count measures clusters, not pools.
func (c scaleClaim) spec() map[string]any {
	switch c.backend {
	case "clusterstack":
		s := clusterStackSpec("1.34", 1)
		s["nodePools"] = s["nodePools"].([]any)[:1]
		return s
	case "magnum":
		return magnumSpec("1.34", "SCS-4V-8", false)
	default:
		return smallSpec("1.34", 1, 3)
	}
}

// waitNative waits until the claim's native object exists.
func (c scaleClaim) waitNative(ctx context.Context, t *testing.T) {
	t.Helper()
	_, native := clusterOfWithin(ctx, t, scaleDeadline, c.namespace, c.name)
	*c.native = native
	ri, name := shoots(), native
	switch c.backend {
	case "clusterstack":
		ri = capiClusters()
	case "magnum":
		ri, name = clusterV1s(), native+"-cluster"
	}
	waitFor(ctx, t, scaleDeadline, c.backend+" object "+name+" of "+c.namespace+"/"+c.name, func(ctx context.Context) (bool, error) {
		_, err := ri.Get(ctx, name, metav1.GetOptions{})
		return err == nil, err
	})
}

// waitReady waits until the claim is Ready and, while it is not, says what its composite
// shows: under load the composite may be Ready long before the claim hears of it.
func (c scaleClaim) waitReady(ctx context.Context, t *testing.T) {
	t.Helper()
	waitFor(ctx, t, scaleDeadline, "claim "+c.namespace+"/"+c.name+" Ready", func(ctx context.Context) (bool, error) {
		claim, err := claimsIn(c.namespace).Get(ctx, c.name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		if model.ConditionOf(claim, "Ready").Status == "True" {
			return true, nil
		}
		xr := claim
		if ref, _, _ := unstructured.NestedString(claim.Object, "spec", "resourceRef", "name"); ref != "" {
			if xr, err = xrs().Get(ctx, ref, metav1.GetOptions{}); err != nil {
				return false, err
			}
		}
		return false, fmt.Errorf("claim Ready %v, Synced %v; composite Ready %v, Synced %v, Responsive %v",
			model.ConditionOf(claim, "Ready"), model.ConditionOf(claim, "Synced"), model.ConditionOf(xr, "Ready"), model.ConditionOf(xr, "Synced"), model.ConditionOf(xr, "Responsive"))
	})
}

// reportSuccess writes what the backend would report for a healthy cluster. With add-ons
// the simulator does (playBackends), with the workload API server as the cluster.
func (c scaleClaim) reportSuccess(ctx context.Context, t *testing.T) {
	t.Helper()
	if c.sim != nil {
		return
	}
	switch c.backend {
	case "clusterstack":
		clusterStackReady(ctx, t, *c.native)
	case "magnum":
		magnumReady(ctx, t, *c.native)
	default:
		if _, err := gardensim.Write(ctx, garden.Client, garden.Dynamic, gardenNamespace, *c.native, gardensim.Healthy); err != nil {
			t.Fatal(err)
		}
	}
}

// waitAddonsReady waits until Flux has applied every add-on of the claim and its health
// checks pass (the web Deployment available).
func (c scaleClaim) waitAddonsReady(ctx context.Context, t *testing.T) {
	t.Helper()
	waitFor(ctx, t, scaleDeadline, "add-ons of "+c.namespace+"/"+c.name+" Ready", func(ctx context.Context) (bool, error) {
		claim, err := claimsIn(c.namespace).Get(ctx, c.name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		cond := model.ConditionOf(claim, "AddonsReady")
		if cond.Status != "True" {
			return false, fmt.Errorf("AddonsReady %v", cond)
		}
		return true, addonNames("hello", "web")(claim)
	})
}

// startScaleAddons runs Flux, gives every environment the example add-ons, and returns the
// simulator that plays every backend of the run's claims with one workload API server.
func startScaleAddons(ctx context.Context, t *testing.T) *backendsim.Simulator {
	t.Helper()
	n, err := env.OfferExampleAddons(ctx, []string{claimNamespace, otherTeamNamespace})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = env.StopProcess("kustomize-controller")
		_ = env.StopProcess("source-controller")
	})
	workload, err := backendsim.StartWorkload(ctx, env, "scale-workload", "az1", "az2")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d environments offer the example add-ons hello and web; one workload API server stands in for every cluster", n)
	return &backendsim.Simulator{
		Crossplane: backendsim.Clients{Kube: cp.Client, Dynamic: cp.Dynamic},
		Garden:     backendsim.Clients{Kube: garden.Client, Dynamic: garden.Dynamic},
		Workloads: backendsim.Workloads{backendsim.BackendGardener: workload, backendsim.BackendClusterStack: workload,
			backendsim.BackendMagnum: workload},
		Logf: logf,
	}
}

// playBackends plays, round after round until stop (which may be called more than once),
// the backends of the claims and the workload's Deployments available, as the backends'
// controllers, the kubelets and the Deployment controller would. It plays each claim by
// name (a LIST of hundreds of claims times out on an API server this busy), sixteen at a
// time as controllers' workers do: one claim after the other, a round of 250 took about 15
// minutes on the busy API server, and a Cluster API cluster needs several rounds.
func playBackends(sim *backendsim.Simulator, claims []scaleClaim) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(2 * time.Second)
		defer tick.Stop()
		var mu sync.Mutex
		failed := map[string]string{}
		for {
			var round errgroup.Group
			round.SetLimit(16)
			for _, c := range claims {
				round.Go(func() error {
					err := sim.StepCluster(ctx, c.namespace, c.name)
					if apierrors.IsNotFound(err) {
						err = nil // not applied yet
					}
					mu.Lock()
					defer mu.Unlock()
					if msg := fmt.Sprint(err); err != nil && ctx.Err() == nil && failed[c.name] != msg {
						logf("playing the backend of %s/%s: %v", c.namespace, c.name, err)
					}
					failed[c.name] = fmt.Sprint(err)
					return nil // logged; the next round tries again
				})
			}
			_ = round.Wait()
			if err := sim.Workloads[backendsim.BackendGardener].PlayDeployments(ctx); err != nil && ctx.Err() == nil {
				logf("playing the workload's Deployments: %v", err)
			}
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	return func() { cancel(); <-done }
}

// forEach runs do for every claim, eight at a time (a controller's worth of callers), as
// subtests so that a failure names its claim.
func forEach(t *testing.T, claims []scaleClaim, do func(*testing.T, scaleClaim)) {
	t.Helper()
	sem := make(chan struct{}, 8)
	var wg sync.WaitGroup
	failed := make(chan string, len(claims))
	for _, c := range claims {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			// A goroutine may not call t.Fatal; a subtest per claim may, and says which.
			ok := t.Run(c.name, func(t *testing.T) { do(t, c) })
			if !ok {
				failed <- c.name
			}
		}()
	}
	wg.Wait()
	close(failed)
	var names []string
	for n := range failed {
		names = append(names, n)
	}
	if len(names) > 0 {
		t.Fatalf("failed for %d claims: %v", len(names), names)
	}
}

// measureSteady samples the function's call count and the CPU time and peak memory of the
// function, Crossplane and the Crossplane cluster's API server over d, with nothing
// changing, and describes them.
func measureSteady(ctx context.Context, t *testing.T, d time.Duration, claims int) string {
	t.Helper()
	procs := []string{"function", "crossplane", "kube-apiserver-crossplane", "etcd-crossplane", "provider-kubernetes"}
	pids := env.PIDs()
	for _, flux := range []string{"source-controller", "kustomize-controller"} {
		if pids[flux] != 0 {
			procs = append(procs, flux)
		}
	}
	calls0 := functionCalls(ctx, t)
	cpu0 := map[string]float64{}
	for _, p := range procs {
		cpu0[p] = cpuSeconds(t, pids[p])
	}
	select {
	case <-time.After(d): // a measurement window, not a wait for a condition
	case <-ctx.Done():
		t.Fatal(ctx.Err())
	}
	minutes := d.Minutes()
	out := []string{fmt.Sprintf("%.0f function calls/min", (functionCalls(ctx, t)-calls0)/minutes)}
	for _, p := range procs {
		out = append(out, fmt.Sprintf("%s %.0f%% CPU, peak %d MiB", p, 100*(cpuSeconds(t, pids[p])-cpu0[p])/d.Seconds(), peakMiB(t, pids[p])))
	}
	out = append(out, fmt.Sprintf("kube-apiserver-crossplane %.1f MiB per claim", float64(peakMiB(t, pids["kube-apiserver-crossplane"]))/float64(claims)))
	out = append(out, storedObjects(ctx, t, claims))
	metrics := functionMetrics(ctx, t)
	for _, backend := range []string{"gardener", "clusterstack", "magnum"} {
		label := `backend="` + backend + `"`
		sum, count := sumSamples(t, metrics, "scs_kaas_function_run_duration_seconds_sum", label), sumSamples(t, metrics, "scs_kaas_function_run_duration_seconds_count", label)
		out = append(out, fmt.Sprintf("function mean call on %s %.2f ms over %.0f calls", backend, 1000*sum/count, count))
	}
	return strings.Join(out, "; ")
}

// storedObjects describes the objects the Crossplane cluster's API server stores, in all and
// per claim (the control plane's own few hundred included), and those of the kinds add-ons
// add (apiserver_storage_objects, which the API server updates every minute).
func storedObjects(ctx context.Context, t *testing.T, claims int) string {
	t.Helper()
	metrics := apiServerMetrics(ctx, t)
	all := metricValue(metrics, "apiserver_storage_objects", "")
	out := fmt.Sprintf("%.0f objects stored, %.1f per claim", all, all/float64(claims))
	for _, kind := range []string{"kustomizations.kustomize.toolkit.fluxcd.io", "ocirepositories.source.toolkit.fluxcd.io", "secrets"} {
		out += fmt.Sprintf(", %s %.0f", kind, metricValue(metrics, "apiserver_storage_objects", `resource="`+kind+`"`))
	}
	return out
}

// apiServerMetrics is what the Crossplane cluster's API server's /metrics serves now.
func apiServerMetrics(ctx context.Context, t *testing.T) string {
	t.Helper()
	raw, err := cp.Client.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		t.Fatalf("reading the API server's metrics: %v", err)
	}
	return string(raw)
}

// fleetReport runs kubectl scs fleet over every claim, as a platform team would, checks it
// lists them all and says how long it took.
func fleetReport(ctx context.Context, t *testing.T, cli *kubectlSCS, claims int) string {
	t.Helper()
	start := time.Now()
	r := cli.exec(cli.command(ctx, false, "fleet", "-o", "json", "--kubeconfig", cp.Kubeconfig), []string{"fleet", "-o", "json"}, false)
	took := time.Since(start)
	r.want(t, 0)
	var report struct {
		Clusters []struct {
			Phase string `json:"phase"`
		} `json:"clusters"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &report); err != nil {
		t.Fatalf("kubectl scs fleet -o json: %v", err)
	}
	if len(report.Clusters) != claims {
		t.Fatalf("kubectl scs fleet lists %d clusters, want %d", len(report.Clusters), claims)
	}
	return fmt.Sprintf("kubectl scs fleet listed %d clusters in %.1fs", len(report.Clusters), took.Seconds())
}

// functionCalls is the number of RunFunction calls the function has answered, from its
// Prometheus endpoint.
func functionCalls(ctx context.Context, t *testing.T) float64 {
	t.Helper()
	return sumSamples(t, functionMetrics(ctx, t), "grpc_server_handled_total", `grpc_method="RunFunction"`)
}

// functionMetrics is what the function's Prometheus endpoint serves now.
func functionMetrics(ctx context.Context, t *testing.T) string {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, env.FunctionMetricsURL(), nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("reading the function's metrics: %v", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading the function's metrics: %v", err)
	}
	return string(body)
}

// sumSamples is metricValue for a metric that must have samples.
func sumSamples(t *testing.T, metrics, name, label string) float64 {
	t.Helper()
	if !strings.Contains(metrics, "\n"+name+"{") {
		t.Fatalf("the function's metrics have no %s{%s}", name, label)
	}
	return metricValue(metrics, name, label)
}

// cpuSeconds is the user and system CPU time a process has used.
func cpuSeconds(t *testing.T, pid int) float64 {
	t.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatalf("CPU time of pid %d: %v", pid, err)
	}
	// The fields after the command name, which is in parentheses and may hold spaces.
	f := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+2:]))
	utime, _ := strconv.ParseFloat(f[11], 64)
	stime, _ := strconv.ParseFloat(f[12], 64)
	return (utime + stime) / 100 // USER_HZ is 100 on Linux
}

// peakMiB is a process's peak resident memory (VmHWM).
func peakMiB(t *testing.T, pid int) int64 {
	t.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatalf("memory of pid %d: %v", pid, err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kib, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kib / 1024
		}
	}
	t.Fatalf("no VmHWM for pid %d", pid)
	return 0
}
