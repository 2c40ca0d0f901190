package e2e

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/model"
)

// The Cluster Stacks backend on the live control plane. Crossplane runs in the management
// cluster itself (the example environment clusterstack-regionone is "local"), so the
// function composes CAPI Clusters next to the claims, and real Cluster API managers admit
// and expand them with the SCS scs2 ClusterClass. The Cluster Stack operator does not run:
// the ClusterStackReleases carry the status it would write (main_test.go installs them).
// Nothing provides machines: capi_test.go writes what the OpenStack provider would, and the
// final state Cluster API reports once nodes run (TestClusterStackSimulated_*).

const (
	clusterStackEnvironment = "clusterstack-regionone"
	// clusterStackNamespace is the example environment's namespace for Clusters.
	clusterStackNamespace = "kaas-team1"
	// managers of the fields the tests write in place of the real controllers.
	managerCAPI = "cluster-api-simulated-by-e2e"
	managerCSO  = "cluster-stack-operator-simulated-by-e2e"

	annotationAutoscalerMin = "cluster.x-k8s.io/cluster-api-autoscaler-node-group-min-size"
	annotationAutoscalerMax = "cluster.x-k8s.io/cluster-api-autoscaler-node-group-max-size"
)

var (
	capiClusterGVR = schema.GroupVersionResource{Group: "cluster.x-k8s.io", Version: "v1beta2", Resource: "clusters"}
)

func capiClusters() dynamic.ResourceInterface {
	return cp.Dynamic.Resource(capiClusterGVR).Namespace(clusterStackNamespace)
}

// clusterStackSpec is a development claim on the Cluster Stacks environment: a fixed pool
// that names no zones (so as many of the environment's three as it has nodes) and an
// autoscaled, labelled, tainted pool over two.
func clusterStackSpec(version string, defaultCount int64) map[string]any {
	return map[string]any{
		"environment": clusterStackEnvironment,
		"kubernetes":  map[string]any{"version": version},
		"nodePools": []any{
			map[string]any{"name": "default", "machineType": "SCS-4V-8", "count": defaultCount},
			map[string]any{
				"name": "batch", "machineType": "SCS-8V-32",
				"autoscaling": map[string]any{"min": int64(0), "max": int64(6)},
				"zones":       []any{"az1", "az2"},
				"labels":      map[string]any{"node-role.kubernetes.io/batch": ""},
				"taints":      []any{map[string]any{"key": "batch", "value": "true", "effect": "NoSchedule"}},
				"rootDiskGiB": int64(80),
			},
		},
	}
}

// waitCluster waits until the claim's CAPI Cluster exists and returns it with the
// composite resource's name and the Cluster's.
func waitCluster(ctx context.Context, t *testing.T, claim string) (string, string, *unstructured.Unstructured) {
	t.Helper()
	xr, native := clusterOf(ctx, t, claim)
	return xr, native, waitRendered(ctx, t, capiClusters(), claim, native, "Cluster "+clusterStackNamespace+"/"+native)
}

// machineDeployments returns the Cluster's topology MachineDeployments by name.
func machineDeployments(c *unstructured.Unstructured) map[string]map[string]any {
	mds, _, _ := unstructured.NestedSlice(c.Object, "spec", "topology", "workers", "machineDeployments")
	out := map[string]map[string]any{}
	for _, md := range mds {
		if m, ok := md.(map[string]any); ok {
			out[fmt.Sprint(m["name"])] = m
		}
	}
	return out
}

// variables returns topology variables (or a MachineDeployment's overrides) by name.
func variables(list []any) map[string]any {
	out := map[string]any{}
	for _, v := range list {
		if m, ok := v.(map[string]any); ok {
			out[fmt.Sprint(m["name"])] = m["value"]
		}
	}
	return out
}

