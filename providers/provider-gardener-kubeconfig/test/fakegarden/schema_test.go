package fakegarden

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// The OpenAPI definitions gardener-apiserver publishes for AdminKubeconfigRequest live next to
// the project, not in it (../shared/crds, see its README.md); SCS_SHARED_CRDS overrides the
// folder. Tests that need them skip on a clone without that folder.
const openAPIFile = "gardener-adminkubeconfigrequest-v1alpha1.openapi-definitions.json"

const requestDefinition = "com.github.gardener.gardener.pkg.apis.authentication.v1alpha1.AdminKubeconfigRequest"

type openAPISchema struct {
	Type                 string                    `json:"type"`
	Format               string                    `json:"format"`
	Ref                  string                    `json:"$ref"`
	Required             []string                  `json:"required"`
	Properties           map[string]*openAPISchema `json:"properties"`
	Items                *openAPISchema            `json:"items"`
	AdditionalProperties *openAPISchema            `json:"additionalProperties"`
}

type definitions map[string]*openAPISchema

func loadDefinitions(t *testing.T) definitions {
	t.Helper()
	dir := os.Getenv("SCS_SHARED_CRDS")
	if dir == "" {
		// test/fakegarden -> provider -> providers -> repository root -> ../shared/crds
		dir = filepath.Join("..", "..", "..", "..", "..", "shared", "crds")
	}
	raw, err := os.ReadFile(filepath.Join(dir, openAPIFile))
	if os.IsNotExist(err) {
		t.Skipf("%s not found in %s (set SCS_SHARED_CRDS): cannot check against Gardener's published schema", openAPIFile, dir)
	}
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Definitions definitions `json:"definitions"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Definitions[requestDefinition] == nil {
		t.Fatalf("%s has no %s", openAPIFile, requestDefinition)
	}
	return doc.Definitions
}

// check validates a JSON document against a definition: required fields, types, formats and
// unknown fields (the definitions are closed unless they say additionalProperties). It
// returns every violation with its path, sorted.
func (d definitions) check(name string, doc []byte) []string {
	var v any
	if err := json.Unmarshal(doc, &v); err != nil {
		return []string{err.Error()}
	}
	var errs []string
	d.walk("", d[name], v, &errs)
	sort.Strings(errs)
	return errs
}

func (d definitions) walk(path string, s *openAPISchema, v any, errs *[]string) {
	if s.Ref != "" {
		s = d[strings.TrimPrefix(s.Ref, "#/definitions/")]
		if s == nil {
			*errs = append(*errs, path+": unresolvable $ref")
			return
		}
	}
	if v == nil {
		return // null is how Go marshals an unset optional value
	}
	bad := func(format string, a ...any) { *errs = append(*errs, path+": "+fmt.Sprintf(format, a...)) }
	switch s.Type {
	case "object":
		m, ok := v.(map[string]any)
		if !ok {
			bad("want an object")
			return
		}
		for _, r := range s.Required {
			if _, ok := m[r]; !ok {
				bad("required field %q missing", r)
			}
		}
		for k, fv := range m {
			switch {
			case s.Properties[k] != nil:
				d.walk(path+"."+k, s.Properties[k], fv, errs)
			case s.AdditionalProperties != nil:
				d.walk(path+"."+k, s.AdditionalProperties, fv, errs)
			case len(s.Properties) > 0:
				bad("unknown field %q", k)
			}
		}
	case "array":
		a, ok := v.([]any)
		if !ok {
			bad("want an array")
			return
		}
		for i, e := range a {
			d.walk(fmt.Sprintf("%s[%d]", path, i), s.Items, e, errs)
		}
	case "string":
		str, ok := v.(string)
		if !ok {
			bad("want a string")
			return
		}
		switch s.Format {
		case "byte":
			if _, err := base64.StdEncoding.DecodeString(str); err != nil {
				bad("not base64: %v", err)
			}
		case "date-time":
			if _, err := time.Parse(time.RFC3339, str); err != nil {
				bad("not RFC 3339: %v", err)
			}
		}
	case "integer":
		if f, ok := v.(float64); !ok || f != float64(int64(f)) {
			bad("want an integer")
		}
	case "boolean":
		if _, ok := v.(bool); !ok {
			bad("want a boolean")
		}
	}
}

// TestSchemaCheckerCatchesViolations keeps the checker honest: a checker that accepts
// everything would make the shape tests pass for any body.
func TestSchemaCheckerCatchesViolations(t *testing.T) {
	d := loadDefinitions(t)
	for name, doc := range map[string]string{
		"status is required":        `{"spec":{}}`,
		"kubeconfig must be base64": `{"spec":{},"status":{"kubeconfig":"not base64!","expirationTimestamp":"2026-11-03T08:00:00Z"}}`,
		"timestamp must be RFC3339": `{"spec":{},"status":{"kubeconfig":"","expirationTimestamp":"tomorrow"}}`,
		"unknown fields":            `{"spec":{"expirationSecond":3600},"status":{"kubeconfig":"","expirationTimestamp":"2026-11-03T08:00:00Z"}}`,
		"integer type":              `{"spec":{"expirationSeconds":"3600"},"status":{"kubeconfig":"","expirationTimestamp":"2026-11-03T08:00:00Z"}}`,
	} {
		if errs := d.check(requestDefinition, []byte(doc)); len(errs) == 0 {
			t.Errorf("%s: the checker accepted %s", name, doc)
		}
	}
}
