package e2e

import (
	"context"
	"fmt"
	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/model"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
)

// The Magnum backend on the live control plane: the function composes provider-openstack's
// cluster-scoped ClusterV1 and NodegroupV1 managed resources (example environment
// magnum-regionone). provider-openstack does not run here: TestMagnumSimulated_* write the
// status and the connection secret it would write after talking to Magnum.

const (
	magnumEnvironment = "magnum-regionone"
	managerOpenStack  = "provider-openstack-simulated-by-e2e"
	// The example environment's cluster templates.
	magnumTemplate133 = "8e9c4a57-0b5e-4d3c-9f1b-3a2d6c7e8f90"
	magnumTemplate134 = "2f6b1d3e-7a8c-4e5f-9b0a-1c2d3e4f5a6b"
	// labelCluster marks every native object of a cluster with its composite resource.
	labelCluster = "kaas.scs.community/cluster"
)

var (
	clusterV1GVR   = schema.GroupVersionResource{Group: "containerinfra.openstack.crossplane.io", Version: "v1alpha1", Resource: "clusterv1s"}
	nodegroupV1GVR = schema.GroupVersionResource{Group: "containerinfra.openstack.crossplane.io", Version: "v1alpha1", Resource: "nodegroupv1s"}
)

func clusterV1s() dynamic.ResourceInterface   { return cp.Dynamic.Resource(clusterV1GVR) }
func nodegroupV1s() dynamic.ResourceInterface { return cp.Dynamic.Resource(nodegroupV1GVR) }

// magnumSpec is a claim on the Magnum environment: the default pool (the cluster's own
// node group) of a fixed size, and optionally an autoscaled pool that becomes a NodegroupV1.
func magnumSpec(version, machineType string, withGPUPool bool) map[string]any {
	pools := []any{map[string]any{"name": "default", "machineType": machineType, "count": int64(2)}}
	if withGPUPool {
		pools = append(pools, map[string]any{
			"name": "gpu", "machineType": "SCS-8V-32",
			"autoscaling": map[string]any{"min": int64(0), "max": int64(4)},
		})
	}
	return map[string]any{
		"environment": magnumEnvironment,
		"kubernetes":  map[string]any{"version": version},
		"nodePools":   pools,
	}
}

// waitClusterV1 waits until the claim's ClusterV1 exists and returns it with the composite
// resource's name and the cluster's name in Magnum.
func waitClusterV1(ctx context.Context, t *testing.T, claim string) (string, string, *unstructured.Unstructured) {
	t.Helper()
	xr, native := clusterOf(ctx, t, claim)
	return xr, native, waitRendered(ctx, t, clusterV1s(), claim, native+"-cluster", "ClusterV1 "+native+"-cluster")
}

// nodegroupsOf lists the NodegroupV1s of a cluster, by its name in Magnum.
func nodegroupsOf(ctx context.Context, native string) ([]unstructured.Unstructured, error) {
	l, err := nodegroupV1s().List(ctx, metav1.ListOptions{LabelSelector: labelCluster + "=" + native})
	if err != nil {
		return nil, err
	}
	return l.Items, nil
}

// poolStatus returns the claim's observed status of one node pool.
func poolStatus(claim *unstructured.Unstructured, pool string) map[string]any {
	pools, _, _ := unstructured.NestedSlice(claim.Object, "status", "nodePools")
	for _, p := range pools {
		if m, ok := p.(map[string]any); ok && m["name"] == pool {
			return m
		}
	}
	return nil
}

