package e2e

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
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
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/yaml"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/test/e2e/backendsim"
	"github.com/SovereignCloudStack/scs-kaas/test/e2e/controlplane"
	"github.com/SovereignCloudStack/scs-kaas/test/e2e/kubeconfigprovider"
)

// recoveryNamespace is the team of the recovery test's clusters; recoveryLabel selects them
// for its simulator.
const (
	recoveryNamespace = "recovery"
	recoveryLabel     = "kaas.scs.community/recovery-e2e"
)

// recoveryCluster is one cluster of the recovery test.
type recoveryCluster struct {
	backend, example, environment, claim string
	// local says its Cluster API objects live in Crossplane's own cluster.
	local bool
	spec  map[string]any
	// edit is an edit of its environment between the loss and the recovery, of a value the
	// cluster keeps: [path under data, value].
	edit []any
	// native is its name in the backend; before its native object as it ran.
	native string
	before *unstructured.Unstructured
	// state is what a local cluster's restore keeps (localClusterState).
	state string
}

// TestRecovery (issue 46): Ready clusters lose their control plane: the Crossplane cluster
// is destroyed with its etcd (RebuildCrossplane) while the garden, the remote management
// cluster and the stand-ins keep running, and a new one gets the packages and environments
// (edited meanwhile), the backup where docs/recovery.md says one is needed, and the team's
// manifests from the same directory, as a GitOps tool applies them. The function looks for
// the natives before it manages them: the Shoot in the real gardener-apiserver, the Cluster
// in the remote management cluster where the real Cluster API managers run, found by name
// and read back from what runs; the Cluster in Crossplane's own cluster from clusterctl's
// backup, restored first; the Magnum cluster, which provider-openstack finds only by its
// UUID, from the backup kubectl scs backup wrote. Every cluster is managed
// again with the same native objects (UIDs and specs unchanged), none created twice (the
// Magnum stand-in counts creates), its kubeconfig delivered again, and the environment's
// edit reaches none of them.
//
// It destroys the control plane every other test shares, so it runs in a pass of its own
// (make e2e runs it so) and skips, saying so, beside other tests.
func TestRecovery(t *testing.T) {
	if env == nil {
		t.Skip("set SCS_KAAS_E2E=1 to run the end-to-end tests (make e2e; needs the pinned tools)")
	}
	if flavour == flavourMigration {
		t.Skip("the recovery runs on the legacy and namespaced flavours")
	}
	if !recoveryPass() {
		t.Skipf("skipped: TestRecovery destroys the control plane the other tests share; run it alone with -run '^TestRecovery$' (make e2e does), not with -run %q",
			flag.Lookup("test.run").Value.String())
	}
	ctx := testContext(t)
	if _, err := cp.Client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: recoveryNamespace}}, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	clusters := []*recoveryCluster{
		{backend: backendsim.BackendGardener, example: "gardener-regionone.yaml", environment: "gardener-recovery", claim: "shop",
			spec: smallSpec("1.34", 1, 3), edit: []any{"gardener.loadBalancerProvider", "ovn"}},
		{backend: backendsim.BackendMagnum, example: "magnum-regionone.yaml", environment: "magnum-recovery", claim: "billing",
			spec: magnumSpec("1.34", "SCS-4V-8", true), edit: []any{"magnum.keypair", "another-keypair"}},
	}
	if mgmt != nil && clusterStackErr == nil {
		spec := clusterStackSpec("1.34", 1)
		spec["nodePools"] = spec["nodePools"].([]any)[:1]
		clusters = append(clusters, &recoveryCluster{backend: backendsim.BackendClusterStack, example: "clusterstack-remote.yaml",
			environment: "clusterstack-recovery", claim: "search", spec: spec, edit: []any{"clusterStack.clusterLabels", map[string]any{"edited": "true"}}})
	}
	if clusterStackErr == nil {
		spec := clusterStackSpec("1.34", 1)
		spec["nodePools"] = spec["nodePools"].([]any)[:1]
		clusters = append(clusters, &recoveryCluster{backend: backendsim.BackendClusterStack, local: true, example: "clusterstack-regionone.yaml",
			environment: "clusterstack-local-recovery", claim: "catalog", spec: spec, edit: []any{"clusterStack.clusterLabels", map[string]any{"edited": "true"}}})
	}
	for _, c := range clusters {
		c.spec["environment"] = c.environment
		c.spec["writeConnectionSecretToRef"] = map[string]any{"name": c.claim + "-kubeconfig"}
		recoveryEnvironment(ctx, t, c, nil)
	}
	workload, err := backendsim.StartWorkload(ctx, env, "recovery-workload", "az1", "az2")
	if err != nil {
		t.Fatal(err)
	}
	sim := &backendsim.Simulator{
		Crossplane: backendsim.Clients{Kube: cp.Client, Dynamic: cp.Dynamic},
		Garden:     backendsim.Clients{Kube: garden.Client, Dynamic: garden.Dynamic},
		Workloads:  backendsim.Workloads{backendsim.BackendGardener: workload, backendsim.BackendMagnum: workload, backendsim.BackendClusterStack: workload},
		Selector:   recoveryLabel,
		NodesJoin:  true, // clusterctl move backs up only a cluster whose Machines have Nodes
		Logf:       logf,
	}
	simulate(t, sim)
	manifest := func(c *recoveryCluster) *unstructured.Unstructured {
		claim := newClaimIn(recoveryNamespace, c.claim, c.spec)
		claim.SetLabels(map[string]string{recoveryLabel: "true"})
		return claim
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), faultDeadline)
		defer cancel()
		_ = claimsIn(recoveryNamespace).DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{LabelSelector: recoveryLabel})
	})

	// Ready clusters, as the function made them from the team's Git directory.
	git := t.TempDir()
	for _, c := range clusters {
		writeManifest(t, git, c.claim+".yaml", manifest(c))
	}
	applyGit := func() {
		objs, err := controlplane.ReadManifests(git)
		if err != nil || len(objs) != len(clusters) {
			t.Fatalf("reading the team's manifests: %d of %d, %v", len(objs), len(clusters), err)
		}
		for _, o := range objs {
			apply(ctx, t, o)
		}
	}
	applyGit()
	for _, c := range clusters {
		_, c.native = clusterOfIn(ctx, t, recoveryNamespace, c.claim)
		c.before = waitRunning(ctx, t, c)
	}
	creates := map[string]int{"ClusterV1": sim.MagnumCreates("ClusterV1"), "NodegroupV1": sim.MagnumCreates("NodegroupV1")}
	if creates["ClusterV1"] != 1 || creates["NodegroupV1"] < 1 {
		t.Fatalf("the Magnum stand-in created %v before the loss; want one cluster and the gpu pool's node groups", creates)
	}

	// The backup, as a platform keeps it on a schedule.
	cli := newCLI(t)
	backup := t.TempDir()
	runIn(ctx, cli, recoveryNamespace, "backup", "-o", backup).want(t, 0)
	clusterAPIBackup := t.TempDir()
	for _, c := range clusters {
		if c.local {
			backupClusterAPI(ctx, t, sim, c, clusterAPIBackup)
		}
	}

	// The loss: the Crossplane cluster is destroyed, its etcd wiped; the garden, the remote
	// management cluster, the registry and the stand-ins stay. A new one gets the packages
	// and the example environments (Start's steps again), then what the suite prepares.
	start := time.Now()
	if err := env.RebuildCrossplane(ctx, kubeconfigprovider.ProviderProcess); err != nil {
		t.Fatalf("rebuilding the Crossplane cluster: %v", err)
	}
	if err := prepareCrossplane(ctx, false); err != nil {
		t.Fatal(err)
	}
	if _, err := cp.Client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: recoveryNamespace}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	measure(t, "Crossplane cluster destroyed -> a new one with the packages and environments installed", start)
	for _, c := range clusters {
		if _, err := claimsIn(recoveryNamespace).Get(ctx, c.claim, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Fatalf("claim %s outlived its control plane: %v", c.claim, err)
		}
		if c.local {
			continue // its Cluster API objects went with the control plane
		}
		assertUntouched(t, c.before, runningNative(ctx, t, sim, c))
	}
	// The environments as the platform keeps them in Git, edited since the backup: new
	// clusters get the edits, the recovered ones keep what they run with.
	for _, c := range clusters {
		recoveryEnvironment(ctx, t, c, c.edit)
	}

	// The recovery: Magnum's memory from the backup and the local Cluster API objects from
	// clusterctl's, then the manifests from Git.
	start = time.Now()
	for _, c := range clusters {
		if c.local {
			restoreClusterAPI(ctx, t, sim, c, clusterAPIBackup)
		}
	}
	for _, c := range clusters {
		if c.backend == backendsim.BackendMagnum {
			runIn(ctx, cli, recoveryNamespace, "restore", "-f", filepath.Join(backup, recoveryNamespace, c.claim+".yaml")).want(t, 0)
		}
	}
	applyGit()
	for _, c := range clusters {
		waitClaimIn(ctx, t, faultDeadline, recoveryNamespace, c.claim, "managed again", recovered(c))
	}
	measure(t, "clusterctl's restore, Magnum's restore, manifests applied again -> every cluster managed again, the same natives", start)
	for _, c := range clusters {
		if c.local {
			assertRestored(ctx, t, c, runningNative(ctx, t, sim, c))
		} else {
			assertUntouched(t, c.before, runningNative(ctx, t, sim, c))
		}
		claim := mustGet(ctx, t, claimsIn(recoveryNamespace), c.claim)
		if got, want := str(claim, "status", "backend", "name"), c.native; got != want {
			t.Errorf("%s recovered as %q in its backend, want %q", c.claim, got, want)
		}
		pinned, _, _ := unstructured.NestedStringMap(claim.Object, "status", "backend", "pinned")
		edited, _ := c.edit[1].(string)
		if m, ok := c.edit[1].(map[string]any); ok {
			raw, _ := json.Marshal(m)
			edited = string(raw)
		}
		if got := pinned["data."+c.edit[0].(string)]; got == edited {
			t.Errorf("%s took the environment's edit of data.%s (%v) with the recovery; it must keep what it runs with", c.claim, c.edit[0], edited)
		}
	}
	if now := map[string]int{"ClusterV1": sim.MagnumCreates("ClusterV1"), "NodegroupV1": sim.MagnumCreates("NodegroupV1")}; now["ClusterV1"] != creates["ClusterV1"] || now["NodegroupV1"] != creates["NodegroupV1"] {
		t.Errorf("the Magnum stand-in was asked to create %v, before the loss %v: the recovery made a second cluster", now, creates)
	}
	for _, c := range clusters {
		if c.backend != backendsim.BackendClusterStack || c.local {
			waitKubeconfigSecretIn(ctx, t, recoveryNamespace, c.claim+"-kubeconfig")
		}
	}

	// Import: a Shoot and a Cluster made outside this API (a recovered one's spec under
	// another name, without the API's labels) are described by kubectl scs import, refused
	// until they are handed over, then adopted unchanged; another cluster's native object
	// is not imported.
	for _, c := range clusters {
		if c.local {
			continue // the remote Cluster shows a Cluster API cluster's import
		}
		if c.backend == backendsim.BackendMagnum {
			importOutsideMagnum(ctx, t, cli, sim, c)
		} else {
			importOutside(ctx, t, cli, c)
		}
	}
}

