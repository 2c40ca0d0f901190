package schemas

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/kube-openapi/pkg/validation/spec"
	"k8s.io/kube-openapi/pkg/validation/strfmt"
	"k8s.io/kube-openapi/pkg/validation/validate"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
)

// Schema is the OpenAPI schema of one kind in one version.
type Schema struct {
	// Source says where the schema came from, for reports.
	Source string
	raw    map[string]any
	typed  *spec.Schema
}

// Set is the schemas at hand, by group, version and kind.
type Set struct {
	byGVK map[schema.GroupVersionKind]*Schema
}

// NewSet holds the embedded XRD's schema, for SCSCluster and XSCSCluster alike.
func NewSet() *Set {
	s := &Set{byGVK: map[schema.GroupVersionKind]*Schema{}}
	v := embedded.Spec.Versions[0]
	sch, err := newSchema(v.Schema.OpenAPIV3Schema, XRDSource)
	if err != nil {
		panic(fmt.Sprintf("the embedded XRD's schema: %v", err))
	}
	for _, kind := range []string{kaasv1alpha1.ClaimKind, kaasv1alpha1.CompositeKind} {
		s.byGVK[schema.GroupVersionKind{Group: embedded.Spec.Group, Version: v.Name, Kind: kind}] = sch
	}
	return s
}

func newSchema(raw map[string]any, source string) (*Schema, error) {
	data, err := json.Marshal(raw)
	if err != nil {
		return nil, err
	}
	typed := &spec.Schema{}
	if err := json.Unmarshal(data, typed); err != nil {
		return nil, err
	}
	return &Schema{Source: source, raw: raw, typed: typed}, nil
}

// Lookup returns the schema of a kind, or nil when none is at hand.
func (s *Set) Lookup(gvk schema.GroupVersionKind) *Schema { return s.byGVK[gvk] }

// Kinds lists the kinds the set has schemas for, sorted, for reports.
func (s *Set) Kinds() []string {
	out := make([]string, 0, len(s.byGVK))
	for gvk := range s.byGVK {
		out = append(out, gvk.Kind+"."+gvk.Group+"/"+gvk.Version)
	}
	sort.Strings(out)
	return out
}

// AddPath adds the CRDs and XRDs in a file, or in the .yaml, .yml and .json files under a
// directory. Other documents are skipped: a directory of manifests may hold anything. A
// kind that is already known keeps its first schema, so the built-in XRD wins over a
// stale copy.
func (s *Set) AddPath(path string) (int, error) {
	info, err := os.Stat(path)
	if err != nil {
		return 0, err
	}
	files := []string{path}
	if info.IsDir() {
		files = nil
		err := filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			switch strings.ToLower(filepath.Ext(p)) {
			case ".yaml", ".yml", ".json":
				if !d.IsDir() {
					files = append(files, p)
				}
			}
			return nil
		})
		if err != nil {
			return 0, err
		}
	}
	added := 0
	for _, f := range files {
		n, err := s.addFile(f)
		if err != nil {
			return added, fmt.Errorf("%s: %w", f, err)
		}
		added += n
	}
	return added, nil
}

// definition is the part of a CustomResourceDefinition or CompositeResourceDefinition
// that holds schemas.
type definition struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name string `json:"name"`
	} `json:"metadata"`
	Spec struct {
		Group string `json:"group"`
		Names struct {
			Kind string `json:"kind"`
		} `json:"names"`
		ClaimNames *struct {
			Kind string `json:"kind"`
		} `json:"claimNames"`
		Versions []struct {
			Name   string `json:"name"`
			Schema struct {
				OpenAPIV3Schema map[string]any `json:"openAPIV3Schema"`
			} `json:"schema"`
		} `json:"versions"`
	} `json:"spec"`
}

