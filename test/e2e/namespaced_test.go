package e2e

import (
	"context"
	"fmt"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/SovereignCloudStack/scs-kaas/model"
	"github.com/SovereignCloudStack/scs-kaas/test/e2e/controlplane"
	"github.com/SovereignCloudStack/scs-kaas/test/e2e/gardensim"
)

// The Crossplane v2 flavour: SCSCluster is a namespaced composite (apis/xrd/namespaced).
// These tests run in make e2e's second pass, SCS_KAAS_E2E_FLAVOUR=namespaced.

var (
	namespacedObjectGVR    = schema.GroupVersionResource{Group: "kubernetes.m.crossplane.io", Version: "v1alpha1", Resource: "objects"}
	namespacedClusterV1GVR = schema.GroupVersionResource{Group: "containerinfra.openstack.m.crossplane.io", Version: "v1alpha1", Resource: "clusterv1s"}
)

// namespacedBackend is one backend as a namespaced composite uses it: its native object,
// and what its controllers write for a healthy cluster.
type namespacedBackend struct {
	backend string
	spec    func() map[string]any
	// native returns the native object by the cluster's name in the backend.
	native func(ctx context.Context, name string) (*unstructured.Unstructured, error)
	// ready writes what the backend's controllers would for a healthy cluster whose API
	// server is server, and returns that server as the kubeconfig will name it.
	ready func(ctx context.Context, t *testing.T, native string) string
	// scale changes the spec in place and says what the native object then shows.
	scale func(spec map[string]any) (path []string, want string)
	// release undoes what ready did that would keep the backend from deleting the native
	// object; nil when nothing needs undoing.
	release func(ctx context.Context, t *testing.T, native string)
}

func namespacedBackends() []namespacedBackend {
	return []namespacedBackend{
		{
			backend: "gardener",
			spec:    func() map[string]any { return smallSpec("1.34", 1, 3) },
			native: func(ctx context.Context, name string) (*unstructured.Unstructured, error) {
				return shoots().Get(ctx, name, metav1.GetOptions{})
			},
			ready: func(ctx context.Context, t *testing.T, native string) string {
				shoot, err := gardensim.Write(ctx, garden.Client, garden.Dynamic, gardenNamespace, native, gardensim.Healthy)
				if err != nil {
					t.Fatal(err)
				}
				return gardensim.APIServerURL(shoot)
			},
			scale: func(spec map[string]any) ([]string, string) {
				spec["nodePools"].([]any)[0].(map[string]any)["autoscaling"] = map[string]any{"min": int64(1), "max": int64(5)}
				return []string{"spec", "provider", "workers"}, "maximum:5"
			},
		},
		{
			backend: "clusterstack",
			spec: func() map[string]any {
				s := clusterStackSpec("1.34", 1)
				s["nodePools"] = s["nodePools"].([]any)[:1]
				return s
			},
			// A namespaced composite's local Cluster lives in its own namespace and refers
			// to the ClusterClass in the environment's namespace.
			native: func(ctx context.Context, name string) (*unstructured.Unstructured, error) {
				return cp.Dynamic.Resource(capiClusterGVR).Namespace(claimNamespace).Get(ctx, name, metav1.GetOptions{})
			},
			ready: func(ctx context.Context, t *testing.T, native string) string {
				return clusterStackReadyIn(ctx, t, claimNamespace, native)
			},
			scale: func(spec map[string]any) ([]string, string) {
				// The pool was created with one node, so in one zone, where it stays.
				spec["nodePools"].([]any)[0].(map[string]any)["count"] = int64(3)
				return []string{"spec", "topology", "workers", "machineDeployments"}, "replicas:3"
			},
			release: func(ctx context.Context, t *testing.T, native string) {
				releaseCluster(ctx, t, cp, claimNamespace, native)
			},
		},
		{
			backend: "magnum",
			spec:    func() map[string]any { return magnumSpec("1.34", "SCS-4V-8", false) },
			native: func(ctx context.Context, name string) (*unstructured.Unstructured, error) {
				return cp.Dynamic.Resource(namespacedClusterV1GVR).Namespace(claimNamespace).Get(ctx, name+"-cluster", metav1.GetOptions{})
			},
			ready: func(ctx context.Context, t *testing.T, native string) string {
				return magnumReadyIn(ctx, t, claimNamespace, native)
			},
			scale: func(spec map[string]any) ([]string, string) {
				spec["nodePools"].([]any)[0].(map[string]any)["count"] = int64(4)
				return []string{"spec", "forProvider", "nodeCount"}, "4"
			},
		},
	}
}

