package e2e

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/model"
	"github.com/SovereignCloudStack/scs-kaas/test/e2e/gardensim"
)

// backendCase is one backend as the tenancy, preview and add-ons (long names) tests drive
// it: a spec for its example environment, where its native object lives, and what its
// controllers would write to make the cluster ready.
type backendCase struct {
	backend string
	spec    func() map[string]any
	// native returns the native object of a cluster by its name in the backend.
	native func(ctx context.Context, name string) (*unstructured.Unstructured, error)
	// maxName is the longest name the backend allows in the example environment.
	maxName int
	// ready writes what the backend's controllers would write for a healthy cluster.
	ready func(ctx context.Context, t *testing.T, native string)
}

func backendCases() []backendCase {
	return []backendCase{
		{
			backend: "gardener",
			spec:    func() map[string]any { return smallSpec("1.34", 1, 3) },
			native: func(ctx context.Context, name string) (*unstructured.Unstructured, error) {
				return shoots().Get(ctx, name, metav1.GetOptions{})
			},
			maxName: 21 - len(gardenProject),
			ready: func(ctx context.Context, t *testing.T, native string) {
				if _, err := gardensim.Write(ctx, garden.Client, garden.Dynamic, gardenNamespace, native, gardensim.Healthy); err != nil {
					t.Fatal(err)
				}
			},
		},
		{
			backend: "clusterstack",
			spec: func() map[string]any {
				s := clusterStackSpec("1.34", 1)
				s["nodePools"] = s["nodePools"].([]any)[:1]
				return s
			},
			native: func(ctx context.Context, name string) (*unstructured.Unstructured, error) {
				return capiClusters().Get(ctx, name, metav1.GetOptions{})
			},
			maxName: 40,
			ready:   clusterStackReady,
		},
		{
			backend: "magnum",
			spec:    func() map[string]any { return magnumSpec("1.34", "SCS-4V-8", false) },
			native: func(ctx context.Context, name string) (*unstructured.Unstructured, error) {
				return clusterV1s().Get(ctx, name+"-cluster", metav1.GetOptions{})
			},
			maxName: 40,
			ready:   magnumReady,
		},
	}
}

// TestSameClaimNameInTwoNamespaces: two teams that both name a claim "twin" get two
// clusters on every backend, each with its own native object.
func TestSameClaimNameInTwoNamespaces(t *testing.T) {
	needEnv(t)
	for _, b := range backendCases() {
		t.Run(b.backend, func(t *testing.T) {
			if b.backend == "clusterstack" {
				needClusterStack(t)
			}
			ctx := testContext(t)
			name := "twin-" + b.backend
			names := map[string]string{}
			for _, ns := range []string{claimNamespace, otherTeamNamespace} {
				apply(ctx, t, newClaimIn(ns, name, b.spec()))
				_, names[ns] = clusterOfIn(ctx, t, ns, name)
			}
			if names[claimNamespace] == names[otherTeamNamespace] {
				t.Fatalf("claims %s in %s and %s are both %q in %s", name, claimNamespace, otherTeamNamespace, names[claimNamespace], b.backend)
			}
			uids := map[string]types.UID{}
			for ns, native := range names {
				waitFor(ctx, t, deadline, b.backend+" object "+native+" of "+ns+"/"+name, func(ctx context.Context) (bool, error) {
					o, err := b.native(ctx, native)
					if err != nil {
						return false, err
					}
					uids[ns] = o.GetUID()
					return true, nil
				})
			}
			if uids[claimNamespace] == uids[otherTeamNamespace] {
				t.Errorf("both claims share one %s object", b.backend)
			}
		})
	}
}