// importOutside is the import phase of TestRecovery on a copy of cluster c's native object.
func importOutside(ctx context.Context, t *testing.T, cli *kubectlSCS, c *recoveryCluster) {
	t.Helper()
	name, claimName := "legacy-"+c.claim, "legacy-"+c.claim
	ri, _ := nativeResource(c)
	outside := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": c.before.GetAPIVersion(), "kind": c.before.GetKind(),
		"metadata": map[string]any{"name": name, "namespace": c.before.GetNamespace(),
			"annotations": c.before.GetAnnotations()},
		"spec": c.before.Object["spec"],
	}}
	created, err := ri.Create(ctx, outside, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating a %s outside the API: %v", c.before.GetKind(), err)
	}
	t.Cleanup(func() {
		_ = ri.Delete(context.Background(), name, metav1.DeleteOptions{})
	})
	dir := t.TempDir()
	file := func(base string, u *unstructured.Unstructured) string { return writeManifest(t, dir, base, u) }
	envFile := file("environment.yaml", mustGet(ctx, t, cp.Dynamic.Resource(envGVR), c.environment))
	start := time.Now()
	imported := cli.offline(ctx, "import", "-f", file("native.yaml", created), "--environment", envFile, "--in", c.environment,
		"--name", claimName, "-n", recoveryNamespace)
	imported.want(t, 0, "kubectl label "+strings.ToLower(c.before.GetKind())+" "+name+" -n "+c.before.GetNamespace()+" ")
	claim := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(imported.stdout), &claim.Object); err != nil {
		t.Fatalf("kubectl scs import printed no SCSCluster: %v", err)
	}
	if got := claim.GetAnnotations()[kaasv1alpha1.AnnotationNativeName]; got != name {
		t.Errorf("the imported SCSCluster names the native %q, want %s", got, name)
	}
	claim.SetLabels(map[string]string{recoveryLabel: "true"})
	apply(ctx, t, claim)
	waitTakeoverRefused(ctx, t, claimName)
	assertUntouched(t, created, mustGet(ctx, t, ri, name))

	// The handover the import printed, then the adoption.
	labels := handoverLabels(t, imported.stderr)
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"labels": labels}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ri.Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	waitClaimIn(ctx, t, faultDeadline, recoveryNamespace, claimName, "adopted", recovered(c))
	measure(t, "imported SCSCluster applied -> refused until handed over; handed over -> adopted ("+c.backend+")", start)
	assertUntouched(t, created, mustGet(ctx, t, ri, name))
	previewsNoChange(ctx, t, cli, claim)

	// The recovered cluster's native object carries its own cluster's identity: not imported.
	cli.offline(ctx, "import", "-f", file("other.yaml", mustGet(ctx, t, ri, c.native)), "--environment", envFile, "--in", c.environment,
		"--name", "other", "-n", recoveryNamespace).want(t, cliExitRefused, "TakeoverRefused", "belongs to another cluster")
}

