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
)

var (
	clusterGVR          = schema.GroupVersionResource{Group: "cluster.x-k8s.io", Version: "v1beta2", Resource: "clusters"}
	openStackClusterGVR = schema.GroupVersionResource{Group: "infrastructure.cluster.x-k8s.io", Version: "v1beta1", Resource: "openstackclusters"}
	controlPlaneGVR     = schema.GroupVersionResource{Group: "controlplane.cluster.x-k8s.io", Version: "v1beta2", Resource: "kubeadmcontrolplanes"}
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
//     again for every new generation (a scaled or upgraded topology).
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
	if c.GetAnnotations()[annotationPaused] != "" {
		return s.reportAvailable(ctx, c)
	}
	infra, controlPlane := str(c, "spec", "infrastructureRef", "name"), str(c, "spec", "controlPlaneRef", "name")
	if infra == "" || controlPlane == "" {
		return nil // Cluster API's topology controller has not made them yet
	}
	if err := s.adoptCA(ctx, w, namespace, name); err != nil {
		return err
	}
	if err := s.infrastructureReady(ctx, w, namespace, infra); err != nil {
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

// adoptCA gives Cluster name the workload's CA, unless it has a CA already.
func (s *Simulator) adoptCA(ctx context.Context, w *Workload, namespace, name string) error {
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: name + "-ca", Namespace: namespace, Labels: map[string]string{"cluster.x-k8s.io/cluster-name": name}},
		Type:       "cluster.x-k8s.io/secret",
		Data:       map[string][]byte{"tls.crt": w.CACert, "tls.key": w.CAKey},
	}
	_, err := s.Crossplane.Kube.CoreV1().Secrets(namespace).Create(ctx, secret, metav1.CreateOptions{FieldManager: managerCAPI})
	if apierrors.IsAlreadyExists(err) {
		return nil
	}
	return err
}

// infrastructureReady writes what the OpenStack provider writes once a cluster's network
// and API load balancer exist: the control plane endpoint, ready, the zones as failure
// domains.
func (s *Simulator) infrastructureReady(ctx context.Context, w *Workload, namespace, name string) error {
	ri := s.Crossplane.Dynamic.Resource(openStackClusterGVR).Namespace(namespace)
	osc, err := ri.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return err
	}
	if ready, _, _ := unstructured.NestedBool(osc.Object, "status", "ready"); ready {
		return nil
	}
	host, port, err := w.endpoint()
	if err != nil {
		return err
	}
	endpoint := fmt.Sprintf(`{"spec":{"controlPlaneEndpoint":{"host":%q,"port":%d}}}`, host, port)
	if osc, err = ri.Patch(ctx, name, types.MergePatchType, []byte(endpoint), metav1.PatchOptions{FieldManager: managerCAPO}); err != nil {
		return err
	}
	zones := map[string]any{}
	for _, z := range w.Zones {
		zones[z] = map[string]any{"controlPlane": true}
	}
	return applyStatus(ctx, ri, osc, map[string]any{"ready": true, "failureDomains": zones}, managerCAPO)
}

// reportAvailable writes the status Cluster API reports for an available cluster on the
// current generation of a paused Cluster, once Cluster API has seen the pause of that
// generation (before that, a reconcile it began could still overwrite it).
func (s *Simulator) reportAvailable(ctx context.Context, c *unstructured.Unstructured) error {
	gen := c.GetGeneration()
	paused := conditionOf(c, "Paused")
	if paused == nil || paused["status"] != "True" {
		return nil
	}
	if observed, _ := paused["observedGeneration"].(int64); observed < gen {
		return nil
	}
	observed, _, _ := unstructured.NestedInt64(c.Object, "status", "observedGeneration")
	if available := conditionOf(c, "Available"); observed == gen && available != nil && available["status"] == "True" {
		return nil
	}
	replicas := map[string]any{"desiredReplicas": int64(1), "replicas": int64(1), "readyReplicas": int64(1), "availableReplicas": int64(1), "upToDateReplicas": int64(1)}
	return applyStatus(ctx, s.Crossplane.Dynamic.Resource(clusterGVR).Namespace(c.GetNamespace()), c, map[string]any{
		"phase":              "Provisioned",
		"observedGeneration": gen,
		"initialization":     map[string]any{"infrastructureProvisioned": true, "controlPlaneInitialized": true},
		"controlPlane":       replicas,
		"workers":            replicas,
		"conditions": []any{
			condition("Available", "True", "Available", gen),
			condition("ControlPlaneAvailable", "True", "Available", gen),
			condition("WorkersAvailable", "True", "Available", gen),
		},
	}, managerCAPI)
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
