package all

import (
	"flag"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/SovereignCloudStack/scs-kaas/model"
)

var update = flag.Bool("update", false, "rewrite docs/capabilities.md and the standard's conformance table")

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

const standardDoc = "../../docs/standard/scs-XXXX-v1-kaas-cluster-api.md"

// TestStandardDoc fails when the standard's conformance table is not what the requirements
// and the backends' declarations say; go test -update (make generate) rewrites it.
func TestStandardDoc(t *testing.T) {
	text, err := os.ReadFile(standardDoc)
	if err != nil {
		t.Fatal(err)
	}
	got, err := StandardDoc(string(text))
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile(standardDoc, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		text = []byte(got)
	}
	if diff := cmp.Diff(string(text), got); diff != "" {
		t.Errorf("%s is stale; run make generate (-committed, +declared):\n%s", standardDoc, diff)
	}
}

// TestBackendsMeetTheStandard: every backend this project ships meets every MUST of the
// standard, and the standard has a requirement for every portable field.
func TestBackendsMeetTheStandard(t *testing.T) {
	for _, f := range model.Fields {
		if _, ok := model.StandardRequirements[f]; !ok {
			t.Errorf("the standard has no requirement for %s", f)
		}
	}
	for _, b := range Backends() {
		if level, short := model.Conformance(b.Capabilities()); level == model.ConformanceNone {
			t.Errorf("backend %s misses MUSTs of the standard: %v", b.Type(), short)
		}
	}
}
