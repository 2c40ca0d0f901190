package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"

	"golang.org/x/tools/go/packages"
	"sigs.k8s.io/controller-tools/pkg/crd"
	"sigs.k8s.io/controller-tools/pkg/genall"
	"sigs.k8s.io/controller-tools/pkg/loader"
)

// apiPackage is the wrapper package holding the kubebuilder-marked Shoot.
const apiPackage = "github.com/SovereignCloudStack/scs-kaas/hack/shootcrd/api/v1beta1"

// memoryOutput collects what controller-tools writes so that the caller decides
// where (and whether) it lands; controller-gen's own rules pick file names.
type memoryOutput struct{ files map[string]*bytes.Buffer }

func (m *memoryOutput) Open(_ *loader.Package, name string) (io.WriteCloser, error) {
	b := &bytes.Buffer{}
	m.files[name] = b
	return nopCloser{b}, nil
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// Generate renders the Shoot CRD. dir is the directory of this module: the Go
// package loader resolves apiPackage through that module's go.mod.
func Generate(dir string) ([]byte, error) {
	// Gardener uses no floats in Shoot today; allowing them keeps a future
	// float field from breaking generation (it would still be a valid schema).
	allowDangerous := true
	var gen genall.Generator = crd.Generator{
		CRDVersions:         []string{"v1"},
		AllowDangerousTypes: &allowDangerous,
	}
	rt, err := genall.Generators{&gen}.ForRootsWithConfig(&packages.Config{Dir: dir}, apiPackage)
	if err != nil {
		return nil, fmt.Errorf("loading %s: %w", apiPackage, err)
	}
	out := &memoryOutput{files: map[string]*bytes.Buffer{}}
	rt.OutputRules = genall.OutputRules{Default: out}
	var errs bytes.Buffer
	rt.ErrorWriter = &errs
	if rt.Run() {
		return nil, fmt.Errorf("controller-tools failed:\n%s", errs.String())
	}
	if len(out.files) != 1 {
		return nil, fmt.Errorf("expected exactly one CRD, got %d", len(out.files))
	}
	var data []byte
	for _, b := range out.files {
		data = b.Bytes()
	}
	return pinToolVersion(data), nil
}

// pinToolVersion replaces controller-gen's version annotation, which it takes
// from the main module's build info and so reads "(devel)" or a VCS pseudo
// version depending on how this program was built, with the controller-tools
// version from go.mod: the output must not depend on how it was invoked.
func pinToolVersion(data []byte) []byte {
	v := "unknown"
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, dep := range info.Deps {
			if dep.Path == "sigs.k8s.io/controller-tools" {
				v = dep.Version
			}
		}
	}
	re := regexp.MustCompile(`(?m)^(\s*controller-gen\.kubebuilder\.io/version:).*$`)
	return re.ReplaceAll(data, []byte("${1} "+v))
}

// writeAtomically replaces path only once the whole content is on disk, so a
// reader (kube-apiserver install, validate) never sees a truncated CRD.
func writeAtomically(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".shootcrd-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