// TestClusterStackClaimCreatesCluster: a claim on the Cluster Stacks environment becomes a
// CAPI Cluster with the ClusterClass and exact version of the newest ready
// ClusterStackRelease for its minor, one MachineDeployment per pool and zone, and every
// portable field in place; what Cluster API cannot honour is reported on the claim.
func TestClusterStackClaimCreatesCluster(t *testing.T) {
	needEnv(t)
	ctx := testContext(t)
	needClusterStack(t)
	const name = "capi"

	start := time.Now()
	spec := clusterStackSpec("1.34", 3)
	spec["maintenance"] = map[string]any{"window": map[string]any{"begin": "220000+0100", "end": "230000+0100"}}
	apply(ctx, t, newClaim(name, spec))
	_, native, c := waitCluster(ctx, t, name)
	measure(t, "claim apply -> CAPI Cluster", start)

	check := func(what string, got, want any) {
		t.Helper()
		if !reflect.DeepEqual(got, want) {
			t.Errorf("Cluster %s: %s = %v, want %v", native, what, got, want)
		}
	}
	field := func(path ...string) any {
		v, _, _ := unstructured.NestedFieldNoCopy(c.Object, path...)
		return v
	}
	// The newest ready release for 1.34 is openstack-scs2-1-34-v3 with v1.34.7.
	check("classRef", field("spec", "topology", "classRef", "name"), "openstack-scs2-1-34-v3")
	check("version", field("spec", "topology", "version"), "v1.34.7")
	check("control plane replicas", field("spec", "topology", "controlPlane", "replicas"), int64(1))
	check("pod CIDRs", field("spec", "clusterNetwork", "pods", "cidrBlocks"), []any{"192.168.0.0/16"})
	check("service CIDRs", field("spec", "clusterNetwork", "services", "cidrBlocks"), []any{"10.96.0.0/12"})
	check("credentials label", c.GetLabels()["managed-secret"], "clouds-yaml")
	vars := variables(field("spec", "topology", "variables").([]any))
	check("variable nodeCIDR", vars["nodeCIDR"], "10.8.0.0/20")
	check("variable networkExternalID", vars["networkExternalID"], "ebfe5546-f09f-4f42-ab54-094e457d42ec")
	check("variable controlPlaneFlavor", vars["controlPlaneFlavor"], "SCS-2V-4")

	mds := machineDeployments(c)
	want := []string{"batch-az1", "batch-az2", "default-az1", "default-az2", "default-az3"}
	field2 := func(obj any, path ...string) any {
		m, _ := obj.(map[string]any)
		if u, ok := obj.(*unstructured.Unstructured); ok {
			m = u.Object
		}
		v, _, _ := unstructured.NestedFieldNoCopy(m, path...)
		return v
	}
	got := make([]string, 0, len(mds))
	for n := range mds {
		got = append(got, n)
	}
	if !sameSet(got, want) {
		t.Fatalf("Cluster %s: MachineDeployments %v, want %v", native, got, want)
	}
	for _, zone := range []string{"az1", "az2", "az3"} {
		md := mds["default-"+zone]
		check("default-"+zone+" failureDomain", md["failureDomain"], zone)
		check("default-"+zone+" replicas", md["replicas"], int64(1))
		check("default-"+zone+" workerFlavor", variables(nested(md, "variables", "overrides"))["workerFlavor"], "SCS-4V-8")
	}
	for _, zone := range []string{"az1", "az2"} {
		md := mds["batch-"+zone]
		check("batch-"+zone+" failureDomain", md["failureDomain"], zone)
		// Autoscaled: bounds for the autoscaler, no replicas for Cluster API to fight over.
		if _, ok := md["replicas"]; ok {
			t.Errorf("batch-%s has replicas %v, want none (autoscaled)", zone, md["replicas"])
		}
		ann, _, _ := unstructured.NestedStringMap(md, "metadata", "annotations")
		check("batch-"+zone+" autoscaler min", ann[annotationAutoscalerMin], "0")
		check("batch-"+zone+" autoscaler max", ann[annotationAutoscalerMax], "3")
		labels, _, _ := unstructured.NestedStringMap(md, "metadata", "labels")
		if _, ok := labels["node-role.kubernetes.io/batch"]; !ok {
			t.Errorf("batch-%s labels %v lack node-role.kubernetes.io/batch", zone, labels)
		}
		overrides := variables(nested(md, "variables", "overrides"))
		check("batch-"+zone+" workerFlavor", overrides["workerFlavor"], "SCS-8V-32")
		check("batch-"+zone+" workerRootDisk", overrides["workerRootDisk"], int64(80))
		taints, _, _ := unstructured.NestedSlice(md, "taints")
		if len(taints) != 1 || str(&unstructured.Unstructured{Object: taints[0].(map[string]any)}, "key") != "batch" {
			t.Errorf("batch-%s taints = %v, want the pool's taint batch", zone, taints)
		}
	}

	// Cluster API admitted it (its webhooks checked every variable against the scs2
	// ClusterClass's schemas) and its topology controller expanded it.
	start = time.Now()
	topo := waitTopology(ctx, t, cp, clusterStackNamespace, native, want...)
	measure(t, "CAPI Cluster -> KubeadmControlPlane and MachineDeployments (real topology controller)", start)
	check("KubeadmControlPlane replicas", field2(topo.controlPlane, "spec", "replicas"), int64(1))
	check("KubeadmControlPlane version", field2(topo.controlPlane, "spec", "version"), "v1.34.7")
	for _, zone := range []string{"az1", "az2", "az3"} {
		md := topo.machineDeployments["default-"+zone]
		check("MachineDeployment default-"+zone+" failureDomain", field2(md, "spec", "template", "spec", "failureDomain"), zone)
		check("MachineDeployment default-"+zone+" replicas", field2(md, "spec", "replicas"), int64(1))
		check("MachineDeployment default-"+zone+" flavor", field2(openStackMachineTemplate(ctx, t, cp, md).Object, "spec", "template", "spec", "flavor"), "SCS-4V-8")
	}
	for _, zone := range []string{"az1", "az2"} {
		md := topo.machineDeployments["batch-"+zone]
		check("MachineDeployment batch-"+zone+" failureDomain", field2(md, "spec", "template", "spec", "failureDomain"), zone)
		ann := md.GetAnnotations()
		check("MachineDeployment batch-"+zone+" autoscaler min", ann[annotationAutoscalerMin], "0")
		check("MachineDeployment batch-"+zone+" autoscaler max", ann[annotationAutoscalerMax], "3")
		if l, _, _ := unstructured.NestedStringMap(md.Object, "spec", "template", "metadata", "labels"); !hasKey(l, "node-role.kubernetes.io/batch") {
			t.Errorf("MachineDeployment batch-%s machine labels %v lack node-role.kubernetes.io/batch", zone, l)
		}
		if taints, _, _ := unstructured.NestedSlice(md.Object, "spec", "template", "spec", "taints"); len(taints) != 1 {
			t.Errorf("MachineDeployment batch-%s machine taints = %v, want the pool's taint", zone, taints)
		}
		// The scs2 ClusterClass's patches turned the pool's variable overrides into the
		// machines' flavor and root volume.
		tmpl := openStackMachineTemplate(ctx, t, cp, md)
		check("MachineDeployment batch-"+zone+" flavor", field2(tmpl.Object, "spec", "template", "spec", "flavor"), "SCS-8V-32")
		check("MachineDeployment batch-"+zone+" root volume", field2(tmpl.Object, "spec", "template", "spec", "rootVolume", "sizeGiB"), int64(80))
	}

	claim := rendered(ctx, t, name)
	ref := fmt.Sprintf("%s/%s %s", str(claim, "status", "backend", "nativeRef", "namespace"),
		str(claim, "status", "backend", "nativeRef", "name"), str(claim, "status", "backend", "nativeRef", "kind"))
	check("claim's native reference", ref, clusterStackNamespace+"/"+native+" Cluster")
	check("claim's backend", str(claim, "status", "backend", "type"), "clusterstack")
	// Cluster API has no maintenance window; the function keeps one for the updates it
	// makes on its own (docs/operations.md#maintenance), and the claim names it.
	if c := model.ConditionOf(claim, kaasv1alpha1.ConditionUpdatePlanned); c.Status != "False" || c.Reason != kaasv1alpha1.ReasonNothingPlanned ||
		!strings.Contains(c.Message, "its own updates start in the window") {
		t.Errorf("claim UpdatePlanned = %v, want False NothingPlanned naming the window", c)
	}
}

