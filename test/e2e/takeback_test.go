package e2e

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/util/retry"

	"github.com/SovereignCloudStack/scs-kaas/model"
	"github.com/SovereignCloudStack/scs-kaas/test/e2e/controlplane"
	"github.com/SovereignCloudStack/scs-kaas/test/e2e/gardensim"
	"github.com/SovereignCloudStack/scs-kaas/test/e2e/kubeconfigprovider"
)

// TestNothingTakenBack and TestNamespacedNothingTakenBack (issue 28): with Ready clusters on
// all three backends and a platform consumer that reaches one of them through a
// provider-kubernetes ProviderConfig on its kubeconfig Secret, the providers restart, the
// garden goes away for a while, the connection secrets the kubeconfigs come from are
// deleted, and a platform team edits every environment's placement settings. A watch on every kubeconfig Secret must count no data key removed, the consumer
// must keep reaching its cluster, and every composed resource must keep its UID and its
// ProviderConfig.
func TestNothingTakenBack(t *testing.T) {
	needEnv(t)
	needClusterStack(t)
	nothingTakenBack(t)
}

func TestNamespacedNothingTakenBack(t *testing.T) {
	needFlavour(t, flavourNamespaced)
	needClusterStack(t)
	nothingTakenBack(t)
}

func nothingTakenBack(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 40*time.Minute)
	defer cancel()
	workload, err := env.StartCluster(ctx, "takeback-workload")
	if err != nil {
		t.Fatalf("starting the API server that stands in for the Cluster API cluster: %v", err)
	}

	// Ready clusters on every backend, each with its kubeconfig Secret in team1. The Cluster
	// API cluster is the consumer's: the example platform API composes it in the namespaced
	// flavour, and its kubeconfig reaches the workload API server.
	consumer := startConsumer(ctx, t)
	g, m := "keep-g", "keep-m"
	for name, spec := range map[string]map[string]any{g: smallSpec("1.34", 1, 3), m: magnumSpec("1.34", "SCS-4V-8", false)} {
		spec["writeConnectionSecretToRef"] = map[string]any{"name": name + "-kubeconfig"}
		apply(ctx, t, newClaim(name, spec))
	}
	_, shoot := clusterOf(ctx, t, g)
	_, cluster := clusterOf(ctx, t, consumer.claim)
	_, magnum := clusterOf(ctx, t, m)
	waitFor(ctx, t, deadline, "Shoot "+shoot, func(ctx context.Context) (bool, error) {
		_, err := shoots().Get(ctx, shoot, metav1.GetOptions{})
		return err == nil, err
	})
	if _, err := gardensim.Write(ctx, garden.Client, garden.Dynamic, gardenNamespace, shoot, gardensim.Healthy); err != nil {
		t.Fatal(err)
	}
	clusterNamespace, clusterV1 := clusterStackNamespace, clusterV1s()
	if flavour == flavourNamespaced {
		clusterNamespace, clusterV1 = claimNamespace, cp.Dynamic.Resource(namespacedClusterV1GVR).Namespace(claimNamespace)
	}
	waitFor(ctx, t, deadline, "Cluster "+cluster+" and ClusterV1 "+magnum+"-cluster", func(ctx context.Context) (bool, error) {
		if _, err := cp.Dynamic.Resource(capiClusterGVR).Namespace(clusterNamespace).Get(ctx, cluster, metav1.GetOptions{}); err != nil {
			return false, err
		}
		_, err := clusterV1.Get(ctx, magnum+"-cluster", metav1.GetOptions{})
		return err == nil, err
	})
	adoptClusterCA(ctx, t, cp, clusterNamespace, cluster, workload)
	host, port := hostPort(t, workload.URL)
	simulateClusterAPIReady(ctx, t, cp, clusterNamespace, cluster, host, port)
	t.Cleanup(func() { releaseCluster(context.Background(), t, cp, clusterNamespace, cluster) })
	if flavour == flavourNamespaced {
		magnumReadyIn(ctx, t, claimNamespace, magnum)
	} else {
		magnumReady(ctx, t, magnum)
	}
	names := []string{g, consumer.claim, m}
	allReady(ctx, t, names, "before the faults")
	secrets := []string{g + "-kubeconfig", consumer.secret, m + "-kubeconfig"}
	for _, s := range secrets {
		waitFor(ctx, t, deadline, "kubeconfig Secret "+s, func(ctx context.Context) (bool, error) {
			sec, err := cp.Client.CoreV1().Secrets(claimNamespace).Get(ctx, s, metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			return len(sec.Data["kubeconfig"]) > 0, fmt.Errorf("keys %v", keysOf(sec.Data))
		})
	}
	consumer.reaches(ctx, t, workload, "before the faults")

	// What must not change: every composed resource of the three clusters (UID and
	// ProviderConfig), the native objects, and the data keys of every kubeconfig Secret.
	before := composedOf(ctx, t, names)
	natives := watchNatives(ctx, t, []watched{
		{"Shoot " + shoot, shoots(), shoot},
		{"Cluster " + cluster, cp.Dynamic.Resource(capiClusterGVR).Namespace(clusterNamespace), cluster},
		{"ClusterV1 " + magnum + "-cluster", clusterV1, magnum + "-cluster"},
	})
	removals := watchSecretKeys(ctx, t, claimNamespace, secrets)

	shootsServed := func(ctx context.Context) (bool, error) {
		_, err := shoots().List(ctx, metav1.ListOptions{Limit: 1})
		return err == nil, err
	}
	faults := []struct {
		name  string
		fault func(t *testing.T)
	}{
		{"provider-kubernetes restarted", func(t *testing.T) {
			if err := env.RestartProcess(ctx, "provider-kubernetes", 0, nil); err != nil {
				t.Fatal(err)
			}
		}},
		{"provider-gardener-kubeconfig restarted", func(t *testing.T) {
			if err := env.RestartProcess(ctx, kubeconfigprovider.ProviderProcess, 0, nil); err != nil {
				t.Fatal(err)
			}
		}},
		{"garden unreachable for 30 s", func(t *testing.T) {
			if err := env.RestartProcess(ctx, "kube-apiserver-garden", 30*time.Second, shootsServed); err != nil {
				t.Fatal(err)
			}
		}},
		// The connection secrets the function reads the kubeconfigs from go away for a
		// while (an operator's cleanup, a restore): the Gardener cluster's AdminKubeconfig
		// secret, which provider-gardener-kubeconfig issues again, and the Magnum cluster's,
		// which provider-openstack (simulated) writes again only once the function has seen
		// it missing.
		{"connection secrets deleted", func(t *testing.T) {
			connectionNamespace := "crossplane-system"
			if flavour == flavourNamespaced {
				connectionNamespace = claimNamespace
			}
			secrets := cp.Client.CoreV1().Secrets(connectionNamespace)
			magnumSecret, err := secrets.Get(ctx, magnum+"-magnum", metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for _, name := range []string{shoot + "-kubeconfig", magnum + "-magnum"} {
				if err := secrets.Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
					t.Fatalf("deleting connection secret %s: %v", name, err)
				}
			}
			waitClaim(ctx, t, faultDeadline, m, "KubeconfigReady Stale", hasCondition("KubeconfigReady", "Unknown", "Stale"))
			// provider-gardener-kubeconfig issues a deleted one again at once, not at its
			// next poll (ten minutes): it watches the Secrets it owns.
			waitFor(ctx, t, faultDeadline, "the AdminKubeconfig's connection secret issued again", func(ctx context.Context) (bool, error) {
				s, err := secrets.Get(ctx, shoot+"-kubeconfig", metav1.GetOptions{})
				return err == nil && len(s.Data["kubeconfig"]) > 0, err
			})
			restored := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: magnumSecret.Name, Namespace: magnumSecret.Namespace},
				Type: magnumSecret.Type, Data: magnumSecret.Data}
			if _, err := secrets.Create(ctx, restored, metav1.CreateOptions{FieldManager: managerOpenStack}); err != nil {
				t.Fatal(err)
			}
		}},
		{"every environment's placement settings edited", func(t *testing.T) {
			edits := map[string]struct {
				patch, path string
			}{
				exampleEnvironment:      {`{"data":{"region":"RegionTwo","gardener":{"gardenCluster":"other-garden","project":"team9","adminKubeconfig":{"providerConfigName":"other-garden"}}}}`, "data.gardener.gardenCluster"},
				clusterStackEnvironment: {`{"data":{"region":"RegionTwo","clusterStack":{"namespace":"other-ns","managementCluster":"other-mgmt"}}}`, "data.clusterStack.namespace"},
				magnumEnvironment:       {`{"data":{"region":"RegionTwo","magnum":{"providerConfigName":"other-cloud"}}}`, "data.magnum.providerConfigName"},
			}
			envs := cp.Dynamic.Resource(envGVR)
			for name, e := range edits {
				original, err := envs.Get(ctx, name, metav1.GetOptions{})
				if err != nil {
					t.Fatal(err)
				}
				defer restoreEnvironmentConfig(ctx, t, original)
				if _, err := envs.Patch(ctx, name, types.MergePatchType, []byte(e.patch), metav1.PatchOptions{}); err != nil {
					t.Fatal(err)
				}
			}
			for claim, env := range map[string]string{g: exampleEnvironment, consumer.claim: clusterStackEnvironment, m: magnumEnvironment} {
				path := edits[env].path
				waitClaim(ctx, t, faultDeadline, claim, "EnvironmentUpToDate names "+path, func(c *unstructured.Unstructured) error {
					if cond := model.ConditionOf(c, "EnvironmentUpToDate"); cond.Status != "False" || !strings.Contains(cond.Message, path+": the cluster stays on") {
						return fmt.Errorf("EnvironmentUpToDate %v", cond)
					}
					if cond := model.ConditionOf(c, "Rendered"); cond.Status != "True" {
						return fmt.Errorf("Rendered %v", cond)
					}
					return nil
				})
			}
			// The composed resources stay where they are while the edits hold.
			assertComposedKept(ctx, t, names, before)
		}},
	}
	for _, f := range faults {
		t.Run(f.name, func(t *testing.T) {
			start := time.Now()
			restarted, shown := sufferFault(ctx, t, names, f.name, f.fault)
			t.Logf("TAKEBACK %s (%s flavour): all claims Ready %.1fs after the fault began; kubeconfig data keys removed %d; native objects deleted %d, replaced %d; restarted as a kubelet would: %v; the claims showed: %s",
				f.name, flavour, time.Since(start).Seconds(), removals.count(), natives.deletions(), natives.replacements(), restarted, shown)
			if n := removals.count(); n > 0 {
				t.Fatalf("kubeconfig Secrets lost data keys: %s", removals.report())
			}
			if d, r := natives.deletions(), natives.replacements(); d+r > 0 {
				t.Fatalf("native objects deleted (%d) or replaced (%d): %s", d, r, natives.report())
			}
		})
	}
	t.Run("environments edited, then adopted on request", func(t *testing.T) {
		clusterNative := cp.Dynamic.Resource(capiClusterGVR).Namespace(clusterNamespace)
		environmentEdits(ctx, t, names,
			editedCluster{claim: g, native: shoots(), name: shoot, paths: []string{"data.gardener.loadBalancerProvider", "data.gardener.cloudProfile",
				"data.gardener.floatingPoolName", "spec.maintenance.autoUpdate"}},
			editedCluster{claim: consumer.claim, native: clusterNative, name: cluster, paths: []string{"data.clusterStack.stack", "data.clusterStack.variables"}},
			editedCluster{claim: m, native: clusterV1, name: magnum + "-cluster", paths: []string{"data.magnum.masterFlavor", "data.magnum.templates[kubernetesVersion=1.34]"}},
			clusterNamespace)
		if d, r := natives.deletions(), natives.replacements(); d+r > 0 {
			t.Fatalf("native objects deleted (%d) or replaced (%d): %s", d, r, natives.report())
		}
	})
	assertComposedKept(ctx, t, names, before)
	consumer.reaches(ctx, t, workload, "after the faults")
	if n := removals.count(); n > 0 {
		t.Fatalf("kubeconfig Secrets lost data keys: %s", removals.report())
	}
}

