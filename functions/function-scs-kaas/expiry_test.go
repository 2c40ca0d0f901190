package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/crossplane/function-sdk-go/logging"
	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
	"google.golang.org/protobuf/proto"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/model"
)

// TestKubeconfigExpiryOnClusterAPIAndMagnum: the kubeconfig Cluster API (its Secret, local
// or read from a remote management cluster) and provider-openstack deliver carries a client
// certificate; the claim says when it expires, warns in its last week and says Expired
// once past, in both flavours. Gardener's comes with its own verdict (AdminKubeconfig).
func TestKubeconfigExpiryOnClusterAPIAndMagnum(t *testing.T) {
	now := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	for _, c := range readyClusters(t) {
		if strings.HasPrefix(c.name, "gardener") {
			continue
		}
		for _, tc := range []struct {
			name     string
			notAfter time.Time
			reason   string
			warned   string
		}{
			{"valid", now.Add(300 * 24 * time.Hour), kaasv1alpha1.ReasonKubeconfigDelivered, ""},
			{"expiring", now.Add(24 * time.Hour), kaasv1alpha1.ReasonKubeconfigDelivered, kaasv1alpha1.ReasonKubeconfigExpiring},
			{"expired", now.Add(-time.Minute), kaasv1alpha1.ReasonKubeconfigExpired, kaasv1alpha1.ReasonKubeconfigExpiredWarning},
		} {
			t.Run(c.name+"/"+tc.name, func(t *testing.T) {
				req := withKubeconfig(t, proto.Clone(c.req).(*fnv1.RunFunctionRequest), c, certKubeconfig(t, tc.notAfter))
				f := NewFunction(logging.NewNopLogger())
				f.now = func() time.Time { return now }
				rsp, err := f.RunFunction(t.Context(), req)
				if err != nil {
					t.Fatal(err)
				}
				if r := fatalResult(rsp); r != nil {
					t.Fatalf("refused: %s", r.GetMessage())
				}
				cond := responseCondition(rsp, kaasv1alpha1.ConditionKubeconfigReady)
				if cond.GetReason() != tc.reason || !strings.Contains(cond.GetMessage(), tc.notAfter.Format(time.RFC3339)) {
					t.Errorf("KubeconfigReady %s: %s; want %s naming %s", cond.GetReason(), cond.GetMessage(), tc.reason, tc.notAfter.Format(time.RFC3339))
				}
				// The event that goes with the condition: expiring within a week, or expired.
				var warned string
				for _, r := range rsp.GetResults() {
					if r.GetSeverity() == fnv1.Severity_SEVERITY_WARNING && strings.HasPrefix(r.GetReason(), "Kubeconfig") {
						warned = r.GetReason()
					}
				}
				if warned != tc.warned {
					t.Errorf("warned %q, want %q: %v", warned, tc.warned, rsp.GetResults())
				}
			})
		}
	}
}

// withKubeconfig puts a kubeconfig where the cluster's backend delivers it.
func withKubeconfig(t *testing.T, req *fnv1.RunFunctionRequest, c readyCluster, kubeconfig []byte) *fnv1.RunFunctionRequest {
	t.Helper()
	if c.kubeconfigRequired != "" {
		secret := readObject(t, exampleCAPIKubeconfig)
		secret["data"] = map[string]any{"value": base64.StdEncoding.EncodeToString(kubeconfig)}
		if ns, ok := req.GetRequiredResources()[c.kubeconfigRequired].GetItems()[0].GetResource().AsMap()["metadata"].(map[string]any)["namespace"]; ok {
			secret["metadata"].(map[string]any)["namespace"] = ns
		}
		return withRequired(t, req, c.kubeconfigRequired, []map[string]any{secret})
	}
	r := req.GetObserved().GetResources()[c.kubeconfigFrom]
	key := model.ConnectionKeyKubeconfig
	if strings.HasPrefix(c.name, "magnum") {
		key = "attribute.kubeconfig.raw_config"
	}
	r.ConnectionDetails = map[string][]byte{key: kubeconfig}
	return req
}

// certKubeconfig is a kubeconfig whose client certificate is valid until notAfter.
func certKubeconfig(t *testing.T, notAfter time.Time) []byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "admin"}, NotBefore: notAfter.AddDate(-1, 0, 0), NotAfter: notAfter}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Appendf(nil, "apiVersion: v1\nkind: Config\ncurrent-context: a\ncontexts:\n- {name: a, context: {cluster: c, user: u}}\n"+
		"clusters:\n- {name: c, cluster: {server: \"https://203.0.113.9:6443\"}}\nusers:\n- {name: u, user: {client-certificate-data: %s}}\n",
		base64.StdEncoding.EncodeToString(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})))
}