// TestClusterStackSimulated_AvailableMakesClaimReadyWithKubeconfig: while nothing builds
// the cluster, the claim reads Cluster API's own conditions (Provisioning, with Cluster
// API's reason). Once the OpenStack provider would report the infrastructure, the real
// KubeadmControlPlane writes the kubeconfig Secret; once Cluster API reports the Cluster
// Available on its current generation (simulated: that needs nodes), the claim is Ready,
// shows the endpoint and replica counts, and its connection secret carries the kubeconfig
// Cluster API made.
func TestClusterStackSimulated_AvailableMakesClaimReadyWithKubeconfig(t *testing.T) {
	needEnv(t)
	ctx := testContext(t)
	needClusterStack(t)
	const name = "capiready"

	spec := clusterStackSpec("1.34", 3)
	spec["writeConnectionSecretToRef"] = map[string]any{"name": name + "-conn"}
	apply(ctx, t, newClaim(name, spec))
	_, native, _ := waitCluster(ctx, t, name)
	rendered(ctx, t, name)
	waitTopology(ctx, t, cp, clusterStackNamespace, native, "batch-az1", "batch-az2", "default-az1", "default-az2", "default-az3")

	// Cluster API's own verdict, as it stands without infrastructure.
	claim := waitClaim(ctx, t, deadline, name, "BackendReady=False with Cluster API's reason", func(c *unstructured.Unstructured) error {
		available := clusterCondition(ctx, cp, clusterStackNamespace, native, "Available")
		got := model.ConditionOf(c, kaasv1alpha1.ConditionBackendReady)
		if available.Status != "False" || available.Reason == "" || got.Status != "False" || got.Reason != available.Reason {
			return fmt.Errorf("claim BackendReady %v, Cluster Available %v", got, available)
		}
		return nil
	})
	if got := str(claim, "status", "phase"); got != "Provisioning" {
		t.Errorf("claim phase = %q while Cluster API provisions, want Provisioning", got)
	}

	// The OpenStack provider's part (simulated); the kubeconfig is Cluster API's own.
	const host, port = "203.0.113.10", 6443
	server := fmt.Sprintf("https://%s:%d", host, port)
	start := time.Now()
	simulateInfrastructureReady(ctx, t, cp, clusterStackNamespace, native, host, port)
	kubeconfig := waitClusterAPIKubeconfig(ctx, t, cp, clusterStackNamespace, native)
	measure(t, "simulated OpenStack infrastructure -> KubeadmControlPlane's kubeconfig Secret", start)
	if !strings.Contains(string(kubeconfig), server) {
		t.Fatalf("Cluster API's kubeconfig does not name %s", server)
	}
	if c := model.ConditionOf(getClaimOrFail(ctx, t, name), "Ready"); c.Status == "True" {
		t.Errorf("claim is Ready while Cluster API reports the Cluster not available: %v", c)
	}

	start = time.Now()
	simulateClusterAvailable(ctx, t, cp, clusterStackNamespace, native)
	claim = waitClaim(ctx, t, deadline, name, "Ready with apiServerURL "+server, allOf(
		hasCondition("Ready", "True", ""), hasCondition(kaasv1alpha1.ConditionBackendReady, "True", "Available"), fieldIs(server, "status", "apiServerURL")))
	measure(t, "simulated Cluster API Available -> claim Ready", start)

	if got := str(claim, "status", "phase"); got != "Ready" {
		t.Errorf("claim phase = %q, want Ready", got)
	}
	if got := str(claim, "status", "controlPlane", "readyReplicas"); got != "1" {
		t.Errorf("claim control plane readyReplicas = %q, want 1", got)
	}
	assertConnectionSecret(ctx, t, name+"-conn", server)
}

