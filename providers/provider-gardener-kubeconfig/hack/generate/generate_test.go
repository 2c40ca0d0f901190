package main

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
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

	// Every API package's DeepCopy file, and no committed one that the types no longer give.
	generated, committed := deepCopyFiles(t, codeRoot), deepCopyFiles(t, filepath.Join(root, "apis"))
	if len(generated) < 2 {
		t.Errorf("DeepCopy generated for %v only; want both API packages", generated)
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

// deepCopyFiles lists the DeepCopy files under dir, relative to dir.
func deepCopyFiles(t *testing.T, dir string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && d.Name() == DeepCopyFile {
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
