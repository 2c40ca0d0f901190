package fakegarden

import (
	"bytes"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	authenticationv1alpha1 "github.com/gardener/gardener/pkg/apis/authentication/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	clocktesting "k8s.io/utils/clock/testing"
)

var now = time.Date(2026, 11, 3, 8, 0, 0, 0, time.UTC)

const (
	ns        = "garden-team1"
	shootName = "dev"
	token     = "token-of-alice"
	path      = "/apis/core.gardener.cloud/v1beta1/namespaces/garden-team1/shoots/dev/adminkubeconfig"
)

type fixture struct {
	srv     *httptest.Server
	shoots  *ShootMap
	caCert  *x509.Certificate
	shootCA []byte
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	caPEM, keyPEM, err := NewCA("client CA", now, 24*time.Hour*365)
	if err != nil {
		t.Fatal(err)
	}
	issuer, err := NewIssuer(caPEM, keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	shootCA, _, err := NewCA("cluster CA", now, 24*time.Hour*365)
	if err != nil {
		t.Fatal(err)
	}
	shoots := &ShootMap{}
	shoots.Put(ns, shootName, &Shoot{
		AdvertisedAddresses: []Address{
			{Name: "external", URL: "https://api.dev.team1.example.com"},
			{Name: "service-account-issuer", URL: "https://discovery.example.com/dev"},
			{Name: "internal", URL: "https://api.dev.team1.internal.example.com"},
		},
		CABundle: shootCA,
	})
	shoots.Put(ns, "unready", &Shoot{CABundle: shootCA})
	shoots.Put(ns, "no-ca", &Shoot{AdvertisedAddresses: []Address{{Name: "external", URL: "https://x"}}})
	h := NewHandler(
		Tokens{token: {Name: "alice", Groups: []string{"project:team1", "system:authenticated"}}, "token-of-bob": {Name: "bob"}},
		AllowUsers{"alice"}, shoots, issuer, Options{Clock: clocktesting.NewFakePassiveClock(now)})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	block, _ := pem.Decode(caPEM)
	ca, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{srv: srv, shoots: shoots, caCert: ca, shootCA: shootCA}
}

func (f *fixture) do(t *testing.T, method, path, bearer, body string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, f.srv.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	if ct := res.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type %q, want application/json", ct)
	}
	return res.StatusCode, b
}

const request = `{"apiVersion":"authentication.gardener.cloud/v1alpha1","kind":"AdminKubeconfigRequest","spec":{"expirationSeconds":7200}}`

func TestIssuesAKubeconfigLikeGardener(t *testing.T) {
	f := newFixture(t)
	code, body := f.do(t, http.MethodPost, path, token, request)
	if code != http.StatusCreated {
		t.Fatalf("status %d, want 201: %s", code, body)
	}
	res := &authenticationv1alpha1.AdminKubeconfigRequest{}
	if err := json.Unmarshal(body, res); err != nil {
		t.Fatal(err)
	}
	if res.APIVersion != "authentication.gardener.cloud/v1alpha1" || res.Kind != "AdminKubeconfigRequest" {
		t.Errorf("answered %s %s", res.APIVersion, res.Kind)
	}
	wantExpiry := now.Add(2 * time.Hour)
	if !res.Status.ExpirationTimestamp.Time.Equal(wantExpiry) {
		t.Errorf("expirationTimestamp %v, want %v", res.Status.ExpirationTimestamp, wantExpiry)
	}

	cfg, err := clientcmd.Load(res.Status.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	// One context per kube-apiserver address, named like Gardener's, the external one current;
	// the service account issuer is not an API server.
	wantContexts := []string{"garden-team1--dev-external", "garden-team1--dev-internal"}
	var contexts []string
	for n := range cfg.Contexts {
		contexts = append(contexts, n)
	}
	slices.Sort(contexts)
	if !slices.Equal(contexts, wantContexts) {
		t.Errorf("contexts %v, want %v", contexts, wantContexts)
	}
	if cfg.CurrentContext != "garden-team1--dev-external" {
		t.Errorf("current context %q", cfg.CurrentContext)
	}
	cluster := cfg.Clusters[cfg.Contexts[cfg.CurrentContext].Cluster]
	if cluster.Server != "https://api.dev.team1.example.com" || !bytes.Equal(cluster.CertificateAuthorityData, f.shootCA) {
		t.Errorf("current cluster: server %q, CA from the Shoot: %v", cluster.Server, bytes.Equal(cluster.CertificateAuthorityData, f.shootCA))
	}

	// The user is a client certificate for the caller, signed by the client CA, expiring
	// exactly at expirationTimestamp.
	user := cfg.AuthInfos[cfg.Contexts[cfg.CurrentContext].AuthInfo]
	block, _ := pem.Decode(user.ClientCertificateData)
	if block == nil {
		t.Fatal("no client certificate")
	}
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	if err := cert.CheckSignatureFrom(f.caCert); err != nil {
		t.Errorf("client certificate not signed by the client CA: %v", err)
	}
	if cert.Subject.CommonName != "alice" || !slices.Equal(cert.Subject.Organization, []string{"project:team1", "system:authenticated"}) {
		t.Errorf("subject %v", cert.Subject)
	}
	if !cert.NotAfter.Equal(wantExpiry) {
		t.Errorf("NotAfter %v, want %v", cert.NotAfter, wantExpiry)
	}
	if !slices.Contains(cert.ExtKeyUsage, x509.ExtKeyUsageClientAuth) {
		t.Error("not a client certificate")
	}
}

func TestResponseMatchesGardenersPublishedSchema(t *testing.T) {
	defs := loadDefinitions(t)
	if errs := defs.check(requestDefinition, []byte(`{"spec":{"expirationSeconds":7200},"status":{"kubeconfig":null,"expirationTimestamp":null}}`)); len(errs) > 0 {
		t.Fatalf("the request shape is not Gardener's: %v", errs)
	}
	f := newFixture(t)
	code, body := f.do(t, http.MethodPost, path, token, request)
	if code != http.StatusCreated {
		t.Fatalf("status %d: %s", code, body)
	}
	if errs := defs.check(requestDefinition, body); len(errs) > 0 {
		t.Errorf("the response does not match Gardener's schema:\n%s", strings.Join(errs, "\n"))
	}
}

func TestExpirationDefaultsToOneHourAndIsCapped(t *testing.T) {
	for name, tc := range map[string]struct {
		body        string
		wantSeconds int64
	}{
		"unset: one hour, as Gardener defaults": {`{"spec":{}}`, 3600},
		"a week: capped at 24 hours":            {`{"spec":{"expirationSeconds":604800}}`, 86400},
	} {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t)
			code, body := f.do(t, http.MethodPost, path, token, tc.body)
			if code != http.StatusCreated {
				t.Fatalf("status %d: %s", code, body)
			}
			res := &authenticationv1alpha1.AdminKubeconfigRequest{}
			if err := json.Unmarshal(body, res); err != nil {
				t.Fatal(err)
			}
			if got := *res.Spec.ExpirationSeconds; got != tc.wantSeconds {
				t.Errorf("spec.expirationSeconds %d, want %d", got, tc.wantSeconds)
			}
			if want := now.Add(time.Duration(tc.wantSeconds) * time.Second); !res.Status.ExpirationTimestamp.Time.Equal(want) {
				t.Errorf("expirationTimestamp %v, want %v", res.Status.ExpirationTimestamp, want)
			}
		})
	}
}

