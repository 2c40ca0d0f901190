package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TestDiffOffline previews edits of a Ready Gardener cluster from files, as a CI pipeline
// does: what each edit does, the native object's unified diff, and kubectl diff's exit codes.
func TestDiffOffline(t *testing.T) {
	dir := repo + "/examples/render/gardener"
	xr, err := os.ReadFile(dir + "/xr.yaml")
	if err != nil {
		t.Fatal(err)
	}
	edited := func(t *testing.T, pairs ...string) string {
		path := filepath.Join(t.TempDir(), "edited.yaml")
		if err := os.WriteFile(path, []byte(strings.NewReplacer(pairs...).Replace(string(xr))), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	offline := func(file string, more ...string) []string {
		return append([]string{"diff", "-f", file, "--offline", "--environment", repo + "/examples/environments",
			"--observed", dir + "/xr.yaml", "--observed", dir + "/observed-ready.yaml", "--required", dir + "/required-ready"}, more...)
	}
	const note = "Note: namespace team1 was not given (--required): rendered as if it had no labels but kubernetes.io/metadata.name, which matters to environments that admit namespaces by label\n"
	for _, tc := range []struct {
		name string
		args func(t *testing.T) []string
		// summary is what stdout says before the first native object's diff.
		summary string
		// diff are lines the unified diffs must hold.
		diff   []string
		stderr string
		code   int
	}{
		{
			name:    "nothing edited: nothing changes",
			args:    func(t *testing.T) []string { return offline(edited(t)) },
			summary: "XSCSCluster shop-x7k2p on gardener: nothing changes\n",
			stderr:  note,
			code:    ExitOK,
		},
		{
			name: "a machine type and an autoscaling maximum",
			args: func(t *testing.T) []string {
				return offline(edited(t, "machineType: SCS-4V-8", "machineType: SCS-8V-32", "max: 9}", "max: 12}"))
			},
			summary: "XSCSCluster shop-x7k2p on gardener:\n" +
				"  in place: spec.nodePools[general].autoscaling.max 9 -> 12\n" +
				"  rolls the nodes of pool system: spec.nodePools[system].machineType SCS-4V-8 -> SCS-8V-32\n",
			diff:   []string{"--- Shoot shop-6bru6k (now)", "+++ Shoot shop-6bru6k (edited)", "-        type: SCS-4V-8", "+        type: SCS-8V-32", "-      maximum: 9", "+      maximum: 12"},
			stderr: note,
			code:   ExitError,
		},
		{
			name: "a minor upgrade rolls the control plane",
			args: func(t *testing.T) []string { return offline(edited(t, `version: "1.34"`, `version: "1.35"`)) },
			summary: "XSCSCluster shop-x7k2p on gardener:\n" +
				"  control plane rolls: spec.kubernetes.version 1.34 -> 1.35 (Gardener updates the control plane, then rolls the nodes of every pool to the new minor)\n",
			diff:   []string{"-    version: 1.34.5", "+    version: \"1.35\""},
			stderr: note,
			code:   ExitError,
		},
		{
			name: "a change of zones is refused with the function's message",
			args: func(t *testing.T) []string {
				return offline(edited(t, "  - name: system\n", "  - name: system\n    zones: [az1]\n"))
			},
			summary: "XSCSCluster shop-x7k2p on gardener: refused: XSCSCluster \"shop-x7k2p\" is invalid (1 problem): spec.nodePools[0].zones: Forbidden: the zones of an existing node pool cannot change",
			stderr:  note + "error: refused (InvalidSpec): ",
			code:    ExitRefused,
		},
		{
			name: "offline without the cluster as it is",
			args: func(t *testing.T) []string {
				return []string{"diff", "-f", edited(t), "--offline", "--environment", repo + "/examples/environments"}
			},
			stderr: "error: --observed has no SCSCluster \"shop-x7k2p\" as it is: add it (kubectl get scscluster shop-x7k2p -o yaml)\n",
			code:   ExitUsage,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, flavourUnknown)
			stdout, stderr, code := h.run("", tc.args(t)...)
			summary, diffs, _ := strings.Cut(stdout, "\n\n")
			if tc.diff == nil {
				summary = stdout
			} else {
				summary += "\n"
			}
			if tc.code == ExitRefused {
				summary = summary[:min(len(summary), len(tc.summary))]
				stderr = stderr[:min(len(stderr), len(tc.stderr))]
				if !strings.Contains(stdout, "spec.nodePools[0].zones") {
					t.Errorf("the refusal does not name spec.nodePools[0].zones: %s", stdout)
				}
			}
			if d := cmp.Diff(tc.summary, summary); d != "" {
				t.Errorf("summary (-want +got):\n%s", d)
			}
			for _, line := range tc.diff {
				if !strings.Contains(diffs, line+"\n") {
					t.Errorf("the diffs lack the line %q:\n%s", line, diffs)
				}
			}
			if d := cmp.Diff(tc.stderr, stderr); d != "" {
				t.Errorf("stderr (-want +got):\n%s", d)
			}
			if code != tc.code {
				t.Errorf("exit code %d, want %d", code, tc.code)
			}
			if n := len(h.dyn.Actions()); n != 0 {
				t.Errorf("diff --offline sent %d requests to the API server, want none", n)
			}
		})
	}
}

