package controlplane

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"embed"
	"encoding/base64"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// The garden runs the real gardener-apiserver, aggregated behind the garden's kube-apiserver
// as in a Gardener landscape: Shoots, CloudProfiles, Projects and the rest of Gardener's API
// are served by it, with Gardener's own defaulting, validation and admission plugins (the
// Shoot against its CloudProfile, its Project and CredentialsBinding, deletion confirmation)
// and the shoots/adminkubeconfig subresource. It stores its objects in the garden's etcd
// under its own prefix (/registry-gardener), as Gardener's envtest does. What does not run:
// gardenlet, the scheduler and the controller manager, so nothing reconciles a Shoot; tests
// write the status gardenlet would write (package gardensim).

// GardenerAPIServerProcess is gardener-apiserver's process name (logs/<name>.log).
const GardenerAPIServerProcess = "gardener-apiserver"

// gardenerAPIServices are the group versions gardener-apiserver serves and the garden's
// kube-apiserver aggregates (shoots/adminkubeconfig is a subresource of core).
var gardenerAPIServices = []schema.GroupVersion{
	{Group: "core.gardener.cloud", Version: "v1"},
	{Group: "core.gardener.cloud", Version: "v1beta1"},
	{Group: "seedmanagement.gardener.cloud", Version: "v1alpha1"},
	{Group: "operations.gardener.cloud", Version: "v1alpha1"},
	{Group: "security.gardener.cloud", Version: "v1alpha1"},
}

// gardenerServiceName is the Service the APIServices point at. The aggregator checks the
// serving certificate against its DNS name even though the Service is an ExternalName for
// localhost, so the certificate carries it.
const gardenerServiceName = "gardener-apiserver"

//go:embed landscape/*.yaml
var landscapeFS embed.FS

// landscape returns the objects of the local Gardener landscape (landscape/landscape.yaml):
// the OpenStack CloudProfile, the ControllerRegistrations and a Seed.
func landscape() ([]*unstructured.Unstructured, error) {
	data, err := landscapeFS.ReadFile("landscape/landscape.yaml")
	if err != nil {
		return nil, err
	}
	return decodeDocuments(data)
}

// startGarden starts the garden: etcd and a kube-apiserver set up for API aggregation (the
// front-proxy flags), then gardener-apiserver behind it.
func (e *Env) startGarden(ctx context.Context) (*Cluster, error) {
	pkiDir := filepath.Join(e.RunDir, "garden", "pki")
	if err := os.MkdirAll(pkiDir, 0o700); err != nil {
		return nil, err
	}
	// The aggregator authenticates to gardener-apiserver with the front-proxy client
	// certificate and passes the user on in request headers, which gardener-apiserver trusts
	// because of the front-proxy CA it reads from kube-system/extension-apiserver-authentication.
	frontProxyCA, err := newCA("garden-front-proxy-ca")
	if err != nil {
		return nil, err
	}
	frontProxyClient, err := frontProxyCA.issue(certSpec{cn: "front-proxy-client", client: true})
	if err != nil {
		return nil, err
	}
	files := map[string][]byte{
		"front-proxy-ca.crt":     frontProxyCA.certPEM,
		"front-proxy-client.crt": frontProxyClient.certPEM, "front-proxy-client.key": frontProxyClient.keyPEM,
	}
	for f, data := range files {
		if err := os.WriteFile(filepath.Join(pkiDir, f), data, 0o600); err != nil {
			return nil, err
		}
	}
	// No --enable-aggregator-routing: it cannot route to an ExternalName Service.
	c, err := e.startCluster(ctx, "garden", clusterOptions{extraArgs: []string{
		"--requestheader-client-ca-file=" + filepath.Join(pkiDir, "front-proxy-ca.crt"),
		"--requestheader-allowed-names=front-proxy-client",
		"--requestheader-username-headers=X-Remote-User",
		"--requestheader-group-headers=X-Remote-Group",
		"--requestheader-extra-headers-prefix=X-Remote-Extra-",
		"--proxy-client-cert-file=" + filepath.Join(pkiDir, "front-proxy-client.crt"),
		"--proxy-client-key-file=" + filepath.Join(pkiDir, "front-proxy-client.key"),
	}})
	if err != nil {
		return nil, err
	}
	if err := e.startGardenerAPIServer(ctx, c); err != nil {
		return nil, fmt.Errorf("gardener-apiserver: %w", err)
	}
	return c, nil
}

