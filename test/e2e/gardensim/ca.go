package gardensim

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// CAConfigMapName is the ConfigMap in which Gardener publishes a Shoot's cluster CA, next to
// the Shoot (key ca.crt). gardener-apiserver puts it into the admin kubeconfigs it issues.
func CAConfigMapName(shoot string) string { return shoot + ".ca-cluster" }

// PublishCA creates the Shoot's <shoot>.ca-cluster ConfigMap with a freshly made CA, as
// Gardener does early in a Shoot's creation, unless it exists. Nothing trusts or uses the
// CA: no cluster runs behind the simulated Shoot.
func PublishCA(ctx context.Context, garden kubernetes.Interface, namespace, shoot string) error {
	cms := garden.CoreV1().ConfigMaps(namespace)
	if _, err := cms.Get(ctx, CAConfigMapName(shoot), metav1.GetOptions{}); err == nil {
		return nil
	} else if !apierrors.IsNotFound(err) {
		return err
	}
	ca, err := selfSignedCA("kubernetes (" + namespace + "/" + shoot + ", simulated)")
	if err != nil {
		return err
	}
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: CAConfigMapName(shoot), Namespace: namespace},
		Data:       map[string]string{"ca.crt": string(ca)},
	}
	if _, err := cms.Create(ctx, cm, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("publishing the cluster CA of Shoot %s/%s: %w", namespace, shoot, err)
	}
	return nil
}

func selfSignedCA(cn string) ([]byte, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(now.UnixNano()),
		Subject:               pkix.Name{CommonName: cn},
		NotBefore:             now.Add(-time.Minute),
		NotAfter:              now.Add(10 * 365 * 24 * time.Hour),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), nil
}
