package backendsim

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
)

var (
	clusterGVR          = schema.GroupVersionResource{Group: "cluster.x-k8s.io", Version: "v1beta2", Resource: "clusters"}
	openStackClusterGVR = schema.GroupVersionResource{Group: "infrastructure.cluster.x-k8s.io", Version: "v1beta1", Resource: "openstackclusters"}
	controlPlaneGVR     = schema.GroupVersionResource{Group: "controlplane.cluster.x-k8s.io", Version: "v1beta2", Resource: "kubeadmcontrolplanes"}
	machineGVR          = schema.GroupVersionResource{Group: "cluster.x-k8s.io", Version: "v1beta2", Resource: "machines"}
)

// The field managers of what the simulator writes in place of a controller.
const (
	managerCAPI      = "cluster-api-simulated-by-backendsim"
	managerCAPO      = "cluster-api-provider-openstack-simulated-by-backendsim"
	managerOpenStack = "provider-openstack-simulated-by-backendsim"
)

// annotationPaused marks a Cluster the simulator paused, so that it unpauses it for
// Cluster API's deletion, and only it.
const annotationPaused = "backendsim.scs-kaas.local/paused"

// clusterAPI plays the OpenStack provider and the machines of Cluster namespace/name:
//
//  1. Before Cluster API makes the cluster's certificates, the cluster CA Secret
//     (<cluster>-ca) gets the workload's CA, so that the kubeconfig the
//     KubeadmControlPlane signs reaches the workload.
//  2. The OpenStackCluster gets the workload's address as control plane endpoint and the
//     status of a ready infrastructure; Cluster API then writes the kubeconfig Secret and
//     the KubeadmControlPlane its first Machine and version, for real.
//  3. No machine boots here: the Cluster is paused, so that Cluster API keeps what the
//     simulator writes, and gets the status Cluster API reports for an available cluster,
//     again for every new generation (a scaled or upgraded topology); with NodesJoin, its
//     Machines get the Nodes a kubelet would register.
//
// A Cluster that is not paused, whether new or restored (clusterctl move --from-directory
// recreates it without status, unpaused), takes the same steps from the start; a held one
// (Hold) is not paused, only its Nodes join.
func (s *Simulator) clusterAPI(ctx context.Context, namespace, name string) error {
	w := s.Workloads[BackendClusterStack]
	if w == nil {
		return nil
	}
	clusters := s.Crossplane.Dynamic.Resource(clusterGVR).Namespace(namespace)
	c, err := clusters.Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil || c.GetDeletionTimestamp() != nil {
		return err
	}
	jwt, err := s.clusterAPISignIn(c)
	if err != nil {
		return err
	}
	s.recordSignIn(w, "cluster/"+namespace+"/"+name, jwt)
	held := s.held(namespace, name)
	paused, _, _ := unstructured.NestedBool(c.Object, "spec", "paused")
	if held || (paused && c.GetAnnotations()[annotationPaused] != "") {
		if s.NodesJoin {
			if err := s.nodesJoin(ctx, namespace, name); err != nil {
				return err
			}
		}
		if held {
			return nil
		}
		_, err := ReportAvailable(ctx, s.Crossplane.Dynamic, c)
		return err
	}
	infra, controlPlane := str(c, "spec", "infrastructureRef", "name"), str(c, "spec", "controlPlaneRef", "name")
	if infra == "" || controlPlane == "" {
		return nil // Cluster API's topology controller has not made them yet
	}
	if _, err := AdoptCA(ctx, s.Crossplane.Kube, namespace, name, w.CACert, w.CAKey); err != nil {
		return err
	}
	host, port, err := w.endpoint()
	if err != nil {
		return err
	}
	if err := InfrastructureReady(ctx, s.Crossplane.Dynamic, namespace, infra, host, port, w.Zones); err != nil {
		return err
	}
	if _, err := s.Crossplane.Kube.CoreV1().Secrets(namespace).Get(ctx, name+"-kubeconfig", metav1.GetOptions{}); err != nil {
		if apierrors.IsNotFound(err) {
			return nil // the KubeadmControlPlane writes it once the infrastructure is ready
		}
		return err
	}
	kcp, err := s.Crossplane.Dynamic.Resource(controlPlaneGVR).Namespace(namespace).Get(ctx, controlPlane, metav1.GetOptions{})
	if err != nil {
		return err
	}
	// Cluster API refuses a version upgrade while the control plane is provisioning, that
	// is before it reports the versions of its machines: pause only after that.
	if versions, _, _ := unstructured.NestedSlice(kcp.Object, "status", "versions"); len(versions) == 0 && str(kcp, "status", "version") == "" {
		return nil
	}
	patch := fmt.Sprintf(`{"metadata":{"annotations":{%q:"true"}},"spec":{"paused":true}}`, annotationPaused)
	_, err = clusters.Patch(ctx, name, types.MergePatchType, []byte(patch), metav1.PatchOptions{FieldManager: managerCAPI})
	return err
}

