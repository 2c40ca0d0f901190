package controlplane

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
)

// installedConfiguration is the Configuration InstallConfiguration installed: its name and
// its package reference as the manifest named it.
type installedConfiguration struct{ name, pkg string }

// UpgradeColumn is the printer column the XRD of PushUpgrade's release has more than the
// project's: the harmless change that shows which release of the Configuration is active.
const UpgradeColumn = "PURPOSE"

// PushUpgrade builds release version of the installed Configuration and of the Function
// from the repository, each with a harmless change (the XRD the printer column
// UpgradeColumn more, the Function's metadata a release annotation), and pushes both to the
// registry: the newer release an upgrade moves to with MovePackages.
func (e *Env) PushUpgrade(ctx context.Context, version string) error {
	if e.registry == nil || e.configuration.name == "" {
		return errors.New("PushUpgrade: the project is not installed through packages (Options.Packages)")
	}
	repository, flavour, err := e.configurationSource()
	if err != nil {
		return err
	}
	fnRepository, err := projectRepository("function-scs-kaas")
	if err != nil {
		return err
	}
	root := e.opts.RepoRoot
	dir, err := os.MkdirTemp(e.RunDir, "upgrade-"+version+"-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)

	cfgRoot := filepath.Join(dir, "configuration")
	sources := []string{filepath.Join(root, ConfigurationMeta(flavour))}
	for _, d := range []string{filepath.Join(root, "apis", "xrd", flavour), filepath.Join(root, "compositions", flavour)} {
		files, err := filepath.Glob(filepath.Join(d, "*.yaml"))
		if err != nil {
			return err
		}
		sources = append(sources, files...)
	}
	column := "  - additionalPrinterColumns:\n    - jsonPath: .spec.purpose\n      name: " + UpgradeColumn + "\n      type: string\n"
	if err := copyChanged(cfgRoot, sources, "  - additionalPrinterColumns:\n", column); err != nil {
		return err
	}
	fnRoot := filepath.Join(dir, "function")
	if err := copyChanged(fnRoot, []string{filepath.Join(root, "functions", "function-scs-kaas", "package", "crossplane.yaml")},
		"  annotations:\n", "  annotations:\n    meta.crossplane.io/release: "+version+"\n"); err != nil {
		return err
	}
	// The release's Function runs the binary of make package's: its SBOM is that one's.
	fnSBOM := filepath.Join(e.opts.Packages.Dir, "function-scs-kaas.cdx.json")
	for _, b := range []struct{ root, repository, sbom string }{
		{cfgRoot, repository, ""},
		{fnRoot, fnRepository, fnSBOM},
	} {
		out := filepath.Join(dir, path.Base(b.repository)+".xpkg")
		if msg, err := exec.CommandContext(ctx, e.tools.CrossplaneCLI(), "xpkg", "build", "--package-root="+b.root, "-o", out).CombinedOutput(); err != nil {
			return fmt.Errorf("crossplane xpkg build %s: %w\n%s", b.root, err, msg)
		}
		if err := e.publish(ctx, out, b.repository, version, b.sbom); err != nil {
			return err
		}
	}
	return nil
}

// configurationSource returns the registry repository of the installed Configuration and
// the flavour directory its sources live under (package/<flavour>, apis/xrd/<flavour>).
func (e *Env) configurationSource() (repository, flavour string, err error) {
	base := path.Base(untagged(e.configuration.pkg))
	if repository, err = projectRepository(base); err != nil {
		return "", "", err
	}
	if strings.HasSuffix(base, "-claims") {
		return repository, "legacy", nil
	}
	return repository, "namespaced", nil
}

// projectRepository is where the registry serves the project's package named name
// (ProjectPackages).
func projectRepository(name string) (string, error) {
	i := slices.IndexFunc(ProjectPackages, func(p Package) bool { return path.Base(p.Repository) == name })
	if i < 0 {
		return "", fmt.Errorf("%s is none of the project's packages", name)
	}
	return ProjectPackages[i].Repository, nil
}

// untagged is a package reference without its tag.
func untagged(ref string) string {
	if i := strings.LastIndex(ref, ":"); i > strings.LastIndex(ref, "/") {
		return ref[:i]
	}
	return ref
}

// copyChanged copies files into dir, replacing the first old in each with new; at least
// one file must contain old.
func copyChanged(dir string, files []string, old, new string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	changed := false
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		if s := string(data); strings.Contains(s, old) {
			data, changed = []byte(strings.Replace(s, old, new, 1)), true
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(f)), data, 0o644); err != nil {
			return err
		}
	}
	if !changed {
		return fmt.Errorf("none of %v holds %q to change", files, old)
	}
	return nil
}

// MovePackages upgrades or rolls back the installed Configuration and the Function to
// version, as a platform team does by editing their spec.package, and waits until the
// revisions of that version are active, Installed and Healthy.
func (e *Env) MovePackages(ctx context.Context, version string) error {
	if e.configuration.name == "" {
		return errors.New("MovePackages: the project is not installed through packages (Options.Packages)")
	}
	c := e.Crossplane
	// The Function by the public name the package manager installed it under, from the
	// Configuration's dependency.
	fn, err := c.Dynamic.Resource(functionGVR).Get(ctx, e.opts.FunctionName, metav1.GetOptions{})
	if err != nil {
		return err
	}
	fnPackage, _, _ := unstructured.NestedString(fn.Object, "spec", "package")
	moves := []struct {
		gvr             schema.GroupVersionResource
		kind, name, pkg string
	}{
		{configurationGVR, "Configuration", e.configuration.name, untagged(e.configuration.pkg) + ":" + version},
		{functionGVR, "Function", e.opts.FunctionName, untagged(fnPackage) + ":" + version},
	}
	for _, m := range moves {
		patch := fmt.Sprintf(`{"spec":{"package":%q}}`, m.pkg)
		if _, err := c.Dynamic.Resource(m.gvr).Patch(ctx, m.name, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
			return fmt.Errorf("moving %s %s to %s: %w", m.kind, m.name, m.pkg, err)
		}
	}
	return waitFor(ctx, 3*time.Minute, "Configuration and Function at "+version+", installed and healthy", nil, func(ctx context.Context) (bool, error) {
		for _, m := range moves {
			pkg, err := c.Get(ctx, "pkg.crossplane.io/v1", m.kind, "", m.name)
			if err != nil {
				return false, err
			}
			current, _, _ := unstructured.NestedString(pkg.Object, "status", "currentIdentifier")
			if !strings.HasSuffix(current, ":"+version) || !conditionTrue(pkg, "Installed") || !conditionTrue(pkg, "Healthy") {
				return false, fmt.Errorf("%s %s at %q: %s", m.kind, m.name, current, conditionSummary(pkg))
			}
		}
		return true, nil
	})
}
