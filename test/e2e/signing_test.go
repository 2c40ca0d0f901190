package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/remote"

	"github.com/SovereignCloudStack/scs-kaas/model"
	"github.com/SovereignCloudStack/scs-kaas/test/e2e/controlplane"
)

// TestPackageSignatureVerification installs packages through Crossplane's signature
// verification as TestMain's control plane runs it (--enable-signature-verification, every
// package of the project signed when pushed, examples/install/verification.yaml applied with
// the release key). The project's packages installed from repositories where an unsigned
// package, or a Function or Provider signed without its SBOM, is refused. A probe
// Configuration under the project's prefix installs when it is signed with the release key,
// and is refused by the package manager, with cosign's reason and no revision, when it is
// unsigned, signed with another key, or changed after signing and pushed with the signature
// of what was signed.
func TestPackageSignatureVerification(t *testing.T) {
	needEnv(t)
	ctx := testContext(t)
	signing, registry := env.Signing(), env.Registry()
	if signing == nil || registry == nil {
		t.Fatal("the control plane does not verify packages: TestMain installs the project with PackageInstall.Verify")
	}
	sign := func(key, ref string) {
		t.Helper()
		if err := signing.Sign(ctx, repoRoot, registry, key, ref, ""); err != nil {
			t.Fatal(err)
		}
	}

	// The project's own packages installed (TestMain), each from its repository behind the
	// mirror's rewrite, so the ImageConfigs there let them through: a package in the same
	// repository that the release key did not sign, or a Function or Provider signed without
	// its SBOM attested, is refused. (Crossplane names the ImageConfig that verified a package
	// in its status only until its package cache serves it, so the status cannot show it.)
	t.Run("the project's packages", func(t *testing.T) {
		for _, k := range packageKinds {
			list, err := cp.Dynamic.Resource(k.gvr()).List(ctx, metav1.ListOptions{})
			if err != nil {
				t.Fatal(err)
			}
			installed := 0
			for _, p := range list.Items {
				source, _, _ := unstructured.NestedString(p.Object, "spec", "package")
				if !strings.HasPrefix(source, projectPackagePrefix) || strings.Contains(p.GetName(), "signature-probe") {
					continue
				}
				installed++
				if c := model.ConditionOf(&p, "Installed"); c.Status != "True" {
					t.Errorf("%s %s is not installed: %v", k.kind, p.GetName(), c)
				}
				// The probes go where the package came from: its source, rewritten by the mirror.
				untagged := source[:strings.LastIndex(source, ":")]
				repository := strings.TrimPrefix(untagged, "ghcr.io/")
				// Where an SBOM is required, cosign looks for the attestation first.
				unsigned := "no signatures found"
				if k.sbom {
					unsigned = "no matching attestations"
				}
				pushProbe(ctx, t, registry, repository, "v0.0.0-unsigned", "unsigned")
				installProbe(ctx, t, k, "signature-probe-unsigned-"+path.Base(repository), untagged+":v0.0.0-unsigned", unsigned)
				if k.sbom {
					sign(signing.KeyFile, pushProbe(ctx, t, registry, repository, "v0.0.0-no-sbom", "signed without SBOM"))
					installProbe(ctx, t, k, "signature-probe-no-sbom-"+path.Base(repository), untagged+":v0.0.0-no-sbom", "no matching attestations")
				}
			}
			if installed == 0 {
				t.Errorf("no %s of the project (%s) installed", k.kind, projectPackagePrefix)
			}
		}
	})

	cosign := env.Tools().Cosign()
	otherKey, _, err := controlplane.GenerateKeyPair(ctx, cosign, filepath.Join(t.TempDir(), "other"))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		// publish pushes the probe of the case to repository:v0.1.0 (its signature or not).
		publish func(t *testing.T, repository string)
		// refused is cosign's reason in the Configuration's Installed condition; empty: it
		// installs.
		refused string
	}{
		{
			name: "signed with the release key",
			publish: func(t *testing.T, repository string) {
				sign(signing.KeyFile, pushProbe(ctx, t, registry, repository, "v0.1.0", "signed"))
			},
		},
		{
			name: "unsigned",
			publish: func(t *testing.T, repository string) {
				pushProbe(ctx, t, registry, repository, "v0.1.0", "unsigned")
			},
			refused: "no signatures found",
		},
		{
			name: "signed with another key",
			publish: func(t *testing.T, repository string) {
				sign(otherKey, pushProbe(ctx, t, registry, repository, "v0.1.0", "other key"))
			},
			refused: "comparing public key PEMs",
		},
		{
			// The tag moved to other content, and the signature of the signed digest was
			// copied to the new one: the signature is valid, but for another package.
			name: "changed after signing",
			publish: func(t *testing.T, repository string) {
				signed := pushProbe(ctx, t, registry, repository, "v0.1.0", "before the change")
				sign(signing.KeyFile, signed)
				changed := pushProbe(ctx, t, registry, repository, "v0.1.0", "after the change")
				copySignature(ctx, t, registry, repository, digestOf(signed), digestOf(changed))
			},
			refused: "invalid or missing digest in claim",
		},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			name := fmt.Sprintf("signature-probe-%d", i)
			repository := "sovereigncloudstack/" + name
			c.publish(t, repository)
			installProbe(ctx, t, packageKinds[0], name, registry.Address+"/"+repository+":v0.1.0", c.refused)
		})
	}
}

