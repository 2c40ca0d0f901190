package main

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// TestCommittedDeepCopyIsCurrent regenerates into a temporary directory and compares with
// what is committed, so a change to the API types without make generate fails; so does a
// committed DeepCopy file that no API package gives any more.
func TestCommittedDeepCopyIsCurrent(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	if err := Generate(root, tmp); err != nil {
		t.Fatal(err)
	}
	generated := files(t, tmp)
	if len(generated) != len(APIPackages) {
		t.Errorf("DeepCopy generated for %v; want one file for each of %v", generated, APIPackages)
	}
	for _, rel := range generated {
		want, err := os.ReadFile(filepath.Join(tmp, rel))
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			t.Errorf("%s is not committed: run make generate and commit it", rel)
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is stale: the API types changed; run make generate and commit the result", rel)
		}
	}
	for _, rel := range files(t, filepath.Join(root, "apis")) {
		rel = filepath.Join("apis", rel)
		if _, err := os.Stat(filepath.Join(tmp, rel)); err != nil {
			t.Errorf("%s is generated from no types: run make generate, remove it", rel)
		}
	}
}

// files lists the DeepCopy files under dir, relative to dir.
func files(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && d.Name() == File {
			rel, err := filepath.Rel(dir, p)
			if err != nil {
				return err
			}
			out = append(out, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
