package controlplane

import (
	"context"
	"crypto/x509"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// Cluster is one local API server (with its own etcd) and clients for it.
type Cluster struct {
	// Name is "crossplane" or "garden"; it prefixes process and file names.
	Name string
	// URL of the API server, https://127.0.0.1:PORT.
	URL string
	// Kubeconfig is the path of a self-contained admin kubeconfig
	// (system:masters, certificates embedded).
	Kubeconfig string
	// Config is the admin REST config; copy it before changing it.
	Config *rest.Config
	// Client and Dynamic are admin clients.
	Client  kubernetes.Interface
	Dynamic dynamic.Interface
	// Mapper resolves kinds to resources; Reset it after installing CRDs
	// (Apply does so by itself).
	Mapper meta.ResettableRESTMapper

	ca       *certAuthority
	etcdPort int
	apiPort  int
}

// clusterOptions are what some clusters need beyond the defaults.
type clusterOptions struct {
	// extraArgs are appended to kube-apiserver's flags (the garden's front-proxy flags, see
	// startGarden).
	extraArgs []string
	// clientCAs are further PEM CAs whose client certificates kube-apiserver accepts.
	clientCAs [][]byte
}

// startCluster brings up etcd and kube-apiserver for one cluster and waits
// until /readyz answers.
func (e *Env) startCluster(ctx context.Context, name string, o clusterOptions) (*Cluster, error) {
	dir := filepath.Join(e.RunDir, name)
	pkiDir := filepath.Join(dir, "pki")
	if err := os.MkdirAll(pkiDir, 0o700); err != nil {
		return nil, err
	}
	ports, err := freePorts(3)
	if err != nil {
		return nil, err
	}
	c := &Cluster{Name: name, etcdPort: ports[0], apiPort: ports[2]}
	c.URL = "https://127.0.0.1:" + strconv.Itoa(c.apiPort)

	// etcd. fsync off: this data is thrown away with the run directory, and
	// fsync dominates etcd latency on shared disks.
	etcdURL := "http://127.0.0.1:" + strconv.Itoa(ports[0])
	peerURL := "http://127.0.0.1:" + strconv.Itoa(ports[1])
	etcd, err := e.startProcess("etcd-"+name, e.tools.etcd(), []string{
		"--name=" + name,
		"--data-dir=" + filepath.Join(dir, "etcd"),
		"--listen-client-urls=" + etcdURL, "--advertise-client-urls=" + etcdURL,
		"--listen-peer-urls=" + peerURL, "--initial-advertise-peer-urls=" + peerURL,
		"--initial-cluster=" + name + "=" + peerURL,
		"--unsafe-no-fsync=true",
		"--log-level=warn",
	}, nil)
	if err != nil {
		return nil, err
	}
	if err := waitEtcd(ctx, c, etcd); err != nil {
		return nil, err
	}

	// PKI of this cluster: its own CA, so that a kubeconfig of one cluster
	// is useless against the other, as with real clusters.
	if c.ca, err = newCA(name + "-ca"); err != nil {
		return nil, err
	}
	serving, err := c.ca.issue(certSpec{cn: "kube-apiserver", server: true})
	if err != nil {
		return nil, err
	}
	admin, err := c.ca.issue(certSpec{cn: "admin", orgs: []string{"system:masters"}, client: true})
	if err != nil {
		return nil, err
	}
	clientCAs := c.ca.certPEM
	for _, ca := range o.clientCAs {
		clientCAs = append(append(slices.Clone(clientCAs), '\n'), ca...)
	}
	files := map[string][]byte{
		"ca.crt": c.ca.certPEM, "client-ca.crt": clientCAs, "apiserver.crt": serving.certPEM, "apiserver.key": serving.keyPEM,
	}
	for f, data := range files {
		if err := os.WriteFile(filepath.Join(pkiDir, f), data, 0o600); err != nil {
			return nil, err
		}
	}
	saPub, saPriv, err := serviceAccountKey(pkiDir)
	if err != nil {
		return nil, err
	}
	c.Kubeconfig = filepath.Join(dir, "kubeconfig")
	if err := writeKubeconfig(c.Kubeconfig, name, c.URL, c.ca.certPEM, admin); err != nil {
		return nil, err
	}

	api, err := e.startProcess("kube-apiserver-"+name, e.tools.kube("kube-apiserver"), append([]string{
		"--etcd-servers=" + etcdURL,
		"--advertise-address=127.0.0.1", "--bind-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(c.apiPort),
		"--cert-dir=" + filepath.Join(dir, "apiserver-certs"),
		"--tls-cert-file=" + filepath.Join(pkiDir, "apiserver.crt"),
		"--tls-private-key-file=" + filepath.Join(pkiDir, "apiserver.key"),
		"--client-ca-file=" + filepath.Join(pkiDir, "client-ca.crt"),
		"--service-account-issuer=" + c.URL + "/",
		"--service-account-key-file=" + saPub,
		"--service-account-signing-key-file=" + saPriv,
		"--service-cluster-ip-range=10.0.0.0/24",
		"--authorization-mode=RBAC",
		// No controller creates service account tokens here and no Pod runs.
		"--disable-admission-plugins=ServiceAccount",
		"--allow-privileged=true",
		// There is no Service network: do not maintain the kubernetes endpoints.
		"--endpoint-reconciler-type=none",
		"--profiling=false",
	}, o.extraArgs...), nil)
	if err != nil {
		return nil, err
	}

	if c.Config, err = clientcmd.BuildConfigFromFlags("", c.Kubeconfig); err != nil {
		return nil, err
	}
	// Installing CRDs and many objects at start-up: the default 5 QPS would
	// throttle us for seconds.
	c.Config.QPS, c.Config.Burst = 200, 400
	if c.Client, err = kubernetes.NewForConfig(c.Config); err != nil {
		return nil, err
	}
	if c.Dynamic, err = dynamic.NewForConfig(c.Config); err != nil {
		return nil, err
	}
	c.Mapper = restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(c.Client.Discovery()))

	if err := waitAPIServer(ctx, c, api); err != nil {
		return nil, err
	}
	return c, nil
}

