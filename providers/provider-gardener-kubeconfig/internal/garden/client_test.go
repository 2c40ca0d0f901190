package garden

import (
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"

	"github.com/SovereignCloudStack/scs-kaas/providers/provider-gardener-kubeconfig/internal/kubeconfig"
	"github.com/SovereignCloudStack/scs-kaas/providers/provider-gardener-kubeconfig/test/fakegarden/gardentest"
)

var now = time.Date(2026, 11, 3, 8, 0, 0, 0, time.UTC)

var dev = Request{Namespace: "garden-team1", ShootName: "dev", ExpirationSeconds: 86400}

func newClient(t *testing.T, g *gardentest.Garden, token string) *Client {
	t.Helper()
	c, err := NewClient(g.Kubeconfig(t, token), "test")
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestIssue(t *testing.T) {
	g := gardentest.New(t, clocktesting.NewFakePassiveClock(now))
	got, err := newClient(t, g, gardentest.AdminToken).Issue(t.Context(), dev)
	if err != nil {
		t.Fatal(err)
	}
	if want := now.Add(24 * time.Hour); !got.ExpirationTimestamp.Equal(want) {
		t.Errorf("expiration %v, want %v", got.ExpirationTimestamp, want)
	}
	target, err := kubeconfig.Inspect(got.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	if target.Server != "https://api.dev.team1.example.com" || string(target.CAData) != string(gardentest.ShootCA) {
		t.Errorf("kubeconfig points at %q with CA %q", target.Server, target.CAData)
	}
}

// TestRequestIsGardenersAdminKubeconfigRequest checks the wire: verb, path, content type and
// a body that is an authentication.gardener.cloud/v1alpha1 AdminKubeconfigRequest.
func TestRequestIsGardenersAdminKubeconfigRequest(t *testing.T) {
	var method, path, contentType, auth string
	var body map[string]any
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		method, path, contentType, auth = r.Method, r.URL.Path, r.Header.Get("Content-Type"), r.Header.Get("Authorization")
		b, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(b, &body)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		_, _ = io.WriteString(w, `{"apiVersion":"authentication.gardener.cloud/v1alpha1","kind":"AdminKubeconfigRequest","metadata":{},`+
			`"spec":{"expirationSeconds":3600},"status":{"kubeconfig":"`+base64.StdEncoding.EncodeToString([]byte(plainKubeconfig("https://api.example.com", "t")))+
			`","expirationTimestamp":"2026-11-03T09:00:00Z"}}`)
	}))
	defer srv.Close()
	c, err := NewClient([]byte(tlsKubeconfig(srv.URL, serverCA(srv), "garden-token")), "test")
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.Issue(t.Context(), dev)
	if err != nil {
		t.Fatal(err)
	}
	if method != http.MethodPost || path != "/apis/core.gardener.cloud/v1beta1/namespaces/garden-team1/shoots/dev/adminkubeconfig" {
		t.Errorf("%s %s", method, path)
	}
	if contentType != "application/json" || auth != "Bearer garden-token" {
		t.Errorf("Content-Type %q, Authorization set: %v", contentType, auth != "")
	}
	if body["apiVersion"] != "authentication.gardener.cloud/v1alpha1" || body["kind"] != "AdminKubeconfigRequest" {
		t.Errorf("body is %v %v", body["apiVersion"], body["kind"])
	}
	if spec, _ := body["spec"].(map[string]any); spec["expirationSeconds"] != float64(86400) {
		t.Errorf("spec %v", spec)
	}
	// The garden granted less than asked: the client reports what was granted.
	if want := time.Date(2026, 11, 3, 9, 0, 0, 0, time.UTC); !got.ExpirationTimestamp.Equal(want) {
		t.Errorf("expiration %v, want %v", got.ExpirationTimestamp, want)
	}
}

// plainKubeconfig is a kubeconfig for a server with a token and no CA.
func plainKubeconfig(server, token string) string {
	return tlsKubeconfig(server, nil, token)
}

// tlsKubeconfig is a kubeconfig for a server with a CA and a token. client-go sends
// credentials only over TLS, so test gardens are TLS servers.
func tlsKubeconfig(server string, caPEM []byte, token string) string {
	return "apiVersion: v1\nkind: Config\ncurrent-context: g\nclusters: [{name: g, cluster: {server: '" + server +
		"', certificate-authority-data: '" + base64.StdEncoding.EncodeToString(caPEM) + "'}}]\n" +
		"contexts: [{name: g, context: {cluster: g, user: u}}]\nusers: [{name: u, user: {token: " + token + "}}]\n"
}