// startGardenerAPIServer runs gardener-apiserver for the garden cluster c, registers its
// APIServices and waits until the garden's discovery lists every Gardener group version.
func (e *Env) startGardenerAPIServer(ctx context.Context, c *Cluster) error {
	dir := filepath.Join(e.RunDir, "garden", GardenerAPIServerProcess)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	servingCA, err := newCA("gardener-apiserver-ca")
	if err != nil {
		return err
	}
	serving, err := servingCA.issue(certSpec{cn: GardenerAPIServerProcess, server: true,
		dnsNames: []string{gardenerServiceName + ".kube-system.svc"}})
	if err != nil {
		return err
	}
	// Its own identity towards the garden's kube-apiserver (delegated authentication and
	// authorisation, its informers); Gardener's deployment grants it everything, so does this.
	client, err := c.ca.issue(certSpec{cn: GardenerAPIServerProcess, client: true})
	if err != nil {
		return err
	}
	kubeconfig := filepath.Join(dir, "kubeconfig")
	if err := writeKubeconfig(kubeconfig, c.Name, c.URL, c.ca.certPEM, client); err != nil {
		return err
	}
	for f, data := range map[string][]byte{"tls.crt": serving.certPEM, "tls.key": serving.keyPEM} {
		if err := os.WriteFile(filepath.Join(dir, f), data, 0o600); err != nil {
			return err
		}
	}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: GardenerAPIServerProcess},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "cluster-admin"},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: GardenerAPIServerProcess}},
	}
	if _, err := c.Client.RbacV1().ClusterRoleBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}

	ports, err := freePorts(1)
	if err != nil {
		return err
	}
	port := ports[0]
	p, err := e.startProcess(GardenerAPIServerProcess, e.tools.gardenerAPIServer(), []string{
		"--bind-address=127.0.0.1", "--secure-port=" + strconv.Itoa(port),
		"--etcd-servers=http://127.0.0.1:" + strconv.Itoa(c.etcdPort),
		"--tls-cert-file=" + filepath.Join(dir, "tls.crt"),
		"--tls-private-key-file=" + filepath.Join(dir, "tls.key"),
		"--kubeconfig=" + kubeconfig,
		"--authentication-kubeconfig=" + kubeconfig,
		"--authorization-kubeconfig=" + kubeconfig,
		"--authorization-always-allow-paths=/healthz",
		// Required; a landscape names itself with it (Shoot status.clusterIdentity).
		"--cluster-identity=scs-kaas-local-garden",
		"--log-format=text",
		"--profiling=false",
	}, nil)
	if err != nil {
		return err
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(servingCA.certPEM)
	hc := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}}}
	healthz := "https://127.0.0.1:" + strconv.Itoa(port) + "/healthz"
	err = waitFor(ctx, 2*time.Minute, GardenerAPIServerProcess+" /healthz", p.exited, HTTPOK(hc, healthz))
	if err != nil {
		return err
	}

	objs := []*unstructured.Unstructured{{Object: map[string]any{
		"apiVersion": "v1", "kind": "Service",
		"metadata": map[string]any{"name": gardenerServiceName, "namespace": "kube-system"},
		"spec":     map[string]any{"type": "ExternalName", "externalName": "localhost"},
	}}}
	for _, gv := range gardenerAPIServices {
		objs = append(objs, &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService",
			"metadata": map[string]any{"name": gv.Version + "." + gv.Group},
			"spec": map[string]any{
				"group": gv.Group, "version": gv.Version,
				"service":              map[string]any{"name": gardenerServiceName, "namespace": "kube-system", "port": int64(port)},
				"caBundle":             base64.StdEncoding.EncodeToString(servingCA.certPEM),
				"groupPriorityMinimum": int64(10000), "versionPriority": int64(20),
			},
		}})
	}
	if err := c.ApplyObjects(ctx, objs...); err != nil {
		return err
	}
	// Discovery first, as Gardener's envtest does: a RESTMapper built earlier would not
	// know Shoots.
	err = waitFor(ctx, 2*time.Minute, "Gardener's API in the garden's discovery", p.exited, func(context.Context) (bool, error) {
		for _, gv := range gardenerAPIServices {
			list, err := c.Client.Discovery().ServerResourcesForGroupVersion(gv.String())
			if err != nil {
				return false, err
			}
			if len(list.APIResources) == 0 {
				return false, fmt.Errorf("%s lists no resources", gv)
			}
		}
		return true, nil
	})
	if err != nil {
		return err
	}
	c.Mapper.Reset()
	return nil
}
