package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// editTestdata is an edit of examples/environments/gardener-regionone.yaml a platform team
// makes, with two clusters of that environment as they are.
const editTestdata = "testdata/environment-edit"

// Notes of the offline preview of the two clusters: no namespace was given.
const (
	noteTeam1 = "Note: namespace team1 was not given (--required): rendered as if it had no labels but kubernetes.io/metadata.name, which matters to environments that admit namespaces by label\n"
	noteTeam2 = "Note: namespace team2 was not given (--required): rendered as if it had no labels but kubernetes.io/metadata.name, which matters to environments that admit namespaces by label\n"
)

// shopAdopting is what the edit of testdata/environment-edit means for shop, whose Shoot
// exists: nothing now, and adopting it changes the load balancer provider in place, the
// floating IP network never.
const shopAdopting = `XSCSCluster shop-x7k2p on gardener:
  kept for good: data.gardener.floatingPoolName ext-net -> ext-net-2 (the OpenStack extension does not move a Shoot's floating IPs to another network)
  kept until adopted, then in place: data.gardener.loadBalancerProvider amphora -> ovn
now: nothing changes
adopting: 1 native object changes
  in place: data.gardener.loadBalancerProvider amphora -> ovn (every Service of type LoadBalancer gets a new load balancer, and with it a new address)

Shoot shop-6bru6k (gardener-shoot): update
--- Shoot shop-6bru6k (now)
+++ Shoot shop-6bru6k (adopted)
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

// devCreating is what the edit means for dev, whose Shoot does not exist yet: it is created
// with the edited values, so the edit changes it now and there is nothing to adopt.
const devCreating = `SCSCluster team2/dev on gardener:
  taken at creation: data.gardener.floatingPoolName ext-net -> ext-net-2 (nothing of the cluster exists yet)
  taken at creation: data.gardener.loadBalancerProvider amphora -> ovn (nothing of the cluster exists yet)
now: 1 native object changes

Shoot dev-mnegsk (gardener-shoot): update
--- Shoot dev-mnegsk (now)
+++ Shoot dev-mnegsk (environment edited)
@@ -31,10 +31,10 @@
     controlPlaneConfig:
       apiVersion: openstack.provider.extensions.gardener.cloud/v1alpha1
       kind: ControlPlaneConfig
-      loadBalancerProvider: amphora
+      loadBalancerProvider: ovn
     infrastructureConfig:
       apiVersion: openstack.provider.extensions.gardener.cloud/v1alpha1
-      floatingPoolName: ext-net
+      floatingPoolName: ext-net-2
       kind: InfrastructureConfig
       networks:
         workers: 10.250.0.0/16