// TestMagnumSimulated_NodegroupAfterClusterIDAndKubeconfig: a claim with two pools becomes
// a ClusterV1 alone; the second pool waits, and the claim says so, until provider-openstack
// reports the Magnum cluster's id; then it becomes a NodegroupV1 of that cluster. Once both
// are ready the claim is Ready with the API address, and the kubeconfig from the
// ClusterV1's connection secret reaches the claim's connection secret.
func TestMagnumSimulated_NodegroupAfterClusterIDAndKubeconfig(t *testing.T) {
	needEnv(t)
	ctx := testContext(t)
	const name = "mag"

	start := time.Now()
	spec := magnumSpec("1.34", "SCS-4V-8", true)
	spec["writeConnectionSecretToRef"] = map[string]any{"name": name + "-conn"}
	apply(ctx, t, newClaim(name, spec))
	_, native, cluster := waitClusterV1(ctx, t, name)
	measure(t, "claim apply -> ClusterV1", start)
	assertFields(t, cluster, map[string]string{
		"spec.forProvider.clusterTemplateId":        magnumTemplate134,
		"spec.forProvider.flavor":                   "SCS-4V-8",
		"spec.forProvider.keypair":                  "platform-ops",
		"spec.forProvider.masterCount":              "1",
		"spec.providerConfigRef.name":               "openstack",
		"spec.writeConnectionSecretToRef.name":      native + "-magnum",
		"spec.forProvider.labels.availability_zone": "nova",
	})

	// No cluster id yet: the gpu pool is pending and has no NodegroupV1.
	claim := waitClaim(ctx, t, deadline, name, "pool gpu pending", func(c *unstructured.Unstructured) error {
		if p := poolStatus(c, "gpu"); p == nil || p["pending"] == nil {
			return fmt.Errorf("status of pool gpu: %v", p)
		}
		return nil
	})
	t.Logf("pool gpu before the cluster id: %v", poolStatus(claim, "gpu")["pending"])
	if ngs, err := nodegroupsOf(ctx, native); err != nil || len(ngs) != 0 {
		t.Fatalf("NodegroupV1s before the cluster has an id: %d (%v)", len(ngs), err)
	}

	// provider-openstack: Magnum created the cluster.
	const clusterID, apiAddress = "5d2f8c1a-3b4e-4f6a-8c9d-0e1f2a3b4c5d", "https://198.51.100.20:6443"
	start = time.Now()
	applyStatus(ctx, t, cluster, map[string]any{
		"atProvider": map[string]any{
			"id": clusterID, "apiAddress": apiAddress, "coeVersion": "v1.34.3",
			"masterCount": int64(1), "nodeCount": int64(2),
		},
		"conditions": []any{
			simulatedCondition("Ready", "True", "Available", "", 0),
			simulatedCondition("Synced", "True", "ReconcileSuccess", "", 0),
		},
	}, managerOpenStack)
	// ... and published the kubeconfig Terraform's provider returned, as upjet does.
	connSecret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{
			Name: native + "-magnum", Namespace: "crossplane-system",
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: "containerinfra.openstack.crossplane.io/v1alpha1", Kind: "ClusterV1",
				Name: cluster.GetName(), UID: cluster.GetUID(), Controller: ptrTo(true),
			}},
		},
		Type: "connection.crossplane.io/v1alpha1",
		Data: map[string][]byte{"attribute.kubeconfig.raw_config": simulatedKubeconfig(t, native, apiAddress)},
	}
	if _, err := cp.Client.CoreV1().Secrets("crossplane-system").Create(ctx, connSecret, metav1.CreateOptions{FieldManager: managerOpenStack}); err != nil {
		t.Fatalf("writing the ClusterV1's connection secret as provider-openstack would: %v", err)
	}

	var ng unstructured.Unstructured
	waitFor(ctx, t, deadline, "a NodegroupV1 for pool gpu of Magnum cluster "+clusterID, func(ctx context.Context) (bool, error) {
		ngs, err := nodegroupsOf(ctx, native)
		if err != nil || len(ngs) != 1 {
			return false, fmt.Errorf("%d NodegroupV1s (%v)", len(ngs), err)
		}
		ng = ngs[0]
		return true, nil
	})
	measure(t, "simulated Magnum cluster id -> NodegroupV1", start)
	assertFields(t, &ng, map[string]string{
		"spec.forProvider.clusterId":    clusterID,
		"spec.forProvider.flavorId":     "SCS-8V-32",
		"spec.forProvider.minNodeCount": "0",
		"spec.forProvider.maxNodeCount": "4",
		"spec.providerConfigRef.name":   "openstack",
	})
	// The node group is not ready yet: neither is the claim.
	claim = waitClaim(ctx, t, deadline, name, "pool gpu no longer pending", func(c *unstructured.Unstructured) error {
		if p := poolStatus(c, "gpu"); p == nil || p["pending"] != nil {
			return fmt.Errorf("status of pool gpu: %v", p)
		}
		return nil
	})
	if c := model.ConditionOf(claim, "Ready"); c.Status == "True" {
		t.Errorf("claim is Ready before its node group is: %v", c)
	}

	start = time.Now()
	applyStatus(ctx, t, &ng, map[string]any{
		"atProvider": map[string]any{"id": "9c8b7a6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d", "nodeCount": int64(1)},
		"conditions": []any{
			simulatedCondition("Ready", "True", "Available", "", 0),
			simulatedCondition("Synced", "True", "ReconcileSuccess", "", 0),
		},
	}, managerOpenStack)
	claim = waitClaim(ctx, t, deadline, name, "Ready with apiServerURL "+apiAddress, allOf(
		hasCondition("Ready", "True", ""), fieldIs(apiAddress, "status", "apiServerURL")))
	measure(t, "simulated node group ready -> claim Ready", start)
	if got := str(claim, "status", "phase"); got != "Ready" {
		t.Errorf("claim phase = %q, want Ready", got)
	}
	assertConnectionSecret(ctx, t, name+"-conn", apiAddress)
}