// TestDiffJSON: -o json carries each edit's effect and the native field paths for tools.
func TestDiffJSON(t *testing.T) {
	dir := repo + "/examples/render/gardener"
	xr, err := os.ReadFile(dir + "/xr.yaml")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "edited.yaml")
	if err := os.WriteFile(path, []byte(strings.Replace(string(xr), "count: 3", "count: 4", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, flavourUnknown)
	stdout, _, code := h.run("", "diff", "-f", path, "--offline", "--environment", repo+"/examples/environments",
		"--observed", dir+"/xr.yaml,"+dir+"/observed-ready.yaml", "--required", dir+"/required-ready", "-o", "json")
	if code != ExitError {
		t.Errorf("exit code %d, want %d (changes)", code, ExitError)
	}
	var got struct {
		Changes bool `json:"changes"`
		Edits   []struct {
			Path, Effect, Summary string
		} `json:"edits"`
		Objects []struct {
			Kind, Action string
			Fields       []struct{ Path, From, To string }
		} `json:"objects"`
	}
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatalf("%v:\n%s", err, stdout)
	}
	want := []struct{ Path, Effect, Summary string }{{
		Path: "spec.nodePools[system].count", Effect: "in place",
		Summary: "in place: spec.nodePools[system].count 3 -> 4",
	}}
	if d := cmp.Diff(want, got.Edits); d != "" || !got.Changes {
		t.Errorf("edits (-want +got):\n%s", d)
	}
	if len(got.Objects) != 1 || got.Objects[0].Kind != "Shoot" || got.Objects[0].Action != "update" {
		t.Fatalf("objects: %+v", got.Objects)
	}
	var paths []string
	for _, f := range got.Objects[0].Fields {
		paths = append(paths, f.Path+" "+f.From+" -> "+f.To)
	}
	if d := cmp.Diff([]string{"spec.provider.workers[system].maximum 3 -> 4", "spec.provider.workers[system].minimum 3 -> 4"}, paths); d != "" {
		t.Errorf("native fields (-want +got):\n%s", d)
	}
}

