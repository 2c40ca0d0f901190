package e2e

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/SovereignCloudStack/scs-kaas/model"
	"github.com/SovereignCloudStack/scs-kaas/test/e2e/backendsim"
	"github.com/SovereignCloudStack/scs-kaas/test/e2e/controlplane"
)

// Cluster API runs for real in the Crossplane cluster and in the remote management cluster:
// its webhooks admit the Clusters the function composes and its topology controller expands
// them into a KubeadmControlPlane, MachineDeployments and OpenStack templates. Nothing
// provides infrastructure or nodes, so these helpers write what the OpenStack provider would
// (the OpenStackCluster's endpoint and readiness) and, for a Ready cluster, pause the Cluster
// and write the final state Cluster API would report once nodes run.

var (
	kcpGVR                      = schema.GroupVersionResource{Group: "controlplane.cluster.x-k8s.io", Version: "v1beta2", Resource: "kubeadmcontrolplanes"}
	machineDeploymentGVR        = schema.GroupVersionResource{Group: "cluster.x-k8s.io", Version: "v1beta2", Resource: "machinedeployments"}
	machineGVR                  = schema.GroupVersionResource{Group: "cluster.x-k8s.io", Version: "v1beta2", Resource: "machines"}
	openStackMachineTemplateGVR = schema.GroupVersionResource{Group: "infrastructure.cluster.x-k8s.io", Version: "v1beta1", Resource: "openstackmachinetemplates"}
)

// clusterLabel selects what Cluster API made for a Cluster.
func clusterLabel(native string) metav1.ListOptions {
	return metav1.ListOptions{LabelSelector: "cluster.x-k8s.io/cluster-name=" + native}
}

// topology is what Cluster API's topology controller made of a Cluster.
type topology struct {
	controlPlane *unstructured.Unstructured
	// machineDeployments by their name in the Cluster's topology (default-az1, ...).
	machineDeployments map[string]*unstructured.Unstructured
}

// waitTopology waits until Cluster API has expanded the Cluster native in namespace ns of
// cluster c into its KubeadmControlPlane and the MachineDeployments named in want, and
// returns them.
func waitTopology(ctx context.Context, t *testing.T, c *controlplane.Cluster, ns, native string, want ...string) topology {
	t.Helper()
	var got topology
	waitFor(ctx, t, deadline, "Cluster API's KubeadmControlPlane and MachineDeployments "+strings.Join(want, ", ")+" of "+ns+"/"+native, func(ctx context.Context) (bool, error) {
		kcps, err := c.Dynamic.Resource(kcpGVR).Namespace(ns).List(ctx, clusterLabel(native))
		if err != nil {
			return false, err
		}
		mds, err := c.Dynamic.Resource(machineDeploymentGVR).Namespace(ns).List(ctx, clusterLabel(native))
		if err != nil {
			return false, err
		}
		got = topology{machineDeployments: map[string]*unstructured.Unstructured{}}
		if len(kcps.Items) == 1 {
			got.controlPlane = &kcps.Items[0]
		}
		var names []string
		for i := range mds.Items {
			md := &mds.Items[i]
			name := md.GetLabels()["topology.cluster.x-k8s.io/deployment-name"]
			got.machineDeployments[name] = md
			names = append(names, name)
		}
		sort.Strings(names)
		return got.controlPlane != nil && sameSet(names, want), fmt.Errorf("%d KubeadmControlPlanes, MachineDeployments %v; Cluster TopologyReconciled %v",
			len(kcps.Items), names, clusterCondition(ctx, c, ns, native, "TopologyReconciled"))
	})
	return got
}

// clusterCondition is a condition of a Cluster API Cluster, for waits and their messages.
// A Cluster that cannot be read has it Unknown, with the error as message.
func clusterCondition(ctx context.Context, c *controlplane.Cluster, ns, native, typ string) model.ObservedCondition {
	cl, err := c.Dynamic.Resource(capiClusterGVR).Namespace(ns).Get(ctx, native, metav1.GetOptions{})
	if err != nil {
		return model.ObservedCondition{Type: typ, Status: "Unknown", Reason: "ReadFailed", Message: err.Error(), Found: true}
	}
	return model.ConditionOf(cl, typ)
}