// consumer is what a platform builds on an SCSCluster: a provider-kubernetes ProviderConfig
// on its kubeconfig Secret, and objects inside the new cluster through it.
type consumer struct {
	// claim is the Cluster API cluster's SCSCluster, secret its kubeconfig Secret.
	claim, secret string
	// reaches proves that the consumer reaches the cluster now: a new namespace made
	// through the ProviderConfig appears in it.
	reaches func(ctx context.Context, t *testing.T, workload *controlplane.Cluster, when string)
}

// startConsumer sets up the consumer. In the namespaced flavour it is the example platform
// API (examples/platform): a TeamEnvironment composes the SCSCluster, the ProviderConfig and
// a Namespace inside the cluster. The legacy flavour has no example platform API (it is a
// Crossplane v2 one), so the test composes the same ProviderConfig and Object of the legacy
// kinds on a claim's Secret.
func startConsumer(ctx context.Context, t *testing.T) consumer {
	t.Helper()
	if flavour == flavourNamespaced {
		teams := startPlatformAPI(ctx, t)
		te := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "platform.example.org/v1alpha1", "kind": "TeamEnvironment",
			"metadata": map[string]any{"name": "keep", "namespace": claimNamespace},
			"spec":     map[string]any{"environment": clusterStackEnvironment, "kubernetesVersion": "1.34", "nodes": int64(2), "appNamespace": "keep-apps"},
		}}
		if err := cp.ApplyObjects(ctx, te); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = teams.Delete(context.Background(), "keep", metav1.DeleteOptions{}) })
		round := 0
		return consumer{claim: "keep-cluster", secret: "keep-kubeconfig", reaches: func(ctx context.Context, t *testing.T, workload *controlplane.Cluster, when string) {
			t.Helper()
			round++
			ns := fmt.Sprintf("keep-apps-%d", round)
			te.Object["spec"].(map[string]any)["appNamespace"] = ns
			if err := cp.ApplyObjects(ctx, te); err != nil {
				t.Fatal(err)
			}
			waitNamespace(ctx, t, workload, ns, "the platform API reaches its cluster "+when)
		}}
	}

	spec := clusterStackSpec("1.34", 1)
	spec["nodePools"] = spec["nodePools"].([]any)[:1]
	spec["writeConnectionSecretToRef"] = map[string]any{"name": "keep-c-kubeconfig"}
	apply(ctx, t, newClaim("keep-c", spec))
	pc := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "kubernetes.crossplane.io/v1alpha1", "kind": "ProviderConfig",
		"metadata": map[string]any{"name": "keep-c-workload"},
		"spec": map[string]any{"credentials": map[string]any{"source": "Secret",
			"secretRef": map[string]any{"namespace": claimNamespace, "name": "keep-c-kubeconfig", "key": "kubeconfig"}}},
	}}
	if err := cp.ApplyObjects(ctx, pc); err != nil {
		t.Fatal(err)
	}
	round := 0
	return consumer{claim: "keep-c", secret: "keep-c-kubeconfig", reaches: func(ctx context.Context, t *testing.T, workload *controlplane.Cluster, when string) {
		t.Helper()
		round++
		ns := fmt.Sprintf("keep-apps-%d", round)
		obj := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "kubernetes.crossplane.io/v1alpha2", "kind": "Object",
			"metadata": map[string]any{"name": ns},
			"spec": map[string]any{"providerConfigRef": map[string]any{"name": "keep-c-workload"},
				"managementPolicies": []any{"Observe", "Create", "Update", "LateInitialize"},
				"forProvider":        map[string]any{"manifest": map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": ns}}}},
		}}
		if err := cp.ApplyObjects(ctx, obj); err != nil {
			t.Fatal(err)
		}
		waitNamespace(ctx, t, workload, ns, "the consumer reaches its cluster "+when)
	}}
}

