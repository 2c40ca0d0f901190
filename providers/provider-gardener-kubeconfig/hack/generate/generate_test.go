package main

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"testing"
)

// TestCommittedFilesAreUpToDate regenerates into a temporary directory and compares with
// what is committed, so a change to the Go types without `make provider-generate` fails.
func TestCommittedFilesAreUpToDate(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	crdDir, codeRoot := filepath.Join(tmp, "crds"), filepath.Join(tmp, "code")
	for _, d := range []string{crdDir, codeRoot} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := Generate(root, crdDir, codeRoot); err != nil {
		t.Fatal(err)
	}

	compareDirs(t, crdDir, filepath.Join(root, CRDDir))

	// Every API package's DeepCopy methods and method sets, and no committed generated file
	// that the types no longer give.
	generated, committed := generatedFiles(t, codeRoot), generatedFiles(t, filepath.Join(root, "apis"))
	for _, pkg := range []string{"v1alpha1", "namespaced/v1alpha1"} {
		for _, f := range []string{DeepCopyFile, "zz_generated.managed.go", "zz_generated.managedlist.go", "zz_generated.pc.go", "zz_generated.pcu.go", "zz_generated.pculist.go"} {
			if rel := filepath.Join("apis", pkg, f); !slices.Contains(generated, rel) {
				t.Errorf("%s was not generated (generated: %v)", rel, generated)
			}
		}
	}
	for _, rel := range generated {
		compareFile(t, filepath.Join(codeRoot, rel), filepath.Join(root, rel))
	}
	for _, rel := range committed {
		if _, err := os.Stat(filepath.Join(codeRoot, "apis", rel)); err != nil {
			t.Errorf("apis/%s is generated from no types: run make provider-generate, remove it", rel)
		}
	}
}

// generatedFiles lists the generated files under dir, relative to dir.
func generatedFiles(t *testing.T, dir string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && IsGenerated(d.Name()) {
			rel, err := filepath.Rel(dir, p)
			if err != nil {
				return err
			}
			files = append(files, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	return files
}

// compareDirs fails when the two directories do not hold the same files with the same bytes.
func compareDirs(t *testing.T, generated, committed string) {
	t.Helper()
	gen, err := filepath.Glob(filepath.Join(generated, "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	com, err := filepath.Glob(filepath.Join(committed, "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(gen) != len(com) {
		t.Errorf("%s holds %d CRDs, the types give %d: run make provider-generate", committed, len(com), len(gen))
	}
	for _, g := range gen {
		compareFile(t, g, filepath.Join(committed, filepath.Base(g)))
	}
}

func compareFile(t *testing.T, generated, committed string) {
	t.Helper()
	want, err := os.ReadFile(generated)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(committed)
	if err != nil {
		t.Errorf("%v: run make provider-generate", err)
		return
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is stale: run make provider-generate", committed)
	}
}
