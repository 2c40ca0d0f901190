package e2e

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/SovereignCloudStack/scs-kaas/test/e2e/controlplane"
)

// TestPackageSignatureVerification installs packages through Crossplane's signature
// verification as TestMain's control plane runs it (--enable-signature-verification, every
// package of the project signed when pushed, examples/install/verification.yaml applied with
// the release key): a probe Configuration under the project's prefix installs when it is
// signed with the release key, and is refused by the package manager, with cosign's reason
// and no revision, when it is unsigned, signed with another key, or changed after signing
// and pushed with the signature of what was signed. The project's own packages installing
// at all (TestMain) is the other half: the SBOM attestations the Function and Provider need.
func TestPackageSignatureVerification(t *testing.T) {
	needEnv(t)
	ctx := testContext(t)
	signing, registry := env.Signing(), env.Registry()
	if signing == nil || registry == nil {
		t.Fatal("the control plane does not verify packages: TestMain installs the project with PackageInstall.Verify")
	}
	// The project's own packages installed (TestMain) because they verified: each under the
	// project's prefix names the ImageConfig that verified it, and the Function and the
	// Provider the one that also requires their signed SBOM.
	t.Run("the project's packages", func(t *testing.T) {
		wantSBOM := map[string]bool{"functions": true, "providers": true, "configurations": false}
		for resource, sbom := range wantSBOM {
			list, err := cp.Dynamic.Resource(schema.GroupVersionResource{Group: "pkg.crossplane.io", Version: "v1", Resource: resource}).List(ctx, metav1.ListOptions{})
			if err != nil {
				t.Fatal(err)
			}
			verified := 0
			for _, p := range list.Items {
				pkg, _, _ := unstructured.NestedString(p.Object, "spec", "package")
				if !strings.Contains(pkg, "/sovereigncloudstack/") || strings.Contains(pkg, "signature-probe") {
					continue
				}
				want := "verify-sovereigncloudstack"
				if sbom {
					want = "verify-sovereigncloudstack-sbom"
				}
				if got := appliedImageConfig(&p, "VerifyImage"); got != want {
					t.Errorf("%s %s (%s) was verified by ImageConfig %q, want %q", resource, p.GetName(), pkg, got, want)
				}
				verified++
			}
			if verified == 0 {
				t.Errorf("no %s of the project installed", resource)
			}
		}
	})

	cosign := env.Tools().Cosign()
	otherKey, _, err := controlplane.GenerateKeyPair(ctx, cosign, filepath.Join(t.TempDir(), "other"))
	if err != nil {
		t.Fatal(err)
	}
	sign := func(key, ref string) {
		t.Helper()
		if err := signing.Sign(ctx, repoRoot, registry, key, ref, ""); err != nil {
			t.Fatal(err)
		}
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
				sign(signing.KeyFile, pushProbe(ctx, t, registry, repository, "signed"))
			},
		},
		{
			name: "unsigned",
			publish: func(t *testing.T, repository string) {
				pushProbe(ctx, t, registry, repository, "unsigned")
			},
			refused: "no signatures found",
		},
		{
			name: "signed with another key",
			publish: func(t *testing.T, repository string) {
				sign(otherKey, pushProbe(ctx, t, registry, repository, "other key"))
			},
			refused: "comparing public key PEMs",
		},
		{
			// The tag moved to other content, and the signature of the signed digest was
			// copied to the new one: the signature is valid, but for another package.
			name: "changed after signing",
			publish: func(t *testing.T, repository string) {
				signed := pushProbe(ctx, t, registry, repository, "before the change")
				sign(signing.KeyFile, signed)
				changed := pushProbe(ctx, t, registry, repository, "after the change")
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
			cfg := &unstructured.Unstructured{Object: map[string]any{
				"apiVersion": "pkg.crossplane.io/v1", "kind": "Configuration",
				"metadata": map[string]any{"name": name},
				"spec":     map[string]any{"package": registry.Address + "/" + repository + ":v0.1.0"},
			}}
			if err := cp.ApplyObjects(ctx, cfg); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				_ = cp.Dynamic.Resource(configurationsGVR).Delete(context.Background(), name, metav1.DeleteOptions{})
			})

			var installed condition
			waitFor(ctx, t, 2*time.Minute, "Configuration "+name+" installed or refused", func(ctx context.Context) (bool, error) {
				o, err := cp.Dynamic.Resource(configurationsGVR).Get(ctx, name, metav1.GetOptions{})
				if err != nil {
					return false, err
				}
				installed = conditionOf(o, "Installed")
				switch {
				case c.refused == "" && installed.Status == "True":
					return true, nil
				case c.refused != "" && installed.Status == "False" && strings.Contains(installed.Message, "signature verification failed"):
					return true, nil
				}
				return false, fmt.Errorf("Installed is %v", installed)
			})
			revisions, err := cp.Dynamic.Resource(configurationRevisionsGVR).List(ctx, metav1.ListOptions{LabelSelector: "pkg.crossplane.io/package=" + name})
			if err != nil {
				t.Fatal(err)
			}
			if c.refused == "" {
				if len(revisions.Items) != 1 {
					t.Errorf("signed probe: %d revisions, want 1", len(revisions.Items))
				}
				return
			}
			if installed.Reason != "UnpackingPackage" || !strings.Contains(installed.Message, c.refused) {
				t.Errorf("Installed = %v, want False/UnpackingPackage naming %q", installed, c.refused)
			}
			if len(revisions.Items) != 0 {
				t.Errorf("a refused package has %d revisions, want none", len(revisions.Items))
			}
		})
	}
}