var (
	platformAPIOnce sync.Once
	platformAPIErr  error
)

// teamEnvironmentGVR is the example platform API's kind.
var teamEnvironmentGVR = schema.GroupVersionResource{Group: "platform.example.org", Version: "v1alpha1", Resource: "teamenvironments"}

// startPlatformAPI installs the example platform API (examples/platform) and the function
// its Composition uses, once for the run, and returns its TeamEnvironments of team1.
func startPlatformAPI(ctx context.Context, t *testing.T) dynamic.ResourceInterface {
	t.Helper()
	platformAPIOnce.Do(func() {
		if platformAPIErr = env.StartExtraFunction(ctx, "crossplane-contrib-function-go-templating", env.Tools().FunctionGoTemplating(), []string{"--debug"}); platformAPIErr != nil {
			return
		}
		var objs []*unstructured.Unstructured
		if objs, platformAPIErr = controlplane.ReadManifests(filepath.Join(repoRoot, "examples", "platform", "xrd.yaml"), filepath.Join(repoRoot, "examples", "platform", "composition.yaml")); platformAPIErr != nil {
			return
		}
		if platformAPIErr = cp.ApplyObjects(ctx, objs...); platformAPIErr != nil {
			return
		}
		platformAPIErr = cp.WaitXRD(ctx, "apiextensions.crossplane.io/v2", "teamenvironments.platform.example.org")
	})
	if platformAPIErr != nil {
		t.Fatalf("installing the example platform API: %v", platformAPIErr)
	}
	return cp.Dynamic.Resource(teamEnvironmentGVR).Namespace(claimNamespace)
}