// AdoptCA gives Cluster namespace/name the cluster CA caCert/caKey (PEM) before Cluster
// API makes its own: the KubeadmControlPlane then signs the cluster's kubeconfig with it.
// It reports false, and changes nothing, when the Cluster has a CA already.
func AdoptCA(ctx context.Context, kube kubernetes.Interface, namespace, name string, caCert, caKey []byte) (bool, error) {
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: name + "-ca", Namespace: namespace, Labels: map[string]string{"cluster.x-k8s.io/cluster-name": name}},
		Type:       "cluster.x-k8s.io/secret",
		Data:       map[string][]byte{"tls.crt": caCert, "tls.key": caKey},
	}
	_, err := kube.CoreV1().Secrets(namespace).Create(ctx, secret, metav1.CreateOptions{FieldManager: managerCAPI})
	if apierrors.IsAlreadyExists(err) {
		return false, nil
	}
	return err == nil, err
}

// InfrastructureReady writes what the OpenStack provider writes on OpenStackCluster
// namespace/name once a cluster's network and API load balancer exist: the control plane
// endpoint host:port, ready, the zones as failure domains. Cluster API then marks the
// infrastructure provisioned, and the KubeadmControlPlane makes the cluster's
// certificates, its kubeconfig Secret and the first control plane Machine. A ready
// OpenStackCluster is left as it is.
func InfrastructureReady(ctx context.Context, dyn dynamic.Interface, namespace, name, host string, port int64, zones []string) error {
	ri := dyn.Resource(openStackClusterGVR).Namespace(namespace)
	osc, err := ri.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return err
	}
	if ready, _, _ := unstructured.NestedBool(osc.Object, "status", "ready"); ready {
		return nil
	}
	endpoint := fmt.Sprintf(`{"spec":{"controlPlaneEndpoint":{"host":%q,"port":%d}}}`, host, port)
	if osc, err = ri.Patch(ctx, name, types.MergePatchType, []byte(endpoint), metav1.PatchOptions{FieldManager: managerCAPO}); err != nil {
		return err
	}
	domains := map[string]any{}
	for _, z := range zones {
		domains[z] = map[string]any{"controlPlane": true}
	}
	return applyStatus(ctx, ri, osc, map[string]any{"ready": true, "failureDomains": domains}, managerCAPO)
}

