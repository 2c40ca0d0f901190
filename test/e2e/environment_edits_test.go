package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/model"
	"github.com/SovereignCloudStack/scs-kaas/test/e2e/controlplane"
	"github.com/SovereignCloudStack/scs-kaas/test/e2e/gardensim"
)

// editedCluster is a Ready cluster of nothingTakenBack whose environment a platform team
// edits: its claim, its native object, and the environment paths the edit changes for it.
type editedCluster struct {
	claim  string
	native dynamic.ResourceInterface
	name   string
	paths  []string
}

// The values the edits set: each is valid on the real servers, so that a new cluster
// created with them is admitted.
const (
	editedLoadBalancer = "ovn"
	editedCloudProfile = "openstack-next"
	editedFloatingPool = "ext-net-2"
	editedStack        = "scs3"
	editedCPFlavor     = "SCS-4V-8"
	editedMasterFlavor = "SCS-4V-8"
	editedTemplate     = "7c1d2e3f-4a5b-4c6d-8e9f-0a1b2c3d4e5f"
	editedStackRelease = "openstack-scs3-1-34-v1"
)

var cloudProfileGVR = schema.GroupVersionResource{Group: "core.gardener.cloud", Version: "v1beta1", Resource: "cloudprofiles"}

// environmentEdits (issue 42): a platform team edits, under the Ready clusters of every
// backend, settings of their environments meant for new clusters: Gardener's load balancer
// provider, CloudProfile, floating pool and the default for machine image updates, the
// Cluster Stack and a ClusterClass variable, Magnum's master flavor and the template of the
// clusters' minor. No native object changes (UID and generation), no cluster stalls, and
// EnvironmentUpToDate names each value; a new cluster gets the new values from the real
// gardener-apiserver and Cluster API; adopting them on request applies each one its backend
// can change in place, with the effect the preview names, and keeps the others.
func environmentEdits(ctx context.Context, t *testing.T, names []string, g, c, m editedCluster, clusterNamespace string) {
	t.Helper()
	start := time.Now()
	prepareEditedValues(ctx, t)
	uids, generations := nativeIdentities(ctx, t, g, c, m)

	envs := cp.Dynamic.Resource(envGVR)
	templates, err := envs.Get(ctx, magnumEnvironment, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	list, _, _ := unstructured.NestedSlice(templates.Object, "data", "magnum", "templates")
	for _, tpl := range list {
		if tpl := tpl.(map[string]any); tpl["kubernetesVersion"] == "1.34" {
			tpl["id"] = editedTemplate
		}
	}
	edits := map[string]map[string]any{
		exampleEnvironment: {"gardener": map[string]any{"loadBalancerProvider": editedLoadBalancer, "cloudProfile": editedCloudProfile, "floatingPoolName": editedFloatingPool},
			"defaults": map[string]any{"maintenance": map[string]any{"autoUpdate": map[string]any{"machineImage": false}}}},
		clusterStackEnvironment: {"clusterStack": map[string]any{"stack": editedStack, "variables": map[string]any{"controlPlaneFlavor": editedCPFlavor}}},
		magnumEnvironment:       {"magnum": map[string]any{"masterFlavor": editedMasterFlavor, "templates": list}},
	}
	for name, data := range edits {
		original, err := envs.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { restoreEnvironmentConfig(context.Background(), t, original) })
		patch, _ := json.Marshal(map[string]any{"data": data})
		if _, err := envs.Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
	}

	// Kept: every cluster names what differs, renders, stays Ready, and its native
	// object is the same one at the same generation.
	for _, e := range []editedCluster{g, c, m} {
		waitClaim(ctx, t, faultDeadline, e.claim, "EnvironmentUpToDate names "+strings.Join(e.paths, ", "), func(o *unstructured.Unstructured) error {
			cond := model.ConditionOf(o, kaasv1alpha1.ConditionEnvironmentUpToDate)
			for _, p := range e.paths {
				if cond.Status != "False" || !strings.Contains(cond.Message, p) {
					return fmt.Errorf("EnvironmentUpToDate %v does not name %s", cond, p)
				}
			}
			for _, typ := range []string{kaasv1alpha1.ConditionRendered, "Ready"} {
				if cond := model.ConditionOf(o, typ); cond.Status != "True" {
					return fmt.Errorf("%s %v", typ, cond)
				}
			}
			return nil
		})
	}
	assertNativesUnchanged(ctx, t, "after the environments were edited", uids, generations, g, c, m)
	t.Logf("ENVEDIT (%s flavour): every cluster kept its values and named them %.1fs after the edits", flavour, time.Since(start).Seconds())

	newClustersTakeEditedValues(ctx, t, clusterNamespace)
	previewed := previewAdoption(ctx, t, map[string]string{exampleEnvironment: g.claim, clusterStackEnvironment: c.claim, magnumEnvironment: m.claim})
	for claim, want := range map[string]string{g.claim: "data.gardener.loadBalancerProvider: in place",
		c.claim: "data.clusterStack.variables: control plane rolls", m.claim: "data.magnum.templates[kubernetesVersion=1.34]: control plane rolls"} {
		if !slices.Contains(previewed[claim], want) {
			t.Errorf("kubectl scs diff -f <environment> previews adopting %v for %s, want %q among them", previewed[claim], claim, want)
		}
	}

	// Adopted on request: what the backend changes in place is taken, the rest kept.
	kcpBefore := controlPlaneTemplate(ctx, t, clusterNamespace, c.name)
	request := time.Now().UTC().Format(time.RFC3339)
	for _, e := range []editedCluster{g, c, m} {
		patch := fmt.Sprintf(`{"metadata":{"annotations":{%q:%q}}}`, kaasv1alpha1.AnnotationAdoptEnvironment, request)
		if _, err := claims().Patch(ctx, e.claim, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	adopted := map[string][]string{ // the paths each cluster takes, and keeps
		g.claim: {"data.gardener.loadBalancerProvider", "spec.maintenance.autoUpdate"},
		c.claim: {"data.clusterStack.variables"},
		m.claim: {"data.magnum.templates[kubernetesVersion=1.34]"},
	}
	kept := map[string][]string{
		g.claim: {"data.gardener.cloudProfile", "data.gardener.floatingPoolName"},
		c.claim: {"data.clusterStack.stack"},
		m.claim: {"data.magnum.masterFlavor"},
	}
	for _, e := range []editedCluster{g, c, m} {
		waitClaim(ctx, t, faultDeadline, e.claim, "adopted "+request, func(o *unstructured.Unstructured) error {
			if got := str(o, "status", "backend", "adopted"); got != request {
				return fmt.Errorf("status.backend.adopted %q", got)
			}
			cond := model.ConditionOf(o, kaasv1alpha1.ConditionEnvironmentUpToDate)
			for _, p := range adopted[e.claim] {
				if strings.Contains(cond.Message, p+":") {
					return fmt.Errorf("EnvironmentUpToDate still names %s: %s", p, cond.Message)
				}
			}
			for _, p := range kept[e.claim] {
				if !strings.Contains(cond.Message, p+": the cluster stays on") {
					return fmt.Errorf("EnvironmentUpToDate does not name %s as kept: %s", p, cond.Message)
				}
			}
			return nil
		})
	}
	// The Shoot lives in the garden: provider-kubernetes applies its Object's new manifest on
	// the Object's next reconcile, after the composite recorded the adoption.
	var shoot *unstructured.Unstructured
	waitFor(ctx, t, deadline, "Shoot "+g.name+" with the adopted load balancer provider", func(ctx context.Context) (bool, error) {
		var err error
		if shoot, err = g.native.Get(ctx, g.name, metav1.GetOptions{}); err != nil {
			return false, err
		}
		got := str(shoot, "spec", "provider", "controlPlaneConfig", "loadBalancerProvider")
		return got == editedLoadBalancer, fmt.Errorf("load balancer provider %q", got)
	})
	if got := str(shoot, "spec", "provider", "controlPlaneConfig", "loadBalancerProvider"); got != editedLoadBalancer {
		t.Errorf("the Shoot's load balancer provider is %q after the adoption, want %q", got, editedLoadBalancer)
	}
	if got, _, _ := unstructured.NestedBool(shoot.Object, "spec", "maintenance", "autoUpdate", "machineImageVersion"); got {
		t.Error("the Shoot still updates machine images on its own after the adoption")
	}
	if got := str(shoot, "spec", "cloudProfile", "name"); got == editedCloudProfile {
		t.Error("the Shoot moved to another CloudProfile, which cannot be adopted")
	}
	cluster, err := c.native.Get(ctx, c.name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := topologyVariable(cluster, "controlPlaneFlavor"); got != `"`+editedCPFlavor+`"` {
		t.Errorf("the Cluster's controlPlaneFlavor is %s after the adoption, want %q", got, editedCPFlavor)
	}
	if got := str(cluster, "spec", "topology", "classRef", "name"); strings.Contains(got, editedStack) {
		t.Errorf("the Cluster moved to ClusterClass %s, which cannot be adopted", got)
	}
	clusterV1, err := m.native.Get(ctx, m.name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := str(clusterV1, "spec", "forProvider", "clusterTemplateId"); got != editedTemplate {
		t.Errorf("the ClusterV1's template is %s after the adoption, want %s", got, editedTemplate)
	}
	if got := str(clusterV1, "spec", "forProvider", "masterFlavor"); got == editedMasterFlavor {
		t.Error("the ClusterV1's master flavor changed, which Magnum cannot do in place")
	}
	for what, uid := range uids {
		if now := nativeOf(ctx, t, what, g, c, m); now.GetUID() != uid {
			t.Errorf("%s was replaced by the adoption", what)
		}
	}

	// The control plane rolls, as previewed: Cluster API, running for real, makes the
	// control plane a new machine template with the new flavor.
	releaseCluster(ctx, t, cp, clusterNamespace, c.name)
	waitFor(ctx, t, deadline, "Cluster API rolls the control plane of "+c.name+" to a new machine template", func(ctx context.Context) (bool, error) {
		now := controlPlaneTemplate(ctx, t, clusterNamespace, c.name)
		return now != kcpBefore, fmt.Errorf("the KubeadmControlPlane still uses %s", now)
	})
	simulateClusterAvailable(ctx, t, cp, clusterNamespace, c.name)
	if _, err := gardensim.Write(ctx, garden.Client, garden.Dynamic, gardenNamespace, g.name, gardensim.Healthy); err != nil {
		t.Fatal(err)
	}
	allReady(ctx, t, names, "after the adoption")
	t.Logf("ENVEDIT (%s flavour): adopted and Ready again %.1fs after the edits", flavour, time.Since(start).Seconds())
}

// previewAdoption runs kubectl scs diff -f on each edited EnvironmentConfig and returns,
// per claim of envs (environment: claim), the settings adopting would change, as "path:
// effect". Nothing may change at once: no setting of these edits follows the environment.
func previewAdoption(ctx context.Context, t *testing.T, envs map[string]string) map[string][]string {
	t.Helper()
	cli := newCLI(t)
	out := map[string][]string{}
	for env, claim := range envs {
		cfg, err := cp.Dynamic.Resource(envGVR).Get(ctx, env, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		file := filepath.Join(t.TempDir(), env+".yaml")
		raw, _ := json.Marshal(cfg.Object)
		if err := os.WriteFile(file, raw, 0o600); err != nil {
			t.Fatal(err)
		}
		r := cli.run(ctx, "diff", "-f", file, "-o", "json")
		if r.code != 0 {
			t.Fatalf("kubectl scs diff -f %s exits %d, want 0 (nothing changes at once): %s", env, r.code, r.stderr)
		}
		var preview struct {
			Clusters []struct {
				Name     string                  `json:"name"`
				Error    string                  `json:"error"`
				Now      struct{ Objects []any } `json:"now"`
				Adopting struct {
					Settings []struct{ Path, Effect string } `json:"settings"`
					Objects  []any                           `json:"objects"`
				} `json:"adopting"`
			} `json:"clusters"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &preview); err != nil {
			t.Fatalf("kubectl scs diff -f %s -o json: %v", env, err)
		}
		for _, c := range preview.Clusters {
			if c.Name != claim {
				continue
			}
			if c.Error != "" || len(c.Now.Objects) > 0 || len(c.Adopting.Objects) == 0 {
				t.Errorf("the preview of %s for %s: error %q, %d objects change now, %d when adopted; want none now and some when adopted", env, claim, c.Error, len(c.Now.Objects), len(c.Adopting.Objects))
			}
			for _, s := range c.Adopting.Settings {
				out[claim] = append(out[claim], s.Path+": "+s.Effect)
			}
		}
	}
	return out
}

// prepareEditedValues makes the new values real where a new cluster needs them: a second
// CloudProfile in the garden, and a release of another Cluster Stack with its ClusterClass.
func prepareEditedValues(ctx context.Context, t *testing.T) {
	t.Helper()
	profiles := garden.Dynamic.Resource(cloudProfileGVR)
	p, err := profiles.Get(ctx, "openstack", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	next := &unstructured.Unstructured{Object: map[string]any{"apiVersion": p.GetAPIVersion(), "kind": p.GetKind(),
		"metadata": map[string]any{"name": editedCloudProfile}, "spec": p.Object["spec"]}}
	if err := garden.ApplyObjects(ctx, next); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = profiles.Delete(context.Background(), editedCloudProfile, metav1.DeleteOptions{}) })
	release := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "clusterstack.x-k8s.io/v1alpha1", "kind": "ClusterStackRelease",
		"metadata": map[string]any{"name": editedStackRelease, "namespace": clusterStackNamespace},
		"spec":     map[string]any{},
		"status":   map[string]any{"kubernetesVersion": "v1.34.6", "ready": true},
	}}
	if err := cp.ApplyWithStatus(ctx, managerCSO, release); err != nil {
		t.Fatal(err)
	}
	chart, err := controlplane.SCS2Chart(ctx, repoRoot, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	// The scs2 chart rendered under the other stack's release name: a ClusterClass of its
	// own name, which Cluster API admits a Cluster of.
	if err := controlplane.InstallClusterStack(ctx, cp, chart, clusterStackNamespace, editedStackRelease); err != nil {
		t.Fatal(err)
	}
}

// newClustersTakeEditedValues: clusters created after the edits get the new values, from
// the real gardener-apiserver and Cluster API's webhooks.
func newClustersTakeEditedValues(ctx context.Context, t *testing.T, clusterNamespace string) {
	t.Helper()
	cs := clusterStackSpec("1.34", 1)
	cs["nodePools"] = cs["nodePools"].([]any)[:1]
	specs := map[string]map[string]any{"new-g": smallSpec("1.34", 1, 3), "new-c": cs, "new-m": magnumSpec("1.34", "SCS-4V-8", false)}
	for name, spec := range specs {
		apply(ctx, t, newClaim(name, spec))
		t.Cleanup(func() { _ = claims().Delete(context.Background(), name, metav1.DeleteOptions{}) })
	}
	_, shoot := clusterOf(ctx, t, "new-g")
	_, cluster := clusterOf(ctx, t, "new-c")
	_, magnum := clusterOf(ctx, t, "new-m")
	clusterV1 := clusterV1s()
	if flavour == flavourNamespaced {
		clusterV1 = cp.Dynamic.Resource(namespacedClusterV1GVR).Namespace(claimNamespace)
	}
	checks := []struct {
		what string
		get  func(ctx context.Context) (*unstructured.Unstructured, error)
		want map[string]string
	}{
		{"Shoot " + shoot, func(ctx context.Context) (*unstructured.Unstructured, error) {
			return shoots().Get(ctx, shoot, metav1.GetOptions{})
		},
			map[string]string{"spec.provider.controlPlaneConfig.loadBalancerProvider": editedLoadBalancer, "spec.cloudProfile.name": editedCloudProfile,
				"spec.provider.infrastructureConfig.floatingPoolName": editedFloatingPool}},
		{"Cluster " + cluster, func(ctx context.Context) (*unstructured.Unstructured, error) {
			return cp.Dynamic.Resource(capiClusterGVR).Namespace(clusterNamespace).Get(ctx, cluster, metav1.GetOptions{})
		}, map[string]string{"spec.topology.classRef.name": editedStackRelease}},
		{"ClusterV1 " + magnum + "-cluster", func(ctx context.Context) (*unstructured.Unstructured, error) {
			return clusterV1.Get(ctx, magnum+"-cluster", metav1.GetOptions{})
		}, map[string]string{"spec.forProvider.masterFlavor": editedMasterFlavor, "spec.forProvider.clusterTemplateId": editedTemplate}},
	}
	for _, c := range checks {
		waitFor(ctx, t, deadline, c.what+" created with the edited environment's values", func(ctx context.Context) (bool, error) {
			o, err := c.get(ctx)
			if err != nil {
				return false, err
			}
			for path, want := range c.want {
				if got := str(o, strings.Split(path, ".")...); got != want {
					return false, fmt.Errorf("%s is %q, want %q", path, got, want)
				}
			}
			return true, nil
		})
	}
	if got := releasedVariable(ctx, t, clusterNamespace, cluster, "controlPlaneFlavor"); got != `"`+editedCPFlavor+`"` {
		t.Errorf("the new Cluster's controlPlaneFlavor is %s, want %q", got, editedCPFlavor)
	}
}

// releasedVariable is a topology variable of a Cluster, as JSON.
func releasedVariable(ctx context.Context, t *testing.T, ns, name, variable string) string {
	t.Helper()
	cl, err := cp.Dynamic.Resource(capiClusterGVR).Namespace(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return topologyVariable(cl, variable)
}

// topologyVariable is a variable of a Cluster's topology, as JSON; "" when it has none.
func topologyVariable(cl *unstructured.Unstructured, name string) string {
	vars, _, _ := unstructured.NestedSlice(cl.Object, "spec", "topology", "variables")
	for _, v := range vars {
		if v := v.(map[string]any); v["name"] == name {
			raw, _ := json.Marshal(v["value"])
			return string(raw)
		}
	}
	return ""
}

// controlPlaneTemplate is the machine template of a Cluster's KubeadmControlPlane: another
// one after a change means the control plane rolls.
func controlPlaneTemplate(ctx context.Context, t *testing.T, ns, cluster string) string {
	t.Helper()
	kcps, err := cp.Dynamic.Resource(kcpGVR).Namespace(ns).List(ctx, clusterLabel(cluster))
	if err != nil || len(kcps.Items) != 1 {
		t.Fatalf("the KubeadmControlPlane of %s: %d found, %v", cluster, len(kcps.Items), err)
	}
	return str(&kcps.Items[0], "spec", "machineTemplate", "spec", "infrastructureRef", "name")
}

// nativeIdentities records the UID and generation of the clusters' native objects.
func nativeIdentities(ctx context.Context, t *testing.T, clusters ...editedCluster) (map[string]types.UID, map[string]int64) {
	t.Helper()
	uids, generations := map[string]types.UID{}, map[string]int64{}
	for _, e := range clusters {
		o, err := e.native.Get(ctx, e.name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		uids[e.claim], generations[e.claim] = o.GetUID(), o.GetGeneration()
	}
	return uids, generations
}

// nativeOf is the native object of the cluster whose claim is claim.
func nativeOf(ctx context.Context, t *testing.T, claim string, clusters ...editedCluster) *unstructured.Unstructured {
	t.Helper()
	for _, e := range clusters {
		if e.claim == claim {
			o, err := e.native.Get(ctx, e.name, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			return o
		}
	}
	t.Fatalf("no cluster of claim %s", claim)
	return nil
}

// assertNativesUnchanged fails when a native object was replaced or changed its spec.
func assertNativesUnchanged(ctx context.Context, t *testing.T, when string, uids map[string]types.UID, generations map[string]int64, clusters ...editedCluster) {
	t.Helper()
	for _, e := range clusters {
		o := nativeOf(ctx, t, e.claim, clusters...)
		if o.GetUID() != uids[e.claim] || o.GetGeneration() != generations[e.claim] {
			t.Errorf("%s: the native object of %s is UID %s generation %d, was UID %s generation %d", when, e.claim, o.GetUID(), o.GetGeneration(), uids[e.claim], generations[e.claim])
		}
	}
}
