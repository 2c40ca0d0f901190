package controlplane

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TestInstallThroughPackages installs the project as a platform team does in an air-gapped
// cloud: the packages pushed to the control plane's own TLS registry, ImageConfigs that
// rewrite the public prefixes to it, and one Configuration applied by its public name.
// Crossplane's package manager resolves the Function and both Providers itself; the
// processes run here (the package runtime is External, played by this control plane). The
// XRD and Composition must come from the package, every package must become Installed and
// Healthy, and a claim must compose its Shoot in the garden through it all.
func TestInstallThroughPackages(t *testing.T) {
	root := liveTestRepoRoot(t)
	// docs/install.md, air-gapped: the mirror's ImageConfigs and the Configuration.
	install, err := ProjectInstall(root, "configuration-claims.yaml")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal(err)
		}
		t.Skipf("skipped: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
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
		Packages:       install,
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
}

// TestConfigurationMeta: each flavour's package metadata is where make package and the
// upgrade test read it, and names the Configuration of that flavour.
func TestConfigurationMeta(t *testing.T) {
	root, err := FindRepoRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	for flavour, name := range map[string]string{"namespaced": "configuration-scs-kaas", "legacy": "configuration-scs-kaas-claims"} {
		raw, err := os.ReadFile(filepath.Join(root, ConfigurationMeta(flavour)))
		if err != nil {
			t.Fatalf("%s: %v", flavour, err)
		}
		text := string(raw)
		if !strings.Contains(text, "\nkind: Configuration\n") || !strings.Contains(text, "\n  name: "+name+"\n") {
			t.Errorf("%s (%s flavour) is not the Configuration %s", ConfigurationMeta(flavour), flavour, name)
		}
	}
}

// liveTestRepoRoot skips a test that runs live processes unless SCS_KAAS_E2E is set, and
// returns the repository root the pinned tools are built from.
func liveTestRepoRoot(t *testing.T) string {
	t.Helper()
	if os.Getenv("SCS_KAAS_E2E") == "" {
		t.Skip("set SCS_KAAS_E2E=1 to run the control plane tests (builds/uses the pinned tools)")
	}
	root, err := FindRepoRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	return root
}