// ReportAvailable writes the status Cluster API reports for a healthy cluster (Available,
// control plane and workers ready and at the topology's version) on the current generation
// of paused Cluster c, once
// Cluster API has seen the pause of that generation (before that, a reconcile it began
// could still overwrite it). It reports whether the Cluster now carries that status.
func ReportAvailable(ctx context.Context, dyn dynamic.Interface, c *unstructured.Unstructured) (bool, error) {
	gen := c.GetGeneration()
	paused := conditionEntry(c, "Paused")
	if paused == nil || paused["status"] != "True" {
		return false, nil
	}
	if observed, _ := paused["observedGeneration"].(int64); observed < gen {
		return false, nil
	}
	// The machines run the topology's version: what Cluster API reports once an upgrade is
	// done. The list is atomic, so this replaces what Cluster API reported before the pause.
	version := str(c, "spec", "topology", "version")
	versions := []any{map[string]any{"version": version, "replicas": int64(1)}}
	observed, _, _ := unstructured.NestedInt64(c.Object, "status", "observedGeneration")
	reported, _, _ := unstructured.NestedSlice(c.Object, "status", "controlPlane", "versions")
	if available := conditionEntry(c, "Available"); observed == gen && available != nil && available["status"] == "True" &&
		len(reported) == 1 && fmt.Sprint(reported[0].(map[string]any)["version"]) == version {
		return true, nil
	}
	replicas := func() map[string]any {
		return map[string]any{"desiredReplicas": int64(1), "replicas": int64(1), "readyReplicas": int64(1), "availableReplicas": int64(1),
			"upToDateReplicas": int64(1), "versions": versions}
	}
	err := applyStatus(ctx, dyn.Resource(clusterGVR).Namespace(c.GetNamespace()), c, map[string]any{
		"phase":              "Provisioned",
		"observedGeneration": gen,
		"initialization":     map[string]any{"infrastructureProvisioned": true, "controlPlaneInitialized": true},
		"controlPlane":       replicas(),
		"workers":            replicas(),
		"conditions": []any{
			condition("Available", "True", "Available", gen),
			// Cluster API's own, False before the pause; clusterctl move checks it.
			condition("ControlPlaneInitialized", "True", "Initialized", gen),
			condition("ControlPlaneAvailable", "True", "Available", gen),
			condition("WorkersAvailable", "True", "Available", gen),
		},
	}, managerCAPI)
	return err == nil, err
}

// nodesJoin gives every Machine of Cluster namespace/name the nodeRef Cluster API
// writes once the Machine's Node registers: what a cluster whose machines run reports, and
// what clusterctl move checks before it backs a cluster up (it refuses a Machine without).
func (s *Simulator) nodesJoin(ctx context.Context, namespace, name string) error {
	machines := s.Crossplane.Dynamic.Resource(machineGVR).Namespace(namespace)
	list, err := machines.List(ctx, metav1.ListOptions{LabelSelector: "cluster.x-k8s.io/cluster-name=" + name})
	if err != nil {
		return err
	}
	for i := range list.Items {
		m := &list.Items[i]
		if str(m, "status", "nodeRef", "name") != "" {
			continue
		}
		if err := applyStatus(ctx, machines, m, map[string]any{"nodeRef": map[string]any{"name": m.GetName()}}, managerCAPI); err != nil {
			return err
		}
	}
	return nil
}

// Hold makes the simulator leave Cluster namespace/name unpaused until Release, its Nodes
// joining (NodesJoin) as Cluster API makes its Machines: clusterctl move refuses a paused
// Cluster, and one with a Machine still without its Node.
func (s *Simulator) Hold(namespace, name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.holds == nil {
		s.holds = map[string]bool{}
	}
	s.holds[namespace+"/"+name] = true
}

// Release undoes Hold.
func (s *Simulator) Release(namespace, name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.holds, namespace+"/"+name)
}

func (s *Simulator) held(namespace, name string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.holds[namespace+"/"+name]
}

// releaseDeletedClusters unpauses the Clusters the simulator paused once they are being
// deleted: Cluster API deletes no paused Cluster. The SCSCluster may be gone by then (its
// composed resources are deleted in the background), so this looks at every Cluster.
func (s *Simulator) releaseDeletedClusters(ctx context.Context) error {
	if s.Workloads[BackendClusterStack] == nil {
		return nil
	}
	list, err := s.Crossplane.Dynamic.Resource(clusterGVR).List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	for _, c := range list.Items {
		paused, _, _ := unstructured.NestedBool(c.Object, "spec", "paused")
		if c.GetDeletionTimestamp() == nil || !paused || c.GetAnnotations()[annotationPaused] == "" {
			continue
		}
		_, err := s.Crossplane.Dynamic.Resource(clusterGVR).Namespace(c.GetNamespace()).Patch(ctx, c.GetName(), types.MergePatchType,
			[]byte(`{"spec":{"paused":false}}`), metav1.PatchOptions{FieldManager: managerCAPI})
		if err != nil && !apierrors.IsNotFound(err) {
			return err
		}
	}
	return nil
}
