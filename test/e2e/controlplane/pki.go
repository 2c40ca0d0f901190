package controlplane

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// The PKI is made with crypto/x509 alone: no openssl or cfssl on the machine
// is needed. ECDSA P-256 keys are fast to make and accepted by kube-apiserver
// (serving, client and service-account keys), gRPC and controller-runtime.

// certAuthority signs the certificates of one trust domain.
type certAuthority struct {
	cert    *x509.Certificate
	key     crypto.Signer
	certPEM []byte
}

// keyPair is a signed certificate with its key, PEM encoded.
type keyPair struct {
	certPEM []byte
	keyPEM  []byte
}

var loopbackIPs = []net.IP{net.ParseIP("127.0.0.1"), net.ParseIP("::1")}

// Loopback names for serving certificates; Crossplane dials functions by
// dns:///localhost:PORT and the API servers are reached as 127.0.0.1.
var loopbackNames = []string{"localhost"}

func newKey() (*ecdsa.PrivateKey, error) { return ecdsa.GenerateKey(elliptic.P256(), rand.Reader) }

func serial() (*big.Int, error) { return rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127)) }

func newCA(cn string) (*certAuthority, error) {
	key, err := newKey()
	if err != nil {
		return nil, err
	}
	sn, err := serial()
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          sn,
		Subject:               pkix.Name{CommonName: cn},
		NotBefore:             time.Now().Add(-time.Hour), // tolerate small clock differences
		NotAfter:              time.Now().Add(10 * 365 * 24 * time.Hour),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature | x509.KeyUsageCRLSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		return nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	return &certAuthority{cert: cert, key: key, certPEM: pemBlock("CERTIFICATE", der)}, nil
}

// certSpec says what a leaf certificate is for.
type certSpec struct {
	cn     string
	orgs   []string
	server bool // adds the loopback SANs and server auth
	client bool
	// dnsNames are further SANs of a server certificate, such as the Service name an
	// aggregated API server is reached by.
	dnsNames []string
}

func (ca *certAuthority) issue(s certSpec) (*keyPair, error) {
	key, err := newKey()
	if err != nil {
		return nil, err
	}
	sn, err := serial()
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: sn,
		Subject:      pkix.Name{CommonName: s.cn, Organization: s.orgs},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(10 * 365 * 24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
	}
	if s.server {
		tmpl.ExtKeyUsage = append(tmpl.ExtKeyUsage, x509.ExtKeyUsageServerAuth)
		tmpl.IPAddresses = loopbackIPs
		tmpl.DNSNames = append(append([]string{}, loopbackNames...), s.dnsNames...)
	}
	if s.client {
		tmpl.ExtKeyUsage = append(tmpl.ExtKeyUsage, x509.ExtKeyUsageClientAuth)
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, key.Public(), ca.key)
	if err != nil {
		return nil, err
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, err
	}
	return &keyPair{certPEM: pemBlock("CERTIFICATE", der), keyPEM: pemBlock("PRIVATE KEY", keyDER)}, nil
}

func pemBlock(typ string, der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der})
}

// writeTLSDir writes the layout that gRPC functions, Crossplane and
// controller-runtime webhooks all read: ca.crt, tls.crt, tls.key.
func writeTLSDir(dir string, ca *certAuthority, kp *keyPair) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	for name, data := range map[string][]byte{"ca.crt": ca.certPEM, "tls.crt": kp.certPEM, "tls.key": kp.keyPEM} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			return err
		}
	}
	return nil
}

// serviceAccountKey writes a key pair for signing and verifying service
// account tokens (kube-apiserver insists on both flags).
func serviceAccountKey(dir string) (pub, priv string, err error) {
	key, err := newKey()
	if err != nil {
		return "", "", err
	}
	privDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return "", "", err
	}
	pubDER, err := x509.MarshalPKIXPublicKey(key.Public())
	if err != nil {
		return "", "", err
	}
	priv, pub = filepath.Join(dir, "sa.key"), filepath.Join(dir, "sa.pub")
	if err := os.WriteFile(priv, pemBlock("PRIVATE KEY", privDER), 0o600); err != nil {
		return "", "", err
	}
	if err := os.WriteFile(pub, pemBlock("PUBLIC KEY", pubDER), 0o644); err != nil {
		return "", "", fmt.Errorf("writing %s: %w", pub, err)
	}
	return pub, priv, nil
}
