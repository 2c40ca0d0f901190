package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/model"
	"github.com/SovereignCloudStack/scs-kaas/test/e2e/gardensim"
)

// No Gardener runs here: these tests write the status Gardener's gardenlet would write on
// the Shoot (package gardensim, through the status subresource) and check that it reaches
// the claim through provider-kubernetes, Crossplane and the function.

// TestGardenerSimulated_SucceededMakesClaimReady: a Shoot whose last operation succeeded
// on the current generation with every health check passing makes the claim Ready, with
// the Shoot's external API server URL.
func TestGardenerSimulated_SucceededMakesClaimReady(t *testing.T) {
	needEnv(t)
	ctx := testContext(t)
	const name = "ready"

	spec := smallSpec("1.34", 1, 3)
	spec["writeConnectionSecretToRef"] = map[string]any{"name": name + "-kubeconfig"}
	apply(ctx, t, newClaim(name, spec))
	xr, native, _ := waitShoot(ctx, t, name)
	rendered(ctx, t, name)

	start := time.Now()
	shoot, err := gardensim.Write(ctx, garden.Client, garden.Dynamic, gardenNamespace, native, gardensim.Healthy)
	if err != nil {
		t.Fatal(err)
	}
	url := gardensim.APIServerURL(shoot)
	claim := waitClaim(ctx, t, deadline, name, "Ready with apiServerURL "+url, allOf(
		hasCondition("Ready", "True", ""),
		fieldIs(url, "status", "apiServerURL"),
	))
	measure(t, "simulated Gardener status Succeeded -> claim Ready", start)

	for _, c := range []struct{ typ, status, reason string }{
		{kaasv1alpha1.ConditionBackendReady, "True", "Healthy"},
		{kaasv1alpha1.ConditionRendered, "True", kaasv1alpha1.ReasonRendered},
		{"Synced", "True", ""},
	} {
		if got := model.ConditionOf(claim, c.typ); got.Status != c.status || (c.reason != "" && got.Reason != c.reason) {
			t.Errorf("claim condition %s = %v, want %s/%s", c.typ, got, c.status, c.reason)
		}
	}
	if got := str(claim, "status", "phase"); got != "Ready" {
		t.Errorf("claim phase = %q, want Ready", got)
	}
	// What runs: the patch Gardener picked for the minor.
	if got := str(claim, "status", "kubernetes", "version"); got != gardenerPatch["1.34"] {
		t.Errorf("claim kubernetes version = %q, want %s", got, gardenerPatch["1.34"])
	}
	// The kubeconfig provider-gardener-kubeconfig obtained for the Shoot reached the
	// claim's connection secret (the claim is Ready only with it).
	secret, err := cp.Client.CoreV1().Secrets(claimNamespace).Get(ctx, name+"-kubeconfig", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("the claim's connection secret: %v", err)
	}
	for _, k := range []string{"kubeconfig", "endpoint", "ca.crt"} {
		if len(secret.Data[k]) == 0 {
			t.Errorf("connection secret %s has no %s", secret.Name, k)
		}
	}
	if got := string(secret.Data["endpoint"]); got != url {
		t.Errorf("connection secret endpoint = %q, want %q", got, url)
	}
	if kc := string(secret.Data["kubeconfig"]); !strings.Contains(kc, url) {
		t.Errorf("connection secret kubeconfig does not point at %s", url)
	}

	// The composite resource says the same. Waited for, not read once: one run saw the
	// composite report the kubeconfig resource unready for a moment right after the claim
	// turned Ready (the function's debug log now names unready resources, to find out why).
	waitFor(ctx, t, deadline, "composite "+xr+" Ready with apiServerURL "+url, func(ctx context.Context) (bool, error) {
		x, err := xrs().Get(ctx, xr, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		if !hasReady(x) || str(x, "status", "apiServerURL") != url {
			return false, fmt.Errorf("Ready %v, apiServerURL %q", model.ConditionOf(x, "Ready"), str(x, "status", "apiServerURL"))
		}
		return true, nil
	})
}

// TestGardenerSimulated_QuotaErrorReachesClaim: Gardener's error code for an exhausted
// cloud quota becomes the reason of the claim's BackendReady condition, with Gardener's
// words in the message; once Gardener succeeds, the claim becomes Ready.
func TestGardenerSimulated_QuotaErrorReachesClaim(t *testing.T) {
	needEnv(t)
	ctx := testContext(t)
	const name = "quota"

	apply(ctx, t, newClaim(name, smallSpec("1.34", 1, 3)))
	_, native, _ := waitShoot(ctx, t, name)
	rendered(ctx, t, name)

	start := time.Now()
	if _, err := gardensim.Write(ctx, garden.Client, garden.Dynamic, gardenNamespace, native, gardensim.QuotaExceeded); err != nil {
		t.Fatal(err)
	}
	claim := waitClaim(ctx, t, deadline, name, "BackendReady=False/"+gardensim.QuotaErrorCode,
		hasCondition(kaasv1alpha1.ConditionBackendReady, "False", gardensim.QuotaErrorCode))
	measure(t, "simulated Gardener quota error -> claim BackendReady reason", start)

	if msg := model.ConditionOf(claim, kaasv1alpha1.ConditionBackendReady).Message; !strings.Contains(msg, "Quota exceeded") {
		t.Errorf("BackendReady message does not carry Gardener's words: %q", msg)
	}
	if c := model.ConditionOf(claim, "Ready"); c.Status == "True" {
		t.Errorf("claim is Ready despite Gardener's error: %v", c)
	}

	// Gardener retries and succeeds: the error clears.
	if _, err := gardensim.Write(ctx, garden.Client, garden.Dynamic, gardenNamespace, native, gardensim.Healthy); err != nil {
		t.Fatal(err)
	}
	waitClaim(ctx, t, deadline, name, "Ready after the error cleared", allOf(
		hasCondition("Ready", "True", ""), hasCondition(kaasv1alpha1.ConditionBackendReady, "True", "Healthy")))
}

func hasReady(obj *unstructured.Unstructured) bool {
	return model.ConditionOf(obj, "Ready").Status == "True"
}