// importOutsideMagnum is the import phase of TestRecovery for Magnum: a Magnum cluster the
// platform made outside this API, through a ClusterV1 of its own (provider-openstack created
// it: a copy of the recovered cluster's parameters under another name), is described by
// kubectl scs import, refused until the ClusterV1 is handed over, then adopted: the same
// UUID and parameters, no create asked of Magnum.
func importOutsideMagnum(ctx context.Context, t *testing.T, cli *kubectlSCS, sim *backendsim.Simulator, c *recoveryCluster) {
	t.Helper()
	name, claimName := "legacy-"+c.claim, "legacy-"+c.claim
	ri, own := nativeResource(c)
	ownV1 := mustGet(ctx, t, ri, own)
	forProvider, found, _ := unstructured.NestedMap(ownV1.Object, "spec", "forProvider")
	if !found {
		t.Fatalf("ClusterV1 %s has no spec.forProvider", own)
	}
	forProvider["name"] = name
	providerConfig, _, _ := unstructured.NestedMap(ownV1.Object, "spec", "providerConfigRef")
	outside := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": ownV1.GetAPIVersion(), "kind": ownV1.GetKind(),
		"metadata": map[string]any{"name": name + "-cluster", "namespace": ownV1.GetNamespace()},
		"spec":     map[string]any{"forProvider": forProvider, "providerConfigRef": providerConfig},
	}}
	if _, err := ri.Create(ctx, outside, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating a ClusterV1 outside the API: %v", err)
	}
	t.Cleanup(func() {
		_ = ri.Delete(context.Background(), outside.GetName(), metav1.DeleteOptions{})
	})
	waitFor(ctx, t, deadline, "the platform's Magnum cluster "+name+" created", func(ctx context.Context) (bool, error) {
		if err := sim.StepMagnum(ctx, ownV1.GetAPIVersion(), ownV1.GetNamespace(), outside.GetName()); err != nil {
			return false, err
		}
		o, err := ri.Get(ctx, outside.GetName(), metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		return str(o, "status", "atProvider", "id") != "", errors.New("no status.atProvider.id yet")
	})
	running := mustGet(ctx, t, ri, outside.GetName())
	before, creates := magnumIdentity(running), sim.MagnumCreates("ClusterV1")

	dir := t.TempDir()
	envFile := writeManifest(t, dir, "environment.yaml", mustGet(ctx, t, cp.Dynamic.Resource(envGVR), c.environment))
	start := time.Now()
	handover := "kubectl label clusterv1 " + outside.GetName() + " "
	if ns := ownV1.GetNamespace(); ns != "" {
		handover = "kubectl label clusterv1 " + outside.GetName() + " -n " + ns + " "
	}
	imported := cli.offline(ctx, "import", "-f", writeManifest(t, dir, "native.yaml", running), "--environment", envFile, "--in", c.environment,
		"--name", claimName, "-n", recoveryNamespace)
	imported.want(t, 0, handover)
	claim := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(imported.stdout), &claim.Object); err != nil {
		t.Fatalf("kubectl scs import printed no SCSCluster: %v", err)
	}
	claim.SetLabels(map[string]string{recoveryLabel: "true"})
	apply(ctx, t, claim)
	waitTakeoverRefused(ctx, t, claimName)
	assertUntouched(t, before, magnumIdentity(mustGet(ctx, t, ri, outside.GetName())))

	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"labels": handoverLabels(t, imported.stderr)}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ri.Patch(ctx, outside.GetName(), types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	waitClaimIn(ctx, t, faultDeadline, recoveryNamespace, claimName, "adopted", recovered(c))
	measure(t, "imported SCSCluster applied -> refused until handed over; handed over -> adopted (magnum)", start)
	adopted := mustGet(ctx, t, ri, outside.GetName())
	assertUntouched(t, before, magnumIdentity(adopted))
	if ref := metav1.GetControllerOf(adopted); ref == nil || ref.Kind == "" {
		t.Errorf("the adopted ClusterV1 has no controller: %v", adopted.GetOwnerReferences())
	}
	if now := sim.MagnumCreates("ClusterV1"); now != creates {
		t.Errorf("the Magnum stand-in was asked to create %d clusters, %d before the adoption: it made another one", now, creates)
	}
	previewsNoChange(ctx, t, cli, claim)

	// The recovered cluster's ClusterV1 carries its own cluster's identity: not imported.
	cli.offline(ctx, "import", "-f", writeManifest(t, dir, "other.yaml", ownV1), "--environment", envFile, "--in", c.environment,
		"--name", "other", "-n", recoveryNamespace).want(t, cliExitRefused, "TakeoverRefused", "belongs to another cluster")
}

