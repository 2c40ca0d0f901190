package all

import (
	"flag"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite docs/capabilities.md")

const capabilitiesDoc = "../../docs/capabilities.md"

// TestCapabilitiesAreComplete: every backend declares every portable field and status part,
// so that no column of the table, and no warning, is missing.
func TestCapabilitiesAreComplete(t *testing.T) {
	for _, b := range Backends() {
		if err := b.Capabilities().Check(); err != nil {
			t.Errorf("backend %s: %v", b.Type(), err)
		}
	}
}

// TestCapabilitiesDoc fails when docs/capabilities.md is not what the declarations say;
// go test -update (make generate) rewrites it.
func TestCapabilitiesDoc(t *testing.T) {
	got := CapabilitiesDoc()
	if *update {
		if err := os.WriteFile(capabilitiesDoc, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(capabilitiesDoc)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s is stale; run make generate (-committed, +declared):\n%s", capabilitiesDoc, diff)
	}
}
