package fakegarden

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"os"
	"time"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// Issuer signs the client certificates of issued kubeconfigs with a client CA, as
// gardener-apiserver signs them with the Shoot's client CA. A kube-apiserver that trusts
// that CA (--client-ca-file) accepts the issued kubeconfigs.
type Issuer struct {
	ca  *x509.Certificate
	key any
}

// NewIssuer returns an Issuer for a CA certificate and key (PEM).
func NewIssuer(certPEM, keyPEM []byte) (*Issuer, error) {
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return nil, fmt.Errorf("cannot load the client CA: %w", err)
	}
	ca, err := x509.ParseCertificate(pair.Certificate[0])
	if err != nil {
		return nil, err
	}
	if !ca.IsCA {
		return nil, errors.New("the client CA certificate is not a CA")
	}
	return &Issuer{ca: ca, key: pair.PrivateKey}, nil
}

// NewIssuerFromFiles reads the CA certificate and key from files.
func NewIssuerFromFiles(certFile, keyFile string) (*Issuer, error) {
	c, err := os.ReadFile(certFile)
	if err != nil {
		return nil, err
	}
	k, err := os.ReadFile(keyFile)
	if err != nil {
		return nil, err
	}
	return NewIssuer(c, k)
}

// NewEphemeralIssuer returns an Issuer with a CA made up on the spot; kubeconfigs it issues are
// accepted nowhere, which is enough for tests that check only their delivery.
func NewEphemeralIssuer(now time.Time) (*Issuer, error) {
	certPEM, keyPEM, err := NewCA("fake-garden-auth client CA", now, 10*365*24*time.Hour)
	if err != nil {
		return nil, err
	}
	return NewIssuer(certPEM, keyPEM)
}

// NewCA makes a self-signed ECDSA P-256 CA and returns certificate and key as PEM.
func NewCA(commonName string, now time.Time, validity time.Duration) (certPEM, keyPEM []byte, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          serial(),
		Subject:               pkix.Name{CommonName: commonName},
		NotBefore:             now.Add(-time.Minute),
		NotAfter:              now.Add(validity),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, nil, err
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), nil
}

// Kubeconfig issues a kubeconfig with one cluster and context per address (named
// <authName>-<address name>, the first one current) and one user, a client certificate for
// u valid from now for validity. It returns the kubeconfig and the certificate's NotAfter,
// which is the expirationTimestamp gardener-apiserver reports.
func (i *Issuer) Kubeconfig(authName string, addrs []Address, caBundle []byte, u *User, now time.Time, validity time.Duration) ([]byte, time.Time, error) {
	certPEM, keyPEM, notAfter, err := i.ClientCertificate(u, now, validity)
	if err != nil {
		return nil, time.Time{}, err
	}
	cfg := clientcmdapi.NewConfig()
	cfg.AuthInfos[authName] = &clientcmdapi.AuthInfo{ClientCertificateData: certPEM, ClientKeyData: keyPEM}
	for n, a := range addrs {
		name := authName + "-" + a.Name
		cluster := &clientcmdapi.Cluster{Server: a.URL}
		// A wildcard certificate of the seed is publicly trusted: Gardener sets no CA for it.
		if a.Name != "wildcard-tls-seed-bound" {
			cluster.CertificateAuthorityData = caBundle
		}
		cfg.Clusters[name] = cluster
		cfg.Contexts[name] = &clientcmdapi.Context{Cluster: name, AuthInfo: authName}
		if n == 0 {
			cfg.CurrentContext = name
		}
	}
	kc, err := clientcmd.Write(*cfg)
	return kc, notAfter, err
}

// ClientCertificate signs a client certificate for u (CN the name, O the groups), valid from
// now for validity, and returns certificate and key as PEM and the end of its validity.
func (i *Issuer) ClientCertificate(u *User, now time.Time, validity time.Duration) (certPEM, keyPEM []byte, notAfter time.Time, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, time.Time{}, err
	}
	// Certificates carry whole seconds; truncating here makes NotAfter and the reported
	// expirationTimestamp the same instant.
	notAfter = now.Add(validity).Truncate(time.Second).UTC()
	tmpl := &x509.Certificate{
		SerialNumber: serial(),
		Subject:      pkix.Name{CommonName: u.Name, Organization: u.Groups},
		NotBefore:    now.Truncate(time.Second).UTC(),
		NotAfter:     notAfter,
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, i.ca, &key.PublicKey, i.key)
	if err != nil {
		return nil, nil, time.Time{}, err
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, nil, time.Time{}, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), notAfter, nil
}

func serial() *big.Int {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 126))
	if err != nil {
		panic(err) // crypto/rand does not fail on supported platforms
	}
	return n
}