// TestMagnumUpgradeInPlaceAndForceNewChangeRefused: a +1 minor upgrade moves the same
// ClusterV1 to the next minor's cluster template. Changing the default pool's machine type
// would make Magnum replace the cluster (flavor is ForceNew): the function refuses it with
// a message naming the portable field, over many reconciles, and the ClusterV1 stays as it
// is; reverting the claim renders again.
func TestMagnumUpgradeInPlaceAndForceNewChangeRefused(t *testing.T) {
	needEnv(t)
	ctx := testContext(t)
	const name = "magfn"

	apply(ctx, t, newClaim(name, magnumSpec("1.33", "SCS-4V-8", false)))
	xr, native, before := waitClusterV1(ctx, t, name)
	rendered(ctx, t, name)
	if got := str(before, "spec", "forProvider", "clusterTemplateId"); got != magnumTemplate133 {
		t.Fatalf("clusterTemplateId = %q, want the 1.33 template %s", got, magnumTemplate133)
	}

	start := time.Now()
	apply(ctx, t, newClaim(name, magnumSpec("1.34", "SCS-4V-8", false)))
	upgraded := waitObject(ctx, t, clusterV1s(), native+"-cluster", "ClusterV1 on the 1.34 template", func(c *unstructured.Unstructured) error {
		if got := str(c, "spec", "forProvider", "clusterTemplateId"); got != magnumTemplate134 {
			return fmt.Errorf("clusterTemplateId %s", got)
		}
		return nil
	})
	measure(t, "claim update (upgrade 1.33 -> 1.34) -> ClusterV1 updated", start)
	if upgraded.GetUID() != before.GetUID() {
		t.Fatalf("ClusterV1 replaced by the upgrade: UID %s, before %s", upgraded.GetUID(), before.GetUID())
	}
	rendered(ctx, t, name)

	refusedBefore := refusals(t, xr)
	apply(ctx, t, newClaim(name, magnumSpec("1.34", "SCS-8V-32", false)))
	claim := waitClaim(ctx, t, deadline, name, "Rendered=False", hasCondition(kaasv1alpha1.ConditionRendered, "False", ""))
	msg := model.ConditionOf(claim, kaasv1alpha1.ConditionRendered).Message
	for _, want := range []string{"spec.nodePools[0].machineType", "flavor", "SCS-4V-8", "SCS-8V-32"} {
		if !strings.Contains(msg, want) {
			t.Errorf("Rendered message does not say %q: %s", want, msg)
		}
	}
	waitRefusals(ctx, t, xr, refusedBefore)
	now, err := clusterV1s().Get(ctx, native+"-cluster", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	assertUntouched(t, upgraded, now)

	apply(ctx, t, newClaim(name, magnumSpec("1.34", "SCS-4V-8", false)))
	rendered(ctx, t, name)
}

func ptrTo[T any](v T) *T { return &v }