// previewsNoChange fails unless kubectl scs diff, against the control plane, says the
// applied import changes nothing (exit 0).
func previewsNoChange(ctx context.Context, t *testing.T, cli *kubectlSCS, claim *unstructured.Unstructured) {
	t.Helper()
	runIn(ctx, cli, recoveryNamespace, "diff", "-f", writeManifest(t, t.TempDir(), "imported.yaml", claim)).want(t, 0)
}

// waitTakeoverRefused waits until the recovery namespace's claim is refused until its natives
// are handed over.
func waitTakeoverRefused(ctx context.Context, t *testing.T, claimName string) {
	t.Helper()
	waitClaimIn(ctx, t, deadline, recoveryNamespace, claimName, "refused until handed over", func(u *unstructured.Unstructured) error {
		for _, cond := range conditionsOf(u) {
			if cond["type"] == "Rendered" && cond["reason"] == kaasv1alpha1.ReasonTakeoverRefused {
				return nil
			}
		}
		return errors.New("not refused yet")
	})
}

// writeManifest writes u as YAML into dir and returns the file's path.
func writeManifest(t *testing.T, dir, base string, u *unstructured.Unstructured) string {
	t.Helper()
	raw, err := yaml.Marshal(u.Object)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, base)
	if err := os.WriteFile(p, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// handoverLabels are the labels of the kubectl label command kubectl scs import printed.
func handoverLabels(t *testing.T, stderr string) map[string]any {
	t.Helper()
	_, command, ok := strings.Cut(stderr, "kubectl label ")
	if !ok {
		t.Fatalf("kubectl scs import printed no handover:\n%s", stderr)
	}
	command, _, _ = strings.Cut(command, "\n")
	labels := map[string]any{}
	for _, f := range strings.Fields(command) {
		if k, v, ok := strings.Cut(f, "="); ok {
			labels[k] = v
		}
	}
	if len(labels) != 2 {
		t.Fatalf("the handover names %d labels, want the cluster's and the identity's: %s", len(labels), command)
	}
	return labels
}

// recoveryEnvironment installs the cluster's example environment under its own name, for
// the recovery namespace, with an edit when given.
func recoveryEnvironment(ctx context.Context, t *testing.T, c *recoveryCluster, edit []any) {
	t.Helper()
	data := map[string]any{"access": map[string]any{"namespaces": []any{recoveryNamespace}}}
	if edit != nil {
		data[edit[0].(string)] = edit[1]
	}
	environmentVariant(ctx, t, c.example, c.environment, data)
}

// nativeResource is where the cluster's own native object lives.
func nativeResource(c *recoveryCluster) (dynamic.ResourceInterface, string) {
	switch c.backend {
	case backendsim.BackendGardener:
		return shoots(), c.native
	case backendsim.BackendClusterStack:
		if c.local {
			return cp.Dynamic.Resource(capiClusterGVR).Namespace(localClusterNamespace()), c.native
		}
		return mgmt.Dynamic.Resource(capiClusterGVR).Namespace(clusterStackNamespace), c.native
	}
	if flavour == flavourNamespaced {
		gvr := schema.GroupVersionResource{Group: "containerinfra.openstack.m.crossplane.io", Version: "v1alpha1", Resource: "clusterv1s"}
		return cp.Dynamic.Resource(gvr).Namespace(recoveryNamespace), c.native + "-cluster"
	}
	return clusterV1s(), c.native + "-cluster"
}

// runningNative is the cluster's own native object as it is now. The Magnum cluster's is its
// UUID in the stand-in's OpenStack, which the ClusterV1 composed anew names: compared by it.
func runningNative(ctx context.Context, t *testing.T, sim *backendsim.Simulator, c *recoveryCluster) *unstructured.Unstructured {
	t.Helper()
	ri, name := nativeResource(c)
	if c.backend != backendsim.BackendMagnum {
		return mustGet(ctx, t, ri, name)
	}
	o, err := ri.Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		// The ClusterV1 went with the control plane; the Magnum cluster stays in OpenStack.
		running := sim.MagnumRunning(string(c.before.GetUID()))
		if running == nil {
			t.Fatalf("the stand-in's OpenStack runs no Magnum cluster %s any more", c.before.GetUID())
		}
		return magnumIdentity(running)
	}
	if err != nil {
		t.Fatal(err)
	}
	return magnumIdentity(o)
}

