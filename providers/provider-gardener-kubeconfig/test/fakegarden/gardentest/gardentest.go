// Package gardentest runs the fake adminkubeconfig subresource on an httptest TLS server for
// tests of the provider: a garden with Shoots, users and a switch that makes it unreachable.
package gardentest

import (
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/utils/clock"

	"github.com/SovereignCloudStack/scs-kaas/providers/provider-gardener-kubeconfig/test/fakegarden"
)

// Users of the test garden, by bearer token.
const (
	// AdminToken belongs to a user who may create shoots/adminkubeconfig.
	AdminToken = "garden-token-of-the-provider"
	// ViewerToken belongs to a user who may not.
	ViewerToken = "garden-token-of-a-viewer"
)

// ShootCA is a stand-in cluster CA, recognisable in connection details.
var ShootCA = []byte("-----BEGIN CERTIFICATE-----\nc2hvb3QtY2E=\n-----END CERTIFICATE-----\n")

// Garden is a running test garden.
type Garden struct {
	Server *httptest.Server
	Shoots *fakegarden.ShootMap

	down  atomic.Bool
	mu    sync.Mutex
	calls []Call
}

// Call is one request the garden answered.
type Call struct {
	Namespace, Name string
	Status          int
}

// New starts a garden with one Shoot, garden-team1/dev, whose kubeconfigs point at
// https://api.dev.team1.example.com. c stamps the issued certificates: pass the clock the
// test controls, so expirationTimestamp is exact.
func New(t testing.TB, c clock.PassiveClock) *Garden {
	t.Helper()
	issuer, err := fakegarden.NewEphemeralIssuer(c.Now())
	if err != nil {
		t.Fatal(err)
	}
	g := &Garden{Shoots: &fakegarden.ShootMap{}}
	g.Shoots.Put("garden-team1", "dev", &fakegarden.Shoot{
		AdvertisedAddresses: []fakegarden.Address{{Name: "external", URL: "https://api.dev.team1.example.com"}},
		CABundle:            ShootCA,
	})
	h := fakegarden.NewHandler(
		fakegarden.Tokens{AdminToken: {Name: "system:serviceaccount:garden-team1:crossplane"}, ViewerToken: {Name: "viewer"}},
		fakegarden.AllowUsers{"system:serviceaccount:garden-team1:crossplane"},
		g.Shoots, issuer, fakegarden.Options{
			Clock: c,
			Observe: func(ns, name string, status int) {
				g.mu.Lock()
				defer g.mu.Unlock()
				g.calls = append(g.calls, Call{Namespace: ns, Name: name, Status: status})
			},
		})
	g.Server = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if g.down.Load() {
			// Drop the connection without an answer, as a garden behind a dead load balancer.
			if hj, ok := w.(http.Hijacker); ok {
				if conn, _, err := hj.Hijack(); err == nil {
					_ = conn.Close()
					return
				}
			}
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(g.Server.Close)
	return g
}

// SetReachable switches the garden on and off without changing its address.
func (g *Garden) SetReachable(up bool) { g.down.Store(!up) }

// Calls returns the requests answered so far.
func (g *Garden) Calls() []Call {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]Call(nil), g.calls...)
}

// Kubeconfig returns a garden kubeconfig for the given bearer token, as a ProviderConfig's
// Secret holds it.
func (g *Garden) Kubeconfig(t testing.TB, token string) []byte {
	t.Helper()
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: g.Server.Certificate().Raw})
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["garden"] = &clientcmdapi.Cluster{Server: g.Server.URL, CertificateAuthorityData: ca}
	cfg.AuthInfos["provider"] = &clientcmdapi.AuthInfo{Token: token}
	cfg.Contexts["garden"] = &clientcmdapi.Context{Cluster: "garden", AuthInfo: "provider"}
	cfg.CurrentContext = "garden"
	b, err := clientcmd.Write(*cfg)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
