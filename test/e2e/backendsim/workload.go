package backendsim

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/SovereignCloudStack/scs-kaas/test/e2e/controlplane"
	"github.com/SovereignCloudStack/scs-kaas/test/e2e/gardensim"
)

// Workload is a real kube-apiserver (with its etcd) that stands in for every cluster a
// backend builds: the kubeconfigs the simulated backends deliver reach it, so a client's
// version and node checks talk to a real API server. It runs no kubelet: its Nodes are
// objects labelled the way kubelets in Zones label themselves.
type Workload struct {
	Name string `json:"name"`
	// URL of the API server, https://127.0.0.1:PORT.
	URL string `json:"url"`
	// CACert and CAKey are the PEM CA of the API server: it signs the serving certificate
	// and client certificates the API server accepts. Cluster API's KubeadmControlPlane
	// adopts it to sign the cluster's kubeconfig.
	CACert []byte `json:"caCert"`
	CAKey  []byte `json:"caKey"`
	// ClientCACert and ClientCAKey are a further client CA the API server trusts, RSA in
	// PKCS #1 form, which gardener-apiserver signs a Shoot's admin kubeconfigs with.
	ClientCACert []byte `json:"clientCACert"`
	ClientCAKey  []byte `json:"clientCAKey"`
	// AdminKubeconfig is a cluster admin's kubeconfig (group system:masters), as Magnum
	// hands it out for a cluster.
	AdminKubeconfig []byte `json:"adminKubeconfig"`
	// Zones are the zones of the workload's Nodes.
	Zones []string `json:"zones"`

	// cluster is the API server, in the process that started it: only there can the
	// simulator change whom it signs in (signin.go).
	cluster *controlplane.Cluster
}

// StartWorkload starts a workload API server in env, with one Node per zone.
func StartWorkload(ctx context.Context, env *controlplane.Env, name string, zones ...string) (*Workload, error) {
	clientCA, clientKey, err := gardensim.NewClientCA(name + "-client-ca")
	if err != nil {
		return nil, err
	}
	c, err := env.StartClusterWithAuthentication(ctx, name, clientCA)
	if err != nil {
		return nil, fmt.Errorf("starting the API server that stands in for workload clusters: %w", err)
	}
	for _, zone := range zones {
		node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "worker-" + zone, Labels: map[string]string{
			"kubernetes.io/hostname":           "worker-" + zone,
			"kubernetes.io/os":                 "linux",
			"topology.kubernetes.io/region":    "RegionOne",
			"topology.kubernetes.io/zone":      zone,
			"node.kubernetes.io/instance-type": "SCS-2V-4",
		}}}
		if _, err := c.Client.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{}); err != nil {
			return nil, err
		}
	}
	// Gardener makes the holders of admin kubeconfigs cluster admins in every Shoot; the
	// group depends on the requester's rights in the garden.
	admins := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "gardener.cloud:admins"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "cluster-admin"},
		Subjects: []rbacv1.Subject{
			{APIGroup: rbacv1.GroupName, Kind: rbacv1.GroupKind, Name: "gardener.cloud:system:admins"},
			{APIGroup: rbacv1.GroupName, Kind: rbacv1.GroupKind, Name: "gardener.cloud:project:admins"},
		},
	}
	if _, err := c.Client.RbacV1().ClusterRoleBindings().Create(ctx, admins, metav1.CreateOptions{}); err != nil {
		return nil, err
	}
	caCert, caKey, err := c.CA()
	if err != nil {
		return nil, err
	}
	admin, err := c.UserKubeconfig("kubernetes-admin", "system:masters")
	if err != nil {
		return nil, err
	}
	return &Workload{Name: name, URL: c.URL, CACert: caCert, CAKey: caKey, ClientCACert: clientCA, ClientCAKey: clientKey,
		AdminKubeconfig: admin, Zones: zones, cluster: c}, nil
}

// Gardener is the workload as the cluster behind a Shoot (gardensim.WithCluster).
func (w *Workload) Gardener() gardensim.Cluster {
	return gardensim.Cluster{APIServerURL: w.URL, CACert: w.CACert, ClientCACert: w.ClientCACert, ClientCAKey: w.ClientCAKey}
}

// endpoint is the workload's host and port, for a Cluster API control plane endpoint.
func (w *Workload) endpoint() (string, int64, error) {
	u, err := url.Parse(w.URL)
	if err != nil {
		return "", 0, err
	}
	port, err := strconv.ParseInt(u.Port(), 10, 64)
	if err != nil {
		return "", 0, fmt.Errorf("workload %s: URL %s has no port", w.Name, w.URL)
	}
	return u.Hostname(), port, nil
}

// Workloads are the workload API servers of each backend, by backend name.
type Workloads map[string]*Workload

// Save writes the workloads to path (readable by the owner only: it holds CA keys), for a
// simulator in another process.
func (w Workloads) Save(path string) error {
	data, err := json.MarshalIndent(w, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o600)
}

// LoadWorkloads reads what Save wrote.
func LoadWorkloads(path string) (Workloads, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var w Workloads
	return w, json.Unmarshal(data, &w)
}
