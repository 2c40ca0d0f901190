package e2e

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/test/e2e/controlplane"
)

// The Cluster Stacks backend on the live control plane. Crossplane runs in the management
// cluster itself (the example environment clusterstack-regionone is "local"), so the
// function composes CAPI Clusters next to the claims. Neither Cluster API nor the Cluster
// Stack operator runs here: the tests write the ClusterStackReleases' status as the
// operator would, and the Cluster's status and kubeconfig Secret as Cluster API would
// (TestClusterStackSimulated_*).

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

// releasesOnce installs the ClusterStackReleases of the render example once per run.
var releasesOnce struct {
	sync.Once
	err error
}

// simulateClusterStackReleases writes the ClusterStackReleases the Cluster Stack operator
// keeps for the environment's stack (examples/render/clusterstack/required/releases.yaml:
// 1.33 and 1.34 ready, 1.35 still being built), with the status the operator writes.
func simulateClusterStackReleases(ctx context.Context, t *testing.T) {
	t.Helper()
	// Not t.Fatal inside Do: the first test's failure must reach every later test too.
	releasesOnce.Do(func() {
		objs, err := controlplane.ReadManifests(filepath.Join(repoRoot, "examples", "render", "clusterstack", "required", "releases.yaml"))
		if err != nil {
			releasesOnce.err = err
			return
		}
		releasesOnce.err = cp.ApplyWithStatus(ctx, managerCSO, objs...)
	})
	if releasesOnce.err != nil {
		t.Fatalf("writing the ClusterStackReleases as the Cluster Stack operator would: %v", releasesOnce.err)
	}
}

// clusterStackSpec is a development claim on the Cluster Stacks environment: a fixed pool
// over all three zones and an autoscaled, labelled, tainted pool over two.
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
	simulateClusterStackReleases(ctx, t)
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

	claim := rendered(ctx, t, name)
	ref := fmt.Sprintf("%s/%s %s", str(claim, "status", "backend", "nativeRef", "namespace"),
		str(claim, "status", "backend", "nativeRef", "name"), str(claim, "status", "backend", "nativeRef", "kind"))
	check("claim's native reference", ref, clusterStackNamespace+"/"+native+" Cluster")
	check("claim's backend", str(claim, "status", "backend", "type"), "clusterstack")
	// Cluster API has no maintenance window: said on the claim, not silently dropped.
	if c := conditionOf(claim, "SpecSupported"); c.Status != "False" || !strings.Contains(c.Message, "spec.maintenance") {
		t.Errorf("claim SpecSupported = %v, want False naming spec.maintenance", c)
	}
}

