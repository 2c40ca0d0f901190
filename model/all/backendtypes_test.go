package all

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/model"
	"github.com/SovereignCloudStack/scs-kaas/model/gardener"
)

// xrdFiles are the generated XRDs of both flavours.
const xrdFiles = "../../apis/xrd/*/*.yaml"

// TestRegisteredBackendsAreInTheAPI fails when a backend registered here is unknown to the
// API: a fourth backend compiles and passes its own tests, and then the API server refuses
// every status it writes (status.backend.type is an enum). The checklist in model/doc.go
// names the edits.
func TestRegisteredBackendsAreInTheAPI(t *testing.T) {
	enums := statusBackendEnums(t)
	for _, problem := range unknownToTheAPI(Registry(), kaasv1alpha1.BackendTypes(), enums) {
		t.Error(problem)
	}

	// The check itself finds a backend the API does not know.
	fourth := model.NewRegistry(append(Backends(), renamed{Backend: gardener.New(), t: "fourth"})...)
	var got []string
	for _, p := range unknownToTheAPI(fourth, kaasv1alpha1.BackendTypes(), enums) {
		if strings.Contains(p, `"fourth"`) {
			got = append(got, p)
		}
	}
	if len(got) != 1+len(enums) {
		t.Errorf("a backend unknown to the API gave %d problems, want %d (BackendTypes and each XRD): %q", len(got), 1+len(enums), got)
	}
}

// renamed is a backend under another type.
type renamed struct {
	model.Backend
	t kaasv1alpha1.BackendType
}

func (r renamed) Type() kaasv1alpha1.BackendType { return r.t }

// unknownToTheAPI lists each registered backend type missing from BackendTypes() or from
// the status.backend.type enum of an XRD (file -> enum).
func unknownToTheAPI(r *model.Registry, known []kaasv1alpha1.BackendType, enums map[string][]string) []string {
	var out []string
	for _, t := range r.Types() {
		if !slices.Contains(known, kaasv1alpha1.BackendType(t)) {
			out = append(out, fmt.Sprintf("backend %q is registered in model/all but missing from kaasv1alpha1.BackendTypes() (apis/kaas/v1alpha1/status_types.go)", t))
		}
		for _, file := range slices.Sorted(maps.Keys(enums)) {
			if !slices.Contains(enums[file], t) {
				out = append(out, fmt.Sprintf("backend %q is registered in model/all but missing from the status.backend.type enum of %s: add it to BackendType's +kubebuilder:validation:Enum marker and run make generate", t, file))
			}
		}
	}
	return out
}

// statusBackendEnums reads the enum of status.backend.type from each committed XRD.
func statusBackendEnums(t *testing.T) map[string][]string {
	t.Helper()
	files, err := filepath.Glob(xrdFiles)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 2 {
		t.Fatalf("%s matches %v; want the XRDs of both flavours", xrdFiles, files)
	}
	out := map[string][]string{}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var xrd struct {
			Spec struct {
				Versions []struct {
					Schema struct {
						OpenAPIV3Schema schemaProps `json:"openAPIV3Schema"`
					} `json:"schema"`
				} `json:"versions"`
			} `json:"spec"`
		}
		if err := yaml.Unmarshal(raw, &xrd); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if len(xrd.Spec.Versions) == 0 {
			t.Fatalf("%s has no versions", f)
		}
		for _, v := range xrd.Spec.Versions {
			s := v.Schema.OpenAPIV3Schema
			enum := s.Properties["status"].Properties["backend"].Properties["type"].Enum
			if len(enum) == 0 {
				t.Fatalf("%s has no enum at status.backend.type", f)
			}
			out[f] = enum
		}
	}
	return out
}

// schemaProps is the part of an OpenAPI schema the test walks.
type schemaProps struct {
	Properties map[string]schemaProps `json:"properties"`
	Enum       []string               `json:"enum"`
}
