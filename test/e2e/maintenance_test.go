package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/model"
	"github.com/SovereignCloudStack/scs-kaas/test/e2e/controlplane"
	"github.com/SovereignCloudStack/scs-kaas/test/e2e/gardensim"
)

// The environments of TestMaintenance: the examples' Cluster Stacks and Magnum ones under
// their own names, with the Cluster Stack's releases in their own namespace, so that the
// releases and templates the test adds reach no other test's clusters.
const (
	maintenanceClusterStack = "clusterstack-maintenance"
	maintenanceMagnum       = "magnum-maintenance"
	maintenanceGardener     = "gardener-maintenance"
	maintenanceNamespace    = "kaas-maintenance"
)

// TestMaintenance: the updates a cluster makes on its own wait for its window, and are said
// before they start. With the real Cluster API managers, a newer Cluster Stack release of
// the running minor appears while the cluster is outside its window: the cluster plans it
// (condition UpdatePlanned, a Normal event, kubectl scs fleet --planned) and nothing
// changes; its window moved over now, the Cluster moves to the release and Cluster API rolls
// the KubeadmControlPlane to the new patch, then the MachineDeployments. The
// same on Magnum's stand-in when the environment points the minor at a template with a
// newer patch, and on every backend when the running minor expires (the next minor, in the
// window; Gardener with the real gardener-apiserver).
func TestMaintenance(t *testing.T) {
	needEnv(t)
	needClusterStack(t)
	ctx := testContext(t)

	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: maintenanceNamespace}}
	if _, err := cp.Client.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cp.Client.CoreV1().Namespaces().Delete(context.Background(), maintenanceNamespace, metav1.DeleteOptions{})
	})
	installRelease(ctx, t, "openstack-scs2-1-33-v4", "v1.33.9")
	installRelease(ctx, t, "openstack-scs2-1-34-v3", "v1.34.7")
	environmentVariant(ctx, t, "clusterstack-regionone.yaml", maintenanceClusterStack, map[string]any{"clusterStack.namespace": maintenanceNamespace})
	environmentVariant(ctx, t, "magnum-regionone.yaml", maintenanceMagnum, nil)
	environmentVariant(ctx, t, "gardener-regionone.yaml", maintenanceGardener, nil)

	outside, inside := windowFrom(time.Now().Add(6*time.Hour)), windowFrom(time.Now().Add(-15*time.Minute))
	const patchCS, eolCS, patchMagnum, eolShoot = "maint-patch", "maint-eol", "maint-magnum", "maint-shoot"
	csSpec := func(version string, window map[string]any) map[string]any {
		s := clusterStackSpec(version, 1)
		s["environment"] = maintenanceClusterStack
		s["nodePools"] = s["nodePools"].([]any)[:1]
		s["maintenance"] = map[string]any{"window": window}
		return s
	}
	mgSpec := func(window map[string]any) map[string]any {
		s := magnumSpec("1.34", "SCS-4V-8", false)
		s["environment"] = maintenanceMagnum
		s["maintenance"] = map[string]any{"window": window}
		return s
	}
	shootSpec := func(window map[string]any) map[string]any {
		s := smallSpec("1.34", 1, 3)
		s["environment"] = maintenanceGardener
		s["maintenance"] = map[string]any{"window": window}
		return s
	}
	apply(ctx, t, newClaim(eolShoot, shootSpec(outside)))
	apply(ctx, t, newClaim(patchCS, csSpec("1.34", outside)))
	apply(ctx, t, newClaim(eolCS, csSpec("1.33", outside)))
	apply(ctx, t, newClaim(patchMagnum, mgSpec(outside)))
	t.Cleanup(func() {
		for _, n := range []string{patchCS, eolCS, patchMagnum, eolShoot} {
			_ = claims().Delete(context.Background(), n, metav1.DeleteOptions{})
		}
	})
	clusters := cp.Dynamic.Resource(capiClusterGVR).Namespace(maintenanceNamespace)
	patchNative := runningRelease(ctx, t, patchCS, "v1.34.7", "203.0.113.60")
	eolNative := runningRelease(ctx, t, eolCS, "v1.33.9", "203.0.113.61")
	_, magnumNative, _ := waitClusterV1(ctx, t, patchMagnum)
	magnumReadyAt(ctx, t, magnumNative, "v1.34.3")
	_, shootNative, _ := waitShoot(ctx, t, eolShoot)
	if _, err := gardensim.Write(ctx, garden.Client, garden.Dynamic, gardenNamespace, shootNative, gardensim.Healthy); err != nil {
		t.Fatal(err)
	}
	waitClaim(ctx, t, faultDeadline, eolShoot, "status.kubernetes.version "+gardenerPatch["1.34"], fieldIs(gardenerPatch["1.34"], "status", "kubernetes", "version"))

	t.Run("a newer release of the minor waits for the window", func(t *testing.T) {
		before, err := clusters.Get(ctx, patchNative, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		installRelease(ctx, t, "openstack-scs2-1-34-v4", "v1.34.8")
		plannedBeforeItStarts(ctx, t, patchCS, "v1.34.7 -> v1.34.8")
		now, err := clusters.Get(ctx, patchNative, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		assertUntouched(t, before, now)

		apply(ctx, t, newClaim(patchCS, csSpec("1.34", inside)))
		start := time.Now()
		moved := waitObject(ctx, t, clusters, patchNative, "Cluster on openstack-scs2-1-34-v4 at v1.34.8", func(c *unstructured.Unstructured) error {
			if cl, v := str(c, "spec", "topology", "classRef", "name"), str(c, "spec", "topology", "version"); cl != "openstack-scs2-1-34-v4" || v != "v1.34.8" {
				return fmt.Errorf("classRef %s, version %s", cl, v)
			}
			return nil
		})
		sameClusterSamePlace(t, before, moved)
		measure(t, "window over now -> Cluster on the newer release", start)
		start = time.Now()
		rollsControlPlaneFirst(ctx, t, patchNative, "v1.34.8", "v1.34.7")
		measure(t, "Cluster on the newer release -> KubeadmControlPlane at v1.34.8 by Cluster API", start)
		waitClaimEvent(ctx, t, patchCS, corev1.EventTypeNormal, kaasv1alpha1.ReasonMaintenanceStarted, "v1.34.7 -> v1.34.8")
		waitClaim(ctx, t, deadline, patchCS, "UpdatePlanned=False/UpdateInProgress",
			hasCondition(kaasv1alpha1.ConditionUpdatePlanned, "False", kaasv1alpha1.ReasonUpdateInProgress))
		start = time.Now()
		workersFollow(ctx, t, patchNative, "v1.34.8")
		measure(t, "control plane's Machine replaced -> MachineDeployments at v1.34.8 by Cluster API", start)
	})

	t.Run("an expired minor moves to the next one in the window", func(t *testing.T) {
		patchEnvironmentData(ctx, t, maintenanceClusterStack, map[string]any{"catalog": map[string]any{
			"kubernetesVersionLifecycle": map[string]any{"1.33": map[string]any{"expirationDate": time.Now().Add(-24 * time.Hour).UTC().Format(time.RFC3339)}}}})
		before, err := clusters.Get(ctx, eolNative, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		plannedBeforeItStarts(ctx, t, eolCS, "1.33.9 -> 1.34")
		now, err := clusters.Get(ctx, eolNative, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		assertUntouched(t, before, now)

		apply(ctx, t, newClaim(eolCS, csSpec("1.33", inside)))
		upgraded := waitObject(ctx, t, clusters, eolNative, "Cluster on 1.34", func(c *unstructured.Unstructured) error {
			if v := str(c, "spec", "topology", "version"); !strings.HasPrefix(v, "v1.34.") {
				return fmt.Errorf("version %s", v)
			}
			return nil
		})
		sameClusterSamePlace(t, before, upgraded)
		rollsControlPlaneFirst(ctx, t, eolNative, "v1.34.8", "v1.33.9")
		waitClaim(ctx, t, deadline, eolCS, "status.maintenance.upgradedMinor 1.34", fieldIs("1.34", "status", "maintenance", "upgradedMinor"))
		waitClaimEvent(ctx, t, eolCS, corev1.EventTypeNormal, kaasv1alpha1.ReasonMaintenanceStarted, "1.33.9 -> 1.34")
	})

	t.Run("Gardener: an expired minor moves to the next one in the window", func(t *testing.T) {
		patchEnvironmentData(ctx, t, maintenanceGardener, map[string]any{"catalog": map[string]any{
			"kubernetesVersionLifecycle": map[string]any{"1.34": map[string]any{"expirationDate": time.Now().Add(-24 * time.Hour).UTC().Format(time.RFC3339)}}}})
		before, err := shoots().Get(ctx, shootNative, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		plannedBeforeItStarts(ctx, t, eolShoot, gardenerPatch["1.34"]+" -> 1.35")
		assertShootUntouched(ctx, t, shootNative, before)

		apply(ctx, t, newClaim(eolShoot, shootSpec(inside)))
		waitShootMatches(ctx, t, deadline, shootNative, "Shoot at "+gardenerPatch["1.35"], func(s *unstructured.Unstructured) bool {
			return str(s, "spec", "kubernetes", "version") == gardenerPatch["1.35"]
		})
		upgraded, err := shoots().Get(ctx, shootNative, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		sameClusterSamePlace(t, before, upgraded, []string{"spec", "region"}, []string{"spec", "cloudProfile"}, []string{"spec", "provider", "type"})
		waitClaim(ctx, t, deadline, eolShoot, "status.maintenance.upgradedMinor 1.35", fieldIs("1.35", "status", "maintenance", "upgradedMinor"))
		waitClaimEvent(ctx, t, eolShoot, corev1.EventTypeNormal, kaasv1alpha1.ReasonMaintenanceStarted, "-> 1.35")
	})

	t.Run("Magnum: the minor's template with a newer patch waits for the window", func(t *testing.T) {
		template := func(c *unstructured.Unstructured) string { return str(c, "spec", "forProvider", "clusterTemplateId") }
		before, err := clusterV1s().Get(ctx, magnumNative+"-cluster", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		editMagnumTemplates(ctx, t, map[string]map[string]any{"1.34": {"id": "9a8b7c6d-1.34.5", "kubeTag": "v1.34.5"}})
		plannedBeforeItStarts(ctx, t, patchMagnum, "v1.34.3 -> v1.34.5")
		now, err := clusterV1s().Get(ctx, magnumNative+"-cluster", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if template(now) != template(before) || now.GetGeneration() != before.GetGeneration() {
			t.Errorf("outside the window the ClusterV1 moved to template %s (generation %d, before %s at %d)", template(now), now.GetGeneration(), template(before), before.GetGeneration())
		}

		apply(ctx, t, newClaim(patchMagnum, mgSpec(inside)))
		moved := waitObject(ctx, t, clusterV1s(), magnumNative+"-cluster", "ClusterV1 on template 9a8b7c6d-1.34.5", func(c *unstructured.Unstructured) error {
			if got := template(c); got != "9a8b7c6d-1.34.5" {
				return fmt.Errorf("clusterTemplateId %s", got)
			}
			return nil
		})
		sameClusterSamePlace(t, before, moved, magnumPlacement...)
		waitClaimEvent(ctx, t, patchMagnum, corev1.EventTypeNormal, kaasv1alpha1.ReasonMaintenanceStarted, "v1.34.3 -> v1.34.5")
		// The stand-in reports the new patch: the update is done.
		magnumStatusAt(ctx, t, magnumNative, "v1.34.5")
		waitClaim(ctx, t, deadline, patchMagnum, "UpdatePlanned=False/NothingPlanned once Magnum reports v1.34.5",
			allOf(hasCondition(kaasv1alpha1.ConditionUpdatePlanned, "False", kaasv1alpha1.ReasonNothingPlanned), fieldIs("", "status", "maintenance", "inProgress", "to")))
	})

	t.Run("Magnum: an expired minor moves to the next one in the window", func(t *testing.T) {
		before, err := clusterV1s().Get(ctx, magnumNative+"-cluster", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		editMagnumTemplates(ctx, t, map[string]map[string]any{"1.35": {"id": "5d4c3b2a-1.35.1", "kubeTag": "v1.35.1", "networkDriver": "calico"}})
		patchEnvironmentData(ctx, t, maintenanceMagnum, map[string]any{"catalog": map[string]any{"kubernetesVersions": []any{"1.33", "1.34", "1.35"},
			"kubernetesVersionLifecycle": map[string]any{"1.34": map[string]any{"expirationDate": time.Now().Add(-24 * time.Hour).UTC().Format(time.RFC3339)}}}})
		upgraded := waitObject(ctx, t, clusterV1s(), magnumNative+"-cluster", "ClusterV1 on the 1.35 template", func(c *unstructured.Unstructured) error {
			if got := str(c, "spec", "forProvider", "clusterTemplateId"); got != "5d4c3b2a-1.35.1" {
				return fmt.Errorf("clusterTemplateId %s", got)
			}
			return nil
		})
		sameClusterSamePlace(t, before, upgraded, magnumPlacement...)
		waitClaim(ctx, t, deadline, patchMagnum, "status.maintenance.upgradedMinor 1.35", fieldIs("1.35", "status", "maintenance", "upgradedMinor"))
		waitClaimEvent(ctx, t, patchMagnum, corev1.EventTypeNormal, kaasv1alpha1.ReasonMaintenanceStarted, "1.35")
	})
}

// magnumPlacement is where a ClusterV1 says where its cluster runs.
var magnumPlacement = [][]string{{"spec", "forProvider", "region"}, {"spec", "providerConfigRef", "name"}}

// sameClusterSamePlace fails unless an automatic update left the cluster the same object
// (its UID) where it was (the values at placement, and the namespace): an update of a
// cluster's own never replaces or moves it.
func sameClusterSamePlace(t *testing.T, before, after *unstructured.Unstructured, placement ...[]string) {
	t.Helper()
	if after.GetUID() != before.GetUID() || after.GetNamespace() != before.GetNamespace() {
		t.Errorf("%s %s/%s was replaced or moved by an automatic update: UID %s, was %s", after.GetKind(), after.GetNamespace(), after.GetName(), after.GetUID(), before.GetUID())
	}
	for _, path := range placement {
		was, _, _ := unstructured.NestedFieldNoCopy(before.Object, path...)
		now, _, _ := unstructured.NestedFieldNoCopy(after.Object, path...)
		if was == nil || !reflect.DeepEqual(was, now) {
			t.Errorf("%s %s: %s is %v after an automatic update, was %v", after.GetKind(), after.GetName(), strings.Join(path, "."), now, was)
		}
	}
}

// plannedBeforeItStarts waits until the claim says the update it plans, before it starts:
// in its UpdatePlanned condition, in a Normal event, and in kubectl scs fleet --planned.
func plannedBeforeItStarts(ctx context.Context, t *testing.T, claim, update string) {
	t.Helper()
	start := time.Now()
	defer measure(t, "update planned -> said on "+claim+" (condition, event, fleet)", start)
	c := waitClaim(ctx, t, deadline, claim, "UpdatePlanned=True/OutsideWindow naming "+update, func(o *unstructured.Unstructured) error {
		cond := model.ConditionOf(o, kaasv1alpha1.ConditionUpdatePlanned)
		if cond.Status != "True" || cond.Reason != kaasv1alpha1.ReasonOutsideWindow || !strings.Contains(cond.Message, update) {
			return fmt.Errorf("UpdatePlanned %v", cond)
		}
		return nil
	})
	if str(c, "status", "maintenance", "planned", "notBefore") == "" {
		t.Errorf("status.maintenance.planned says no time: %v", c.Object["status"])
	}
	waitClaimEvent(ctx, t, claim, corev1.EventTypeNormal, kaasv1alpha1.ReasonUpdatePlanned, update)
	r := newCLI(t).run(ctx, "fleet", "--planned", "-o", "json")
	var report struct {
		Clusters []struct {
			Namespace  string `json:"namespace"`
			Name       string `json:"name"`
			NextUpdate string `json:"nextUpdate"`
		} `json:"clusters"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &report); err != nil {
		t.Fatalf("kubectl scs fleet --planned -o json: %v\n%s", err, r.stderr)
	}
	for _, cl := range report.Clusters {
		if cl.Namespace == claimNamespace && cl.Name == claim {
			if !strings.Contains(cl.NextUpdate, update) {
				t.Errorf("kubectl scs fleet --planned shows %s with %q, want %q", claim, cl.NextUpdate, update)
			}
			return
		}
	}
	t.Errorf("kubectl scs fleet --planned does not list %s: %s", claim, r.stdout)
}

// waitClaimEvent waits for an event of the given type and reason, whose message contains
// what, on the claim. Its composite gets the same event, but client-go's event recorder
// drops events of an object that said much within minutes (its spam filter lets one through
// every five minutes after a burst of 25), and a composite says its warnings on every call.
func waitClaimEvent(ctx context.Context, t *testing.T, claim, typ, reason, what string) {
	t.Helper()
	waitEventOn(ctx, t, claimNamespace, "SCSCluster", claim, typ, reason, what)
}

// rollsControlPlaneFirst waits until Cluster API moves the Cluster's KubeadmControlPlane to
// version, while its MachineDeployments stay at was: the workers follow once the control
// plane has rolled (which needs machines that boot, not in this e2e).
func rollsControlPlaneFirst(ctx context.Context, t *testing.T, native, version, was string) {
	t.Helper()
	kcp := waitControlPlane(ctx, t, native, "at "+version, func(kcp *unstructured.Unstructured) error {
		if v := str(kcp, "spec", "version"); v != version {
			return fmt.Errorf("spec.version %s", v)
		}
		return nil
	}).GetName()
	mds, err := cp.Dynamic.Resource(machineDeploymentGVR).Namespace(maintenanceNamespace).List(ctx, clusterLabel(native))
	if err != nil || len(mds.Items) == 0 {
		t.Fatalf("MachineDeployments of %s: %v", native, err)
	}
	for _, md := range mds.Items {
		if v := str(&md, "spec", "template", "spec", "version"); v != was {
			t.Errorf("MachineDeployment %s is at %s while KubeadmControlPlane %s rolls; Cluster API upgrades workers after the control plane", md.GetName(), v, kcp)
		}
	}
}

// workersFollow finishes the control plane's roll and waits until Cluster API moves every
// MachineDeployment of the Cluster to version. The control plane's Machine cannot roll here
// (its Node never joins, so KubeadmControlPlane's preflight holds the roll): the test deletes
// it, as a roll would, and KubeadmControlPlane makes its replacement at version. Once the
// control plane reports version, the topology controller upgrades the workers.
func workersFollow(ctx context.Context, t *testing.T, native, version string) {
	t.Helper()
	machines := cp.Dynamic.Resource(machineGVR).Namespace(maintenanceNamespace)
	controlPlane := metav1.ListOptions{LabelSelector: "cluster.x-k8s.io/cluster-name=" + native + ",cluster.x-k8s.io/control-plane"}
	old, err := machines.List(ctx, controlPlane)
	if err != nil || len(old.Items) == 0 {
		t.Fatalf("the control plane's Machines of %s: %v", native, err)
	}
	for _, m := range old.Items {
		if str(&m, "spec", "version") == version {
			continue // made by the roll already
		}
		if err := machines.Delete(ctx, m.GetName(), metav1.DeleteOptions{}); err != nil {
			t.Fatalf("deleting Machine %s as the roll would: %v", m.GetName(), err)
		}
	}
	waitControlPlane(ctx, t, native, "reporting its Machines at "+version, func(kcp *unstructured.Unstructured) error {
		if v, _, _ := unstructured.NestedSlice(kcp.Object, "status", "versions"); len(v) != 1 || !strings.Contains(fmt.Sprint(v), version) {
			return fmt.Errorf("status.versions %v", v)
		}
		return nil
	})
	mds := cp.Dynamic.Resource(machineDeploymentGVR).Namespace(maintenanceNamespace)
	waitFor(ctx, t, deadline, "the MachineDeployments of "+native+" at "+version, func(ctx context.Context) (bool, error) {
		list, err := mds.List(ctx, clusterLabel(native))
		if err != nil || len(list.Items) == 0 {
			return false, fmt.Errorf("MachineDeployments: %v", err)
		}
		for _, md := range list.Items {
			if v := str(&md, "spec", "template", "spec", "version"); v != version {
				return false, fmt.Errorf("MachineDeployment %s at %s; Cluster TopologyReconciled %v", md.GetName(), v,
					clusterCondition(ctx, cp, maintenanceNamespace, native, "TopologyReconciled"))
			}
		}
		return true, nil
	})
}

// runningRelease waits until the claim's Cluster runs version with its control plane (the
// KubeadmControlPlane reports it), so that Cluster API takes a version change.
func runningRelease(ctx context.Context, t *testing.T, claim, version, host string) string {
	t.Helper()
	_, native := clusterOf(ctx, t, claim)
	waitTopology(ctx, t, cp, maintenanceNamespace, native, "default-az1") // one node: one zone
	simulateInfrastructureReady(ctx, t, cp, maintenanceNamespace, native, host, 6443)
	waitControlPlane(ctx, t, native, "reporting "+version, func(kcp *unstructured.Unstructured) error {
		if v, _, _ := unstructured.NestedSlice(kcp.Object, "status", "versions"); !strings.Contains(fmt.Sprint(v), version) {
			return fmt.Errorf("status.versions %v", v)
		}
		return nil
	})
	return native
}

// waitControlPlane waits until the one KubeadmControlPlane of Cluster native passes check
// (its error says what the control plane shows instead) and returns it.
func waitControlPlane(ctx context.Context, t *testing.T, native, what string, check func(*unstructured.Unstructured) error) *unstructured.Unstructured {
	t.Helper()
	var kcp *unstructured.Unstructured
	waitFor(ctx, t, deadline, "the KubeadmControlPlane of "+native+" "+what, func(ctx context.Context) (bool, error) {
		list, err := cp.Dynamic.Resource(kcpGVR).Namespace(maintenanceNamespace).List(ctx, clusterLabel(native))
		if err != nil || len(list.Items) != 1 {
			return false, fmt.Errorf("KubeadmControlPlanes: %v", err)
		}
		kcp = &list.Items[0]
		err = check(kcp)
		return err == nil, err
	})
	return kcp
}

// installRelease makes a ClusterStackRelease of the maintenance namespace ready, with its
// ClusterClass from the scs2 chart, as the Cluster Stack operator does.
func installRelease(ctx context.Context, t *testing.T, name, version string) {
	t.Helper()
	release := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "clusterstack.x-k8s.io/v1alpha1", "kind": "ClusterStackRelease",
		"metadata": map[string]any{"name": name, "namespace": maintenanceNamespace},
		"spec":     map[string]any{},
		"status":   map[string]any{"kubernetesVersion": version, "ready": true},
	}}
	if err := cp.ApplyWithStatus(ctx, managerCSO, release); err != nil {
		t.Fatal(err)
	}
	chart, err := controlplane.SCS2Chart(ctx, repoRoot, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	if err := controlplane.InstallClusterStack(ctx, cp, chart, maintenanceNamespace, name); err != nil {
		t.Fatal(err)
	}
}

// editMagnumTemplates sets fields of the maintenance Magnum environment's templates by
// minor, adding a template for a minor it has none for, as a platform team repoints one.
func editMagnumTemplates(ctx context.Context, t *testing.T, edits map[string]map[string]any) {
	t.Helper()
	cfg, err := cp.Dynamic.Resource(envGVR).Get(ctx, maintenanceMagnum, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	list, _, _ := unstructured.NestedSlice(cfg.Object, "data", "magnum", "templates")
	for minor, fields := range edits {
		found := false
		for _, tpl := range list {
			if tpl := tpl.(map[string]any); tpl["kubernetesVersion"] == minor {
				for k, v := range fields {
					tpl[k] = v
				}
				found = true
			}
		}
		if !found {
			tpl := map[string]any{"kubernetesVersion": minor}
			for k, v := range fields {
				tpl[k] = v
			}
			list = append(list, tpl)
		}
	}
	patchEnvironmentData(ctx, t, maintenanceMagnum, map[string]any{"magnum": map[string]any{"templates": list}})
}

// windowFrom is a maintenance window of two hours that begins at begin, in UTC.
func windowFrom(begin time.Time) map[string]any {
	b := begin.UTC()
	return map[string]any{"begin": b.Format("150405") + "+0000", "end": b.Add(2*time.Hour).Format("150405") + "+0000"}
}