// TestClusterStackDeletionRunsClusterAPIsDeletion: deleting an unprotected claim deletes
// its Cluster through Cluster API's own deletion (its finalizers take the control plane
// and the MachineDeployments down first), then the claim goes; a protected claim's
// deletion is refused and its Cluster stays.
func TestClusterStackDeletionRunsClusterAPIsDeletion(t *testing.T) {
	needEnv(t)
	ctx := testContext(t)
	needClusterStack(t)
	const name, protectedName = "capidel", "capikeep"

	spec := clusterStackSpec("1.34", 1)
	spec["nodePools"] = spec["nodePools"].([]any)[:1]
	apply(ctx, t, newClaim(name, spec))
	protected := clusterStackSpec("1.34", 1)
	protected["nodePools"] = protected["nodePools"].([]any)[:1]
	protected["deletionProtection"] = true
	apply(ctx, t, newClaim(protectedName, protected))
	_, native, _ := waitCluster(ctx, t, name)
	// One node and no zones named: the pool runs in the environment's first zone.
	waitTopology(ctx, t, cp, clusterStackNamespace, native, "default-az1")
	_, keptNative, kept := waitCluster(ctx, t, protectedName)
	rendered(ctx, t, protectedName)

	start := time.Now()
	if err := claims().Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	// Cluster API's finalizer holds the Cluster while its control plane and workers go.
	waitObject(ctx, t, capiClusters(), native, "Cluster "+native+" deleting under Cluster API's finalizer", func(c *unstructured.Unstructured) error {
		if c.GetDeletionTimestamp() == nil || !slices.Contains(c.GetFinalizers(), "cluster.cluster.x-k8s.io") {
			return fmt.Errorf("deletionTimestamp %v, finalizers %v", c.GetDeletionTimestamp(), c.GetFinalizers())
		}
		return nil
	})
	waitFor(ctx, t, faultDeadline, "Cluster "+native+" deleted by Cluster API", gone(capiClusters(), native))
	for _, gvr := range []schema.GroupVersionResource{kcpGVR, machineDeploymentGVR} {
		l, err := cp.Dynamic.Resource(gvr).Namespace(clusterStackNamespace).List(ctx, clusterLabel(native))
		if err != nil || len(l.Items) > 0 {
			t.Errorf("%s of the deleted Cluster left: %v (%v)", gvr.Resource, len(l.Items), err)
		}
	}
	waitFor(ctx, t, faultDeadline, "claim "+name+" gone", gone(claims(), name))
	measure(t, "claim delete -> Cluster API deleted the Cluster, claim gone", start)

	if err := claims().Delete(ctx, protectedName, metav1.DeleteOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("deleting the protected claim: want Forbidden, got %v", err)
	}
	now, err := capiClusters().Get(ctx, keptNative, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("the protected claim's Cluster: %v", err)
	}
	if now.GetUID() != kept.GetUID() || now.GetDeletionTimestamp() != nil {
		t.Errorf("the protected claim's Cluster was replaced or is being deleted")
	}
}

