package e2e

import (
	"context"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/SovereignCloudStack/scs-kaas/model"
	"github.com/SovereignCloudStack/scs-kaas/test/e2e/controlplane"
	"github.com/SovereignCloudStack/scs-kaas/test/e2e/gardensim"
)

// TestFaults puts a Ready cluster of each backend through the faults a control plane meets
// in production, one after the other, while a watch counts every deletion and every
// replacement (a new UID) of their native objects: there must be none, and every claim
// must be Ready again after each fault. What the claims showed meanwhile is logged
// ("FAULT" lines; docs/reliability.md has the table). The quick faults run in make e2e; with
// SCS_KAAS_E2E_FAULTS=all (make faults) the slow ones too.
func TestFaults(t *testing.T) {
	needEnv(t)
	needClusterStack(t)
	ctx, cancel := context.WithTimeout(t.Context(), 45*time.Minute)
	defer cancel()
	all := os.Getenv("SCS_KAAS_E2E_FAULTS") == "all"

	// One Ready cluster per backend.
	names := []string{"fault-g", "fault-c", "fault-m"}
	apply(ctx, t, newClaim("fault-g", smallSpec("1.34", 1, 3)))
	cs := clusterStackSpec("1.34", 1)
	cs["nodePools"] = cs["nodePools"].([]any)[:1]
	apply(ctx, t, newClaim("fault-c", cs))
	apply(ctx, t, newClaim("fault-m", magnumSpec("1.34", "SCS-4V-8", false)))
	_, shoot, _ := waitShoot(ctx, t, "fault-g")
	if _, err := gardensim.Write(ctx, garden.Client, garden.Dynamic, gardenNamespace, shoot, gardensim.Healthy); err != nil {
		t.Fatal(err)
	}
	_, cluster, _ := waitCluster(ctx, t, "fault-c")
	clusterStackReady(ctx, t, cluster)
	_, magnum, _ := waitClusterV1(ctx, t, "fault-m")
	magnumReady(ctx, t, magnum)
	allReady(ctx, t, names, "before the faults")

	w := watchNatives(ctx, t, []watched{
		{"Shoot " + shoot, shoots(), shoot},
		{"Cluster " + cluster, capiClusters(), cluster},
		{"ClusterV1 " + magnum + "-cluster", clusterV1s(), magnum + "-cluster"},
	})
	envs := cp.Dynamic.Resource(envGVR)
	original, err := envs.Get(ctx, exampleEnvironment, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	restoreEnvironment := func(t *testing.T) { restoreEnvironmentConfig(ctx, t, original) }
	patchEnvironment := func(t *testing.T, patch string) {
		t.Helper()
		if _, err := envs.Patch(ctx, exampleEnvironment, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	apiReady := func(ctx context.Context) (bool, error) {
		body, err := cp.Client.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx)
		return err == nil && string(body) == "ok", err
	}
	// The garden serves Shoots again: its kube-apiserver and, aggregated behind it,
	// gardener-apiserver answer.
	shootsServed := func(ctx context.Context) (bool, error) {
		_, err := shoots().List(ctx, metav1.ListOptions{Limit: 1})
		return err == nil, err
	}

	cases := []struct {
		name string
		slow bool
		// fault does it; the claims are checked for Ready afterwards.
		fault func(t *testing.T)
	}{
		{name: "provider-kubernetes restarted", fault: func(t *testing.T) {
			if err := env.RestartProcess(ctx, "provider-kubernetes", 0, nil); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "function killed and restarted three times", fault: func(t *testing.T) {
			for range 3 {
				if err := env.KillFunction(); err != nil {
					t.Fatal(err)
				}
				if err := env.StartFunction(ctx); err != nil {
					t.Fatal(err)
				}
			}
		}},
		{name: "Crossplane restarted", fault: func(t *testing.T) {
			if err := env.RestartProcess(ctx, "crossplane", 0, nil); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "kube-apiserver of the Crossplane cluster restarted", fault: func(t *testing.T) {
			if err := env.RestartProcess(ctx, "kube-apiserver-crossplane", 0, apiReady); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "etcd of the Crossplane cluster restarted", fault: func(t *testing.T) {
			if err := env.RestartProcess(ctx, "etcd-crossplane", 0, apiReady); err != nil {
				t.Fatal(err)
			}
		}},
		// Each environment case restores the environment however it ends, so that a failed
		// case does not take the environment from every later test.
		{name: "environment catalog edited: the machine type in use withdrawn", fault: func(t *testing.T) {
			defer restoreEnvironment(t)
			patchEnvironment(t, `{"data":{"catalog":{"machineTypes":["SCS-2V-4","SCS-8V-32"]}}}`)
			waitClaim(ctx, t, faultDeadline, "fault-g", "rendered with the machine type it keeps", hasCondition("Rendered", "True", ""))
		}},
		{name: "environment switched to another backend", fault: func(t *testing.T) {
			defer restoreEnvironment(t)
			patchEnvironment(t, `{"data":{"backend":"magnum"}}`)
			waitClaim(ctx, t, faultDeadline, "fault-g", "the switch refused", hasCondition("Rendered", "False", "ReplacementRefused"))
		}},
		{name: "environment removed and restored", fault: func(t *testing.T) {
			defer restoreEnvironment(t)
			if err := envs.Delete(ctx, exampleEnvironment, metav1.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
			waitClaim(ctx, t, faultDeadline, "fault-g", "refused without its environment", hasCondition("Rendered", "False", "EnvironmentUnavailable"))
		}},
		{name: "gardener-apiserver restarted", fault: func(t *testing.T) {
			if err := env.RestartProcess(ctx, controlplane.GardenerAPIServerProcess, 0, shootsServed); err != nil {
				t.Fatal(err)
			}
		}},
		// The step a platform team fears most: the Configuration and the Function upgraded
		// under live clusters (docs/install.md), then rolled back; every claim Ready at each
		// version. What the claims show in between is Crossplane's: the conditions of the
		// function turn Unknown (FatalError) while the new FunctionRevision has no endpoint
		// yet, and the restarted composite controllers may write stale conditions back
		// (crossplane/crossplane#7062).
		{name: "Configuration and Function upgraded and rolled back", fault: func(t *testing.T) {
			if err := env.PushUpgrade(ctx, "v0.2.0"); err != nil {
				t.Fatal(err)
			}
			for _, step := range []struct {
				version string
				column  bool
			}{{"v0.2.0", true}, {"v0.1.0", false}} {
				start := time.Now()
				if err := env.MovePackages(ctx, step.version); err != nil {
					t.Fatal(err)
				}
				waitFor(ctx, t, faultDeadline, fmt.Sprintf("the XRD of %s (printer column %s: %v)", step.version, controlplane.UpgradeColumn, step.column),
					func(ctx context.Context) (bool, error) {
						columns, err := printerColumns(ctx)
						return slices.Contains(columns, controlplane.UpgradeColumn) == step.column, fmt.Errorf("printer columns %v (%v)", columns, err)
					})
				measure(t, "Configuration, Function and XRD at "+step.version, start)
				allReady(ctx, t, names, "at "+step.version)
			}
		}},
		{name: "garden API server down for a minute", slow: true, fault: func(t *testing.T) {
			if err := env.RestartProcess(ctx, "kube-apiserver-garden", time.Minute, shootsServed); err != nil {
				t.Fatal(err)
			}
		}},
	}
	// reconciles proves that the whole chain works again after a fault (claim, composite,
	// function, provider-kubernetes, garden), not only that the claims still say Ready:
	// the Gardener cluster's pool maximum changes, the Shoot follows in place, and Gardener
	// (simulated) reports the new generation.
	maximum := int64(3)
	reconciles := func(t *testing.T) {
		t.Helper()
		maximum = 7 - maximum // 3, 4, 3, ...
		apply(ctx, t, newClaim("fault-g", smallSpec("1.34", 1, maximum)))
		waitShootMatches(ctx, t, faultDeadline, shoot, fmt.Sprintf("pool maximum %d", maximum), func(s *unstructured.Unstructured) bool {
			return workers(s)["default"]["maximum"] == maximum
		})
		if _, err := gardensim.Write(ctx, garden.Client, garden.Dynamic, gardenNamespace, shoot, gardensim.Healthy); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.slow && !all {
				t.Skip("a slow fault: make faults (SCS_KAAS_E2E_FAULTS=all) runs it")
			}
			start := time.Now()
			restarted, shown := sufferFault(ctx, t, names, c.name, c.fault)
			ready := time.Since(start)
			reconciles(t)
			allReady(ctx, t, names, "after "+c.name+" and an update")
			t.Logf("FAULT %s: all claims Ready %.1fs and reconciling an update %.1fs after the fault began; deletions %d, replacements %d; restarted as a kubelet would: %v; the claims showed: %s",
				c.name, ready.Seconds(), time.Since(start).Seconds(), w.deletions(), w.replacements(), restarted, shown)
			if d, r := w.deletions(), w.replacements(); d+r > 0 {
				t.Fatalf("native objects deleted (%d) or replaced (%d): %s", d, r, w.report())
			}
		})
	}
}

// allReady waits until every claim of names is Ready.
func allReady(ctx context.Context, t *testing.T, names []string, what string) {
	t.Helper()
	for _, n := range names {
		waitClaim(ctx, t, faultDeadline, n, what+": Ready", hasCondition("Ready", "True", ""))
	}
}

// sufferFault runs fault while it records what the claims show, restarts what exited as a
// kubelet would (Crossplane exits, by design, when its API server stays away too long), and
// waits until every claim is Ready again. It returns what was restarted and what the claims
// showed.
func sufferFault(ctx context.Context, t *testing.T, names []string, name string, fault func(*testing.T)) ([]string, string) {
	t.Helper()
	seen := observeClaims(ctx, names)
	fault(t)
	restarted, err := env.RestartExited()
	if err != nil {
		t.Fatal(err)
	}
	allReady(ctx, t, names, "after "+name)
	return restarted, seen.stop()
}

// printerColumns are the printer columns of the installed XSCSCluster XRD.
func printerColumns(ctx context.Context) ([]string, error) {
	xrd, err := cp.Get(ctx, "apiextensions.crossplane.io/v1", "CompositeResourceDefinition", "", "xscsclusters.kaas.scs.community")
	if err != nil {
		return nil, err
	}
	versions, _, _ := unstructured.NestedSlice(xrd.Object, "spec", "versions")
	var names []string
	for _, v := range versions {
		columns, _, _ := unstructured.NestedSlice(v.(map[string]any), "additionalPrinterColumns")
		for _, c := range columns {
			names = append(names, fmt.Sprint(c.(map[string]any)["name"]))
		}
	}
	return names, nil
}

// watched is a native object the fault tests must never see deleted or replaced.
type watched struct {
	what string
	ri   dynamic.ResourceInterface
	name string
}

// nativeWatch samples native objects and counts deletions (gone) and replacements (another
// UID). A sample that fails (its API server restarting) counts for nothing.
type nativeWatch struct {
	mu       sync.Mutex
	uids     map[string]types.UID
	gone     map[string]int
	replaced map[string]int
}

func watchNatives(ctx context.Context, t *testing.T, objects []watched) *nativeWatch {
	t.Helper()
	w := &nativeWatch{uids: map[string]types.UID{}, gone: map[string]int{}, replaced: map[string]int{}}
	for _, o := range objects {
		obj, err := o.ri.Get(ctx, o.name, metav1.GetOptions{})
		if err != nil {
			t.Fatalf("%s: %v", o.what, err)
		}
		w.uids[o.what] = obj.GetUID()
	}
	ctx, cancel := context.WithCancel(ctx)
	t.Cleanup(cancel)
	go func() {
		tick := time.NewTicker(250 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			for _, o := range objects {
				obj, err := o.ri.Get(ctx, o.name, metav1.GetOptions{})
				w.mu.Lock()
				switch {
				case apierrors.IsNotFound(err):
					w.gone[o.what]++
				case err == nil && obj.GetUID() != w.uids[o.what]:
					w.replaced[o.what]++
					w.uids[o.what] = obj.GetUID()
				case err == nil && obj.GetDeletionTimestamp() != nil:
					w.gone[o.what]++
				}
				w.mu.Unlock()
			}
		}
	}()
	return w
}

func (w *nativeWatch) deletions() int    { return w.sum(w.gone) }
func (w *nativeWatch) replacements() int { return w.sum(w.replaced) }

func (w *nativeWatch) sum(m map[string]int) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

func (w *nativeWatch) report() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return fmt.Sprintf("missing or being deleted in %v samples, replaced %v", w.gone, w.replaced)
}

// claimObservations collects the distinct conditions the claims showed while a fault lasted.
type claimObservations struct {
	cancel context.CancelFunc
	done   chan struct{}
	mu     sync.Mutex
	seen   map[string]bool
}

// observeClaims records, until stop, every distinct not-True Ready, Synced, Rendered and
// BackendReady condition (type, status, reason) of the claims, and failed reads.
func observeClaims(ctx context.Context, names []string) *claimObservations {
	ctx, cancel := context.WithCancel(ctx)
	o := &claimObservations{cancel: cancel, done: make(chan struct{}), seen: map[string]bool{}}
	go func() {
		defer close(o.done)
		tick := time.NewTicker(250 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			for _, n := range names {
				c, err := claims().Get(ctx, n, metav1.GetOptions{})
				o.mu.Lock()
				if err != nil {
					if ctx.Err() == nil {
						o.seen["the API refused reads ("+strings.SplitN(err.Error(), ":", 2)[0]+")"] = true
					}
				} else {
					for _, typ := range []string{"Ready", "Synced", "Rendered", "BackendReady"} {
						if cond := model.ConditionOf(c, typ); cond.Status != "" && cond.Status != "True" {
							o.seen[fmt.Sprintf("%s %s=%s (%s)", n, typ, cond.Status, cond.Reason)] = true
						}
					}
				}
				o.mu.Unlock()
			}
		}
	}()
	return o
}

// stop ends the observation and says what was seen.
func (o *claimObservations) stop() string {
	o.cancel()
	<-o.done
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.seen) == 0 {
		return "nothing but Ready"
	}
	out := make([]string, 0, len(o.seen))
	for s := range o.seen {
		out = append(out, s)
	}
	sort.Strings(out)
	return strings.Join(out, "; ")
}
