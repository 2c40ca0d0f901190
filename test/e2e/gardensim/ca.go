package gardensim

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
)

// InternalSecretGVR is Gardener's InternalSecret: a Secret that only Gardener's own
// components (and garden admins) read. The client CA of a Shoot lives in one.
var InternalSecretGVR = schema.GroupVersionResource{Group: "core.gardener.cloud", Version: "v1beta1", Resource: "internalsecrets"}

// CAConfigMapName is the ConfigMap in which Gardener publishes a Shoot's cluster CA, next to
// the Shoot (key ca.crt). gardener-apiserver puts it into the admin kubeconfigs it issues.
func CAConfigMapName(shoot string) string { return shoot + ".ca-cluster" }

// ClientCASecretName is the InternalSecret with the CA (ca.crt, ca.key) that signs the client
// certificates of the admin kubeconfigs gardener-apiserver issues for a Shoot.
func ClientCASecretName(shoot string) string { return shoot + ".ca-client" }

// Cluster is what gardenlet knows of the cluster behind a Shoot and publishes: the API
// server's address, the CA of its serving certificate, and the CA its API server trusts for
// client certificates. A test that runs an API server standing in for the Shoot's cluster
// passes its Cluster to Write, so that the admin kubeconfigs gardener-apiserver issues reach
// and authenticate to it. The zero Cluster means a cluster that exists nowhere: a made-up
// address and fresh CAs that nothing trusts.
type Cluster struct {
	// APIServerURL is advertised as the Shoot's external address (https).
	APIServerURL string
	// CACert is the PEM CA certificate of the API server's serving certificate.
	CACert []byte
	// ClientCACert and ClientCAKey are the PEM client CA; the key must be RSA in PKCS #1
	// form ("RSA PRIVATE KEY"), the only form gardener-apiserver reads.
	ClientCACert, ClientCAKey []byte
}

// PublishCAs creates what gardenlet creates early in a Shoot's life for its admin
// kubeconfigs: the ConfigMap <shoot>.ca-cluster with the cluster CA and the InternalSecret
// <shoot>.ca-client with the client CA. Existing ones are kept (gardenlet rotates them only
// on request). CAs missing from c are made up.
func PublishCAs(ctx context.Context, kube kubernetes.Interface, dyn dynamic.Interface, namespace, shoot string, c Cluster) error {
	cms := kube.CoreV1().ConfigMaps(namespace)
	if _, err := cms.Get(ctx, CAConfigMapName(shoot), metav1.GetOptions{}); apierrors.IsNotFound(err) {
		caCert := c.CACert
		if caCert == nil {
			if caCert, _, err = newCA("kubernetes ("+namespace+"/"+shoot+", simulated)", false); err != nil {
				return err
			}
		}
		cm := &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: CAConfigMapName(shoot), Namespace: namespace},
			Data:       map[string]string{"ca.crt": string(caCert)},
		}
		if _, err := cms.Create(ctx, cm, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("publishing the cluster CA of Shoot %s/%s: %w", namespace, shoot, err)
		}
	} else if err != nil {
		return err
	}

	secrets := dyn.Resource(InternalSecretGVR).Namespace(namespace)
	if _, err := secrets.Get(ctx, ClientCASecretName(shoot), metav1.GetOptions{}); apierrors.IsNotFound(err) {
		cert, key := c.ClientCACert, c.ClientCAKey
		if cert == nil {
			if cert, key, err = newCA("kubernetes-client ("+namespace+"/"+shoot+", simulated)", true); err != nil {
				return err
			}
		}
		s := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "core.gardener.cloud/v1beta1", "kind": "InternalSecret",
			"metadata":   map[string]any{"name": ClientCASecretName(shoot), "namespace": namespace},
			"type":       "Opaque",
			"stringData": map[string]any{"ca.crt": string(cert), "ca.key": string(key)},
		}}
		if _, err := secrets.Create(ctx, s, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("publishing the client CA of Shoot %s/%s: %w", namespace, shoot, err)
		}
	} else if err != nil {
		return err
	}
	return nil
}

// DeleteCAs removes what PublishCAs created; gardenlet does so when it has deleted the
// Shoot's cluster. Missing objects are fine.
func DeleteCAs(ctx context.Context, kube kubernetes.Interface, dyn dynamic.Interface, namespace, shoot string) error {
	if err := kube.CoreV1().ConfigMaps(namespace).Delete(ctx, CAConfigMapName(shoot), metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	if err := dyn.Resource(InternalSecretGVR).Namespace(namespace).Delete(ctx, ClientCASecretName(shoot), metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	return nil
}

// NewClientCA makes a client CA in the form gardener-apiserver needs (RSA, PKCS #1), for a
// Cluster whose API server is told to trust it.
func NewClientCA(cn string) (certPEM, keyPEM []byte, err error) { return newCA(cn, true) }

// newCA makes a self-signed CA: RSA 2048 in PKCS #1 when rsaKey (what gardener-apiserver can
// sign client certificates with), else ECDSA P-256, which is faster to make.
func newCA(cn string, rsaKey bool) (certPEM, keyPEM []byte, err error) {
	var pub, priv any
	if rsaKey {
		k, err := rsa.GenerateKey(rand.Reader, 2048)
		if err != nil {
			return nil, nil, err
		}
		pub, priv = &k.PublicKey, k
		keyPEM = pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(k)})
	} else {
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			return nil, nil, err
		}
		der, err := x509.MarshalECPrivateKey(k)
		if err != nil {
			return nil, nil, err
		}
		pub, priv = &k.PublicKey, k
		keyPEM = pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der})
	}
	now := time.Now()
	sn, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return nil, nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          sn,
		Subject:               pkix.Name{CommonName: cn},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(10 * 365 * 24 * time.Hour),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, pub, priv)
	if err != nil {
		return nil, nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), keyPEM, nil
}
