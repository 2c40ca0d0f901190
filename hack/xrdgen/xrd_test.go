package main

import (
	"bytes"
	"os"
	"testing"
)

// TestCommittedXRDsAreCurrent fails when the Go types changed but an XRD was not
// regenerated.
func TestCommittedXRDsAreCurrent(t *testing.T) {
	t.Chdir("../..")
	for f, file := range Files {
		want, err := Generate(apiPackage, f)
		if err != nil {
			t.Fatalf("Generate(%s): %v", f, err)
		}
		got, err := os.ReadFile(file)
		if err != nil {
			t.Fatalf("cannot read the committed XRD: %v", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is stale: the Go types in apis/kaas/v1alpha1 changed; run make generate and commit the result", file)
		}
	}
}
