package gardener

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

// publishedSchema is the Shoot schema gardener-apiserver publishes (see ../shared/crds). A
// fresh clone does not have ../shared; the test then skips and says so.
const publishedSchema = "../../../shared/crds/gardener-shoot-v1beta1.openapi-definitions.json"

type openAPIDoc struct {
	Definitions map[string]*schema `json:"definitions"`
	Root        string             `json:"root"`
}

type schema struct {
	Ref                  string             `json:"$ref"`
	Type                 string             `json:"type"`
	Format               string             `json:"format"`
	Properties           map[string]*schema `json:"properties"`
	AdditionalProperties *schema            `json:"additionalProperties"`
	Items                *schema            `json:"items"`
	Required             []string           `json:"required"`
	Enum                 []any              `json:"enum"`
}

// TestShootsMatchGardenersPublishedSchema checks every rendered Shoot against the OpenAPI
// schema gardener-apiserver serves: no unknown field anywhere, required fields present,
// types and enums right.
func TestShootsMatchGardenersPublishedSchema(t *testing.T) {
	raw, err := os.ReadFile(publishedSchema)
	if os.IsNotExist(err) {
		t.Skipf("SKIPPED: Gardener's published Shoot schema is not here (%s; a fresh clone has no ../shared). Gardener's own validation (TestGoldenShootsPassGardenerValidation) and the Shoot CRD generated from Gardener's types (make render) still check the Shoots.", publishedSchema)
	}
	if err != nil {
		t.Fatal(err)
	}
	doc := &openAPIDoc{}
	if err := json.Unmarshal(raw, doc); err != nil {
		t.Fatalf("cannot read %s: %v", publishedSchema, err)
	}
	root := doc.Definitions[doc.Root]
	if root == nil {
		t.Fatalf("%s has no definition for its root %q", publishedSchema, doc.Root)
	}

	files, _ := filepath.Glob(filepath.Join(rootDir, "functions/function-scs-kaas/testdata/golden/gardener-*.yaml"))
	claims, _ := filepath.Glob(filepath.Join(rootDir, "examples/claims/gardener-*.yaml"))
	if len(files) == 0 || len(claims) == 0 {
		t.Fatal("no golden responses or claim examples found")
	}
	check := func(t *testing.T, shoot map[string]any) {
		var errs []string
		doc.walk(root, shoot, "", &errs)
		if len(errs) > 0 {
			t.Errorf("the Shoot does not match Gardener's published schema:\n  %s", strings.Join(errs, "\n  "))
		}
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			for _, s := range shootsInResponse(readObjects(t, f)[0]) {
				check(t, s.Object)
			}
		})
	}
	for _, f := range claims {
		t.Run(filepath.Base(f), func(t *testing.T) {
			check(t, renderClaim(t, readObjects(t, f)[0], nil).Object)
		})
	}
}

// TestSchemaWalkerFindsProblems keeps the walker honest: it must flag what it claims to.
func TestSchemaWalkerFindsProblems(t *testing.T) {
	doc := &openAPIDoc{Definitions: map[string]*schema{
		"T": {Type: "object", Required: []string{"name"}, Properties: map[string]*schema{
			"name":  {Type: "string"},
			"count": {Type: "integer"},
			"mode":  {Type: "string", Enum: []any{"a", "b"}},
			"list":  {Type: "array", Items: &schema{Ref: "#/definitions/T"}},
		}},
	}}
	var errs []string
	doc.walk(doc.Definitions["T"], map[string]any{
		"count": "three", "mode": "c", "extra": 1,
		"list": []any{map[string]any{"name": "x", "typo": true}},
	}, "", &errs)
	sort.Strings(errs)
	want := []string{
		".count: want integer, got string",
		".extra: unknown field",
		".list[0].typo: unknown field",
		".mode: \"c\" is not one of [a b]",
		".name: required field missing",
	}
	if !slices.Equal(errs, want) {
		t.Errorf("walker found\n  %s\nwant\n  %s", strings.Join(errs, "\n  "), strings.Join(want, "\n  "))
	}
}

func (d *openAPIDoc) resolve(s *schema) *schema {
	for s != nil && s.Ref != "" {
		s = d.Definitions[strings.TrimPrefix(s.Ref, "#/definitions/")]
	}
	return s
}

func (d *openAPIDoc) walk(s *schema, v any, path string, errs *[]string) {
	s = d.resolve(s)
	if s == nil || v == nil {
		return
	}
	fail := func(format string, args ...any) { *errs = append(*errs, path+": "+fmt.Sprintf(format, args...)) }
	if len(s.Enum) > 0 && !slices.Contains(s.Enum, v) {
		fail("%q is not one of %v", v, s.Enum)
	}
	switch s.Format {
	case "int-or-string":
		switch v.(type) {
		case string, int64, float64:
		default:
			fail("want an integer or a string, got %T", v)
		}
		return
	case "date-time":
		if _, ok := v.(string); !ok {
			fail("want a date-time string, got %T", v)
		}
		return
	}
	switch s.Type {
	case "string":
		if _, ok := v.(string); !ok {
			fail("want string, got %s", jsonType(v))
		}
	case "integer":
		if f, ok := v.(float64); !ok || f != float64(int64(f)) {
			if _, isInt := v.(int64); !isInt {
				fail("want integer, got %s", jsonType(v))
			}
		}
	case "number":
		switch v.(type) {
		case float64, int64:
		default:
			fail("want number, got %s", jsonType(v))
		}
	case "boolean":
		if _, ok := v.(bool); !ok {
			fail("want boolean, got %s", jsonType(v))
		}
	case "array":
		items, ok := v.([]any)
		if !ok {
			fail("want array, got %s", jsonType(v))
			return
		}
		for i, it := range items {
			d.walk(s.Items, it, fmt.Sprintf("%s[%d]", path, i), errs)
		}
	case "object", "":
		m, ok := v.(map[string]any)
		if !ok {
			if s.Type == "object" {
				fail("want object, got %s", jsonType(v))
			}
			return
		}
		for _, r := range s.Required {
			if _, ok := m[r]; !ok {
				*errs = append(*errs, path+"."+r+": required field missing")
			}
		}
		if s.Properties == nil {
			// A map (additionalProperties) or an embedded object Gardener does not
			// describe (RawExtension: provider configs); both take any key.
			if s.AdditionalProperties != nil {
				for k, e := range m {
					d.walk(s.AdditionalProperties, e, path+"."+k, errs)
				}
			}
			return
		}
		for k, e := range m {
			ps, ok := s.Properties[k]
			if !ok {
				*errs = append(*errs, path+"."+k+": unknown field")
				continue
			}
			d.walk(ps, e, path+"."+k, errs)
		}
	}
}

func jsonType(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case bool:
		return "boolean"
	case float64, int64:
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}