adopting: nothing to adopt: nothing of the cluster exists yet, so it is created with the environment as it is
`

// editedEnvironment writes testdata/environment-edit/gardener-regionone.yaml with further
// replacements into a file of the test's own.
func editedEnvironment(t *testing.T, pairs ...string) string {
	t.Helper()
	raw, err := os.ReadFile(editTestdata + "/gardener-regionone.yaml")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "gardener-regionone.yaml")
	if err := os.WriteFile(path, []byte(strings.NewReplacer(pairs...).Replace(string(raw))), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestDiffEnvironmentOffline previews an edit of an EnvironmentConfig for every cluster of
// the environment in --observed, as a platform's CI does: the settings that change, each with
// what it does, what changes now and what adopting would do, and kubectl diff's exit codes
// for what changes now.
func TestDiffEnvironmentOffline(t *testing.T) {
	gardener := repo + "/examples/render/gardener"
	offline := func(file string, observed ...string) []string {
		return []string{"diff", "-f", file, "--offline", "--environment", repo + "/examples/environments",
			"--observed", strings.Join(append(observed, gardener+"/observed-ready.yaml"), ","), "--required", gardener + "/required-ready"}
	}
	both := editTestdata + "/clusters"
	shop := editTestdata + "/clusters/shop.yaml"
	for _, tc := range []struct {
		name   string
		args   func(t *testing.T) []string
		stdout string
		stderr string
		code   int
	}{
		{
			name:   "pinned values: nothing changes now, adopting changes what its backend can change in place",
			args:   func(*testing.T) []string { return offline(editTestdata+"/gardener-regionone.yaml", shop) },
			stdout: shopAdopting,
			stderr: noteTeam1,
			code:   ExitOK,
		},
		{
			name:   "a cluster whose Shoot does not exist yet takes the edit now",
			args:   func(*testing.T) []string { return offline(editTestdata+"/gardener-regionone.yaml", both) },
			stdout: shopAdopting + "\n" + devCreating,
			stderr: noteTeam1 + noteTeam2,
			code:   ExitError,
		},
		{
			name: "a setting that follows the environment changes the cluster now",
			args: func(t *testing.T) []string {
				return offline(editedEnvironment(t, "credentialsBindingName: openstack-credentials", "credentialsBindingName: openstack-credentials-2026"), shop)
			},
			stdout: `XSCSCluster shop-x7k2p on gardener:
  in place: data.gardener.credentialsBindingName openstack-credentials -> openstack-credentials-2026 (Gardener reconciles the infrastructure with the new credentials)
  kept for good: data.gardener.floatingPoolName ext-net -> ext-net-2 (the OpenStack extension does not move a Shoot's floating IPs to another network)
  kept until adopted, then in place: data.gardener.loadBalancerProvider amphora -> ovn
now: 1 native object changes

Shoot shop-6bru6k (gardener-shoot): update
--- Shoot shop-6bru6k (now)
+++ Shoot shop-6bru6k (environment edited)
@@ -14,7 +14,7 @@
     highAvailability:
       failureTolerance:
         type: zone
-  credentialsBindingName: openstack-credentials
+  credentialsBindingName: openstack-credentials-2026
   kubernetes:
     version: 1.34.5
   maintenance:

adopting: 1 native object changes
  in place: data.gardener.loadBalancerProvider amphora -> ovn (every Service of type LoadBalancer gets a new load balancer, and with it a new address)

Shoot shop-6bru6k (gardener-shoot): update
--- Shoot shop-6bru6k (now)
+++ Shoot shop-6bru6k (adopted)
@@ -14,7 +14,7 @@
     highAvailability:
       failureTolerance:
         type: zone
-  credentialsBindingName: openstack-credentials
+  credentialsBindingName: openstack-credentials-2026
   kubernetes:
     version: 1.34.5
   maintenance:
@@ -33,7 +33,7 @@
     controlPlaneConfig:
       apiVersion: openstack.provider.extensions.gardener.cloud/v1alpha1
       kind: ControlPlaneConfig
-      loadBalancerProvider: amphora
+      loadBalancerProvider: ovn
     infrastructureConfig:
       apiVersion: openstack.provider.extensions.gardener.cloud/v1alpha1
       floatingPoolName: ext-net
`,
			stderr: noteTeam1,
			code:   ExitError,
		},
		{
			name: "an edit the function refuses stalls the clusters now: exit 3",
			args: func(t *testing.T) []string {
				return offline(editedEnvironment(t, "    loadBalancerProvider: ovn\n", "    loadBalancerProvider: ovn\n    loadBalancerClass: internal\n"), both)
			},
			stdout: `XSCSCluster shop-x7k2p on gardener:
  no setting of its backend changes
now: refused: environment "gardener-regionone" (EnvironmentConfig gardener-regionone): data does not match the environment contract: json: unknown field "loadBalancerClass"
adopting: refused: environment "gardener-regionone" (EnvironmentConfig gardener-regionone): data does not match the environment contract: json: unknown field "loadBalancerClass"

SCSCluster team2/dev on gardener:
  no setting of its backend changes
now: refused: environment "gardener-regionone" (EnvironmentConfig gardener-regionone): data does not match the environment contract: json: unknown field "loadBalancerClass"
adopting: nothing to adopt: nothing of the cluster exists yet, so it is created with the environment as it is
`,
			stderr: noteTeam1 + noteTeam2 + "error: refused: the function would refuse 2 clusters with the edited environment gardener-regionone: shop-x7k2p, team2/dev\n",
			code:   ExitRefused,
		},
		{
			name:   "an environment no cluster in --observed uses",
			args:   func(*testing.T) []string { return offline(repo+"/examples/environments/magnum-regionone.yaml", both) },
			stdout: "no cluster of environment magnum-regionone: the edit changes none\n",
			code:   ExitOK,
		},
		{
			name: "an EnvironmentConfig without the environment label",
			args: func(t *testing.T) []string {
				return offline(editedEnvironment(t, "    kaas.scs.community/environment: gardener-regionone\n", ""), both)
			},
			stderr: "error: EnvironmentConfig gardener-regionone carries no label kaas.scs.community/environment: it is no environment, and no cluster uses it\n",
			code:   ExitUsage,
		},
		{
			name: "--observed without the clusters",
			args: func(*testing.T) []string {
				return []string{"diff", "-f", editTestdata + "/gardener-regionone.yaml", "--offline", "--environment", repo + "/examples/environments",
					"--observed", gardener + "/observed-ready.yaml"}
			},
			stderr: "error: --observed holds no SCSCluster: add the clusters as they are (kubectl get scscluster -A -o yaml) and their composed resources\n",
			code:   ExitUsage,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, flavourUnknown)
			stdout, stderr, code := h.run("", tc.args(t)...)
			if d := cmp.Diff(tc.stdout, stdout); d != "" {
				t.Errorf("stdout (-want +got):\n%s", d)
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

// TestDiffEnvironmentJSON: -o json gives tools the preview per cluster: the settings, each
// with its summary, what changes now and what adopting would do.
func TestDiffEnvironmentJSON(t *testing.T) {
	gardener := repo + "/examples/render/gardener"
	h := newHarness(t, flavourUnknown)
	stdout, _, code := h.run("", "diff", "-f", editTestdata+"/gardener-regionone.yaml", "--offline", "--environment", repo+"/examples/environments",
		"--observed", editTestdata+"/clusters/shop.yaml,"+gardener+"/observed-ready.yaml", "--required", gardener+"/required-ready", "-o", "json")
	if code != ExitOK {
		t.Errorf("exit code %d, want %d: nothing changes now", code, ExitOK)
	}
	const want = `{
  "environment": "gardener-regionone",
  "changes": false,
  "clusters": [
    {
      "kind": "XSCSCluster",
      "name": "shop-x7k2p",
      "settings": [
        {
          "path": "data.gardener.floatingPoolName",
          "from": "ext-net",
          "to": "ext-net-2",
          "kept": true,
          "effect": "refused",
          "note": "the OpenStack extension does not move a Shoot's floating IPs to another network",
          "summary": "kept for good: data.gardener.floatingPoolName ext-net -> ext-net-2 (the OpenStack extension does not move a Shoot's floating IPs to another network)"
        },
        {
          "path": "data.gardener.loadBalancerProvider",
          "from": "amphora",
          "to": "ovn",
          "kept": true,
          "effect": "in place",
          "note": "every Service of type LoadBalancer gets a new load balancer, and with it a new address",
          "summary": "kept until adopted, then in place: data.gardener.loadBalancerProvider amphora -> ovn"
        }
      ],
      "now": {
        "backend": "gardener",
        "changes": false,
        "edits": [],
        "objects": []
      },
      "adopting": {
        "backend": "gardener",
        "changes": true,
        "edits": [],
        "settings": [
          {
            "path": "data.gardener.loadBalancerProvider",
            "from": "amphora",
            "to": "ovn",
            "effect": "in place",
            "note": "every Service of type LoadBalancer gets a new load balancer, and with it a new address",
            "summary": "in place: data.gardener.loadBalancerProvider amphora -> ovn (every Service of type LoadBalancer gets a new load balancer, and with it a new address)"
          }
        ],
        "objects": [
          {
            "resource": "gardener-shoot",
            "kind": "Shoot",
            "name": "shop-6bru6k",
            "action": "update",
            "fields": [
              {
                "path": "spec.provider.controlPlaneConfig.loadBalancerProvider",
                "from": "\"amphora\"",
                "to": "\"ovn\""
              }
            ]
          }
        ]
      }
    }
  ]
}
`
	if d := cmp.Diff(want, stdout); d != "" {
		t.Errorf("stdout (-want +got):\n%s", d)
	}
}

// TestDiffEnvironmentLive previews an edit of an EnvironmentConfig against the control
// plane, in both flavours: it lists the SCSClusters of every namespace, keeps those of the
// environment, reads each one's composite and composed resources as diff does, and sends
// nothing. In the legacy flavour a composite that no claim made is previewed too.
func TestDiffEnvironmentLive(t *testing.T) {
	gardener := repo + "/examples/render/gardener"
	read := func(t *testing.T, path string) []*unstructured.Unstructured {
		t.Helper()
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
	// A cluster of another environment, which the preview leaves out.
	other := object(t, `
apiVersion: kaas.scs.community/v1alpha1
kind: SCSCluster
metadata: {name: batch, namespace: team2}
spec:
  kubernetes: {version: "1.34"}
  nodePools: [{name: default, machineType: SCS-4V-8, count: 1}]
status:
  backend: {type: magnum, environment: magnum-regionone}
`)
	legacy := func(t *testing.T) ([]*unstructured.Unstructured, []*metav1.APIResourceList) {
		xr := read(t, editTestdata+"/clusters/shop.yaml")[0]
		observed := read(t, gardener+"/observed-ready.yaml")
		must(t, unstructured.SetNestedSlice(xr.Object, refsOf(observed), "spec", "resourceRefs"))
		claim := xr.DeepCopy()
		claim.SetKind("SCSCluster")
		claim.SetNamespace("team1")
		claim.SetName("shop")
		claim.SetLabels(nil)
		must(t, unstructured.SetNestedField(claim.Object, map[string]any{"name": xr.GetName()}, "spec", "resourceRef"))
		delete(claim.Object, "status")
		must(t, unstructured.SetNestedField(claim.Object, "gardener-regionone", "status", "backend", "environment"))
		// A composite the platform made without a claim, whose Shoot does not exist yet.
		platform := xr.DeepCopy()
		platform.SetName("platform")
		platform.SetLabels(nil)
		unstructured.RemoveNestedField(platform.Object, "spec", "resourceRefs")
		must(t, unstructured.SetNestedField(platform.Object, "platform-r4kj2m", "status", "backend", "name"))
		return append([]*unstructured.Unstructured{claim, xr, platform, other}, observed...), []*metav1.APIResourceList{
			{GroupVersion: "kubernetes.crossplane.io/v1alpha2", APIResources: []metav1.APIResource{{Name: "objects", Kind: "Object"}}},
			{GroupVersion: "gardener.kaas.scs.community/v1alpha1", APIResources: []metav1.APIResource{{Name: "adminkubeconfigs", Kind: "AdminKubeconfig"}}},
		}
	}
	namespaced := func(t *testing.T) ([]*unstructured.Unstructured, []*metav1.APIResourceList) {
		cluster := read(t, editTestdata+"/clusters/shop.yaml")[0]
		cluster.SetKind("SCSCluster")
		cluster.SetNamespace("team1")
		cluster.SetName("shop")
		cluster.SetLabels(nil)
		must(t, unstructured.SetNestedField(cluster.Object, map[string]any{"name": "shop-kubeconfig"}, "spec", "writeConnectionSecretToRef"))
		observed := read(t, gardener+"/observed-ready.yaml")
		for _, o := range observed {
			o.SetAPIVersion(strings.Replace(strings.Replace(o.GetAPIVersion(), "kubernetes.crossplane.io/v1alpha2", "kubernetes.m.crossplane.io/v1alpha1", 1),
				"gardener.kaas.scs.community", "gardener.m.kaas.scs.community", 1))
			o.SetNamespace("team1")
		}
		must(t, unstructured.SetNestedSlice(cluster.Object, refsOf(observed), "spec", "crossplane", "resourceRefs"))
		return append([]*unstructured.Unstructured{cluster, other}, observed...), []*metav1.APIResourceList{
			{GroupVersion: "kubernetes.m.crossplane.io/v1alpha1", APIResources: []metav1.APIResource{{Name: "objects", Kind: "Object", Namespaced: true}}},
			{GroupVersion: "gardener.m.kaas.scs.community/v1alpha1", APIResources: []metav1.APIResource{{Name: "adminkubeconfigs", Kind: "AdminKubeconfig", Namespaced: true}}},
		}
	}
	// The claim's preview is the composite's (shopAdopting), under the claim's name.
	shopClaim := strings.Replace(shopAdopting, "XSCSCluster shop-x7k2p", "SCSCluster team1/shop", 1)
	// The composite the platform made, whose Shoot does not exist yet, takes the edit now.
	platform := strings.NewReplacer("SCSCluster team2/dev", "XSCSCluster platform", "dev-mnegsk", "platform-r4kj2m", "@@ -31,10 +31,10 @@", "@@ -33,10 +33,10 @@").Replace(devCreating)
	for _, tc := range []struct {
		flavour flavour
		objects func(t *testing.T) ([]*unstructured.Unstructured, []*metav1.APIResourceList)
		stdout  string
		code    int
	}{
		{flavourLegacy, legacy, platform + "\n" + shopClaim, ExitError},
		{flavourNamespaced, namespaced, shopClaim, ExitOK},
	} {
		t.Run(string(tc.flavour), func(t *testing.T) {
			objs, kinds := tc.objects(t)
			h := newHarness(t, tc.flavour, append(objs, read(t, repo+"/examples/environments")...)...)
			h.disco.Resources = append(append(h.disco.Resources, kinds...),
				&metav1.APIResourceList{GroupVersion: "apiextensions.crossplane.io/v1beta1", APIResources: []metav1.APIResource{{Name: "environmentconfigs", Kind: "EnvironmentConfig"}}},
				&metav1.APIResourceList{GroupVersion: "v1", APIResources: []metav1.APIResource{{Name: "namespaces", Kind: "Namespace"}, {Name: "secrets", Kind: "Secret", Namespaced: true}}},
			)
			stdout, stderr, code := h.run("", "diff", "-f", editTestdata+"/gardener-regionone.yaml")
			if d := cmp.Diff(tc.stdout, stdout); d != "" {
				t.Errorf("stdout (-want +got):\n%s", d)
			}
			if stderr != "" || code != tc.code {
				t.Errorf("exit code %d, stderr %q; want %d and none", code, stderr, tc.code)
			}
			for _, a := range h.dyn.Actions() {
				if v := a.GetVerb(); v != "get" && v != "list" {
					t.Errorf("diff sent a %s of %s", v, a.GetResource().Resource)
				}
			}
			// The environments are listed once for all clusters.
			lists := 0
			for _, a := range h.actions("list") {
				if a.GetResource().Resource == "environmentconfigs" {
					lists++
				}
			}
			if lists != 1 {
				t.Errorf("the EnvironmentConfigs were listed %d times, want once", lists)
			}
		})
	}
}

// TestDiffEnvironmentMaintenance: an edit of the environment's waves changes no native
// object, but it moves the update a cluster plans on its own, at once: the preview says how,
// and diff exits 1 (changes) for it alone. The production cluster of the Cluster Stacks
// example waits for its wave, 72h from the clock (2026-12-01T12:00Z), then for its window.
func TestDiffEnvironmentMaintenance(t *testing.T) {
	raw, err := os.ReadFile(repo + "/examples/environments/clusterstack-regionone.yaml")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "clusterstack-regionone.yaml")
	waves := "  maintenance:\n    waves:\n    - {purposes: [development], delay: 0s}\n    - {purposes: [production], delay: 72h}\n  catalog:\n"
	if err := os.WriteFile(path, []byte(strings.Replace(string(raw), "  catalog:\n", waves, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := repo + "/examples/render/clusterstack"
	h := newHarness(t, flavourUnknown)
	stdout, stderr, code := h.run("", "diff", "-f", path, "--offline", "--environment", repo+"/examples/environments",
		"--observed", dir+"/xr.yaml,"+dir+"/observed-ready.yaml", "--required", dir+"/required,"+dir+"/required-ready,testdata/maintenance/newer-release.yaml")
	const move = "  its own update: v1.34.7 -> v1.34.8 in the window 02:00-03:00 UTC (derived: the cluster names no window), from Wed, 02 Dec 2026 02:00:00 UTC; " +
		"with the edit: v1.34.7 -> v1.34.8 in the window 02:00-03:00 UTC (derived: the cluster names no window), from Sat, 05 Dec 2026 02:00:00 UTC " +
		"(the wave of [production] waits 72h0m0s after the update was first offered, Tue, 01 Dec 2026 12:00:00 UTC)\n"
	want := "XSCSCluster shop-9q8rz on clusterstack:\n" +
		"  no setting of its backend changes\n" +
		"now: no native object changes\n" + move +
		"adopting: no native object changes\n" + move
	if d := cmp.Diff(want, stdout); d != "" {
		t.Errorf("stdout (-want +got):\n%s", d)
	}
	if stderr != noteTeam1 || code != ExitError {
		t.Errorf("exit code %d, want %d (changes); stderr %q", code, ExitError, stderr)
	}
}
