// Package oidcissuer is a small OpenID Connect issuer for tests: the discovery document and
// the signing keys over TLS on 127.0.0.1, and ID tokens minted on demand. It stands in for
// the identity provider (Keycloak, Dex, ...) whose users sign in to workload clusters, so
// that a real kube-apiserver's JWT authenticator can be pointed at it. It has no login
// flow: a test asks it for a token directly, and ExecCredentialPlugin hands that token to
// client-go the way kubelogin's `kubectl oidc-login get-token` does.
package oidcissuer

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"errors"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// Paths the issuer serves. The discovery path is fixed by OpenID Connect Discovery; the key
// set's is the issuer's choice and is found through jwks_uri.
const (
	DiscoveryPath = "/.well-known/openid-configuration"
	JWKSPath      = "/keys"
)

// Issuer is a running OIDC issuer.
type Issuer struct {
	// URL is the issuer identifier, https://127.0.0.1:PORT without a trailing slash: the
	// tokens' iss and what a JWT authenticator's issuer.url must equal.
	URL string
	// CAPEM is the PEM certificate of the CA that signed the issuer's serving certificate:
	// what a client (and issuer.certificateAuthority) must trust to fetch its keys.
	CAPEM []byte

	signer jose.Signer
	keys   jose.JSONWebKeySet // public half of the signing key, as served

	server    *http.Server
	closeOnce sync.Once
	closeErr  error
}

// Claims are what a token says about its holder.
type Claims struct {
	Subject string
	// Email goes into the email claim, with email_verified true (kube-apiserver refuses an
	// email username whose email_verified is false).
	Email    string
	Groups   []string
	Audience string
	// Expiry is the token's exp; zero means one hour from now.
	Expiry time.Time
	// NoGroups leaves the groups claim out, rather than sending an empty list: a token of a
	// user that the identity provider puts in no group.
	NoGroups bool
}

// Start runs an issuer on a free loopback port until ctx is done or Close is called. Its CA,
// serving certificate and RS256 signing key are generated in memory, new for every issuer,
// so that one issuer's tokens never verify against another's keys.
func Start(ctx context.Context) (*Issuer, error) {
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	iss := &Issuer{URL: "https://" + listener.Addr().String()}
	serving, err := iss.newServingCertificate()
	if err != nil {
		listener.Close()
		return nil, err
	}
	if err := iss.newSigningKey(); err != nil {
		listener.Close()
		return nil, err
	}

	mux := http.NewServeMux()
	mux.HandleFunc("GET "+DiscoveryPath, func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, map[string]any{
			"issuer":   iss.URL,
			"jwks_uri": iss.URL + JWKSPath,
			// Only what a relying party that verifies ID tokens reads; there is no
			// authorization endpoint because there is no login flow.
			"id_token_signing_alg_values_supported": []string{string(jose.RS256)},
			"response_types_supported":              []string{"id_token"},
			"subject_types_supported":               []string{"public"},
		})
	})
	mux.HandleFunc("GET "+JWKSPath, func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, iss.keys)
	})
	iss.server = &http.Server{
		Handler:           mux,
		TLSConfig:         &tls.Config{Certificates: []tls.Certificate{serving}, MinVersion: tls.VersionTLS12},
		ReadHeaderTimeout: 10 * time.Second,
	}
	go func() { _ = iss.server.ServeTLS(listener, "", "") }()
	go func() {
		<-ctx.Done()
		_ = iss.Close()
	}()
	return iss, nil
}

// Close stops serving; tokens already minted stay valid for anyone who fetched the keys.
func (iss *Issuer) Close() error {
	iss.closeOnce.Do(func() { iss.closeErr = iss.server.Close() })
	return iss.closeErr
}