func waitNamespace(ctx context.Context, t *testing.T, c *controlplane.Cluster, name, what string) {
	t.Helper()
	waitFor(ctx, t, faultDeadline, what+": Namespace "+name, func(ctx context.Context) (bool, error) {
		_, err := c.Client.CoreV1().Namespaces().Get(ctx, name, metav1.GetOptions{})
		return err == nil, err
	})
}

// composed is what makes a composed resource the object it is.
type composed struct {
	uid            types.UID
	providerConfig string
}

// composedOf reads every composed resource of the claims' composites.
func composedOf(ctx context.Context, t *testing.T, claims []string) map[string]composed {
	t.Helper()
	out := map[string]composed{}
	for _, claim := range claims {
		xr, _ := clusterOf(ctx, t, claim)
		var x *unstructured.Unstructured
		var err error
		if flavour == flavourNamespaced {
			x, err = claimsIn(claimNamespace).Get(ctx, xr, metav1.GetOptions{})
		} else {
			x, err = xrs().Get(ctx, xr, metav1.GetOptions{})
		}
		if err != nil {
			t.Fatal(err)
		}
		refs, _, _ := unstructured.NestedSlice(x.Object, "spec", "crossplane", "resourceRefs")
		if len(refs) == 0 {
			refs, _, _ = unstructured.NestedSlice(x.Object, "spec", "resourceRefs")
		}
		for _, r := range refs {
			ref, _ := r.(map[string]any)
			apiVersion, kind, name := fmt.Sprint(ref["apiVersion"]), fmt.Sprint(ref["kind"]), fmt.Sprint(ref["name"])
			ns, _ := ref["namespace"].(string)
			if ns == "" && flavour == flavourNamespaced {
				ns = claimNamespace
			}
			o, err := cp.Get(ctx, apiVersion, kind, ns, name)
			if err != nil {
				t.Fatalf("composed resource %s %s of %s: %v", kind, name, claim, err)
			}
			out[fmt.Sprintf("%s %s/%s", kind, ns, name)] = composed{uid: o.GetUID(), providerConfig: str(o, "spec", "providerConfigRef", "name")}
		}
	}
	return out
}