// TestClusterStackSimulated_AvailableMakesClaimReadyWithKubeconfig: when Cluster API
// reports the Cluster Available (v1beta2) on its current generation and has written the
// kubeconfig Secret, the claim is Ready, shows the endpoint and replica counts, and its
// connection secret carries the kubeconfig. Available without the Secret is not Ready.
func TestClusterStackSimulated_AvailableMakesClaimReadyWithKubeconfig(t *testing.T) {
	needEnv(t)
	ctx := testContext(t)
	simulateClusterStackReleases(ctx, t)
	const name = "capiready"

	spec := clusterStackSpec("1.34", 3)
	spec["writeConnectionSecretToRef"] = map[string]any{"name": name + "-conn"}
	apply(ctx, t, newClaim(name, spec))
	_, native, c := waitCluster(ctx, t, name)
	rendered(ctx, t, name)

	// Cluster API: the infrastructure provider sets the endpoint, the topology controller
	// reports the control plane and workers available.
	const host, port = "203.0.113.10", 6443
	server := fmt.Sprintf("https://%s:%d", host, port)
	start := time.Now()
	endpoint := fmt.Sprintf(`{"spec":{"controlPlaneEndpoint":{"host":%q,"port":%d}}}`, host, port)
	c, err := capiClusters().Patch(ctx, native, types.MergePatchType, []byte(endpoint), metav1.PatchOptions{FieldManager: managerCAPI})
	if err != nil {
		t.Fatalf("setting the Cluster's endpoint as Cluster API would: %v", err)
	}
	gen := c.GetGeneration()
	replicas := map[string]any{"desiredReplicas": int64(1), "replicas": int64(1), "readyReplicas": int64(1), "availableReplicas": int64(1), "upToDateReplicas": int64(1)}
	workers := map[string]any{"desiredReplicas": int64(5), "replicas": int64(5), "readyReplicas": int64(5), "availableReplicas": int64(5), "upToDateReplicas": int64(5)}
	applyStatus(ctx, t, c, map[string]any{
		"phase":              "Provisioned",
		"observedGeneration": gen,
		"initialization":     map[string]any{"infrastructureProvisioned": true, "controlPlaneInitialized": true},
		"controlPlane":       replicas,
		"workers":            workers,
		"conditions": []any{
			simulatedCondition("Available", "True", "Available", "", gen),
			simulatedCondition("ControlPlaneAvailable", "True", "Available", "", gen),
			simulatedCondition("WorkersAvailable", "True", "Available", "", gen),
		},
	}, managerCAPI)

	// Available, but no kubeconfig yet: the backend is ready, the claim is not.
	claim := waitClaim(ctx, t, deadline, name, "BackendReady=True/Available", hasCondition(kaasv1alpha1.ConditionBackendReady, "True", "Available"))
	if c := conditionOf(claim, "Ready"); c.Status == "True" {
		t.Errorf("claim is Ready before Cluster API wrote the kubeconfig Secret: %v", c)
	}

	// Cluster API writes the kubeconfig Secret <cluster>-kubeconfig, key value.
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{
			Name: native + "-kubeconfig", Namespace: clusterStackNamespace,
			Labels: map[string]string{"cluster.x-k8s.io/cluster-name": native},
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: "cluster.x-k8s.io/v1beta2", Kind: "Cluster", Name: native, UID: c.GetUID(),
			}},
		},
		Type: "cluster.x-k8s.io/secret",
		Data: map[string][]byte{"value": simulatedKubeconfig(t, native, server)},
	}
	if _, err := cp.Client.CoreV1().Secrets(clusterStackNamespace).Create(ctx, secret, metav1.CreateOptions{FieldManager: managerCAPI}); err != nil {
		t.Fatalf("writing the kubeconfig Secret as Cluster API would: %v", err)
	}
	claim = waitClaim(ctx, t, deadline, name, "Ready with apiServerURL "+server, allOf(
		hasCondition("Ready", "True", ""), fieldIs(server, "status", "apiServerURL")))
	measure(t, "simulated Cluster API Available + kubeconfig Secret -> claim Ready", start)

	if got := str(claim, "status", "phase"); got != "Ready" {
		t.Errorf("claim phase = %q, want Ready", got)
	}
	if got := str(claim, "status", "controlPlane", "readyReplicas"); got != "1" {
		t.Errorf("claim control plane readyReplicas = %q, want 1", got)
	}
	assertConnectionSecret(ctx, t, name+"-conn", server)
}

// TestClusterStackScaleAndMinorUpgradeChangeClusterInPlace: resizing a pool and a +1
// minor upgrade change the same Cluster (same UID); the upgrade switches to the next
// minor's ClusterClass and exact version. A minor whose release is not ready is refused
// with what is offered, and the Cluster stays as it is.
func TestClusterStackScaleAndMinorUpgradeChangeClusterInPlace(t *testing.T) {
	needEnv(t)
	ctx := testContext(t)
	simulateClusterStackReleases(ctx, t)
	const name = "capiup"

	apply(ctx, t, newClaim(name, clusterStackSpec("1.33", 3)))
	xr, native, before := waitCluster(ctx, t, name)
	rendered(ctx, t, name)
	if got := str(before, "spec", "topology", "classRef", "name"); got != "openstack-scs2-1-33-v4" {
		t.Fatalf("classRef = %q, want openstack-scs2-1-33-v4", got)
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

	// +1 minor: the 1.34 ClusterClass and its exact version.
	apply(ctx, t, newClaim(name, clusterStackSpec("1.34", 6)))
	upgraded := changed("upgrade 1.33 -> 1.34", func(c *unstructured.Unstructured) error {
		if cl, v := str(c, "spec", "topology", "classRef", "name"), str(c, "spec", "topology", "version"); cl != "openstack-scs2-1-34-v3" || v != "v1.34.7" {
			return fmt.Errorf("classRef %s, version %s", cl, v)
		}
		return nil
	})

	// 1.35 passes admission (+1 minor), but its ClusterStackRelease is not ready: refused,
	// the message lists what is offered, the Cluster stays as it is.
	refusedBefore := refusals(t, xr)
	apply(ctx, t, newClaim(name, clusterStackSpec("1.35", 6)))
	claim := waitClaim(ctx, t, deadline, name, "Rendered=False", hasCondition(kaasv1alpha1.ConditionRendered, "False", ""))
	msg := conditionOf(claim, kaasv1alpha1.ConditionRendered).Message
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
