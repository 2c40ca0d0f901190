package e2e

import (
	"context"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"slices"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/SovereignCloudStack/scs-kaas/test/e2e/gardensim"
)

// TestAdminKubeconfigFromGardenIsRenewed: provider-gardener-kubeconfig obtains the claim's
// kubeconfig from gardener-apiserver's shoots/adminkubeconfig, signed by the Shoot's client
// CA for the lifetime the environment asks for, and renews it before it expires: the claim's
// connection secret then carries a new certificate and the claim stays Ready.
//
// The environment asks for gardener-apiserver's shortest lifetime, 10 minutes; the provider
// renews after at most half of it. So that those five minutes are not spent idle, the test
// sets the cluster up and then goes parallel: it waits for the renewal after the other tests
// of the run, by which time it has happened (more than once, on a long run). Go runs a
// package's tests in file order, and this file's name sorts first, so the set-up comes first.
func TestAdminKubeconfigFromGardenIsRenewed(t *testing.T) {
	needEnv(t)
	if flavour != flavourLegacy {
		t.Skip("renewal is the provider's, the same in every flavour: tested in the legacy pass")
	}
	ctx := testContext(t)
	const name, environment, lifetime = "renew", "gardener-short-kubeconfigs", 600

	environmentVariant(ctx, t, "gardener-regionone.yaml", environment, map[string]any{
		"gardener.adminKubeconfig": map[string]any{"expirationSeconds": int64(lifetime), "renewBefore": "5m"},
	})

	spec := smallSpec("1.34", 1, 3)
	spec["environment"] = environment
	spec["writeConnectionSecretToRef"] = map[string]any{"name": name + "-kubeconfig"}
	apply(ctx, t, newClaim(name, spec))
	_, native, _ := waitShoot(ctx, t, name)
	if _, err := gardensim.Write(ctx, garden.Client, garden.Dynamic, gardenNamespace, native, gardensim.Healthy); err != nil {
		t.Fatal(err)
	}
	waitClaim(ctx, t, deadline, name, "Ready", hasCondition("Ready", "True", ""))
	waitFor(ctx, t, deadline, "the claim's connection secret", func(ctx context.Context) (bool, error) {
		s, err := cp.Client.CoreV1().Secrets(claimNamespace).Get(ctx, name+"-kubeconfig", metav1.GetOptions{})
		return err == nil && len(s.Data["kubeconfig"]) > 0, err
	})

	ak, err := adminKubeconfigs().Get(ctx, native+"-kubeconfig", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	issuedAt, expires := timeAt(t, ak, "issuedAt"), timeAt(t, ak, "expirationTimestamp")
	if d := expires.Sub(issuedAt); d < (lifetime-5)*time.Second || d > (lifetime+5)*time.Second {
		t.Errorf("kubeconfig lifetime %s (issued %s, expires %s), want the %ds asked for", d, issuedAt, expires, lifetime)
	}
	first := clientCertificate(ctx, t, name)

	// Signed by gardener-apiserver with the Shoot's client CA, as an admin of the project.
	clientCA, err := garden.Dynamic.Resource(gardensim.InternalSecretGVR).Namespace(gardenNamespace).Get(ctx, gardensim.ClientCASecretName(native), metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	caPEM, _, _ := unstructured.NestedString(clientCA.Object, "data", "ca.crt")
	caData, err := base64.StdEncoding.DecodeString(caPEM)
	if err != nil {
		t.Fatal(err)
	}
	ca := parseCertificate(t, caData)
	if err := first.CheckSignatureFrom(ca); err != nil {
		t.Errorf("the kubeconfig's client certificate is not signed by the Shoot's client CA %s: %v", gardensim.ClientCASecretName(native), err)
	}
	if groups := first.Subject.Organization; !slices.Contains(groups, "gardener.cloud:project:admins") && !slices.Contains(groups, "gardener.cloud:system:admins") {
		t.Errorf("client certificate %q in groups %v, want a Gardener admin group", first.Subject.CommonName, groups)
	}

	t.Parallel()
	ctx = testContext(t)
	start := time.Now()
	// Renewal is due after half the lifetime; the wait allows until the first kubeconfig
	// expires and then some.
	wait := max(time.Until(expires), 0) + deadline
	waitFor(ctx, t, wait, "a renewed kubeconfig in the claim's connection secret", func(ctx context.Context) (bool, error) {
		now := clientCertificate(ctx, t, name)
		return now.SerialNumber.Cmp(first.SerialNumber) != 0, fmt.Errorf("still the certificate issued at %s", issuedAt)
	})
	measure(t, "waiting for the renewal after the other tests", start)
	ak, err = adminKubeconfigs().Get(ctx, native+"-kubeconfig", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Renewed, each time before the last one expired: what the Secret holds now is valid.
	if renewed, valid := timeAt(t, ak, "issuedAt"), timeAt(t, ak, "expirationTimestamp"); !renewed.After(issuedAt) || !valid.After(time.Now()) {
		t.Errorf("kubeconfig issued at %s, valid until %s: want renewed after the first issue (%s) and valid now", renewed, valid, issuedAt)
	}
	if now := clientCertificate(ctx, t, name); !now.NotAfter.After(time.Now()) {
		t.Errorf("the claim's kubeconfig expired at %s", now.NotAfter)
	}
	waitClaim(ctx, t, deadline, name, "still Ready", hasCondition("Ready", "True", ""))
	if err := claims().Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(ctx, t, deadline, "Shoot "+native+" deleted", gone(shoots(), native))
}

// timeAt reads status.atProvider.<field> of an AdminKubeconfig.
func timeAt(t *testing.T, ak *unstructured.Unstructured, field string) time.Time {
	t.Helper()
	s := str(ak, "status", "atProvider", field)
	ts, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatalf("AdminKubeconfig %s status.atProvider.%s = %q: %v", ak.GetName(), field, s, err)
	}
	return ts
}

// clientCertificate is the client certificate of the kubeconfig in a claim's connection
// secret. Only the parsed certificate is kept: nothing of the key reaches the test output.
func clientCertificate(ctx context.Context, t *testing.T, claim string) *x509.Certificate {
	t.Helper()
	secret, err := cp.Client.CoreV1().Secrets(claimNamespace).Get(ctx, claim+"-kubeconfig", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("the claim's connection secret: %v", err)
	}
	cfg, err := clientcmd.Load(secret.Data["kubeconfig"])
	if err != nil {
		t.Fatalf("the claim's kubeconfig does not parse")
	}
	kctx := cfg.Contexts[cfg.CurrentContext]
	if kctx == nil || cfg.AuthInfos[kctx.AuthInfo] == nil {
		t.Fatalf("the claim's kubeconfig has no current user")
	}
	return parseCertificate(t, cfg.AuthInfos[kctx.AuthInfo].ClientCertificateData)
}

func parseCertificate(t *testing.T, data []byte) *x509.Certificate {
	t.Helper()
	block, _ := pem.Decode(data)
	if block == nil {
		t.Fatal("no PEM certificate")
	}
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	return cert
}