// assertComposedKept fails when a composed resource of before is gone, replaced, or uses
// another ProviderConfig.
func assertComposedKept(ctx context.Context, t *testing.T, claims []string, before map[string]composed) {
	t.Helper()
	now := composedOf(ctx, t, claims)
	for _, key := range slices.Sorted(func(yield func(string) bool) {
		for k := range before {
			if !yield(k) {
				return
			}
		}
	}) {
		was, is := before[key], now[key]
		switch {
		case is.uid == "":
			t.Errorf("composed resource %s is gone", key)
		case is.uid != was.uid:
			t.Errorf("composed resource %s was replaced (UID %s, before %s)", key, is.uid, was.uid)
		case is.providerConfig != was.providerConfig:
			t.Errorf("composed resource %s moved from ProviderConfig %q to %q", key, was.providerConfig, is.providerConfig)
		}
	}
}

// restoreEnvironmentConfig puts an EnvironmentConfig back as it was, creating it again when
// a test removed it. It replaces the whole data with an update: a server-side apply of the
// original would leave behind every field an edit added (the edit's manager still owns it),
// and the next test would inherit them.
func restoreEnvironmentConfig(ctx context.Context, t *testing.T, original *unstructured.Unstructured) {
	t.Helper()
	envs := cp.Dynamic.Resource(envGVR)
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		current, err := envs.Get(ctx, original.GetName(), metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			e := original.DeepCopy()
			e.SetResourceVersion("")
			e.SetUID("")
			e.SetManagedFields(nil)
			e.SetCreationTimestamp(metav1.Time{})
			_, err = envs.Create(ctx, e, metav1.CreateOptions{})
			return err
		}
		if err != nil {
			return err
		}
		current.Object["data"] = runtime.DeepCopyJSONValue(original.Object["data"])
		current.SetLabels(original.GetLabels())
		_, err = envs.Update(ctx, current, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		t.Errorf("restoring EnvironmentConfig %s: %v", original.GetName(), err)
	}
}

