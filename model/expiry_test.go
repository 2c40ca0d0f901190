package model

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
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
)

// ExpiringKubeconfig is a kubeconfig whose client certificate is valid until notAfter,
// and, when tokenExp is not zero, with a JWT token that expires then too.
func expiringKubeconfig(t *testing.T, notAfter, tokenExp time.Time) []byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "kubernetes-admin"},
		NotBefore: notAfter.Add(-365 * 24 * time.Hour), NotAfter: notAfter}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert := base64.StdEncoding.EncodeToString(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
	token := ""
	if !tokenExp.IsZero() {
		payload := base64.RawURLEncoding.EncodeToString(fmt.Appendf(nil, `{"sub":"admin","exp":%d}`, tokenExp.Unix()))
		token = "eyJhbGciOiJub25lIn0." + payload + ".c2ln"
	}
	return fmt.Appendf(nil, `apiVersion: v1
kind: Config
current-context: admin@c
contexts:
- name: admin@c
  context: {cluster: c, user: admin}
clusters:
- name: c
  cluster: {server: "https://203.0.113.1:6443"}
users:
- name: other
  user: {token: other}
- name: admin
  user: {client-certificate-data: %s, token: %q}
`, cert, token)
}

// TestKubeconfigCondition: a delivered kubeconfig whose credentials say when they expire is
// Delivered with that date, warned of in its last week, and Expired once past; without a
// clock or a date it is Delivered as before.
func TestKubeconfigCondition(t *testing.T) {
	now := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	in := func(d time.Duration) time.Time { return now.Add(d) }
	for _, tc := range []struct {
		name       string
		kubeconfig []byte
		now        time.Time
		status     ConditionStatus
		reason     string
		message    string
		warned     string // the reason of the Warning event, if one
	}{
		{"valid for a year", expiringKubeconfig(t, in(365*24*time.Hour), time.Time{}), now, ConditionTrue, kaasv1alpha1.ReasonKubeconfigDelivered,
			"the connection secret holds the cluster's kubeconfig, valid until 2027-12-03T12:00:00Z", ""},
		{"expires in two days", expiringKubeconfig(t, in(48*time.Hour), time.Time{}), now, ConditionTrue, kaasv1alpha1.ReasonKubeconfigDelivered,
			"the connection secret holds the cluster's kubeconfig, valid until 2026-12-05T12:00:00Z", kaasv1alpha1.ReasonKubeconfigExpiring},
		{"the token expires first", expiringKubeconfig(t, in(365*24*time.Hour), in(time.Hour)), now, ConditionTrue, kaasv1alpha1.ReasonKubeconfigDelivered,
			"the connection secret holds the cluster's kubeconfig, valid until 2026-12-03T13:00:00Z", kaasv1alpha1.ReasonKubeconfigExpiring},
		{"expired an hour ago", expiringKubeconfig(t, in(-time.Hour), time.Time{}), now, ConditionFalse, kaasv1alpha1.ReasonKubeconfigExpired,
			"the delivered kubeconfig's credentials expired at 2026-12-03T11:00:00Z and the backend has not delivered renewed ones", kaasv1alpha1.ReasonKubeconfigExpiredWarning},
		{"no clock", expiringKubeconfig(t, in(-time.Hour), time.Time{}), time.Time{}, ConditionTrue, kaasv1alpha1.ReasonKubeconfigDelivered,
			"the connection secret holds the cluster's kubeconfig", ""},
		{"no date", []byte("apiVersion: v1\nkind: Config\nusers:\n- name: a\n  user: {token: opaque}\n"), now, ConditionTrue, kaasv1alpha1.ReasonKubeconfigDelivered,
			"the connection secret holds the cluster's kubeconfig", ""},
		{"nothing delivered", nil, now, ConditionFalse, kaasv1alpha1.ReasonKubeconfigPending, "the backend has not delivered a kubeconfig yet", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			obs := &Observation{ConnectionDetails: map[string][]byte{}}
			if tc.kubeconfig != nil {
				obs.ConnectionDetails[ConnectionKeyKubeconfig] = tc.kubeconfig
			}
			c, w := kubeconfigCondition(obs, kubeconfigExpiry(obs.ConnectionDetails[ConnectionKeyKubeconfig]), tc.now)
			want := Condition{Type: kaasv1alpha1.ConditionKubeconfigReady, Status: tc.status, Reason: tc.reason, Message: tc.message}
			if d := cmp.Diff(want, c); d != "" {
				t.Errorf("condition (-want +got):\n%s", d)
			}
			var warned string
			if w != nil {
				warned = w.Reason
			}
			if warned != tc.warned {
				t.Errorf("warning %+v, want one of reason %q", w, tc.warned)
			}
		})
	}
}