// simulateInfrastructureReady writes what the OpenStack provider writes once a cluster's
// network and API load balancer exist: the OpenStackCluster's control plane endpoint, and
// status ready with the three zones as failure domains. Cluster API then marks the
// infrastructure provisioned, and the KubeadmControlPlane makes the cluster's certificates,
// its kubeconfig Secret and the first control plane Machine.
func simulateInfrastructureReady(ctx context.Context, t *testing.T, c *controlplane.Cluster, ns, native, host string, port int64) {
	t.Helper()
	var infra string
	waitFor(ctx, t, deadline, "Cluster "+native+" refers to its OpenStackCluster", func(ctx context.Context) (bool, error) {
		cl, err := c.Dynamic.Resource(capiClusterGVR).Namespace(ns).Get(ctx, native, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		infra = str(cl, "spec", "infrastructureRef", "name")
		return infra != "", fmt.Errorf("no spec.infrastructureRef yet; TopologyReconciled %v", model.ConditionOf(cl, "TopologyReconciled"))
	})
	if err := backendsim.InfrastructureReady(ctx, c.Dynamic, ns, infra, host, port, []string{"az1", "az2", "az3"}); err != nil {
		t.Fatalf("writing the OpenStackCluster's endpoint and status as the OpenStack provider would: %v", err)
	}
}

// waitClusterAPIKubeconfig waits until the KubeadmControlPlane has written the cluster's
// kubeconfig Secret (<cluster>-kubeconfig, key value) and returns the kubeconfig.
func waitClusterAPIKubeconfig(ctx context.Context, t *testing.T, c *controlplane.Cluster, ns, native string) []byte {
	t.Helper()
	var kubeconfig []byte
	waitFor(ctx, t, deadline, "Cluster API's kubeconfig Secret "+ns+"/"+native+"-kubeconfig", func(ctx context.Context) (bool, error) {
		s, err := c.Client.CoreV1().Secrets(ns).Get(ctx, native+"-kubeconfig", metav1.GetOptions{})
		if err != nil {
			return false, fmt.Errorf("%w; Cluster InfrastructureReady %v", err, clusterCondition(ctx, c, ns, native, "InfrastructureReady"))
		}
		kubeconfig = s.Data["value"]
		return len(kubeconfig) > 0, fmt.Errorf("keys %v", keys(s.Data))
	})
	return kubeconfig
}

// simulateClusterAvailable stands for the rest of a cluster's life that needs machines
// and nodes: it pauses the Cluster, so that Cluster API's Cluster and topology controllers
// keep what the test writes, and writes the status Cluster API reports for a healthy
// cluster (Available, control plane and workers ready) on the current generation.
// releaseCluster must undo the pause before the Cluster is deleted: Cluster API does not
// delete paused Clusters.
func simulateClusterAvailable(ctx context.Context, t *testing.T, c *controlplane.Cluster, ns, native string) {
	t.Helper()
	cl, err := c.Dynamic.Resource(capiClusterGVR).Namespace(ns).Patch(ctx, native, types.MergePatchType, []byte(`{"spec":{"paused":true}}`),
		metav1.PatchOptions{FieldManager: managerCAPI})
	if err != nil {
		t.Fatalf("pausing Cluster %s: %v", native, err)
	}
	gen := cl.GetGeneration()
	// A reconcile Cluster API began before the pause would write its own status over ours:
	// ReportAvailable writes only once Cluster API reports the pause of this generation
	// (condition Paused), after which it writes nothing more.
	waitFor(ctx, t, deadline, "Cluster "+native+" paused by Cluster API and reported available", func(ctx context.Context) (bool, error) {
		o, err := c.Dynamic.Resource(capiClusterGVR).Namespace(ns).Get(ctx, native, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		written, err := backendsim.ReportAvailable(ctx, c.Dynamic, o)
		if err != nil || written {
			return written, err
		}
		return false, fmt.Errorf("condition Paused is %v, not True for generation %d", model.ConditionOf(o, "Paused"), gen)
	})
}

// releaseCluster unpauses a Cluster that simulateClusterAvailable paused, so that Cluster
// API can delete it. A Cluster that is gone already is fine.
func releaseCluster(ctx context.Context, t *testing.T, c *controlplane.Cluster, ns, native string) {
	t.Helper()
	_, err := c.Dynamic.Resource(capiClusterGVR).Namespace(ns).Patch(ctx, native, types.MergePatchType, []byte(`{"spec":{"paused":false}}`),
		metav1.PatchOptions{FieldManager: managerCAPI})
	if err != nil && !apierrors.IsNotFound(err) {
		t.Fatalf("unpausing Cluster %s: %v", native, err)
	}
}

// simulateClusterAPIReady takes a Cluster from created to Ready as far as Cluster API
// reports it: infrastructure as the OpenStack provider would report it at host:port, the
// kubeconfig Secret the KubeadmControlPlane writes for real, then the simulated final
// state. It returns the API server URL the kubeconfig names.
func simulateClusterAPIReady(ctx context.Context, t *testing.T, c *controlplane.Cluster, ns, native, host string, port int64) string {
	t.Helper()
	simulateInfrastructureReady(ctx, t, c, ns, native, host, port)
	waitClusterAPIKubeconfig(ctx, t, c, ns, native)
	simulateClusterAvailable(ctx, t, c, ns, native)
	return fmt.Sprintf("https://%s:%d", host, port)
}

// adoptClusterCA gives a Cluster the certificate authority of an API server before Cluster
// API makes its own: the KubeadmControlPlane then signs the cluster's kubeconfig with it,
// and that kubeconfig reaches the API server standing in for the new cluster.
func adoptClusterCA(ctx context.Context, t *testing.T, c *controlplane.Cluster, ns, native string, workload *controlplane.Cluster) {
	t.Helper()
	cert, key, err := workload.CA()
	if err != nil {
		t.Fatal(err)
	}
	if adopted, err := backendsim.AdoptCA(ctx, c.Client, ns, native, cert, key); err != nil || !adopted {
		t.Fatalf("giving Cluster %s the workload API server's CA: adopted %v (false: it has one already), %v", native, adopted, err)
	}
}

// openStackMachineTemplate is the OpenStackMachineTemplate a MachineDeployment's machines
// use: where the ClusterClass's patches put the pool's flavor and root disk.
func openStackMachineTemplate(ctx context.Context, t *testing.T, c *controlplane.Cluster, md *unstructured.Unstructured) *unstructured.Unstructured {
	t.Helper()
	name := str(md, "spec", "template", "spec", "infrastructureRef", "name")
	tmpl, err := c.Dynamic.Resource(openStackMachineTemplateGVR).Namespace(md.GetNamespace()).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("the OpenStackMachineTemplate %q of MachineDeployment %s: %v", name, md.GetName(), err)
	}
	return tmpl
}