// Token mints a signed ID token for c.
func (iss *Issuer) Token(c Claims) (string, error) {
	now := time.Now()
	expiry := c.Expiry
	if expiry.IsZero() {
		expiry = now.Add(time.Hour)
	}
	// A minute of leeway backwards: the API server may check iat and nbf against a clock
	// that is a moment behind this one.
	issued := now.Add(-time.Minute)
	registered := jwt.Claims{
		Issuer:    iss.URL,
		Subject:   c.Subject,
		Expiry:    jwt.NewNumericDate(expiry),
		IssuedAt:  jwt.NewNumericDate(issued),
		NotBefore: jwt.NewNumericDate(issued),
	}
	if c.Audience != "" {
		registered.Audience = jwt.Audience{c.Audience}
	}
	private := map[string]any{}
	if c.Email != "" {
		private["email"] = c.Email
		private["email_verified"] = true
	}
	if !c.NoGroups {
		groups := c.Groups
		if groups == nil {
			groups = []string{} // a present but empty claim, unlike NoGroups
		}
		private["groups"] = groups
	}
	return jwt.Signed(iss.signer).Claims(registered).Claims(private).Serialize()
}

// ExecCredentialPlugin writes an executable script into dir that prints an ExecCredential
// (client.authentication.k8s.io/v1) carrying token, and returns its path. A kubeconfig's
// user.exec runs it through client-go's exec protocol: the place where people have
// `kubectl oidc-login get-token`, which prints the same for the token it obtained.
func ExecCredentialPlugin(dir, token string) (string, error) {
	credential, err := json.Marshal(map[string]any{
		"apiVersion": "client.authentication.k8s.io/v1",
		"kind":       "ExecCredential",
		"status":     map[string]any{"token": token},
	})
	if err != nil {
		return "", err
	}
	f, err := os.CreateTemp(dir, "oidc-get-token-*.sh")
	if err != nil {
		return "", err
	}
	// A quoted here-document: the shell expands nothing in it, whatever the token holds.
	script := "#!/bin/sh\ncat <<'EXECCREDENTIAL'\n" + string(credential) + "\nEXECCREDENTIAL\n"
	_, err = f.WriteString(script)
	err = errors.Join(err, f.Chmod(0o755), f.Close())
	if err != nil {
		os.Remove(f.Name())
		return "", err
	}
	return filepath.Abs(f.Name())
}

// newSigningKey makes the RS256 key tokens are signed with and the key set that publishes
// its public half. The key ID lets a verifier pick the key; it is random rather than a
// thumbprint because nothing needs to derive it.
func (iss *Issuer) newSigningKey() error {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return err
	}
	jwk := jose.JSONWebKey{Key: key, KeyID: rand.Text(), Algorithm: string(jose.RS256), Use: "sig"}
	iss.signer, err = jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: jwk}, (&jose.SignerOptions{}).WithType("JWT"))
	if err != nil {
		return err
	}
	iss.keys = jose.JSONWebKeySet{Keys: []jose.JSONWebKey{jwk.Public()}}
	return nil
}

// newServingCertificate makes a CA (kept as CAPEM; its key is dropped, nothing else is ever
// signed with it) and a certificate for 127.0.0.1 signed by it.
func (iss *Issuer) newServingCertificate() (tls.Certificate, error) {
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, err
	}
	now := time.Now()
	caTemplate := &x509.Certificate{
		// No SerialNumber: CreateCertificate picks a random one.
		Subject:               pkix.Name{CommonName: "oidc-issuer-ca"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageCertSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTemplate, caTemplate, &caKey.PublicKey, caKey)
	if err != nil {
		return tls.Certificate{}, err
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		return tls.Certificate{}, err
	}
	iss.CAPEM = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER})

	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, err
	}
	template := &x509.Certificate{
		Subject:     pkix.Name{CommonName: "oidc-issuer"},
		NotBefore:   now.Add(-time.Hour),
		NotAfter:    now.Add(24 * time.Hour),
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		DNSNames:    []string{"localhost"},
	}
	der, err := x509.CreateCertificate(rand.Reader, template, ca, &key.PublicKey, caKey)
	if err != nil {
		return tls.Certificate{}, err
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, nil
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}