var (
	configurationsGVR         = schema.GroupVersionResource{Group: "pkg.crossplane.io", Version: "v1", Resource: "configurations"}
	configurationRevisionsGVR = schema.GroupVersionResource{Group: "pkg.crossplane.io", Version: "v1", Resource: "configurationrevisions"}
)

// pushProbe builds a Configuration package without objects, its content told apart by
// variant, pushes it to repository:v0.1.0 and returns its reference by digest.
func pushProbe(ctx context.Context, t *testing.T, registry *controlplane.Registry, repository, variant string) string {
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
	if _, err := registry.Push(ctx, env.Tools().CrossplaneCLI(), file, repository, "v0.1.0"); err != nil {
		t.Fatal(err)
	}
	digest, err := registry.Digest(ctx, repository, "v0.1.0")
	if err != nil {
		t.Fatal(err)
	}
	return registry.Address + "/" + repository + "@" + digest
}

// appliedImageConfig is the ImageConfig the package manager applied to the package p for
// reason (status.appliedImageConfigRefs), or "".
func appliedImageConfig(p *unstructured.Unstructured, reason string) string {
	refs, _, _ := unstructured.NestedSlice(p.Object, "status", "appliedImageConfigRefs")
	for _, r := range refs {
		if r, ok := r.(map[string]any); ok && r["reason"] == reason {
			name, _ := r["name"].(string)
			return name
		}
	}
	return ""
}

func digestOf(ref string) string { return ref[strings.LastIndex(ref, "@")+1:] }

// copySignature puts the signature manifest of digest from (cosign's tag sha256-<hex>.sig)
// under the signature tag of digest to, as one who changed a signed package would.
func copySignature(ctx context.Context, t *testing.T, registry *controlplane.Registry, repository, from, to string) {
	t.Helper()
	tag := func(digest string) string { return strings.Replace(digest, ":", "-", 1) + ".sig" }
	url := func(digest string) string {
		return "https://" + registry.Address + "/v2/" + repository + "/manifests/" + tag(digest)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url(from), nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "application/vnd.oci.image.manifest.v1+json, application/vnd.docker.distribution.manifest.v2+json")
	resp, err := registry.Client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	manifest, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET the signature of %s: %s %v", from, resp.Status, err)
	}
	req, err = http.NewRequestWithContext(ctx, http.MethodPut, url(to), bytes.NewReader(manifest))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", resp.Header.Get("Content-Type"))
	put, err := registry.Client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = put.Body.Close()
	if put.StatusCode != http.StatusCreated {
		t.Fatalf("PUT the signature under %s: %s", tag(to), put.Status)
	}
}