func (s *Set) addFile(file string) (int, error) {
	data, err := os.ReadFile(file) //nolint:gosec // G304: a schema file the user named with --schemas
	if err != nil {
		return 0, err
	}
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	added := 0
	for {
		var doc map[string]any
		if err := dec.Decode(&doc); errors.Is(err, io.EOF) {
			return added, nil
		} else if err != nil {
			// Not a manifest (a JSON file of OpenAPI definitions, say): nothing for us.
			return added, nil
		}
		raw, err := json.Marshal(doc)
		if err != nil {
			return added, err
		}
		d := definition{}
		if err := json.Unmarshal(raw, &d); err != nil {
			continue
		}
		kinds := []string{d.Spec.Names.Kind}
		switch {
		case d.Kind == "CustomResourceDefinition" && strings.HasPrefix(d.APIVersion, "apiextensions.k8s.io/"):
		case d.Kind == "CompositeResourceDefinition" && strings.HasPrefix(d.APIVersion, "apiextensions.crossplane.io/"):
			if d.Spec.ClaimNames != nil {
				kinds = append(kinds, d.Spec.ClaimNames.Kind)
			}
		default:
			continue
		}
		for _, v := range d.Spec.Versions {
			if v.Schema.OpenAPIV3Schema == nil {
				continue
			}
			kind := "CRD"
			if d.Kind == "CompositeResourceDefinition" {
				kind = "XRD"
			}
			sch, err := newSchema(v.Schema.OpenAPIV3Schema, fmt.Sprintf("%s %s from %s", kind, d.Metadata.Name, file))
			if err != nil {
				return added, fmt.Errorf("%s %s version %s: %w", d.Kind, d.Metadata.Name, v.Name, err)
			}
			for _, k := range kinds {
				gvk := schema.GroupVersionKind{Group: d.Spec.Group, Version: v.Name, Kind: k}
				if _, ok := s.byGVK[gvk]; !ok {
					s.byGVK[gvk] = sch
					added++
				}
			}
		}
	}
}

// Validate checks an object against the schema as the API server's OpenAPI validation
// does: types, formats, patterns, enums, bounds, required fields. It reports, too, every
// field the schema does not declare, which the API server would drop without a word
// (pruning). metadata is the API server's own business and is not checked; nor are CEL
// rules (x-kubernetes-validations): they need the API server's CEL environment.
func (sch *Schema) Validate(obj map[string]any) []string {
	body := make(map[string]any, len(obj))
	for k, v := range obj {
		if k != "metadata" {
			body[k] = v
		}
	}
	// The API server checks metadata itself; the CRD's schema leaves it open.
	typed := *sch.typed
	if _, ok := typed.Properties["metadata"]; ok {
		props := make(map[string]spec.Schema, len(typed.Properties))
		for k, v := range typed.Properties {
			if k != "metadata" {
				props[k] = v
			}
		}
		typed.Properties = props
	}
	typed.Required = without(typed.Required, "metadata")

	var problems []string
	res := validate.NewSchemaValidator(&typed, nil, "", strfmt.Default).Validate(roundTrip(body))
	for _, err := range res.Errors {
		problems = append(problems, err.Error())
	}
	problems = append(problems, unknownFields("", body, sch.raw, true)...)
	sort.Strings(problems)
	return problems
}

// roundTrip gives the validator JSON's types (float64 numbers), whatever the object was
// built from.
func roundTrip(v any) any {
	data, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var out any
	if err := json.Unmarshal(data, &out); err != nil {
		return v
	}
	return out
}

func without(list []string, drop string) []string {
	var out []string
	for _, s := range list {
		if s != drop {
			out = append(out, s)
		}
	}
	return out
}

// unknownFields lists the fields of v that schema s does not declare, as a structural
// schema prunes them: properties name the fields of an object, additionalProperties open
// it, x-kubernetes-preserve-unknown-fields keeps anything, an embedded resource keeps its
// apiVersion, kind and metadata.
func unknownFields(path string, v any, s map[string]any, root bool) []string {
	if s == nil || s["x-kubernetes-preserve-unknown-fields"] == true {
		return nil
	}
	switch val := v.(type) {
	case map[string]any:
		props, _ := s["properties"].(map[string]any)
		additional, hasAdditional := s["additionalProperties"]
		embedded := s["x-kubernetes-embedded-resource"] == true
		var out []string
		keys := make([]string, 0, len(val))
		for k := range val {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			p := joinPath(path, k)
			if sub, ok := props[k].(map[string]any); ok {
				out = append(out, unknownFields(p, val[k], sub, false)...)
				continue
			}
			if (root || embedded) && (k == "apiVersion" || k == "kind" || k == "metadata") {
				continue
			}
			switch a := additional.(type) {
			case map[string]any:
				out = append(out, unknownFields(p, val[k], a, false)...)
				continue
			case bool:
				if a {
					continue
				}
			}
			if hasAdditional && additional == nil {
				continue
			}
			out = append(out, fmt.Sprintf("%s: field not declared in the schema (the API server would drop it)", p))
		}
		return out
	case []any:
		items, _ := s["items"].(map[string]any)
		var out []string
		for i, item := range val {
			out = append(out, unknownFields(fmt.Sprintf("%s[%d]", path, i), item, items, false)...)
		}
		return out
	}
	return nil
}

func joinPath(path, k string) string {
	if path == "" {
		return k
	}
	return path + "." + k
}