// TestDiffLive previews an edit against the control plane in both flavours: it reads the
// SCSCluster (for a legacy claim, the composite Crossplane made of it, whose status the
// function sees), the composed resources it lists and the environments, and previews the
// same as offline.
func TestDiffLive(t *testing.T) {
	dir := repo + "/examples/render/gardener"
	read := func(path string) []*unstructured.Unstructured {
		objs, err := readManifests(nil, path)
		if err != nil {
			t.Fatal(err)
		}
		return objs
	}
	refsOf := func(objs []*unstructured.Unstructured) []any {
		var refs []any
		for _, o := range objs {
			refs = append(refs, map[string]any{"apiVersion": o.GetAPIVersion(), "kind": o.GetKind(), "name": o.GetName()})
		}
		return refs
	}
	// legacy: a claim bound to the example's composite, which lists the composed resources.
	legacy := func(t *testing.T) (*unstructured.Unstructured, []*unstructured.Unstructured, []*metav1.APIResourceList) {
		xr := read(dir + "/xr.yaml")[0]
		observed := read(dir + "/observed-ready.yaml")
		must(t, unstructured.SetNestedSlice(xr.Object, refsOf(observed), "spec", "resourceRefs"))
		claim := xr.DeepCopy()
		claim.SetKind("SCSCluster")
		claim.SetNamespace("team1")
		claim.SetName("shop")
		must(t, unstructured.SetNestedField(claim.Object, map[string]any{"name": xr.GetName()}, "spec", "resourceRef"))
		delete(claim.Object, "status") // the function sees the composite's
		return claim, append([]*unstructured.Unstructured{xr}, observed...), []*metav1.APIResourceList{
			{GroupVersion: "kubernetes.crossplane.io/v1alpha2", APIResources: []metav1.APIResource{{Name: "objects", Kind: "Object"}}},
			{GroupVersion: "gardener.kaas.scs.community/v1alpha1", APIResources: []metav1.APIResource{{Name: "adminkubeconfigs", Kind: "AdminKubeconfig"}}},
		}
	}
	// namespaced: the composite is the SCSCluster, its composed resources the v2 kinds in
	// its namespace.
	namespaced := func(t *testing.T) (*unstructured.Unstructured, []*unstructured.Unstructured, []*metav1.APIResourceList) {
		cluster := read(dir + "/xr.yaml")[0]
		cluster.SetKind("SCSCluster")
		cluster.SetNamespace("team1")
		cluster.SetName("shop")
		cluster.SetLabels(nil)
		must(t, unstructured.SetNestedField(cluster.Object, map[string]any{"name": "shop-kubeconfig"}, "spec", "writeConnectionSecretToRef"))
		observed := read(dir + "/observed-ready.yaml")
		for _, o := range observed {
			o.SetAPIVersion(strings.Replace(strings.Replace(o.GetAPIVersion(), "kubernetes.crossplane.io/v1alpha2", "kubernetes.m.crossplane.io/v1alpha1", 1),
				"gardener.kaas.scs.community", "gardener.m.kaas.scs.community", 1))
			o.SetNamespace("team1")
		}
		must(t, unstructured.SetNestedSlice(cluster.Object, refsOf(observed), "spec", "crossplane", "resourceRefs"))
		return cluster, observed, []*metav1.APIResourceList{
			{GroupVersion: "kubernetes.m.crossplane.io/v1alpha1", APIResources: []metav1.APIResource{{Name: "objects", Kind: "Object", Namespaced: true}}},
			{GroupVersion: "gardener.m.kaas.scs.community/v1alpha1", APIResources: []metav1.APIResource{{Name: "adminkubeconfigs", Kind: "AdminKubeconfig", Namespaced: true}}},
		}
	}
	for _, tc := range []struct {
		flavour flavour
		objects func(t *testing.T) (*unstructured.Unstructured, []*unstructured.Unstructured, []*metav1.APIResourceList)
	}{{flavourLegacy, legacy}, {flavourNamespaced, namespaced}} {
		t.Run(string(tc.flavour), func(t *testing.T) {
			cluster, composed, kinds := tc.objects(t)
			objs := append([]*unstructured.Unstructured{cluster}, composed...)
			h := newHarness(t, tc.flavour, append(objs, read(repo+"/examples/environments")...)...)
			h.disco.Resources = append(append(h.disco.Resources, kinds...),
				&metav1.APIResourceList{GroupVersion: "apiextensions.crossplane.io/v1beta1", APIResources: []metav1.APIResource{{Name: "environmentconfigs", Kind: "EnvironmentConfig"}}},
				&metav1.APIResourceList{GroupVersion: "v1", APIResources: []metav1.APIResource{{Name: "namespaces", Kind: "Namespace"}, {Name: "secrets", Kind: "Secret", Namespaced: true}}},
			)
			edited := cluster.DeepCopy()
			pools, _, _ := unstructured.NestedSlice(edited.Object, "spec", "nodePools")
			pools[0].(map[string]any)["machineType"] = "SCS-8V-32"
			must(t, unstructured.SetNestedSlice(edited.Object, pools, "spec", "nodePools"))
			must(t, unstructured.SetNestedField(edited.Object, "1.35", "spec", "kubernetes", "version"))
			delete(edited.Object, "status")
			raw, err := json.Marshal(edited.Object)
			if err != nil {
				t.Fatal(err)
			}
			stdout, stderr, code := h.run(string(raw), "diff", "-f", "-")
			summary, _, _ := strings.Cut(stdout, "\n\n")
			want := "SCSCluster team1/shop on gardener:\n" +
				"  control plane rolls: spec.kubernetes.version 1.34 -> 1.35 (Gardener updates the control plane, then rolls the nodes of every pool to the new minor)\n" +
				"  rolls the nodes of pool system: spec.nodePools[system].machineType SCS-4V-8 -> SCS-8V-32"
			if d := cmp.Diff(want, summary); d != "" {
				t.Errorf("summary (-want +got):\n%s\nstderr: %s", d, stderr)
			}
			// The Shoot the cluster has is updated under its name, from the patch it runs:
			// the observed Shoot was read (rendered without it, the version would read "1.34").
			for _, line := range []string{"\nShoot shop-6bru6k (gardener-shoot): update\n", "\n-    version: 1.34.5\n", "\n+    version: \"1.35\"\n"} {
				if !strings.Contains(stdout, line) {
					t.Errorf("the preview lacks %q:\n%s", line, stdout)
				}
			}
			if code != ExitError {
				t.Errorf("exit code %d, want %d (changes); stderr: %s", code, ExitError, stderr)
			}
		})
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestDiffAdoption: an SCSCluster with a new value of kaas.scs.community/adopt-environment
// is previewed as adopting its environment's values, each with its effect; what its backend
// cannot change in place is not taken.
func TestDiffAdoption(t *testing.T) {
	raw, err := os.ReadFile(editTestdata + "/clusters/shop.yaml")
	if err != nil {
		t.Fatal(err)
	}
	manifest, _, _ := strings.Cut(string(raw), "status:\n")
	manifest = strings.Replace(manifest, "  name: shop-x7k2p\n", "  name: shop-x7k2p\n  annotations:\n    kaas.scs.community/adopt-environment: \"2026-12-01T12:00:00Z\"\n", 1)
	path := filepath.Join(t.TempDir(), "shop.yaml")
	if err := os.WriteFile(path, []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	gardener := repo + "/examples/render/gardener"
	h := newHarness(t, flavourUnknown)
	stdout, stderr, code := h.run("", "diff", "-f", path, "--offline", "--environment", editTestdata+"/gardener-regionone.yaml",
		"--observed", editTestdata+"/clusters/shop.yaml,"+gardener+"/observed-ready.yaml", "--required", gardener+"/required-ready")
	const want = `XSCSCluster shop-x7k2p on gardener:
  in place: data.gardener.loadBalancerProvider amphora -> ovn (every Service of type LoadBalancer gets a new load balancer, and with it a new address)

Shoot shop-6bru6k (gardener-shoot): update
--- Shoot shop-6bru6k (now)
+++ Shoot shop-6bru6k (edited)
@@ -33,7 +33,7 @@
     controlPlaneConfig:
       apiVersion: openstack.provider.extensions.gardener.cloud/v1alpha1
       kind: ControlPlaneConfig
-      loadBalancerProvider: amphora
+      loadBalancerProvider: ovn
     infrastructureConfig:
       apiVersion: openstack.provider.extensions.gardener.cloud/v1alpha1
       floatingPoolName: ext-net
`
	if d := cmp.Diff(want, stdout); d != "" {
		t.Errorf("stdout (-want +got):\n%s", d)
	}
	if stderr != "" || code != ExitError {
		t.Errorf("exit code %d, want %d (changes); stderr %q", code, ExitError, stderr)
	}
}

// TestDiffMaintenance: the preview judges the cluster's maintenance window by the CLI's
// clock (2026-12-01T12:00Z in tests), as the function judges it by its own. The Cluster
// Stacks example runs release v3 (v1.34.7), and testdata/maintenance adds v4 (v1.34.8), the newest ready one: an
// update the cluster plans for its derived window 02:00-03:00 UTC. A window that holds the
// clock starts it at once; a later one moves it, and no native object changes.
func TestDiffMaintenance(t *testing.T) {
	dir := repo + "/examples/render/clusterstack"
	xr, err := os.ReadFile(dir + "/xr.yaml")
	if err != nil {
		t.Fatal(err)
	}
	withWindow := func(t *testing.T, begin, end string) string {
		path := filepath.Join(t.TempDir(), "edited.yaml")
		edited := strings.Replace(string(xr), "  kubernetes:\n", "  maintenance:\n    window: {begin: \""+begin+"\", end: \""+end+"\"}\n  kubernetes:\n", 1)
		if err := os.WriteFile(path, []byte(edited), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	offline := func(file string, more ...string) []string {
		return append([]string{"diff", "-f", file, "--offline", "--environment", repo + "/examples/environments",
			"--observed", dir + "/xr.yaml", "--observed", dir + "/observed-ready.yaml",
			"--required", dir + "/required", "--required", dir + "/required-ready", "--required", "testdata/maintenance/newer-release.yaml"}, more...)
	}
	const planned = "v1.34.7 -> v1.34.8 in the window 02:00-03:00 UTC (derived: the cluster names no window), from Wed, 02 Dec 2026 02:00:00 UTC"
	for _, tc := range []struct {
		name    string
		args    func(t *testing.T) []string
		summary string
		// diff are lines the unified diffs must hold; none: no native object changes.
		diff []string
	}{
		{
			name: "a window that holds the clock starts the update",
			args: func(t *testing.T) []string { return offline(withWindow(t, "110000+0000", "130000+0000")) },
			summary: "XSCSCluster shop-9q8rz on clusterstack:\n" +
				"  in place: spec.maintenance.window.begin (unset) -> 110000+0000\n" +
				"  in place: spec.maintenance.window.end (unset) -> 130000+0000\n" +
				"  its own update: " + planned + "; with the edit: rolling v1.34.7 -> v1.34.8 in the window 11:00-13:00 UTC\n",
			diff: []string{"-      name: openstack-scs2-1-34-v3", "+      name: openstack-scs2-1-34-v4", "-    version: v1.34.7", "+    version: v1.34.8"},
		},
		{
			name: "a later window moves it, and only it",
			args: func(t *testing.T) []string { return offline(withWindow(t, "200000+0000", "230000+0000")) },
			summary: "XSCSCluster shop-9q8rz on clusterstack:\n" +
				"  no change in the backend: spec.maintenance.window.begin (unset) -> 200000+0000\n" +
				"  no change in the backend: spec.maintenance.window.end (unset) -> 230000+0000\n" +
				"  its own update: " + planned + "; with the edit: v1.34.7 -> v1.34.8 in the window 20:00-23:00 UTC, from Tue, 01 Dec 2026 20:00:00 UTC\n",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, flavourUnknown)
			stdout, stderr, code := h.run("", tc.args(t)...)
			summary, diffs, _ := strings.Cut(stdout, "\n\n")
			if tc.diff != nil {
				summary += "\n"
			}
			if d := cmp.Diff(tc.summary, summary); d != "" {
				t.Errorf("summary (-want +got):\n%s\nstderr: %s", d, stderr)
			}
			for _, line := range tc.diff {
				if !strings.Contains(diffs, line+"\n") {
					t.Errorf("the diffs lack the line %q:\n%s", line, diffs)
				}
			}
			if tc.diff == nil && diffs != "" {
				t.Errorf("a native object changes:\n%s", diffs)
			}
			if code != ExitError {
				t.Errorf("exit code %d, want %d (changes)", code, ExitError)
			}
		})
	}

	// For tools: the move as model.Preview has it, with its summary.
	h := newHarness(t, flavourUnknown)
	stdout, _, _ := h.run("", offline(withWindow(t, "200000+0000", "230000+0000"), "-o", "json")...)
	var got struct {
		Maintenance *struct{ Before, After, Summary string } `json:"maintenance"`
	}
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatalf("%v:\n%s", err, stdout)
	}
	after := "v1.34.7 -> v1.34.8 in the window 20:00-23:00 UTC, from Tue, 01 Dec 2026 20:00:00 UTC"
	want := &struct{ Before, After, Summary string }{Before: planned, After: after,
		Summary: "its own update: " + planned + "; with the edit: " + after}
	if d := cmp.Diff(want, got.Maintenance); d != "" {
		t.Errorf("maintenance (-want +got):\n%s", d)
	}
}

// TestDiffLiveMaintenance: read from the control plane, the cluster and an environment's
// cluster are previewed with the CLI's clock too: a legacy claim of the Cluster Stacks
// example, whose Cluster runs an older release than the newest ready one.
func TestDiffLiveMaintenance(t *testing.T) {
	dir := repo + "/examples/render/clusterstack"
	read := func(paths ...string) []*unstructured.Unstructured {
		objs, err := readManifests(nil, paths...)
		if err != nil {
			t.Fatal(err)
		}
		return objs
	}
	xr := read(dir + "/xr.yaml")[0]
	cluster := read(dir + "/observed-ready.yaml")[0]
	must(t, unstructured.SetNestedSlice(xr.Object, []any{map[string]any{"apiVersion": cluster.GetAPIVersion(), "kind": cluster.GetKind(),
		"name": cluster.GetName(), "namespace": cluster.GetNamespace()}}, "spec", "resourceRefs"))
	// The function has pinned the environment, as on every cluster it rendered.
	must(t, unstructured.SetNestedField(xr.Object, "clusterstack-regionone", "status", "backend", "environment"))
	claim := xr.DeepCopy()
	claim.SetKind("SCSCluster")
	claim.SetNamespace("team1")
	claim.SetName("shop")
	claim.SetLabels(nil)
	must(t, unstructured.SetNestedField(claim.Object, map[string]any{"name": xr.GetName()}, "spec", "resourceRef"))
	objs := append([]*unstructured.Unstructured{claim, xr, cluster}, read(dir+"/required", dir+"/required-ready", "testdata/maintenance/newer-release.yaml", repo+"/examples/environments")...)
	h := newHarness(t, flavourLegacy, objs...)
	h.disco.Resources = append(h.disco.Resources,
		&metav1.APIResourceList{GroupVersion: "cluster.x-k8s.io/v1beta2", APIResources: []metav1.APIResource{{Name: "clusters", Kind: "Cluster", Namespaced: true}}},
		&metav1.APIResourceList{GroupVersion: "clusterstack.x-k8s.io/v1alpha1", APIResources: []metav1.APIResource{{Name: "clusterstackreleases", Kind: "ClusterStackRelease", Namespaced: true}}},
		&metav1.APIResourceList{GroupVersion: "apiextensions.crossplane.io/v1beta1", APIResources: []metav1.APIResource{{Name: "environmentconfigs", Kind: "EnvironmentConfig"}}},
		&metav1.APIResourceList{GroupVersion: "v1", APIResources: []metav1.APIResource{{Name: "namespaces", Kind: "Namespace"}, {Name: "secrets", Kind: "Secret", Namespaced: true}}},
	)
	const planned = "v1.34.7 -> v1.34.8 in the window 02:00-03:00 UTC (derived: the cluster names no window), from Wed, 02 Dec 2026 02:00:00 UTC"

	edited := claim.DeepCopy()
	must(t, unstructured.SetNestedMap(edited.Object, map[string]any{"window": map[string]any{"begin": "110000+0000", "end": "130000+0000"}}, "spec", "maintenance"))
	raw, err := json.Marshal(edited.Object)
	if err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := h.run(string(raw), "diff", "-f", "-")
	if want := "  its own update: " + planned + "; with the edit: rolling v1.34.7 -> v1.34.8 in the window 11:00-13:00 UTC\n"; !strings.Contains(stdout, want) || code != ExitError {
		t.Errorf("diff of the claim: exit %d, stdout lacks %q:\n%s\nstderr: %s", code, want, stdout, stderr)
	}

	env := read(repo + "/examples/environments/clusterstack-regionone.yaml")[0]
	must(t, unstructured.SetNestedSlice(env.Object, []any{map[string]any{"purposes": []any{"production"}, "delay": "72h"}}, "data", "maintenance", "waves"))
	if raw, err = json.Marshal(env.Object); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code = h.run(string(raw), "diff", "-f", "-")
	if want := "now: no native object changes\n  its own update: " + planned + "; with the edit: "; !strings.Contains(stdout, want) || code != ExitError {
		t.Errorf("diff of the environment: exit %d, stdout lacks %q:\n%s\nstderr: %s", code, want, stdout, stderr)
	}
}
