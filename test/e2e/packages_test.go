package e2e

import (
	"archive/tar"
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"golang.org/x/mod/semver"
	"sigs.k8s.io/yaml"

	"github.com/SovereignCloudStack/scs-kaas/test/e2e/controlplane"
)

// TestPackagesPushedToTheLocalRegistry reads the packages the control plane pushed to its
// TLS registry with crossplane-cli (as a platform pushes them into its own registry for an
// air-gapped install, Options.Packages) back as Crossplane's package manager does: the tags
// of each repository, and each Configuration's dependencies, which must all resolve from
// this registry alone (a tag that meets each version constraint under the mirrored
// repository). A push that does not trust the registry's CA is refused.
func TestPackagesPushedToTheLocalRegistry(t *testing.T) {
	needEnv(t)
	ctx := testContext(t)
	registry := env.Registry()
	if registry == nil {
		t.Fatal("the control plane has no registry: TestMain installs the project through packages")
	}
	cli := env.Tools().CrossplaneCLI()
	dir := filepath.Join(repoRoot, "_output", "packages")

	for _, p := range controlplane.ProjectPackages {
		if tags := registryTags(ctx, t, registry.Client, registry.Address, p.Repository); !slices.Contains(tags, p.Tag) {
			t.Errorf("%s: tags %v, want %s", p.Repository, tags, p.Tag)
		}
	}

	// Each Configuration's dependencies resolve from the registry alone: for each, the
	// repository docs/install.md's mirror.yaml rewrites it to has a tag its version
	// constraint accepts.
	mirror, err := controlplane.ReadMirror(filepath.Join(repoRoot, "examples", "install", "mirror.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range controlplane.ProjectPackages[:2] {
		meta := packageMetadata(ctx, t, registry.Client, registry.Address+"/"+p.Repository+":"+p.Tag)
		var cfg struct {
			Kind string
			Spec struct {
				DependsOn []struct{ Package, Version string } `json:"dependsOn"`
			}
		}
		if err := yaml.Unmarshal(meta, &cfg); err != nil {
			t.Fatalf("the package metadata of %s: %v", p.File, err)
		}
		if cfg.Kind != "Configuration" || len(cfg.Spec.DependsOn) != 3 {
			t.Errorf("%s: a %q with dependencies %+v, want a Configuration with three", p.File, cfg.Kind, cfg.Spec.DependsOn)
		}
		for _, d := range cfg.Spec.DependsOn {
			repository := mirrored(mirror, d.Package)
			if repository == "" {
				t.Errorf("%s depends on %s, which mirror.yaml does not rewrite", p.File, d.Package)
				continue
			}
			tags := registryTags(ctx, t, registry.Client, registry.Address, repository)
			if !slices.ContainsFunc(tags, func(tag string) bool { return satisfies(tag, d.Version) }) {
				t.Errorf("%s depends on %s %s; the registry has tags %v", p.File, d.Package, d.Version, tags)
			}
		}
	}

	// Nothing is insecure by exception: a client without the registry's CA is refused.
	cmd := exec.CommandContext(ctx, cli, "xpkg", "push", "-f", filepath.Join(dir, "function-scs-kaas.xpkg"),
		registry.Address+"/sovereigncloudstack/function-scs-kaas:v0.0.0-untrusted")
	cmd.Env = append(os.Environ(), "SSL_CERT_FILE=/nonexistent")
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "certificate signed by unknown authority") {
		t.Errorf("a push without the registry's CA: %v\n%s", err, out)
	}
}

// registryTags lists the tags of a repository, as the package manager does to pick a version.
func registryTags(ctx context.Context, t *testing.T, client *http.Client, address, repository string) []string {
	t.Helper()
	repo, err := name.NewRepository(address + "/" + repository)
	if err != nil {
		t.Fatal(err)
	}
	tags, err := remote.List(repo, remote.WithContext(ctx), remote.WithTransport(client.Transport))
	if err != nil {
		t.Fatalf("listing the tags of %s: %v", repository, err)
	}
	return tags
}

// packageMetadata pulls a package and returns its package.yaml, the metadata and objects
// the package manager reads from the package layer.
func packageMetadata(ctx context.Context, t *testing.T, client *http.Client, reference string) []byte {
	t.Helper()
	ref, err := name.ParseReference(reference)
	if err != nil {
		t.Fatal(err)
	}
	img, err := remote.Image(ref, remote.WithContext(ctx), remote.WithTransport(client.Transport))
	if err != nil {
		t.Fatalf("pulling %s: %v", reference, err)
	}
	layers, err := img.Layers()
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range layers {
		rc, err := l.Uncompressed()
		if err != nil {
			t.Fatal(err)
		}
		data, err := findInTar(rc, "package.yaml")
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		if data != nil {
			// package.yaml holds the metadata first, then the objects.
			first, _, _ := strings.Cut(string(data), "\n---")
			return []byte(first)
		}
	}
	t.Fatalf("%s has no package.yaml in its layers", reference)
	return nil
}

// findInTar returns the content of the file name in a tar stream, or nil.
func findInTar(r io.Reader, file string) ([]byte, error) {
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		if filepath.Clean(h.Name) == file {
			return io.ReadAll(tr)
		}
	}
}

// mirrored is the repository a public package is mirrored under by prefixes, or "".
func mirrored(prefixes map[string]string, pkg string) string {
	for public, mirror := range prefixes {
		if rest, ok := strings.CutPrefix(pkg, public); ok {
			return mirror + rest
		}
	}
	return ""
}

// satisfies reports whether tag meets a dependency's version constraint of the form the
// packages use (">=vX.Y.Z", or an exact version).
func satisfies(tag, constraint string) bool {
	if minimum, ok := strings.CutPrefix(constraint, ">="); ok {
		return semver.IsValid(tag) && semver.Compare(tag, minimum) >= 0
	}
	return tag == constraint
}
