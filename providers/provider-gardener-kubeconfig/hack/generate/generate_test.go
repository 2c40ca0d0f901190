package main

import (
	"bytes"
	"os"
	"path/filepath"
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
	crdDir, codeDir := filepath.Join(tmp, "crds"), filepath.Join(tmp, "code")
	for _, d := range []string{crdDir, codeDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := Generate(root, crdDir, codeDir); err != nil {
		t.Fatal(err)
	}

	compareDirs(t, crdDir, filepath.Join(root, CRDDir))
	compareFile(t, filepath.Join(codeDir, "zz_generated.deepcopy.go"), filepath.Join(root, DeepCopyDir, "zz_generated.deepcopy.go"))
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
