package e2e

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"math/big"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/clientcmd"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/model"
	"github.com/SovereignCloudStack/scs-kaas/test/e2e/gardensim"
)

// lifecycleEnvironment is the example Gardener environment under another name, whose
// catalog the test edits.
const lifecycleEnvironment = "gardener-lifecycle"

// TestOperateTheFleet is what a platform team sees of a fleet on every backend
// (docs/operations.md): clusters on two minors, one of which leaves its environment's
// catalog; an upgrade, a refused edit and a kubeconfig about to expire; the rotation of
// that kubeconfig by the real KubeadmControlPlane. Each shows as a condition and as an event
// on the claim and its composite; kubectl scs fleet lists exactly the due cluster and exits
// 5; and the function's metrics count what happened, per backend and reason.
func TestOperateTheFleet(t *testing.T) {
	needEnv(t)
	needClusterStack(t)
	ctx := testContext(t)
	before := functionMetrics(ctx, t)

	environmentVariant(ctx, t, "gardener-regionone.yaml", lifecycleEnvironment, map[string]any{"catalog.kubernetesVersions": []any{"1.33", "1.34"}})
	gardener := func(version string) map[string]any {
		s := smallSpec(version, 1, 3)
		s["environment"] = lifecycleEnvironment
		return s
	}
	const old, current, magnum, capi = "ops-old", "ops-current", "ops-magnum", "ops-capi"
	capiSpec := clusterStackSpec("1.34", 1)
	capiSpec["writeConnectionSecretToRef"] = map[string]any{"name": capi + "-conn"}
	apply(ctx, t, newClaim(old, gardener("1.33")))
	apply(ctx, t, newClaim(current, gardener("1.34")))
	apply(ctx, t, newClaim(magnum, magnumSpec("1.33", "SCS-4V-8", false)))
	apply(ctx, t, newClaim(capi, capiSpec))
	t.Cleanup(func() {
		for _, n := range []string{old, current, magnum, capi} {
			_ = claims().Delete(context.Background(), n, metav1.DeleteOptions{})
		}
	})
	for n, minor := range map[string]string{old: "1.33", current: "1.34"} {
		_, native, _ := waitShoot(ctx, t, n)
		if _, err := gardensim.Write(ctx, garden.Client, garden.Dynamic, gardenNamespace, native, gardensim.Healthy); err != nil {
			t.Fatal(err)
		}
		// Only a cluster that runs a minor keeps it when the catalog drops it; before, the
		// minor is a new choice, which the catalog governs.
		waitClaim(ctx, t, faultDeadline, n, "status.kubernetes.version "+gardenerPatch[minor], fieldIs(gardenerPatch[minor], "status", "kubernetes", "version"))
	}
	_, magnumNative, _ := waitClusterV1(ctx, t, magnum)
	magnumReadyAt(ctx, t, magnumNative, "v1.33.5")
	_, capiNative, _ := waitCluster(ctx, t, capi)

	t.Run("a minor leaves the catalog", func(t *testing.T) {
		patchEnvironmentData(ctx, t, lifecycleEnvironment, map[string]any{"catalog": map[string]any{"kubernetesVersions": []any{"1.34", "1.35"}}})
		waitClaim(ctx, t, deadline, old, "VersionSupported=False/VersionNotOffered", hasCondition(kaasv1alpha1.ConditionVersionSupported, "False", kaasv1alpha1.ReasonVersionNotOffered))
		waitClaim(ctx, t, deadline, current, "VersionSupported=True/VersionOffered", hasCondition(kaasv1alpha1.ConditionVersionSupported, "True", kaasv1alpha1.ReasonVersionOffered))
		waitEvents(ctx, t, old, corev1.EventTypeWarning, kaasv1alpha1.ReasonVersionNotOffered, "1.33 is no longer offered by environment "+lifecycleEnvironment)
	})

	t.Run("an upgrade under way", func(t *testing.T) {
		apply(ctx, t, newClaim(magnum, magnumSpec("1.34", "SCS-4V-8", false)))
		waitEvents(ctx, t, magnum, corev1.EventTypeNormal, kaasv1alpha1.ReasonUpgradeStarted, "upgrading from 1.33.5 to 1.34")
		magnumStatusAt(ctx, t, magnumNative, "v1.34.3")
		waitClaim(ctx, t, deadline, magnum, "status.kubernetes.version 1.34.3", fieldIs("1.34.3", "status", "kubernetes", "version"))
	})

	t.Run("a refused edit", func(t *testing.T) {
		refused := gardener("1.34")
		refused["nodePools"].([]any)[0].(map[string]any)["machineType"] = "SCS-99V-999"
		apply(ctx, t, newClaim(current, refused))
		waitClaim(ctx, t, deadline, current, "Rendered=False/InvalidSpec", hasCondition(kaasv1alpha1.ConditionRendered, "False", kaasv1alpha1.ReasonInvalidSpec))
		waitEvents(ctx, t, current, corev1.EventTypeWarning, kaasv1alpha1.ReasonInvalidSpec, "SCS-99V-999")
		apply(ctx, t, newClaim(current, gardener("1.34")))
		waitClaim(ctx, t, deadline, current, "Rendered=True", hasCondition(kaasv1alpha1.ConditionRendered, "True", ""))
	})

	t.Run("the KubeadmControlPlane rotates a kubeconfig about to expire", func(t *testing.T) {
		// Crossplane passes connection details on to a claim's Secret while the claim is
		// Ready: the cluster is Ready throughout, as a real one is while its kubeconfig
		// is renewed.
		const host, port = "203.0.113.41", 6443
		simulateClusterAPIReady(ctx, t, cp, clusterStackNamespace, capiNative, host, port)
		t.Cleanup(func() { releaseCluster(context.Background(), t, cp, clusterStackNamespace, capiNative) })
		issued, err := cp.Client.CoreV1().Secrets(clusterStackNamespace).Get(ctx, capiNative+"-kubeconfig", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		waitClaimSecretCert(ctx, t, capi+"-conn", "the KubeadmControlPlane's first", clientCert(t, issued.Data["value"]).NotAfter)

		// Paused (simulateClusterAvailable pauses it), Cluster API leaves the Secret as
		// the test writes it: a client certificate that expires in twelve hours, which the
		// claim warns of.
		expiring := time.Now().Add(12 * time.Hour).UTC().Truncate(time.Second)
		writeClusterAPIKubeconfig(ctx, t, capiNative, withClientCert(t, issued.Data["value"], expiring))
		waitClaimSecretCert(ctx, t, capi+"-conn", "the expiring", expiring)
		waitEvents(ctx, t, capi, corev1.EventTypeWarning, kaasv1alpha1.ReasonKubeconfigExpiring, expiring.Format(time.RFC3339))

		// Released, the KubeadmControlPlane renews a certificate that expires within its
		// renewal threshold; reported available again, the claim's Secret follows.
		pauseCluster(ctx, t, capiNative, false)
		var rotated time.Time
		waitFor(ctx, t, faultDeadline, "the KubeadmControlPlane's rotation of "+capiNative+"-kubeconfig", func(ctx context.Context) (bool, error) {
			// A change of the KubeadmControlPlane's annotations starts a reconcile now
			// rather than at the next resync.
			kcp := kubeadmControlPlaneOf(ctx, t, capiNative)
			patch := fmt.Sprintf(`{"metadata":{"annotations":{"e2e.kaas.scs.community/nudge":%q}}}`, time.Now().Format(time.RFC3339Nano))
			if _, err := cp.Dynamic.Resource(kcpGVR).Namespace(clusterStackNamespace).Patch(ctx, kcp, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
				return false, err
			}
			s, err := cp.Client.CoreV1().Secrets(clusterStackNamespace).Get(ctx, capiNative+"-kubeconfig", metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			rotated = clientCert(t, s.Data["value"]).NotAfter
			return rotated.After(time.Now().AddDate(0, 6, 0)), fmt.Errorf("client certificate valid until %s", rotated)
		})
		simulateClusterAvailable(ctx, t, cp, clusterStackNamespace, capiNative)
		waitClaimSecretCert(ctx, t, capi+"-conn", "the rotated", rotated)
		waitClaim(ctx, t, deadline, capi, "KubeconfigReady valid until "+rotated.UTC().Format(time.RFC3339), func(c *unstructured.Unstructured) error {
			if cond := model.ConditionOf(c, kaasv1alpha1.ConditionKubeconfigReady); cond.Status != "True" || !strings.Contains(cond.Message, rotated.UTC().Format(time.RFC3339)) {
				return fmt.Errorf("KubeconfigReady %v", cond)
			}
			return nil
		})
	})

	t.Run("kubectl scs fleet lists exactly the due cluster", func(t *testing.T) {
		r := newCLI(t).run(ctx, "fleet", "--due", "-o", "json")
		r.want(t, 5) // some cluster is due (docs/cli.md)
		var report struct {
			Clusters []struct {
				Namespace string   `json:"namespace"`
				Name      string   `json:"name"`
				Version   string   `json:"version"`
				Due       []string `json:"due"`
			} `json:"clusters"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &report); err != nil {
			t.Fatalf("kubectl scs fleet -o json: %v", err)
		}
		got := map[string][]string{}
		for _, c := range report.Clusters {
			if c.Namespace == claimNamespace && strings.HasPrefix(c.Name, "ops-") {
				got[c.Name] = c.Due
			}
		}
		want := map[string][]string{old: {"minor 1.33 no longer offered (offered: 1.34, 1.35)"}, current: nil, magnum: nil, capi: nil}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("fleet's due clusters %v, want %v", got, want)
		}
	})

	t.Run("the function's metrics count it", func(t *testing.T) {
		after := functionMetrics(ctx, t)
		for _, c := range []struct{ name, labels string }{
			{"scs_kaas_function_results_total", `reason="InvalidSpec",severity="Fatal"`},
			{"scs_kaas_function_results_total", `reason="InvalidSpec",severity="Warning"`},
			{"scs_kaas_function_results_total", `reason="VersionNotOffered",severity="Warning"`},
			{"scs_kaas_function_results_total", `reason="UpgradeStarted",severity="Normal"`},
			{"scs_kaas_function_results_total", `reason="KubeconfigExpiring",severity="Warning"`},
			{"scs_kaas_function_run_duration_seconds_count", `backend="gardener"`},
			{"scs_kaas_function_run_duration_seconds_count", `backend="magnum"`},
			{"scs_kaas_function_run_duration_seconds_count", `backend="clusterstack"`},
			{"scs_kaas_function_desired_resources_total", `backend="clusterstack"`},
			{"scs_kaas_function_kubeconfig_remaining_seconds_bucket", `backend="clusterstack",le="86400"`},
			{"scs_kaas_function_not_ready_seconds_count", `backend="clusterstack"`},
		} {
			was, is := metricValue(before, c.name, c.labels), metricValue(after, c.name, c.labels)
			if is <= was {
				t.Errorf("%s{%s} = %v, was %v before the test: it should have counted what the test did", c.name, c.labels, is, was)
			}
		}
	})
}

// waitEvents waits for an event of the given type and reason, whose message contains what,
// on the claim and on its composite resource: Crossplane emits the function's results on
// both (legacy flavour).
func waitEvents(ctx context.Context, t *testing.T, claim, typ, reason, what string) {
	t.Helper()
	xr, _ := clusterOf(ctx, t, claim)
	for _, on := range []struct{ namespace, kind, name string }{
		{claimNamespace, "SCSCluster", claim},
		{metav1.NamespaceDefault, "XSCSCluster", xr},
	} {
		waitEventOn(ctx, t, on.namespace, on.kind, on.name, typ, reason, what)
	}
}

// waitEventOn waits for an event of the given type and reason, whose message contains what,
// on one object.
func waitEventOn(ctx context.Context, t *testing.T, namespace, kind, name, typ, reason, what string) {
	t.Helper()
	waitFor(ctx, t, faultDeadline, fmt.Sprintf("%s event %s on %s %s", typ, reason, kind, name), func(ctx context.Context) (bool, error) {
		evs, err := cp.Client.CoreV1().Events(namespace).List(ctx, metav1.ListOptions{
			FieldSelector: "involvedObject.kind=" + kind + ",involvedObject.name=" + name + ",reason=" + reason})
		if err != nil {
			return false, err
		}
		var seen []string
		for _, e := range evs.Items {
			if e.Type == typ && strings.Contains(e.Message, what) {
				return true, nil
			}
			seen = append(seen, e.Type+": "+e.Message)
		}
		return false, fmt.Errorf("events with reason %s: %v", reason, seen)
	})
}

// patchEnvironmentData merge-patches an EnvironmentConfig's data, as a platform team edits
// it.
func patchEnvironmentData(ctx context.Context, t *testing.T, name string, data map[string]any) {
	t.Helper()
	patch, err := json.Marshal(map[string]any{"data": data})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cp.Dynamic.Resource(envGVR).Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatalf("editing EnvironmentConfig %s: %v", name, err)
	}
}

// pauseCluster pauses or releases a Cluster, and waits until Cluster API says so: paused,
// its controllers (the KubeadmControlPlane's included) leave it and what it owns alone;
// released, they take it up again.
func pauseCluster(ctx context.Context, t *testing.T, native string, paused bool) {
	t.Helper()
	patch := fmt.Sprintf(`{"spec":{"paused":%t}}`, paused)
	if _, err := cp.Dynamic.Resource(capiClusterGVR).Namespace(clusterStackNamespace).Patch(ctx, native, types.MergePatchType, []byte(patch),
		metav1.PatchOptions{FieldManager: managerCAPI}); err != nil {
		t.Fatal(err)
	}
	want := map[bool]string{true: "True", false: "False"}[paused]
	waitFor(ctx, t, deadline, fmt.Sprintf("Cluster %s condition Paused %s", native, want), func(ctx context.Context) (bool, error) {
		c := clusterCondition(ctx, cp, clusterStackNamespace, native, "Paused")
		return c.Status == want, fmt.Errorf("Paused %v", c)
	})
}

// kubeadmControlPlaneOf names the Cluster's KubeadmControlPlane.
func kubeadmControlPlaneOf(ctx context.Context, t *testing.T, native string) string {
	t.Helper()
	kcps, err := cp.Dynamic.Resource(kcpGVR).Namespace(clusterStackNamespace).List(ctx, clusterLabel(native))
	if err != nil || len(kcps.Items) != 1 {
		t.Fatalf("the KubeadmControlPlane of %s: %d found, %v", native, len(kcps.Items), err)
	}
	return kcps.Items[0].GetName()
}

// writeClusterAPIKubeconfig replaces the kubeconfig in the Secret the KubeadmControlPlane
// owns, keeping its owner.
func writeClusterAPIKubeconfig(ctx context.Context, t *testing.T, native string, kubeconfig []byte) {
	t.Helper()
	patch, err := json.Marshal(map[string]any{"data": map[string]any{"value": kubeconfig}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cp.Client.CoreV1().Secrets(clusterStackNamespace).Patch(ctx, native+"-kubeconfig", types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
}

// waitClaimSecretCert waits until the claim's connection secret holds a kubeconfig whose
// client certificate is valid until notAfter. The kubeconfig itself is never logged.
func waitClaimSecretCert(ctx context.Context, t *testing.T, secret, which string, notAfter time.Time) {
	t.Helper()
	waitFor(ctx, t, faultDeadline, fmt.Sprintf("%s kubeconfig (valid until %s) in %s/%s", which, notAfter.UTC().Format(time.RFC3339), claimNamespace, secret), func(ctx context.Context) (bool, error) {
		s, err := cp.Client.CoreV1().Secrets(claimNamespace).Get(ctx, secret, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		if len(s.Data["kubeconfig"]) == 0 {
			return false, fmt.Errorf("no kubeconfig yet, keys %v", keys(s.Data))
		}
		got := clientCert(t, s.Data["kubeconfig"]).NotAfter
		return got.Equal(notAfter), fmt.Errorf("its client certificate is valid until %s", got.UTC().Format(time.RFC3339))
	})
}

// clientCert is the client certificate of a kubeconfig's only user.
func clientCert(t *testing.T, kubeconfig []byte) *x509.Certificate {
	t.Helper()
	cfg, err := clientcmd.Load(kubeconfig)
	if err != nil {
		t.Fatal("a kubeconfig does not parse (content not shown)")
	}
	for _, u := range cfg.AuthInfos {
		if block, _ := pem.Decode(u.ClientCertificateData); block != nil {
			cert, err := x509.ParseCertificate(block.Bytes)
			if err != nil {
				t.Fatal(err)
			}
			return cert
		}
	}
	t.Fatal("a kubeconfig has no client certificate")
	return nil
}

// withClientCert is kubeconfig with its users' client certificates replaced by one valid
// until notAfter: all the KubeadmControlPlane reads to decide on a rotation.
func withClientCert(t *testing.T, kubeconfig []byte, notAfter time.Time) []byte {
	t.Helper()
	cfg, err := clientcmd.Load(kubeconfig)
	if err != nil {
		t.Fatal("a kubeconfig does not parse (content not shown)")
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(7), Subject: pkix.Name{CommonName: "kubernetes-admin", Organization: []string{"system:masters"}},
		NotBefore: notAfter.Add(-24 * time.Hour), NotAfter: notAfter}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range cfg.AuthInfos {
		u.ClientCertificateData = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	}
	out, err := clientcmd.Write(*cfg)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// metricValue adds up the samples of a metric whose labels contain every one of labels
// (comma-separated, in the order Prometheus writes them); 0 when there are none.
func metricValue(metrics, name, labels string) float64 {
	sum := 0.0
	for _, line := range strings.Split(metrics, "\n") {
		if !strings.HasPrefix(line, name+"{") || !strings.Contains(line, labels) {
			continue
		}
		var v float64
		if _, err := fmt.Sscan(line[strings.LastIndexByte(line, ' ')+1:], &v); err == nil {
			sum += v
		}
	}
	return sum
}