// TestNamespacedClusterLifecycle: on every backend a namespaced SCSCluster composes its
// native objects, becomes Ready with its kubeconfig in the Secret it names (in its own
// namespace, composed by the function), changes in place, and is deleted with its cluster;
// a protected one is not deleted.
func TestNamespacedClusterLifecycle(t *testing.T) {
	needFlavour(t, flavourNamespaced)
	for _, b := range namespacedBackends() {
		t.Run(b.backend, func(t *testing.T) {
			if b.backend == "clusterstack" {
				needClusterStack(t)
			}
			ctx := testContext(t)
			name := "v2-" + b.backend
			secretName := name + "-kubeconfig"
			spec := b.spec()
			spec["writeConnectionSecretToRef"] = map[string]any{"name": secretName}
			start := time.Now()
			apply(ctx, t, newClaim(name, spec))
			_, native := clusterOf(ctx, t, name)
			var created *unstructured.Unstructured
			waitFor(ctx, t, deadline, b.backend+" object of "+native, func(ctx context.Context) (bool, error) {
				var err error
				created, err = b.native(ctx, native)
				return err == nil, err
			})
			measure(t, "namespaced SCSCluster apply -> "+b.backend+" object", start)
			rendered(ctx, t, name)

			start = time.Now()
			server := b.ready(ctx, t, native)
			waitClaim(ctx, t, deadline, name, "Ready", hasCondition("Ready", "True", ""))
			measure(t, "simulated "+b.backend+" success -> namespaced SCSCluster Ready", start)
			var secret *corev1.Secret
			waitFor(ctx, t, deadline, "kubeconfig Secret "+claimNamespace+"/"+secretName, func(ctx context.Context) (bool, error) {
				var err error
				secret, err = cp.Client.CoreV1().Secrets(claimNamespace).Get(ctx, secretName, metav1.GetOptions{})
				if err != nil {
					return false, err
				}
				return len(secret.Data["kubeconfig"]) > 0, fmt.Errorf("keys %v", keysOf(secret.Data))
			})
			if !strings.Contains(string(secret.Data["kubeconfig"]), server) || string(secret.Data["endpoint"]) != server {
				t.Errorf("the kubeconfig Secret does not point at %s (endpoint %q)", server, secret.Data["endpoint"])
			}

			// In place: the same native object, changed.
			path, want := b.scale(spec)
			apply(ctx, t, newClaim(name, spec))
			waitFor(ctx, t, deadline, b.backend+" object of "+native+" changed ("+want+")", func(ctx context.Context) (bool, error) {
				o, err := b.native(ctx, native)
				if err != nil {
					return false, err
				}
				if o.GetUID() != created.GetUID() {
					t.Fatalf("%s was replaced: UID %s, before %s", native, o.GetUID(), created.GetUID())
				}
				v, _, _ := unstructured.NestedFieldNoCopy(o.Object, path...)
				return strings.Contains(strings.ReplaceAll(fmt.Sprint(v), " ", ""), want), fmt.Errorf("%v = %v", path, v)
			})

			// Deleted with its cluster: the native object goes, then the composite.
			if b.release != nil {
				b.release(ctx, t, native)
			}
			start = time.Now()
			if err := claims().Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
				t.Fatalf("deleting an unprotected SCSCluster: %v", err)
			}
			waitFor(ctx, t, deadline, b.backend+" object of "+native+" deleted", func(ctx context.Context) (bool, error) {
				_, err := b.native(ctx, native)
				return apierrors.IsNotFound(err), err
			})
			waitFor(ctx, t, deadline, "SCSCluster "+name+" deleted", gone(claims(), name))
			measure(t, "namespaced SCSCluster delete -> "+b.backend+" object and composite gone", start)
		})
	}

	t.Run("protected", func(t *testing.T) {
		ctx := testContext(t)
		const name = "v2-protected"
		spec := smallSpec("1.34", 1, 3)
		spec["deletionProtection"] = true
		apply(ctx, t, newClaim(name, spec))
		_, native := clusterOf(ctx, t, name)
		rendered(ctx, t, name)
		// First the lookout (observe-only, docs/recovery.md); once it found nothing, the
		// Object that creates the Shoot, without Delete.
		waitFor(ctx, t, deadline, "the protected Shoot's Object managed without Delete", func(ctx context.Context) (bool, error) {
			obj, err := cp.Dynamic.Resource(namespacedObjectGVR).Namespace(claimNamespace).Get(ctx, native+"-shoot", metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			got, _, _ := unstructured.NestedStringSlice(obj.Object, "spec", "managementPolicies")
			return strings.Join(got, ",") == "Observe,Create,Update,LateInitialize", fmt.Errorf("managementPolicies %v", got)
		})
		waitFor(ctx, t, deadline, "deletion of the protected SCSCluster refused", func(ctx context.Context) (bool, error) {
			err := claims().Delete(ctx, name, metav1.DeleteOptions{DryRun: []string{metav1.DryRunAll}})
			return apierrors.IsForbidden(err), fmt.Errorf("dry-run delete: %v", err)
		})
		if err := claims().Delete(ctx, name, metav1.DeleteOptions{}); !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "deletion protection on") {
			t.Errorf("deleting a protected SCSCluster: want Forbidden by the policy, got %v", err)
		}
	})
}

