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
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
)

// checker checks the objects of one kind as the API server that serves it does on create.
type checker interface {
	// describe says what is checked against what, for reports.
	describe() string
	check(obj *unstructured.Unstructured) field.ErrorList
}

// Set is the checkers at hand, by group, version and kind.
type Set struct {
	byGVK map[schema.GroupVersionKind]checker
}

// crossplaneSpecFields are the fields Crossplane's generated CRD adds to the spec of a
// composite or claim (the XRD does not declare them); they are checked by Crossplane.
var crossplaneSpecFields = []string{"crossplane", "compositionRef", "compositionSelector", "compositionRevisionRef",
	"compositionRevisionSelector", "compositionUpdatePolicy", "compositeDeletePolicy", "resourceRef", "resourceRefs",
	"claimRef", "publishConnectionDetailsTo", "environmentConfigRefs"}

// NewSet holds everything built in: the API's XRD, the CRDs of every kind the function
// renders or reads, Gardener's validation of Shoots, and the rules of Secrets.
func NewSet() *Set {
	s := &Set{byGVK: map[schema.GroupVersionKind]checker{}}
	s.addBuiltin()
	s.byGVK[schema.GroupVersionKind{Group: "core.gardener.cloud", Version: "v1beta1", Kind: "Shoot"}] = shootChecker{}
	s.byGVK[schema.GroupVersionKind{Version: "v1", Kind: "Secret"}] = secretChecker{}
	return s
}

// Check checks an object: what was checked against what, and the problems found, or
// found false when no checker of its kind is at hand.
func (s *Set) Check(obj *unstructured.Unstructured) (checked string, problems field.ErrorList, found bool) {
	c, ok := s.byGVK[obj.GroupVersionKind()]
	if !ok {
		return "", nil, false
	}
	return c.describe(), c.check(obj), true
}

// AddPath adds the CRDs and XRDs in a file, or in the .yaml, .yml and .json files under a
// directory. Other documents are skipped: a directory of manifests may hold anything. A
// kind that is already known keeps its first schema, so what is built in wins over a stale
// copy.
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
		data, err := os.ReadFile(f) //nolint:gosec // G304: a schema file the user named with --schemas
		if err != nil {
			return added, err
		}
		n, err := s.addDocuments(data, f)
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
		Scope string `json:"scope"`
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

// addDocuments adds the CRDs and XRDs of a YAML or JSON stream, saying in reports that they
// come from origin.
func (s *Set) addDocuments(data []byte, origin string) (int, error) {
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
		var (
			label      string
			kinds      = []string{d.Spec.Names.Kind}
			namespaced *bool
			strip      []string
		)
		switch {
		case d.Kind == "CustomResourceDefinition" && strings.HasPrefix(d.APIVersion, "apiextensions.k8s.io/"):
			label = "CRD"
			ns := d.Spec.Scope == "Namespaced"
			namespaced = &ns
		case d.Kind == "CompositeResourceDefinition" && strings.HasPrefix(d.APIVersion, "apiextensions.crossplane.io/"):
			// The composite's scope is the flavour's: either. Crossplane adds its own
			// fields to the spec, and a legacy composite's connection secret reference.
			label = "XRD"
			strip = crossplaneSpecFields
			if d.Spec.ClaimNames != nil {
				kinds = append(kinds, d.Spec.ClaimNames.Kind)
			}
			if d.Spec.Group == kaasv1alpha1.Group {
				kinds = []string{kaasv1alpha1.ClaimKind, kaasv1alpha1.CompositeKind}
			}
		default:
			continue
		}
		for _, v := range d.Spec.Versions {
			if v.Schema.OpenAPIV3Schema == nil {
				continue
			}
			source := fmt.Sprintf("%s %s (%s)", label, d.Metadata.Name, origin)
			for _, k := range kinds {
				gvk := schema.GroupVersionKind{Group: d.Spec.Group, Version: v.Name, Kind: k}
				if _, ok := s.byGVK[gvk]; ok {
					continue
				}
				kindStrip := strip
				if k == kaasv1alpha1.CompositeKind && d.Spec.Group == kaasv1alpha1.Group {
					kindStrip = append(append([]string(nil), strip...), "writeConnectionSecretToRef")
				}
				c, err := newCRDChecker(v.Schema.OpenAPIV3Schema, source, namespaced, kindStrip)
				if err != nil {
					return added, fmt.Errorf("%s %s version %s: %w", d.Kind, d.Metadata.Name, v.Name, err)
				}
				s.byGVK[gvk] = c
				added++
			}
		}
	}
}