// TestEnvironmentsAdmitTheirTeamsOnly: a claim from a namespace no environment admits is
// refused; nothing is composed, and the message names no environment but the one it asked
// for. A namespace admitted by its labels (examples/environments/clusterstack-remote.yaml)
// renders.
func TestEnvironmentsAdmitTheirTeamsOnly(t *testing.T) {
	needEnv(t)
	ctx := testContext(t)
	const name = "intruder"
	spec := smallSpec("1.34", 1, 3)
	spec["environment"] = exampleEnvironment
	apply(ctx, t, newClaimIn(outsiderNamespace, name, spec))
	claim := waitClaimIn(ctx, t, deadline, outsiderNamespace, name, "Rendered=False/"+kaasv1alpha1.ReasonEnvironmentUnavailable,
		hasCondition(kaasv1alpha1.ConditionRendered, "False", kaasv1alpha1.ReasonEnvironmentUnavailable))
	msg := model.ConditionOf(claim, kaasv1alpha1.ConditionRendered).Message
	t.Logf("refusal: %s", msg)
	if !strings.Contains(msg, `environment "`+exampleEnvironment+`" is not offered to namespace `+outsiderNamespace) {
		t.Errorf("the refusal does not say the environment is not offered to the namespace: %s", msg)
	}
	envs, err := cp.Dynamic.Resource(envGVR).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range envs.Items {
		if n := e.GetLabels()["kaas.scs.community/environment"]; n != exampleEnvironment && strings.Contains(msg, n) {
			t.Errorf("the refusal shows environment %s to namespace %s: %s", n, outsiderNamespace, msg)
		}
	}
	xr, _, _ := unstructured.NestedString(claim.Object, "spec", "resourceRef", "name")
	if xr == "" {
		t.Fatal("the claim has no composite resource")
	}
	x, err := xrs().Get(ctx, xr, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if refs, _, _ := unstructured.NestedSlice(x.Object, "spec", "resourceRefs"); len(refs) > 0 {
		t.Errorf("composite %s of a refused claim composed %v", xr, refs)
	}
	if l, err := shoots().List(ctx, metav1.ListOptions{LabelSelector: "kaas.scs.community/cluster"}); err == nil {
		for _, s := range l.Items {
			if strings.HasPrefix(s.GetName(), name) {
				t.Errorf("Shoot %s exists for a refused claim", s.GetName())
			}
		}
	}

	// The lab is admitted to the remote Cluster Stacks environment by its labels.
	lab := clusterStackSpec("1.34", 1)
	lab["environment"] = "clusterstack-remote"
	apply(ctx, t, newClaimIn(labNamespace, "labrat", lab))
	waitClaimIn(ctx, t, deadline, labNamespace, "labrat", "Rendered=True", hasCondition(kaasv1alpha1.ConditionRendered, "True", kaasv1alpha1.ReasonRendered))
}

// clusterStackReady takes a Cluster to Ready as Cluster API reports it (capi_test.go):
// simulated OpenStack infrastructure, the kubeconfig the real KubeadmControlPlane writes,
// then the simulated final state.
func clusterStackReady(ctx context.Context, t *testing.T, native string) {
	t.Helper()
	simulateClusterAPIReady(ctx, t, cp, clusterStackNamespace, native, "203.0.113.40", 6443)
}

// magnumReady writes what provider-openstack would for a healthy one-pool Magnum cluster
// on 1.34: its id, Ready and Synced, and the kubeconfig in the connection secret.
func magnumReady(ctx context.Context, t *testing.T, native string) {
	t.Helper()
	magnumReadyAt(ctx, t, native, "v1.34.3")
}

// magnumStatusAt writes the status provider-openstack would for a healthy one-pool Magnum
// cluster that runs coeVersion, and returns its API server's URL.
func magnumStatusAt(ctx context.Context, t *testing.T, native, coeVersion string) string {
	t.Helper()
	c, err := clusterV1s().Get(ctx, native+"-cluster", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	const api = "https://198.51.100.40:6443"
	applyStatus(ctx, t, c, map[string]any{
		"atProvider": map[string]any{"id": "0f0e0d0c-" + native[len(native)-6:], "apiAddress": api, "coeVersion": coeVersion, "masterCount": int64(1), "nodeCount": int64(2)},
		"conditions": []any{simulatedCondition("Ready", "True", "Available", "", 0), simulatedCondition("Synced", "True", "ReconcileSuccess", "", 0)},
	}, managerOpenStack)
	return api
}

// magnumReadyAt is magnumReady for a cluster that runs coeVersion.
func magnumReadyAt(ctx context.Context, t *testing.T, native, coeVersion string) {
	t.Helper()
	api := magnumStatusAt(ctx, t, native, coeVersion)
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: native + "-magnum", Namespace: "crossplane-system"},
		Type:       "connection.crossplane.io/v1alpha1",
		Data:       map[string][]byte{"attribute.kubeconfig.raw_config": simulatedKubeconfig(t, native, api)},
	}
	if _, err := cp.Client.CoreV1().Secrets("crossplane-system").Create(ctx, secret, metav1.CreateOptions{FieldManager: managerOpenStack}); err != nil {
		t.Fatal(err)
	}
}