// TestClusterStackRefusedByClusterAPIShowsOnComposite: an environment whose fixed topology
// variable does not fit the ClusterClass's schema (networkExternalID must be a UUID) makes
// Cluster API's webhook refuse the Cluster. Crossplane reports it on the composite
// resource: Synced=False naming the composed resource, and a Warning event with Cluster
// API's message (a claim does not show either: Crossplane keeps them on the composite). No
// Cluster exists. Fixed in the environment, the same claim gets its Cluster.
func TestClusterStackRefusedByClusterAPIShowsOnComposite(t *testing.T) {
	needEnv(t)
	ctx := testContext(t)
	needClusterStack(t)
	const name, environment = "capibad", "clusterstack-typo"

	envs := cp.Dynamic.Resource(envGVR)
	base, err := envs.Get(ctx, clusterStackEnvironment, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	typo := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": base.GetAPIVersion(), "kind": base.GetKind(),
		"metadata": map[string]any{"name": environment, "labels": map[string]any{"kaas.scs.community/environment": environment}},
		"data":     base.Object["data"],
	}}
	if err := unstructured.SetNestedField(typo.Object, "public", "data", "clusterStack", "variables", "networkExternalID"); err != nil {
		t.Fatal(err)
	}
	if err := cp.ApplyObjects(ctx, typo); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = envs.Delete(context.Background(), environment, metav1.DeleteOptions{}) })

	spec := clusterStackSpec("1.34", 1)
	spec["environment"] = environment
	spec["nodePools"] = spec["nodePools"].([]any)[:1]
	apply(ctx, t, newClaim(name, spec))
	xr, native := clusterOf(ctx, t, name)
	const refusal = `spec.topology.variables[networkExternalID].value: Invalid value: "\"public\"": must be of type uuid4`
	waitObject(ctx, t, xrs(), xr, "composite "+xr+" Synced=False naming the refused Cluster", func(x *unstructured.Unstructured) error {
		if s := model.ConditionOf(x, "Synced"); s.Status != "False" || !strings.Contains(s.Message, "clusterstack-cluster") {
			return fmt.Errorf("Synced %v", s)
		}
		return nil
	})
	waitFor(ctx, t, deadline, "a Warning event on "+xr+" with Cluster API's refusal", func(ctx context.Context) (bool, error) {
		evs, err := cp.Client.CoreV1().Events(metav1.NamespaceDefault).List(ctx, metav1.ListOptions{FieldSelector: "involvedObject.name=" + xr})
		if err != nil {
			return false, err
		}
		var seen []string
		for _, e := range evs.Items {
			if e.Type == corev1.EventTypeWarning && strings.Contains(e.Message, refusal) {
				t.Logf("event %s: %s", e.Reason, e.Message)
				return true, nil
			}
			seen = append(seen, e.Reason+": "+e.Message)
		}
		return false, fmt.Errorf("events %v", seen)
	})
	if c := model.ConditionOf(getClaimOrFail(ctx, t, name), "Ready"); c.Status == "True" {
		t.Errorf("claim Ready although its Cluster was refused: %v", c)
	}
	if _, err := capiClusters().Get(ctx, native, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("Cluster %s exists although Cluster API refused it (%v)", native, err)
	}

	if err := unstructured.SetNestedField(typo.Object, "ebfe5546-f09f-4f42-ab54-094e457d42ec", "data", "clusterStack", "variables", "networkExternalID"); err != nil {
		t.Fatal(err)
	}
	if err := cp.ApplyObjects(ctx, typo); err != nil {
		t.Fatal(err)
	}
	waitCluster(ctx, t, name)
	waitObject(ctx, t, xrs(), xr, "composite "+xr+" Synced=True", func(x *unstructured.Unstructured) error {
		if s := model.ConditionOf(x, "Synced"); s.Status != "True" {
			return fmt.Errorf("Synced %v", s)
		}
		return nil
	})
}