func serverCA(s *httptest.Server) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: s.Certificate().Raw})
}

func TestIssueErrorsNameTheirCause(t *testing.T) {
	cases := map[string]struct {
		token   string
		req     Request
		prepare func(g *gardentest.Garden)
		want    Cause
		message string
	}{
		"Shoot not found":    {token: gardentest.AdminToken, req: Request{Namespace: "garden-team1", ShootName: "prod", ExpirationSeconds: 3600}, want: CauseShootNotFound, message: `shoots.core.gardener.cloud "prod" not found`},
		"permission denied":  {token: gardentest.ViewerToken, req: dev, want: CausePermissionDenied, message: `User "viewer" cannot create resource "shoots/adminkubeconfig"`},
		"bad credentials":    {token: "expired-token", req: dev, want: CauseUnauthorized, message: "rejected the ProviderConfig's credentials"},
		"too short":          {token: gardentest.AdminToken, req: Request{Namespace: "garden-team1", ShootName: "dev", ExpirationSeconds: 60}, want: CauseRejected, message: "less than 10 minutes"},
		"garden unreachable": {token: gardentest.AdminToken, req: dev, prepare: func(g *gardentest.Garden) { g.SetReachable(false) }, want: CauseUnreachable, message: "EOF"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			g := gardentest.New(t, clocktesting.NewFakePassiveClock(now))
			if tc.prepare != nil {
				tc.prepare(g)
			}
			_, err := newClient(t, g, tc.token).Issue(t.Context(), tc.req)
			if got := CauseOf(err); got != tc.want {
				t.Fatalf("cause %q, want %q (error: %v)", got, tc.want, err)
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, string(tc.want)+": cannot issue an admin kubeconfig for Shoot "+tc.req.Shoot()+": ") || !strings.Contains(msg, tc.message) {
				t.Errorf("message %q, want the cause, the Shoot and %q", msg, tc.message)
			}
			if strings.Contains(msg, gardentest.AdminToken) || strings.Contains(msg, gardentest.ViewerToken) {
				t.Errorf("the message leaks a garden token: %q", msg)
			}
		})
	}
}

// TestIssueClassifiesAnswersTheFakeNeverGives covers gardens that are not the fake: a plain
// kube-apiserver (no subresource), a failing garden and a broken success body.
func TestIssueClassifiesAnswersTheFakeNeverGives(t *testing.T) {
	cases := map[string]struct {
		code int
		body string
		want Cause
	}{
		"no such subresource": {404, `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"the server could not find the requested resource","reason":"NotFound","details":{},"code":404}`, CauseNotServed},
		"server error":        {503, `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"etcd is down","reason":"ServiceUnavailable","code":503}`, CauseUnavailable},
		"throttled":           {429, `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"slow down","reason":"TooManyRequests","code":429}`, CauseUnavailable},
		"no kubeconfig":       {201, `{"apiVersion":"authentication.gardener.cloud/v1alpha1","kind":"AdminKubeconfigRequest","spec":{},"status":{"expirationTimestamp":"2026-11-04T08:00:00Z"}}`, CauseBadResponse},
		"no expiration":       {201, `{"apiVersion":"authentication.gardener.cloud/v1alpha1","kind":"AdminKubeconfigRequest","spec":{},"status":{"kubeconfig":"YXBpVmVyc2lvbjogdjEK"}}`, CauseBadResponse},
		"unusable kubeconfig": {201, `{"apiVersion":"authentication.gardener.cloud/v1alpha1","kind":"AdminKubeconfigRequest","spec":{},"status":{"kubeconfig":"a2luZDogczNjcjN0","expirationTimestamp":"2026-11-04T08:00:00Z"}}`, CauseBadResponse},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(tc.code)
				_, _ = io.WriteString(w, tc.body)
			}))
			defer srv.Close()
			c, err := NewClient([]byte(tlsKubeconfig(srv.URL, serverCA(srv), "t")), "test")
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.Issue(t.Context(), dev)
			if got := CauseOf(err); got != tc.want {
				t.Errorf("cause %q, want %q (error: %v)", got, tc.want, err)
			}
			if err != nil && strings.Contains(err.Error(), "s3cr3t") {
				t.Errorf("the error quotes the response: %v", err)
			}
		})
	}
}