// magnumIdentity is what identifies a Magnum cluster: its UUID (the ClusterV1's external
// name), and what Magnum runs, as an object assertUntouched compares.
func magnumIdentity(clusterV1 *unstructured.Unstructured) *unstructured.Unstructured {
	out := &unstructured.Unstructured{Object: map[string]any{"kind": "MagnumCluster", "metadata": map[string]any{
		"name": clusterV1.GetName(), "uid": clusterV1.GetAnnotations()["crossplane.io/external-name"]}}}
	spec, _, _ := unstructured.NestedMap(clusterV1.Object, "spec", "forProvider")
	out.Object["spec"] = spec
	return out
}

// waitRunning waits until the cluster runs, and returns its native object.
func waitRunning(ctx context.Context, t *testing.T, c *recoveryCluster) *unstructured.Unstructured {
	t.Helper()
	ri, name := nativeResource(c)
	switch {
	case c.local:
		waitClaimIn(ctx, t, faultDeadline, recoveryNamespace, c.claim, "Ready", hasCondition("Ready", "True", ""))
		return mustGet(ctx, t, ri, name)
	case c.backend == backendsim.BackendClusterStack:
		waitTopology(ctx, t, mgmt, clusterStackNamespace, c.native, "default-az1")
		return mustGet(ctx, t, ri, name)
	case c.backend == backendsim.BackendGardener:
		waitClaimIn(ctx, t, faultDeadline, recoveryNamespace, c.claim, "Ready", hasCondition("Ready", "True", ""))
		return mustGet(ctx, t, ri, name)
	}
	waitClaimIn(ctx, t, faultDeadline, recoveryNamespace, c.claim, "Ready", hasCondition("Ready", "True", ""))
	return magnumIdentity(mustGet(ctx, t, ri, name))
}