// waitEtcd waits until cluster c's etcd, process p, answers /health.
func waitEtcd(ctx context.Context, c *Cluster, p *process) error {
	return waitFor(ctx, 60*time.Second, p.rec.Name+" healthy", p.exited, HTTPOK(nil, "http://127.0.0.1:"+strconv.Itoa(c.etcdPort)+"/health"))
}

// waitAPIServer waits until cluster c's API server, process p, answers /readyz.
func waitAPIServer(ctx context.Context, c *Cluster, p *process) error {
	return waitFor(ctx, 120*time.Second, p.rec.Name+" /readyz", p.exited, func(ctx context.Context) (bool, error) {
		_, err := c.Client.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx)
		return err == nil, err
	})
}

// writeKubeconfig writes a kubeconfig with everything embedded, so it can be
// copied into a Secret (provider-kubernetes) or used from any directory.
func writeKubeconfig(path, name, server string, caPEM []byte, kp *keyPair) error {
	return clientcmd.WriteToFile(*kubeconfigFor(name, server, caPEM, name+"-admin", kp), path)
}

// kubeconfigFor is a kubeconfig with one context, name, for user at server.
func kubeconfigFor(name, server string, caPEM []byte, user string, kp *keyPair) *clientcmdapi.Config {
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters[name] = &clientcmdapi.Cluster{Server: server, CertificateAuthorityData: caPEM}
	cfg.AuthInfos[user] = &clientcmdapi.AuthInfo{ClientCertificateData: kp.certPEM, ClientKeyData: kp.keyPEM}
	cfg.Contexts[name] = &clientcmdapi.Context{Cluster: name, AuthInfo: user}
	cfg.CurrentContext = name
	return cfg
}

// startControllerManager runs the controllers Crossplane relies on: the
// garbage collector (composed resources are deleted through owner references)
// and the namespace controller. It discovers new CRDs only on a 30 s resync,
// so it is started after the CRDs exist.
func (e *Env) startControllerManager(ctx context.Context, c *Cluster) error {
	p, err := e.startProcess("kube-controller-manager-"+c.Name, e.tools.kube("kube-controller-manager"), []string{
		"--kubeconfig=" + c.Kubeconfig,
		"--controllers=garbagecollector,namespace,serviceaccount",
		"--leader-elect=false",
		"--secure-port=0",
		"--profiling=false",
	}, nil)
	if err != nil {
		return err
	}
	// There is no health endpoint without a secure port; its Lease-free,
	// leader-election-free start is visible as the default ServiceAccount
	// that the serviceaccount controller creates.
	return waitFor(ctx, 60*time.Second, "kube-controller-manager-"+c.Name+" running", p.exited, func(ctx context.Context) (bool, error) {
		_, err := c.Client.CoreV1().ServiceAccounts("default").Get(ctx, "default", getOpts)
		return err == nil, err
	})
}

// String is for logs.
func (c *Cluster) String() string { return fmt.Sprintf("%s (%s)", c.Name, c.URL) }

// CA returns the certificate authority of the cluster's API server (PEM certificate and
// PKCS #8 key): it signs the serving certificate and the client certificates the API server
// accepts. A test hands it to a controller that must issue credentials for this cluster,
// such as Cluster API's KubeadmControlPlane for a cluster this one stands in for.
func (c *Cluster) CA() (certPEM, keyPEM []byte, err error) {
	der, err := x509.MarshalPKCS8PrivateKey(c.ca.key)
	if err != nil {
		return nil, nil, err
	}
	return c.ca.certPEM, pemBlock("PRIVATE KEY", der), nil
}

// UserKubeconfig returns a self-contained kubeconfig for user (in groups) with a client
// certificate from the cluster's CA: an identity whose rights RBAC decides, for a component
// that should hold no more than it needs (admin is Kubeconfig).
func (c *Cluster) UserKubeconfig(user string, groups ...string) ([]byte, error) {
	kp, err := c.ca.issue(certSpec{cn: user, orgs: groups, client: true})
	if err != nil {
		return nil, err
	}
	return clientcmd.Write(*kubeconfigFor(c.Name, c.URL, c.ca.certPEM, user, kp))
}
