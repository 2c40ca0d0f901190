package oidcissuer

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"net/http"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"k8s.io/apimachinery/pkg/util/wait"
)

// TestIssuer checks what a relying party such as kube-apiserver's JWT authenticator relies
// on, without one: discovery and the key set over TLS trusted through CAPEM alone, tokens
// that verify against the served keys and say what they were asked to, and keys that are
// the issuer's own, so that another issuer's tokens do not verify.
func TestIssuer(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	iss, err := Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	other, err := Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(iss.URL, "https://127.0.0.1:") || strings.HasSuffix(iss.URL, "/") {
		t.Errorf("URL %q: want https://127.0.0.1:PORT", iss.URL)
	}
	client := trusting(t, iss.CAPEM)

	var discovery struct {
		Issuer                           string   `json:"issuer"`
		JWKSURI                          string   `json:"jwks_uri"`
		IDTokenSigningAlgValuesSupported []string `json:"id_token_signing_alg_values_supported"`
		ResponseTypesSupported           []string `json:"response_types_supported"`
		SubjectTypesSupported            []string `json:"subject_types_supported"`
	}
	getJSON(t, client, iss.URL+DiscoveryPath, &discovery)
	if discovery.Issuer != iss.URL {
		t.Errorf("discovery issuer %q, want %q", discovery.Issuer, iss.URL)
	}
	if !strings.HasPrefix(discovery.JWKSURI, iss.URL+"/") {
		t.Errorf("jwks_uri %q is not under the issuer %q", discovery.JWKSURI, iss.URL)
	}
	if !slices.Equal(discovery.IDTokenSigningAlgValuesSupported, []string{"RS256"}) {
		t.Errorf("id_token_signing_alg_values_supported %v, want [RS256]", discovery.IDTokenSigningAlgValuesSupported)
	}
	if len(discovery.ResponseTypesSupported) == 0 || len(discovery.SubjectTypesSupported) == 0 {
		t.Errorf("response_types_supported %v, subject_types_supported %v: both are required by OIDC discovery",
			discovery.ResponseTypesSupported, discovery.SubjectTypesSupported)
	}
	var keys jose.JSONWebKeySet
	getJSON(t, client, discovery.JWKSURI, &keys)
	if len(keys.Keys) != 1 || !keys.Keys[0].IsPublic() {
		t.Fatalf("key set %+v: want one public key", keys)
	}

	// A CA of another issuer does not do: the serving certificate is really signed by CAPEM.
	if _, err := trusting(t, other.CAPEM).Get(iss.URL + DiscoveryPath); err == nil {
		t.Error("the discovery document was fetched trusting another issuer's CA")
	}

	expiry := time.Now().Add(10 * time.Minute).Truncate(time.Second)
	token, err := iss.Token(Claims{
		Subject: "alice", Email: "alice@example.com", Groups: []string{"team-a", "team-b"},
		Audience: "kubernetes", Expiry: expiry,
	})
	if err != nil {
		t.Fatal(err)
	}
	var std jwt.Claims
	var private struct {
		Email         string   `json:"email"`
		EmailVerified bool     `json:"email_verified"`
		Groups        []string `json:"groups"`
	}
	parsed := parse(t, token)
	if kid := parsed.Headers[0].KeyID; kid != keys.Keys[0].KeyID {
		t.Errorf("token key ID %q, served key ID %q", kid, keys.Keys[0].KeyID)
	}
	if err := parsed.Claims(keys.Keys[0], &std, &private); err != nil {
		t.Fatalf("the token does not verify against the served key: %v", err)
	}
	err = std.ValidateWithLeeway(jwt.Expected{Issuer: iss.URL, Subject: "alice", AnyAudience: jwt.Audience{"kubernetes"}, Time: time.Now()}, 0)
	if err != nil {
		t.Error(err)
	}
	if got := std.Expiry.Time(); !got.Equal(expiry) {
		t.Errorf("exp %v, want %v", got, expiry)
	}
	if iat := std.IssuedAt.Time(); !iat.Before(time.Now()) || iat.Before(time.Now().Add(-2*time.Minute)) {
		t.Errorf("iat %v: want a moment in the past", iat)
	}
	if private.Email != "alice@example.com" || !private.EmailVerified || !slices.Equal(private.Groups, []string{"team-a", "team-b"}) {
		t.Errorf("claims %+v: want alice@example.com, verified, in team-a and team-b", private)
	}

	// Defaults: an hour's validity; NoGroups leaves the claim out rather than empty.
	var claims map[string]any
	lone, err := iss.Token(Claims{Subject: "bob", NoGroups: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := parse(t, lone).Claims(keys.Keys[0], &claims); err != nil {
		t.Fatal(err)
	}
	if _, ok := claims["groups"]; ok {
		t.Errorf("NoGroups token has a groups claim: %v", claims)
	}
	if exp, _ := claims["exp"].(float64); time.Until(time.Unix(int64(exp), 0)) < 59*time.Minute {
		t.Errorf("exp %v: want about an hour from now by default", claims["exp"])
	}

	// Another issuer's token does not verify against this issuer's keys.
	foreign, err := other.Token(Claims{Subject: "mallory", Email: "mallory@example.com", Audience: "kubernetes"})
	if err != nil {
		t.Fatal(err)
	}
	if err := parse(t, foreign).Claims(keys.Keys[0], &claims); err == nil {
		t.Error("another issuer's token verified against this issuer's key")
	}

	// The issuer stops with its context.
	cancel()
	if err := waitUnreachable(client, iss.URL+DiscoveryPath); err != nil {
		t.Errorf("the issuer still serves after its context ended: %v", err)
	}
}

// TestExecCredentialPlugin checks the script's output as client-go's exec protocol reads it.
func TestExecCredentialPlugin(t *testing.T) {
	path, err := ExecCredentialPlugin(t.TempDir(), "header.payload.signature")
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(path).Output()
	if err != nil {
		t.Fatal(err)
	}
	var credential struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Status     struct {
			Token string `json:"token"`
		} `json:"status"`
	}
	if err := json.Unmarshal(out, &credential); err != nil {
		t.Fatalf("%s: %v", out, err)
	}
	if credential.APIVersion != "client.authentication.k8s.io/v1" || credential.Kind != "ExecCredential" || credential.Status.Token != "header.payload.signature" {
		t.Errorf("plugin printed %s", out)
	}
}

// trusting is an HTTP client that trusts only caPEM.
func trusting(t *testing.T, caPEM []byte) *http.Client {
	t.Helper()
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		t.Fatalf("no certificate in CAPEM %q", caPEM)
	}
	return &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
}

func getJSON(t *testing.T, client *http.Client, url string, into any) {
	t.Helper()
	resp, err := client.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s", url, resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(into); err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
}

func parse(t *testing.T, token string) *jwt.JSONWebToken {
	t.Helper()
	parsed, err := jwt.ParseSigned(token, []jose.SignatureAlgorithm{jose.RS256})
	if err != nil {
		t.Fatal(err)
	}
	return parsed
}

// waitUnreachable polls url until a request fails: the server closes in its own goroutine.
func waitUnreachable(client *http.Client, url string) error {
	return wait.PollUntilContextTimeout(context.Background(), 50*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		client.CloseIdleConnections() // a kept-alive connection would outlive the listener
		resp, err := client.Get(url)
		if err != nil {
			return true, nil
		}
		resp.Body.Close()
		return false, nil
	})
}