// recovered says the cluster is managed again: its memory recorded, nothing looked for any
// more, and (where the test plays its backend) Ready.
func recovered(c *recoveryCluster) func(*unstructured.Unstructured) error {
	return func(u *unstructured.Unstructured) error {
		if created, _, _ := unstructured.NestedBool(u.Object, "status", "backend", "created"); !created {
			return errors.New("status.backend.created is not true yet")
		}
		for _, cond := range conditionsOf(u) {
			if cond["type"] == "BackendReady" && cond["reason"] == kaasv1alpha1.ReasonAdopting {
				return errors.New("still adopting: " + cond["message"].(string))
			}
		}
		if c.backend == backendsim.BackendClusterStack && !c.local {
			return nil // no controller makes the remote Cluster available here
		}
		return hasCondition("Ready", "True", "")(u)
	}
}

// waitKubeconfigSecretIn waits until the Secret in namespace holds a kubeconfig.
func waitKubeconfigSecretIn(ctx context.Context, t *testing.T, namespace, name string) {
	t.Helper()
	waitFor(ctx, t, deadline, "kubeconfig Secret "+namespace+"/"+name, func(ctx context.Context) (bool, error) {
		s, err := cp.Client.CoreV1().Secrets(namespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		return len(s.Data["kubeconfig"]) > 0, fmt.Errorf("keys %v", keysOf(s.Data))
	})
}

// runIn runs a kubectl-scs command line against the Crossplane cluster in a namespace.
func runIn(ctx context.Context, c *kubectlSCS, namespace string, args ...string) cliResult {
	c.t.Helper()
	return c.exec(c.command(ctx, false, append(args, "--kubeconfig", cp.Kubeconfig, "-n", namespace)...), args, false)
}

// recoveryPass says the run is TestRecovery's own pass (-run '^TestRecovery$').
func recoveryPass() bool { return flag.Lookup("test.run").Value.String() == "^TestRecovery$" }

// localClusterNamespace is where a local Cluster of the recovery lives: the environment's
// namespace in the legacy flavour, the composite's own in the namespaced one.
func localClusterNamespace() string {
	if flavour == flavourNamespaced {
		return recoveryNamespace
	}
	return clusterStackNamespace
}

// backupClusterAPI is the platform's backup of a local cluster's Cluster API objects, the
// steps of docs/recovery.md: the composite paused, so that Crossplane leaves the Cluster
// alone; the composite's owner reference taken off the Cluster, since clusterctl move
// skips a Cluster whose owner it does not move, and with it everything the Cluster owns;
// clusterctl move --to-directory; the composite unpaused (Crossplane puts the reference
// back).
func backupClusterAPI(ctx context.Context, t *testing.T, sim *backendsim.Simulator, c *recoveryCluster, dir string) {
	t.Helper()
	xr, native := clusterOfIn(ctx, t, recoveryNamespace, c.claim)
	composite := xrs()
	if flavour == flavourNamespaced {
		composite = claimsIn(recoveryNamespace)
	}
	pause := func(ctx context.Context, paused string) error {
		patch := fmt.Sprintf(`{"metadata":{"annotations":{"crossplane.io/paused":%s}}}`, paused)
		_, err := composite.Patch(ctx, xr, types.MergePatchType, []byte(patch), metav1.PatchOptions{})
		return err
	}
	if err := pause(ctx, `"true"`); err != nil {
		t.Fatalf("pausing composite %s: %v", xr, err)
	}
	// Unpaused also when the backup fails, so that the cleanup can delete it; after the
	// loss there is nothing to unpause.
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		_ = pause(ctx, "null")
	})
	waitFor(ctx, t, deadline, "composite "+xr+" paused", func(ctx context.Context) (bool, error) {
		o, err := composite.Get(ctx, xr, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		return hasCondition("Synced", "False", "ReconcilePaused")(o) == nil, errors.New("Crossplane has not said it paused the composite")
	})
	// The simulator paused the Cluster (no machine boots here); clusterctl refuses a paused
	// one, as a platform's running cluster is not. Unpaused, Cluster API makes the Machines
	// the pause held back, and clusterctl backs the cluster up only once each has its Node.
	sim.Hold(localClusterNamespace(), native)
	releaseCluster(ctx, t, cp, localClusterNamespace(), native)
	waitFor(ctx, t, deadline, "every Machine of Cluster "+native+" made, with its Node", func(ctx context.Context) (bool, error) {
		return machinesJoined(ctx, native)
	})
	c.state = localClusterState(ctx, t, c)
	if _, err := cp.Dynamic.Resource(capiClusterGVR).Namespace(localClusterNamespace()).Patch(ctx, native, types.JSONPatchType,
		[]byte(`[{"op":"remove","path":"/metadata/ownerReferences"}]`), metav1.PatchOptions{}); err != nil {
		t.Fatalf("taking the composite's owner reference off Cluster %s: %v", native, err)
	}
	clusterctl(ctx, t, "move", "--kubeconfig", cp.Kubeconfig, "-n", localClusterNamespace(), "--to-directory", dir)
	if err := pause(ctx, "null"); err != nil {
		t.Fatalf("unpausing composite %s: %v", xr, err)
	}
}