// packageKind is a kind of Crossplane package and whether the project's packages of that
// kind must carry an SBOM attestation (verify-sovereigncloudstack-sbom).
type packageKind struct {
	kind, resource string
	sbom           bool
}

var packageKinds = []packageKind{
	{kind: "Configuration", resource: "configurations"},
	{kind: "Function", resource: "functions", sbom: true},
	{kind: "Provider", resource: "providers", sbom: true},
}

func (k packageKind) gvr() schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: "pkg.crossplane.io", Version: "v1", Resource: k.resource}
}

func (k packageKind) revisions() schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: "pkg.crossplane.io", Version: "v1", Resource: strings.TrimSuffix(k.resource, "s") + "revisions"}
}

// projectPackagePrefix is where the project's packages are installed from (behind
// examples/install/mirror.yaml's rewrite to the control plane's registry).
const projectPackagePrefix = "ghcr.io/sovereigncloudstack/"

// installProbe installs the package source as a package name of kind k and waits until the
// package manager installed it with one revision (refused empty) or refused it with
// Installed=False/UnpackingPackage naming refused, and no revision. It is deleted with t.
func installProbe(ctx context.Context, t *testing.T, k packageKind, name, source, refused string) {
	t.Helper()
	pkg := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "pkg.crossplane.io/v1", "kind": k.kind,
		"metadata": map[string]any{"name": name},
		"spec":     map[string]any{"package": source},
	}}
	if err := cp.ApplyObjects(ctx, pkg); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cp.Dynamic.Resource(k.gvr()).Delete(context.Background(), name, metav1.DeleteOptions{})
	})

	var installed model.ObservedCondition
	waitFor(ctx, t, 2*time.Minute, k.kind+" "+name+" installed or refused", func(ctx context.Context) (bool, error) {
		o, err := cp.Dynamic.Resource(k.gvr()).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		// Either outcome ends the wait; which one was wanted is checked below.
		installed = model.ConditionOf(o, "Installed")
		if installed.Status == "True" || strings.Contains(installed.Message, "signature verification failed") {
			return true, nil
		}
		return false, fmt.Errorf("Installed is %v", installed)
	})
	if refused != "" && installed.Status == "True" {
		t.Fatalf("%s %s installed, want it refused naming %q", k.kind, name, refused)
	}
	revisions, err := cp.Dynamic.Resource(k.revisions()).List(ctx, metav1.ListOptions{LabelSelector: "pkg.crossplane.io/package=" + name})
	if err != nil {
		t.Fatal(err)
	}
	if refused == "" {
		if len(revisions.Items) != 1 {
			t.Errorf("%s %s: %d revisions, want 1", k.kind, name, len(revisions.Items))
		}
		return
	}
	if installed.Reason != "UnpackingPackage" || !strings.Contains(installed.Message, refused) {
		t.Errorf("%s %s: Installed = %v, want False/UnpackingPackage naming %q", k.kind, name, installed, refused)
	}
	if len(revisions.Items) != 0 {
		t.Errorf("%s %s was refused but has %d revisions, want none", k.kind, name, len(revisions.Items))
	}
}

// pushProbe builds a Configuration package without objects, its content told apart by
// variant, pushes it to repository:tag and returns its reference by digest.
func pushProbe(ctx context.Context, t *testing.T, registry *controlplane.Registry, repository, tag, variant string) string {
	t.Helper()
	root := t.TempDir()
	meta := "apiVersion: meta.pkg.crossplane.io/v1\nkind: Configuration\nmetadata:\n  name: signature-probe\n" +
		"  annotations:\n    meta.crossplane.io/description: " + variant + "\nspec:\n  crossplane:\n    version: \">=v2.0.0\"\n"
	if err := os.WriteFile(filepath.Join(root, "crossplane.yaml"), []byte(meta), 0o644); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "probe.xpkg")
	if out, err := exec.CommandContext(ctx, env.Tools().CrossplaneCLI(), "xpkg", "build", "--package-root="+root, "-o", file).CombinedOutput(); err != nil {
		t.Fatalf("crossplane xpkg build: %v\n%s", err, out)
	}
	if _, err := registry.Push(ctx, env.Tools().CrossplaneCLI(), file, repository, tag); err != nil {
		t.Fatal(err)
	}
	digest, err := registry.Digest(ctx, repository, tag)
	if err != nil {
		t.Fatal(err)
	}
	return registry.Address + "/" + repository + "@" + digest
}

func digestOf(ref string) string { return ref[strings.LastIndex(ref, "@")+1:] }

// copySignature puts the signature manifest of digest from (cosign's tag sha256-<hex>.sig)
// under the signature tag of digest to, as one who changed a signed package would.
func copySignature(ctx context.Context, t *testing.T, registry *controlplane.Registry, repository, from, to string) {
	t.Helper()
	tag := func(digest string) name.Tag {
		ref, err := name.NewTag(registry.Address + "/" + repository + ":" + strings.Replace(digest, ":", "-", 1) + ".sig")
		if err != nil {
			t.Fatal(err)
		}
		return ref
	}
	options := registry.RemoteOptions(ctx)
	signature, err := remote.Get(tag(from), options...)
	if err != nil {
		t.Fatalf("the signature of %s: %v", from, err)
	}
	if err := remote.Put(tag(to), signature, options...); err != nil {
		t.Fatalf("the signature of %s under %s: %v", from, to, err)
	}
}
