package controlplane

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/SovereignCloudStack/scs-kaas/test/e2e/gardensim"
)

// objectGVR is provider-kubernetes' cluster-scoped Object, which the legacy flavour composes.
var objectGVR = schema.GroupVersionResource{Group: "kubernetes.crossplane.io", Version: "v1alpha2", Resource: "objects"}

// TestInstallThroughPackages installs the project as a platform team does in an air-gapped
// cloud: the packages pushed to the control plane's own TLS registry, ImageConfigs that
// rewrite the public prefixes to it, and one Configuration applied by its public name.
// Crossplane's package manager resolves the Function and both Providers itself; the
// processes run here (the package runtime is External, played by this control plane). The
// XRD and Composition must come from the package, every package must become Installed and
// Healthy, and a claim must compose its Shoot in the garden through it all.
func TestInstallThroughPackages(t *testing.T) {
	if os.Getenv("SCS_KAAS_E2E") == "" {
		t.Skip("set SCS_KAAS_E2E=1 to run the control plane tests (builds/uses the pinned tools)")
	}
	root, err := FindRepoRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "_output", "packages")
	for _, p := range ProjectPackages {
		if _, err := os.Stat(filepath.Join(dir, p.File)); err != nil {
			msg := fmt.Sprintf("the package %s is not built (%v): run make package", p.File, err)
			if os.Getenv("CI") == "true" {
				t.Fatal(msg)
			}
			t.Skip("skipped: " + msg)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	cliDir := os.Getenv("SCS_KAAS_TOOL_CROSSPLANE_CLI")
	if cliDir == "" {
		out, err := exec.CommandContext(ctx, filepath.Join(root, "hack", "tools", "build.sh"), "crossplane-cli").Output()
		if err != nil {
			t.Fatalf("hack/tools/build.sh crossplane-cli: %v", err)
		}
		cliDir = strings.TrimSpace(string(out))
	}
	fnBin := filepath.Join(t.TempDir(), "function-scs-kaas")
	build := exec.CommandContext(ctx, "go", "build", "-o", fnBin, "./functions/function-scs-kaas")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the function: %v\n%s", err, out)
	}

	start := time.Now()
	env, err := Start(ctx, Options{
		RunDir:         t.TempDir(),
		FunctionBinary: fnBin,
		GardenProjects: []string{"team1"},
		// docs/install.md, air-gapped: the mirror's ImageConfigs and the Configuration.
		Packages: &PackageInstall{Dir: dir, CrossplaneCLI: filepath.Join(cliDir, "crossplane-cli"), Manifests: []string{
			filepath.Join(root, "examples", "install", "mirror.yaml"), filepath.Join(root, "examples", "install", "configuration-claims.yaml")}},
		Manifests: []string{filepath.Join(root, "examples", "environments", "gardener-regionone.yaml"),
			filepath.Join(root, "package", "rbac.yaml")},
		Logf: t.Logf,
	})
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	t.Logf("MEASURE control plane with the project installed through its packages: %.1fs", time.Since(start).Seconds())
	t.Cleanup(func() {
		if t.Failed() {
			dumpLogs(t, env)
		}
		_ = env.Stop()
	})
	cp := env.Crossplane

	// Every package installed and healthy, under its public name, fetched from the mirror.
	for _, pkg := range []struct{ apiVersion, kind, name string }{
		{"pkg.crossplane.io/v1", "Configuration", "sovereigncloudstack-configuration-scs-kaas-claims"},
		{"pkg.crossplane.io/v1", "Function", "sovereigncloudstack-function-scs-kaas"},
		{"pkg.crossplane.io/v1", "Provider", "sovereigncloudstack-provider-gardener-kubeconfig"},
		{"pkg.crossplane.io/v1", "Provider", "crossplane-contrib-provider-kubernetes"},
	} {
		var last *unstructured.Unstructured
		err := WaitFor(ctx, 2*time.Minute, pkg.kind+" "+pkg.name+" Installed and Healthy", func(ctx context.Context) (bool, error) {
			o, err := cp.Get(ctx, pkg.apiVersion, pkg.kind, "", pkg.name)
			if err != nil {
				return false, err
			}
			last = o
			return conditionTrue(o, "Installed") && conditionTrue(o, "Healthy"), errors.New(conditionSummary(o))
		})
		if err != nil {
			t.Fatal(err)
		}
		resolved, _, _ := unstructured.NestedString(last.Object, "status", "resolvedPackage")
		if env.registry == nil || !strings.HasPrefix(resolved, env.registry.Address+"/") {
			t.Errorf("%s %s resolved to %q, not to the registry", pkg.kind, pkg.name, resolved)
		}
	}

	// The API comes from the package, not from a hand-applied manifest.
	for _, o := range []struct{ apiVersion, kind, name string }{
		{"apiextensions.crossplane.io/v1", "CompositeResourceDefinition", "xscsclusters.kaas.scs.community"},
		{"apiextensions.crossplane.io/v1", "Composition", "xscsclusters.kaas.scs.community"},
	} {
		got, err := cp.Get(ctx, o.apiVersion, o.kind, "", o.name)
		if err != nil {
			t.Fatalf("%s %s: %v", o.kind, o.name, err)
		}
		owned := false
		for _, ref := range got.GetOwnerReferences() {
			owned = owned || ref.Kind == "ConfigurationRevision"
		}
		if !owned {
			t.Errorf("%s %s is not owned by a ConfigurationRevision: %v", o.kind, o.name, got.GetOwnerReferences())
		}
	}
	if err := cp.WaitXRD(ctx, "apiextensions.crossplane.io/v1", "xscsclusters.kaas.scs.community"); err != nil {
		t.Fatal(err)
	}

	// A claim composes its Shoot through the package-installed Composition and Function.
	if _, err := cp.Client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team1"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	claims, err := ReadManifests(filepath.Join(root, "examples", "claims", "gardener-minimal.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	start = time.Now()
	if err := cp.ApplyObjects(ctx, claims...); err != nil {
		t.Fatal(err)
	}
	err = WaitFor(ctx, 3*time.Minute, "the claim's Shoot in the garden", func(ctx context.Context) (bool, error) {
		list, err := env.Garden.Dynamic.Resource(shootGVR).Namespace("garden-team1").List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		return len(list.Items) == 1, fmt.Errorf("%d Shoots", len(list.Items))
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("MEASURE claim -> Shoot through the package-installed API: %.1fs", time.Since(start).Seconds())

	upgradeAndRollBack(ctx, t, env, root, filepath.Join(cliDir, "crossplane-cli"))
}

// upgradeAndRollBack upgrades the installed Configuration and Function under a live
// cluster to v0.2.0 (the Configuration's XRD has one printer column more, the Function's
// metadata one annotation more), then rolls both back to v0.1.0, as a platform team does by
// editing spec.package. Throughout, a watch counts every deletion of a Shoot and every
// Shoot under a new UID; the cluster's Object must keep its UID and its backend must stay
// Ready.
func upgradeAndRollBack(ctx context.Context, t *testing.T, env *Env, root, cli string) {
	t.Helper()
	cp, garden := env.Crossplane, env.Garden
	shoots, err := garden.Dynamic.Resource(shootGVR).Namespace("garden-team1").List(ctx, metav1.ListOptions{})
	if err != nil || len(shoots.Items) != 1 {
		t.Fatalf("the claim's Shoot: %v", err)
	}
	shoot := shoots.Items[0]
	if _, err := gardensim.Write(ctx, garden.Client, garden.Dynamic, "garden-team1", shoot.GetName(), gardensim.Healthy); err != nil {
		t.Fatal(err)
	}
	backendReady := func() error {
		return WaitFor(ctx, 2*time.Minute, "the claim's BackendReady True", func(ctx context.Context) (bool, error) {
			c, err := cp.Get(ctx, "kaas.scs.community/v1alpha1", "SCSCluster", "team1", "dev")
			if err != nil {
				return false, err
			}
			return conditionTrue(c, "BackendReady"), errors.New(conditionSummary(c))
		})
	}
	if err := backendReady(); err != nil {
		t.Fatal(err)
	}
	objects, err := cp.Dynamic.Resource(objectGVR).List(ctx, metav1.ListOptions{})
	if err != nil || len(objects.Items) == 0 {
		t.Fatalf("the claim's Objects: %d, %v", len(objects.Items), err)
	}
	uids := map[string]types.UID{}
	for _, o := range objects.Items {
		uids[o.GetName()] = o.GetUID()
	}

	// The watch: any deletion or replacement of the Shoot, from now on (from the
	// resourceVersion of a list made now: an older one may be gone from the watch cache).
	current, err := garden.Dynamic.Resource(shootGVR).Namespace("garden-team1").List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w, err := garden.Dynamic.Resource(shootGVR).Namespace("garden-team1").Watch(ctx, metav1.ListOptions{ResourceVersion: current.GetResourceVersion()})
	if err != nil {
		t.Fatal(err)
	}
	var events, deletions, replacements, failures atomic.Int32
	var stopping, closedEarly atomic.Bool
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		for ev := range w.ResultChan() {
			events.Add(1)
			o, ok := ev.Object.(*unstructured.Unstructured)
			switch {
			case ev.Type == watch.Error && stopping.Load():
				// Stop closes the stream; the client reports that as an error event.
			case ev.Type == watch.Error:
				failures.Add(1)
				t.Logf("the watch of the Shoots: %v", ev.Object)
			case ev.Type == watch.Deleted:
				deletions.Add(1)
			case ok && o.GetUID() != shoot.GetUID():
				replacements.Add(1)
			}
		}
		// A watch that ends by itself has stopped counting.
		closedEarly.Store(!stopping.Load())
	}()

	// v0.2.0 of the Configuration and the Function, built from the same sources.
	dir := t.TempDir()
	cfgRoot := filepath.Join(dir, "configuration")
	if err := os.MkdirAll(cfgRoot, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, src := range []string{"package/legacy/crossplane.yaml", "apis/xrd/legacy/xscsclusters.kaas.scs.community.yaml", "compositions/legacy/xscscluster.yaml"} {
		data, err := os.ReadFile(filepath.Join(root, src))
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(src, "apis/xrd/") {
			data = []byte(strings.ReplaceAll(string(data), "  - additionalPrinterColumns:\n",
				"  - additionalPrinterColumns:\n    - jsonPath: .spec.purpose\n      name: PURPOSE\n      type: string\n"))
		}
		if err := os.WriteFile(filepath.Join(cfgRoot, filepath.Base(src)), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	fnRoot := filepath.Join(dir, "function")
	if err := os.MkdirAll(fnRoot, 0o755); err != nil {
		t.Fatal(err)
	}
	meta, err := os.ReadFile(filepath.Join(root, "functions", "function-scs-kaas", "package", "crossplane.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	meta = []byte(strings.Replace(string(meta), "  annotations:\n", "  annotations:\n    meta.crossplane.io/release: v0.2.0\n", 1))
	if err := os.WriteFile(filepath.Join(fnRoot, "crossplane.yaml"), meta, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, b := range []struct{ root, file, repository string }{
		{cfgRoot, "configuration-v0.2.0.xpkg", "sovereigncloudstack/configuration-scs-kaas-claims"},
		{fnRoot, "function-v0.2.0.xpkg", "sovereigncloudstack/function-scs-kaas"},
	} {
		out := filepath.Join(dir, b.file)
		if msg, err := exec.CommandContext(ctx, cli, "xpkg", "build", "--package-root="+b.root, "-o", out).CombinedOutput(); err != nil {
			t.Fatalf("crossplane xpkg build %s: %v\n%s", b.root, err, msg)
		}
		if _, err := env.registry.Push(ctx, cli, out, b.repository, "v0.2.0"); err != nil {
			t.Fatal(err)
		}
	}

	columns := func() []string {
		xrd, err := cp.Get(ctx, "apiextensions.crossplane.io/v1", "CompositeResourceDefinition", "", "xscsclusters.kaas.scs.community")
		if err != nil {
			t.Fatal(err)
		}
		versions, _, _ := unstructured.NestedSlice(xrd.Object, "spec", "versions")
		var names []string
		for _, v := range versions {
			cols, _, _ := unstructured.NestedSlice(v.(map[string]any), "additionalPrinterColumns")
			for _, c := range cols {
				names = append(names, fmt.Sprint(c.(map[string]any)["name"]))
			}
		}
		return names
	}
	move := func(version string, wantPurposeColumn bool) {
		t.Helper()
		start := time.Now()
		for kind, name := range map[string]string{"configurations": "sovereigncloudstack-configuration-scs-kaas-claims", "functions": "sovereigncloudstack-function-scs-kaas"} {
			repo := map[string]string{"configurations": "configuration-scs-kaas-claims", "functions": "function-scs-kaas"}[kind]
			patch := fmt.Sprintf(`{"spec":{"package":"ghcr.io/sovereigncloudstack/%s:%s"}}`, repo, version)
			if _, err := cp.Dynamic.Resource(configurationGVR.GroupVersion().WithResource(kind)).Patch(ctx, name, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		err := WaitFor(ctx, 3*time.Minute, "Configuration and Function at "+version+", installed and healthy", func(ctx context.Context) (bool, error) {
			for _, o := range []struct{ kind, name string }{{"Configuration", "sovereigncloudstack-configuration-scs-kaas-claims"}, {"Function", "sovereigncloudstack-function-scs-kaas"}} {
				pkg, err := cp.Get(ctx, "pkg.crossplane.io/v1", o.kind, "", o.name)
				if err != nil {
					return false, err
				}
				current, _, _ := unstructured.NestedString(pkg.Object, "status", "currentIdentifier")
				if !strings.HasSuffix(current, ":"+version) || !conditionTrue(pkg, "Installed") || !conditionTrue(pkg, "Healthy") {
					return false, fmt.Errorf("%s %s at %q: %s", o.kind, o.name, current, conditionSummary(pkg))
				}
			}
			has := slices.Contains(columns(), "PURPOSE")
			return has == wantPurposeColumn, fmt.Errorf("the XRD's printer columns %v", columns())
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("MEASURE %s active (Configuration, Function, XRD): %.1fs", version, time.Since(start).Seconds())
		// The cluster is reconciled through the new revisions and stays as it was.
		if _, err := gardensim.Write(ctx, garden.Client, garden.Dynamic, "garden-team1", shoot.GetName(), gardensim.Healthy); err != nil {
			t.Fatal(err)
		}
		if err := backendReady(); err != nil {
			t.Fatal(err)
		}
	}
	move("v0.2.0", true)
	move("v0.1.0", false)

	now, err := cp.Dynamic.Resource(objectGVR).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range now.Items {
		if uids[o.GetName()] != o.GetUID() {
			t.Errorf("Object %s has UID %s, before the upgrade %s", o.GetName(), o.GetUID(), uids[o.GetName()])
		}
	}
	if len(now.Items) != len(uids) {
		t.Errorf("%d Objects, before the upgrade %d", len(now.Items), len(uids))
	}
	stopping.Store(true)
	w.Stop()
	<-watched
	// The status written after each move is two changes the watch must have seen.
	if closedEarly.Load() || failures.Load() > 0 || events.Load() < 2 {
		t.Errorf("the watch of the Shoots ended early, failed (%d errors) or saw too little (%d events): deletions would have gone uncounted", failures.Load(), events.Load())
	}
	if d, r := deletions.Load(), replacements.Load(); d != 0 || r != 0 {
		t.Errorf("during the upgrade and the rollback: %d deletions and %d replacements of the Shoot, want none", d, r)
	}
	t.Logf("upgrade and rollback under a live cluster: %d events of the Shoot watched, 0 deletions, 0 replacements; %d Objects with their UIDs", events.Load(), len(uids))
}