// secretKeyWatch counts, from a watch of the kubeconfig Secrets, every data key that a
// Secret had and lost (a Secret deleted loses all of them). Only names and keys are kept:
// the values are credentials.
type secretKeyWatch struct {
	mu      sync.Mutex
	lost    []string
	stopped chan struct{}
}

func watchSecretKeys(ctx context.Context, t *testing.T, namespace string, names []string) *secretKeyWatch {
	t.Helper()
	w := &secretKeyWatch{stopped: make(chan struct{})}
	secrets := cp.Client.CoreV1().Secrets(namespace)
	list, err := secrets.List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	keys := map[string][]string{}
	for _, s := range list.Items {
		if slices.Contains(names, s.Name) {
			keys[s.Name] = dataKeys(s.Data)
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	t.Cleanup(func() { cancel(); <-w.stopped })
	go func() {
		defer close(w.stopped)
		rv := list.ResourceVersion
		for ctx.Err() == nil {
			wi, err := secrets.Watch(ctx, metav1.ListOptions{ResourceVersion: rv, AllowWatchBookmarks: true})
			if err != nil {
				// The API server restarting: watch again from where it stopped.
				time.Sleep(time.Second)
				continue
			}
			for ev := range wi.ResultChan() {
				s, ok := ev.Object.(*corev1.Secret)
				if !ok {
					continue
				}
				rv = s.ResourceVersion
				if !slices.Contains(names, s.Name) || ev.Type == watch.Bookmark {
					continue
				}
				now := dataKeys(s.Data)
				if ev.Type == watch.Deleted {
					now = nil
				}
				w.mu.Lock()
				for _, k := range keys[s.Name] {
					if !slices.Contains(now, k) {
						w.lost = append(w.lost, fmt.Sprintf("%s lost %s (%s)", s.Name, k, ev.Type))
					}
				}
				w.mu.Unlock()
				keys[s.Name] = now
			}
			wi.Stop()
		}
	}()
	return w
}

func (w *secretKeyWatch) count() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.lost)
}

func (w *secretKeyWatch) report() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return strings.Join(w.lost, "; ")
}

func dataKeys(data map[string][]byte) []string {
	out := make([]string, 0, len(data))
	for k, v := range data {
		if len(v) > 0 {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}