// restoreClusterAPI is clusterctl move --from-directory into the new control plane, before
// the team's manifests are applied; the simulator then plays the restored Cluster again.
func restoreClusterAPI(ctx context.Context, t *testing.T, sim *backendsim.Simulator, c *recoveryCluster, dir string) {
	t.Helper()
	clusterctl(ctx, t, "move", "--to-kubeconfig", cp.Kubeconfig, "--from-directory", dir)
	sim.Release(localClusterNamespace(), c.native)
}

// clusterctl runs the pinned clusterctl, without a configuration or a version check.
func clusterctl(ctx context.Context, t *testing.T, args ...string) {
	t.Helper()
	cmd := exec.CommandContext(ctx, filepath.Join(env.Tools().ClusterAPIDir, "clusterctl"), args...)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "CLUSTERCTL_DISABLE_VERSIONCHECK=true")
	start := time.Now()
	out, err := cmd.CombinedOutput()
	t.Logf("$ clusterctl %s (%.1fs)\n%s", strings.Join(args, " "), time.Since(start).Seconds(), out)
	if err != nil {
		t.Fatalf("clusterctl %s: %v", args[0], err)
	}
}

// localClusterState is what must survive a local cluster's restore, which recreates its
// objects under new UIDs: the cluster's keys (its CA, which the simulator gives every
// cluster alike, and those the KubeadmControlPlane makes: etcd's CA, the front proxy's CA
// and the service account key, which a cluster made again would not have) and its Machines
// by name (a new name would be a new server).
func localClusterState(ctx context.Context, t *testing.T, c *recoveryCluster) string {
	t.Helper()
	ns := localClusterNamespace()
	keys := sha256.New()
	for _, suffix := range []string{"-ca", "-etcd", "-proxy", "-sa"} {
		secret, err := cp.Client.CoreV1().Secrets(ns).Get(ctx, c.native+suffix, metav1.GetOptions{})
		if err != nil {
			t.Fatalf("the keys of Cluster %s: %v", c.native, err)
		}
		keys.Write(secret.Data["tls.crt"])
		keys.Write(secret.Data["tls.key"])
	}
	machines, err := cp.Dynamic.Resource(machineGVR).Namespace(ns).List(ctx, clusterLabel(c.native))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, m := range machines.Items {
		names = append(names, m.GetName())
	}
	slices.Sort(names)
	return fmt.Sprintf("keys %x, Machines %v", keys.Sum(nil)[:8], names)
}

