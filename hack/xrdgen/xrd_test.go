package main

import (
	"bytes"
	"os"
	"testing"
)

const committedXRD = "apis/xrd/xscsclusters.kaas.scs.community.yaml"

// TestCommittedXRDIsCurrent fails when the Go types changed but the XRD was not
// regenerated.
func TestCommittedXRDIsCurrent(t *testing.T) {
	t.Chdir("../..")
	want, err := Generate(apiPackage)
	if err != nil {
		t.Fatalf("Generate: %v", err)
	}
	got, err := os.ReadFile(committedXRD)
	if err != nil {
		t.Fatalf("cannot read the committed XRD: %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is stale: the Go types in apis/kaas/v1alpha1 changed; run make generate and commit the result", committedXRD)
	}
}
