package apiserver

import (
	"os"
	"path/filepath"
	"time"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/SovereignCloudStack/scs-kaas/providers/provider-gardener-kubeconfig/test/fakegarden"
)

// clientCA is an envtest authenticator with a client CA whose key the test holds: envtest's
// own keeps its key to itself, and fake-garden-auth must sign the issued kubeconfigs with the
// CA the API server trusts for them to work.
type clientCA struct {
	certPEM, keyPEM []byte
	issuer          *fakegarden.Issuer
	certFile        string
	keyFile         string
}

var _ envtest.Authn = &clientCA{}

func newClientCA() (*clientCA, error) {
	certPEM, keyPEM, err := fakegarden.NewCA("test client CA", time.Now(), 24*time.Hour)
	if err != nil {
		return nil, err
	}
	issuer, err := fakegarden.NewIssuer(certPEM, keyPEM)
	if err != nil {
		return nil, err
	}
	return &clientCA{certPEM: certPEM, keyPEM: keyPEM, issuer: issuer}, nil
}

func (c *clientCA) Configure(workDir string, args *envtest.Arguments) error {
	c.certFile, c.keyFile = filepath.Join(workDir, "client-ca.crt"), filepath.Join(workDir, "client-ca.key")
	if err := os.WriteFile(c.certFile, c.certPEM, 0o600); err != nil {
		return err
	}
	if err := os.WriteFile(c.keyFile, c.keyPEM, 0o600); err != nil {
		return err
	}
	args.Set("client-ca-file", c.certFile)
	return nil
}

func (c *clientCA) Start() error { return nil }
func (c *clientCA) Stop() error  { return nil }

func (c *clientCA) AddUser(u envtest.User, base *rest.Config) (*rest.Config, error) {
	certPEM, keyPEM, _, err := c.issuer.ClientCertificate(&fakegarden.User{Name: u.Name, Groups: u.Groups}, time.Now(), 24*time.Hour)
	if err != nil {
		return nil, err
	}
	cfg := rest.CopyConfig(base)
	cfg.CertData, cfg.KeyData = certPEM, keyPEM
	return cfg, nil
}