// assertRestored fails unless a local cluster came back from clusterctl's backup as it ran:
// the same spec, keys and Machines, under new UIDs.
func assertRestored(ctx context.Context, t *testing.T, c *recoveryCluster, now *unstructured.Unstructured) {
	t.Helper()
	if !reflect.DeepEqual(now.Object["spec"], c.before.Object["spec"]) {
		t.Errorf("Cluster %s came back with another spec:\n%v\nbefore:\n%v", c.native, now.Object["spec"], c.before.Object["spec"])
	}
	if got := localClusterState(ctx, t, c); got != c.state {
		t.Errorf("Cluster %s came back with %s, before %s", c.native, got, c.state)
	}
}

// machinesJoined reports whether Cluster native has every Machine its topology wants (its
// control plane's replicas and each MachineDeployment's, an autoscaled one's as Cluster API
// set them), each with its Node.
func machinesJoined(ctx context.Context, native string) (bool, error) {
	ns := localClusterNamespace()
	cluster, err := cp.Dynamic.Resource(capiClusterGVR).Namespace(ns).Get(ctx, native, metav1.GetOptions{})
	if err != nil {
		return false, err
	}
	want, found, _ := unstructured.NestedInt64(cluster.Object, "spec", "topology", "controlPlane", "replicas")
	if !found {
		want = 1 // the KubeadmControlPlane's default
	}
	for name, md := range machineDeployments(cluster) {
		replicas, found, _ := unstructured.NestedInt64(md, "replicas")
		if !found {
			mds, err := cp.Dynamic.Resource(machineDeploymentGVR).Namespace(ns).List(ctx, metav1.ListOptions{
				LabelSelector: "cluster.x-k8s.io/cluster-name=" + native + ",topology.cluster.x-k8s.io/deployment-name=" + name})
			if err != nil {
				return false, err
			}
			if len(mds.Items) != 1 {
				return false, fmt.Errorf("%d MachineDeployments of pool %s", len(mds.Items), name)
			}
			if replicas, found, _ = unstructured.NestedInt64(mds.Items[0].Object, "spec", "replicas"); !found {
				return false, fmt.Errorf("the MachineDeployment of pool %s has no replicas yet", name)
			}
		}
		want += replicas
	}
	machines, err := cp.Dynamic.Resource(machineGVR).Namespace(ns).List(ctx, clusterLabel(native))
	if err != nil {
		return false, err
	}
	for _, m := range machines.Items {
		if str(&m, "status", "nodeRef", "name") == "" {
			return false, fmt.Errorf("Machine %s has no Node yet", m.GetName())
		}
	}
	return int64(len(machines.Items)) == want, fmt.Errorf("%d Machines, %d wanted", len(machines.Items), want)
}