// TestNamespacedPlatformAPI: the example platform API (examples/platform) composes a
// namespaced SCSCluster, a ProviderConfig on its kubeconfig Secret and a Namespace inside the
// new cluster. A local API server stands in for that cluster; the kubeconfig the Secret
// holds reaches it, and the Namespace appears there. Deleting the TeamEnvironment removes
// everything it composed.
func TestNamespacedPlatformAPI(t *testing.T) {
	needFlavour(t, flavourNamespaced)
	ctx := testContext(t)
	needClusterStack(t)

	workload, err := env.StartCluster(ctx, "workload")
	if err != nil {
		t.Fatalf("starting the API server that stands in for the new cluster: %v", err)
	}
	teams2 := startPlatformAPI(ctx, t)
	teams, err := controlplane.ReadManifests(filepath.Join(repoRoot, "examples", "platform", "team-environment.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	te := teams[0]
	start := time.Now()
	if err := cp.ApplyObjects(ctx, te); err != nil {
		t.Fatal(err)
	}

	// The SCSCluster the TeamEnvironment composed: a Cluster API cluster in the example.
	clusterName := te.GetName() + "-cluster"
	_, native := clusterOf(ctx, t, clusterName)
	waitFor(ctx, t, deadline, "Cluster "+native, func(ctx context.Context) (bool, error) {
		_, err := cp.Dynamic.Resource(capiClusterGVR).Namespace(claimNamespace).Get(ctx, native, metav1.GetOptions{})
		return err == nil, err
	})
	// Cluster API makes the cluster's kubeconfig with the CA the cluster is given: the
	// workload API server's, so that the kubeconfig reaches it. The endpoint the OpenStack
	// provider would report is that API server's address.
	adoptClusterCA(ctx, t, cp, claimNamespace, native, workload)
	host, port := hostPort(t, workload.URL)
	simulateInfrastructureReady(ctx, t, cp, claimNamespace, native, host, port)
	waitClusterAPIKubeconfig(ctx, t, cp, claimNamespace, native)
	simulateClusterAvailable(ctx, t, cp, claimNamespace, native)

	appNamespace := str(te, "spec", "appNamespace")
	if appNamespace == "" {
		appNamespace = "apps"
	}
	waitFor(ctx, t, faultDeadline, "Namespace "+appNamespace+" in the workload cluster", func(ctx context.Context) (bool, error) {
		_, err := workload.Client.CoreV1().Namespaces().Get(ctx, appNamespace, metav1.GetOptions{})
		return err == nil, err
	})
	measure(t, "TeamEnvironment apply -> Namespace in the new cluster (Cluster API simulated)", start)
	waitFor(ctx, t, faultDeadline, "TeamEnvironment Ready", func(ctx context.Context) (bool, error) {
		x, err := teams2.Get(ctx, te.GetName(), metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		return hasReady(x), fmt.Errorf("Ready %v", model.ConditionOf(x, "Ready"))
	})

	releaseCluster(ctx, t, cp, claimNamespace, native)
	start = time.Now()
	if err := teams2.Delete(ctx, te.GetName(), metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(ctx, t, faultDeadline, "TeamEnvironment and everything it composed gone", func(ctx context.Context) (bool, error) {
		for _, c := range []struct {
			ri   dynamic.ResourceInterface
			name string
		}{
			{teams2, te.GetName()},
			{claims(), clusterName},
			{cp.Dynamic.Resource(capiClusterGVR).Namespace(claimNamespace), native},
			{cp.Dynamic.Resource(namespacedObjectGVR).Namespace(claimNamespace), te.GetName() + "-apps"},
		} {
			if _, err := c.ri.Get(ctx, c.name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
				return false, fmt.Errorf("%s still there (%v)", c.name, err)
			}
		}
		return true, nil
	})
	measure(t, "TeamEnvironment delete -> all gone", start)
}

// hostPort are the host and port of an API server's URL.
func hostPort(t *testing.T, rawURL string) (string, int64) {
	t.Helper()
	u, err := url.Parse(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	port, err := strconv.ParseInt(u.Port(), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return u.Hostname(), port
}

func keysOf(m map[string][]byte) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// clusterStackReadyIn takes a Cluster in a namespace to Ready as Cluster API reports it
// (capi_test.go) and returns the API server its kubeconfig names.
func clusterStackReadyIn(ctx context.Context, t *testing.T, namespace, native string) string {
	t.Helper()
	return simulateClusterAPIReady(ctx, t, cp, namespace, native, "203.0.113.50", 6443)
}

// magnumReadyIn writes what provider-openstack would for a healthy one-pool Magnum cluster
// of the namespaced kinds, and returns its API address.
func magnumReadyIn(ctx context.Context, t *testing.T, namespace, native string) string {
	t.Helper()
	c, err := cp.Dynamic.Resource(namespacedClusterV1GVR).Namespace(namespace).Get(ctx, native+"-cluster", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	const api = "https://198.51.100.50:6443"
	applyStatus(ctx, t, c, map[string]any{
		"atProvider": map[string]any{"id": "0f0e0d0c-" + native[len(native)-6:], "apiAddress": api, "coeVersion": "v1.34.3", "masterCount": int64(1), "nodeCount": int64(2)},
		"conditions": []any{simulatedCondition("Ready", "True", "Available", "", 0), simulatedCondition("Synced", "True", "ReconcileSuccess", "", 0)},
	}, managerOpenStack)
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: native + "-magnum", Namespace: namespace},
		Type:       "connection.crossplane.io/v1alpha1",
		Data:       map[string][]byte{"attribute.kubeconfig.raw_config": simulatedKubeconfig(t, native, api)},
	}
	if _, err := cp.Client.CoreV1().Secrets(namespace).Create(ctx, secret, metav1.CreateOptions{FieldManager: managerOpenStack}); err != nil {
		t.Fatal(err)
	}
	return api
}