// TestClusterStackScaleAndMinorUpgradeChangeClusterInPlace: resizing a pool and a +1
// minor upgrade change the same Cluster (same UID), and Cluster API follows: the same
// MachineDeployments scale, and the upgrade moves to the next minor's ClusterClass and
// exact version, control plane first, as Cluster API sequences it. A minor whose release
// is not ready is refused with what is offered, and the Cluster stays as it is.
func TestClusterStackScaleAndMinorUpgradeChangeClusterInPlace(t *testing.T) {
	needEnv(t)
	ctx := testContext(t)
	needClusterStack(t)
	const name = "capiup"

	apply(ctx, t, newClaim(name, clusterStackSpec("1.33", 3)))
	xr, native, before := waitCluster(ctx, t, name)
	rendered(ctx, t, name)
	if got := str(before, "spec", "topology", "classRef", "name"); got != "openstack-scs2-1-33-v4" {
		t.Fatalf("classRef = %q, want openstack-scs2-1-33-v4", got)
	}
	// Cluster API refuses a version change while the control plane is still being
	// provisioned: the infrastructure comes first, and the KubeadmControlPlane reports the
	// version its first machine runs.
	pools := []string{"batch-az1", "batch-az2", "default-az1", "default-az2", "default-az3"}
	topo := waitTopology(ctx, t, cp, clusterStackNamespace, native, pools...)
	simulateInfrastructureReady(ctx, t, cp, clusterStackNamespace, native, "203.0.113.20", 6443)
	kcps := cp.Dynamic.Resource(kcpGVR).Namespace(clusterStackNamespace)
	waitObject(ctx, t, kcps, topo.controlPlane.GetName(), "KubeadmControlPlane reports v1.33.9", func(k *unstructured.Unstructured) error {
		if v, _, _ := unstructured.NestedSlice(k.Object, "status", "versions"); !strings.Contains(fmt.Sprint(v), "v1.33.9") {
			return fmt.Errorf("status.versions %v", v)
		}
		return nil
	})
	before, err := capiClusters().Get(ctx, native, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}

	changed := func(what string, cond func(*unstructured.Unstructured) error) *unstructured.Unstructured {
		t.Helper()
		start := time.Now()
		c := waitObject(ctx, t, capiClusters(), native, "Cluster "+native+": "+what, cond)
		measure(t, "claim update ("+what+") -> Cluster updated", start)
		if c.GetUID() != before.GetUID() {
			t.Fatalf("Cluster %s was replaced (UID %s, before %s)", native, c.GetUID(), before.GetUID())
		}
		if c.GetGeneration() <= before.GetGeneration() {
			t.Errorf("Cluster %s generation %d, before %d", native, c.GetGeneration(), before.GetGeneration())
		}
		return c
	}

	// Scale: 6 nodes over three zones are 2 per MachineDeployment.
	apply(ctx, t, newClaim(name, clusterStackSpec("1.33", 6)))
	scaled := changed("pool default scaled to 6", func(c *unstructured.Unstructured) error {
		for _, zone := range []string{"az1", "az2", "az3"} {
			if r := machineDeployments(c)["default-"+zone]["replicas"]; r != int64(2) {
				return fmt.Errorf("default-%s replicas %v", zone, r)
			}
		}
		return nil
	})
	if got := str(scaled, "spec", "topology", "version"); got != "v1.33.9" {
		t.Errorf("scaling changed the version to %q", got)
	}
	mds := cp.Dynamic.Resource(machineDeploymentGVR).Namespace(clusterStackNamespace)
	for _, zone := range []string{"az1", "az2", "az3"} {
		md := topo.machineDeployments["default-"+zone]
		waitObject(ctx, t, mds, md.GetName(), "Cluster API scales MachineDeployment default-"+zone+" to 2", func(m *unstructured.Unstructured) error {
			if m.GetUID() != md.GetUID() {
				return fmt.Errorf("replaced")
			}
			if r, _, _ := unstructured.NestedInt64(m.Object, "spec", "replicas"); r != 2 {
				return fmt.Errorf("spec.replicas %d", r)
			}
			return nil
		})
	}

	// +1 minor: the 1.34 ClusterClass and its exact version.
	apply(ctx, t, newClaim(name, clusterStackSpec("1.34", 6)))
	upgraded := changed("upgrade 1.33 -> 1.34", func(c *unstructured.Unstructured) error {
		if cl, v := str(c, "spec", "topology", "classRef", "name"), str(c, "spec", "topology", "version"); cl != "openstack-scs2-1-34-v3" || v != "v1.34.7" {
			return fmt.Errorf("classRef %s, version %s", cl, v)
		}
		return nil
	})
	// Cluster API upgrades the control plane first; the workers wait for it.
	start := time.Now()
	waitObject(ctx, t, kcps, topo.controlPlane.GetName(), "Cluster API moves the KubeadmControlPlane to v1.34.7", func(k *unstructured.Unstructured) error {
		if k.GetUID() != topo.controlPlane.GetUID() {
			return fmt.Errorf("replaced")
		}
		if v := str(k, "spec", "version"); v != "v1.34.7" {
			return fmt.Errorf("spec.version %s", v)
		}
		return nil
	})
	measure(t, "Cluster upgraded -> KubeadmControlPlane version bumped by Cluster API", start)
	for _, md := range topo.machineDeployments {
		m, err := mds.Get(ctx, md.GetName(), metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if v := str(m, "spec", "template", "spec", "version"); v != "v1.33.9" {
			t.Errorf("MachineDeployment %s is at %s before its control plane upgraded; Cluster API upgrades workers after the control plane", m.GetName(), v)
		}
	}
	waitObject(ctx, t, capiClusters(), native, "Cluster API reports the upgrade in progress", func(c *unstructured.Unstructured) error {
		if r := model.ConditionOf(c, "TopologyReconciled"); r.Status != "False" || r.Reason != "ClusterUpgrading" {
			return fmt.Errorf("TopologyReconciled %v", r)
		}
		return nil
	})

	// 1.35 passes admission (+1 minor), but its ClusterStackRelease is not ready: refused,
	// the message lists what is offered, the Cluster stays as it is.
	refusedBefore := refusals(t, xr)
	apply(ctx, t, newClaim(name, clusterStackSpec("1.35", 6)))
	claim := waitClaim(ctx, t, deadline, name, "Rendered=False", hasCondition(kaasv1alpha1.ConditionRendered, "False", ""))
	msg := model.ConditionOf(claim, kaasv1alpha1.ConditionRendered).Message
	for _, want := range []string{"spec.kubernetes.version", "openstack-scs2-1-35-v1", "not ready", "1.34"} {
		if !strings.Contains(msg, want) {
			t.Errorf("Rendered message does not say %q: %s", want, msg)
		}
	}
	waitRefusals(ctx, t, xr, refusedBefore)
	now, err := capiClusters().Get(ctx, native, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	assertUntouched(t, upgraded, now)

	// Back to what is offered: rendered again, still the same Cluster.
	apply(ctx, t, newClaim(name, clusterStackSpec("1.34", 6)))
	rendered(ctx, t, name)
}

func hasKey(m map[string]string, k string) bool { _, ok := m[k]; return ok }

// nested reads a list at path below m.
func nested(m map[string]any, path ...string) []any {
	l, _, _ := unstructured.NestedSlice(m, path...)
	return l
}

// sameSet reports whether a and b hold the same strings.
func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	seen := map[string]int{}
	for _, s := range a {
		seen[s]++
	}
	for _, s := range b {
		if seen[s] == 0 {
			return false
		}
		seen[s]--
	}
	return true
}

// TestClusterStackRemoteManagementCluster: on the clusterstack-remote environment the
// Cluster lives in a management cluster Crossplane does not run in. provider-kubernetes
// applies it there, where Cluster API (a second set of managers) admits and expands it;
// deleting the claim runs Cluster API's deletion there.
func TestClusterStackRemoteManagementCluster(t *testing.T) {
	needEnv(t)
	needClusterStack(t)
	ctx := testContext(t)
	const name = "remote"

	spec := clusterStackSpec("1.34", 1)
	spec["environment"] = "clusterstack-remote"
	spec["nodePools"] = spec["nodePools"].([]any)[:1]
	start := time.Now()
	apply(ctx, t, newClaimIn(labNamespace, name, spec))
	_, native := clusterOfIn(ctx, t, labNamespace, name)
	remote := mgmt.Dynamic.Resource(capiClusterGVR).Namespace(clusterStackNamespace)
	c := waitObject(ctx, t, remote, native, "Cluster "+native+" in the remote management cluster", func(*unstructured.Unstructured) error { return nil })
	if got := str(c, "spec", "topology", "classRef", "name"); got != "openstack-scs2-1-34-v3" {
		t.Errorf("remote Cluster classRef = %q, want openstack-scs2-1-34-v3 (from the remote ClusterStackReleases)", got)
	}
	waitTopology(ctx, t, mgmt, clusterStackNamespace, native, "default-az1")
	measure(t, "claim apply -> Cluster expanded by Cluster API in the remote management cluster", start)
	if _, err := cp.Dynamic.Resource(capiClusterGVR).Namespace(clusterStackNamespace).Get(ctx, native, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("Cluster %s exists in the Crossplane cluster too (%v)", native, err)
	}

	start = time.Now()
	if err := claimsIn(labNamespace).Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(ctx, t, faultDeadline, "Cluster "+native+" deleted by Cluster API in the remote management cluster", gone(remote, native))
	waitFor(ctx, t, faultDeadline, "claim "+labNamespace+"/"+name+" gone", gone(claimsIn(labNamespace), name))
	measure(t, "claim delete -> remote Cluster deleted, claim gone", start)
}