func TestErrorsAreKubernetesStatuses(t *testing.T) {
	shootPath := func(name string) string {
		return "/apis/core.gardener.cloud/v1beta1/namespaces/garden-team1/shoots/" + name + "/adminkubeconfig"
	}
	cases := map[string]struct {
		method, path, bearer, body string
		code                       int32
		reason                     metav1.StatusReason
		detailsKind, message       string
	}{
		"no credentials":       {http.MethodPost, path, "", request, 401, metav1.StatusReasonUnauthorized, "", "Unauthorized"},
		"unknown token":        {http.MethodPost, path, "stolen", request, 401, metav1.StatusReasonUnauthorized, "", "Unauthorized"},
		"not allowed":          {http.MethodPost, path, "token-of-bob", request, 403, metav1.StatusReasonForbidden, "shoots", `shoots.core.gardener.cloud "dev" is forbidden: User "bob" cannot create resource "shoots/adminkubeconfig" in API group "core.gardener.cloud" in the namespace "garden-team1"`},
		"no such Shoot":        {http.MethodPost, shootPath("prod"), token, request, 404, metav1.StatusReasonNotFound, "shoots", `shoots.core.gardener.cloud "prod" not found`},
		"less than 10 minutes": {http.MethodPost, path, token, `{"spec":{"expirationSeconds":599}}`, 422, metav1.StatusReasonInvalid, "AdminKubeconfigRequest", "may not specify a duration less than 10 minutes"},
		"not a request":        {http.MethodPost, path, token, `{"spec":{"expirationSeconds":"long"}}`, 400, metav1.StatusReasonBadRequest, "", "cannot decode"},
		"wrong kind":           {http.MethodPost, path, token, `{"kind":"TokenRequest","spec":{}}`, 400, metav1.StatusReasonBadRequest, "", "kind"},
		"no address yet":       {http.MethodPost, shootPath("unready"), token, request, 422, metav1.StatusReasonInvalid, "Shoot", "no suitable advertised address"},
		"no cluster CA":        {http.MethodPost, shootPath("no-ca"), token, request, 500, metav1.StatusReasonInternalError, "", "could not load cluster CA bundle"},
		"GET":                  {http.MethodGet, path, token, "", 405, metav1.StatusReasonMethodNotAllowed, "shoots", ""},
		"any other path":       {http.MethodGet, "/api/v1/namespaces/garden-team1/secrets", token, "", 404, metav1.StatusReasonNotFound, "", ""},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t)
			code, body := f.do(t, tc.method, tc.path, tc.bearer, tc.body)
			s := &metav1.Status{}
			if err := json.Unmarshal(body, s); err != nil {
				t.Fatalf("not a Status: %v: %s", err, body)
			}
			if s.APIVersion != "v1" || s.Kind != "Status" || s.Status != metav1.StatusFailure {
				t.Errorf("not a failure Status: %s", body)
			}
			if int32(code) != tc.code || s.Code != tc.code || s.Reason != tc.reason {
				t.Errorf("HTTP %d, Status code %d reason %s; want %d %s", code, s.Code, s.Reason, tc.code, tc.reason)
			}
			if got := ""; s.Details != nil {
				got = s.Details.Kind
				if got != tc.detailsKind {
					t.Errorf("details.kind %q, want %q", got, tc.detailsKind)
				}
			} else if tc.detailsKind != "" {
				t.Errorf("no details, want kind %q", tc.detailsKind)
			}
			if !strings.Contains(s.Message, tc.message) {
				t.Errorf("message %q does not contain %q", s.Message, tc.message)
			}
		})
	}
}
