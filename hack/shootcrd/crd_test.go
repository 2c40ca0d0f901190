package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"
)

// committedCRD is the generated CRD kept in git so that other tools (the local
// garden cluster, offline validation) need not build controller-tools.
const committedCRD = "crds/core.gardener.cloud_shoots.yaml"

// openAPIFile is what gardener-apiserver publishes for Shoot, kept next to the
// project (not in it) under shared/crds; see that folder's README.md.
const openAPIFile = "gardener-shoot-v1beta1.openapi-definitions.json"

const defPrefix = "com.github.gardener.gardener.pkg.apis.core.v1beta1."

var (
	generateOnce sync.Once
	generated    []byte
	generateErr  error
)

// generatedCRD runs the generator once per test binary: loading Gardener's
// packages takes tens of seconds.
func generatedCRD(t *testing.T) []byte {
	t.Helper()
	generateOnce.Do(func() { generated, generateErr = Generate(".") })
	if generateErr != nil {
		t.Fatalf("generating the CRD: %v", generateErr)
	}
	return generated
}

func TestCommittedCRDIsUpToDate(t *testing.T) {
	want := generatedCRD(t)
	got, err := os.ReadFile(committedCRD)
	if err != nil {
		t.Fatalf("reading %s: %v (regenerate with `go run .` in hack/shootcrd)", committedCRD, err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s is stale: regenerate it with `go run .` in hack/shootcrd", committedCRD)
	}
}

// sharedCRDsDir finds ../shared/crds seen from the repository root
// (hack/shootcrd is two levels below it). SCS_SHARED_CRDS overrides it.
func sharedCRDsDir() string {
	if d := os.Getenv("SCS_SHARED_CRDS"); d != "" {
		return d
	}
	return filepath.Join("..", "..", "..", "shared", "crds")
}

// openAPINode is the subset of an OpenAPI v2 definition this test reads.
type openAPINode struct {
	Ref                  string                  `json:"$ref"`
	Type                 string                  `json:"type"`
	Format               string                  `json:"format"`
	Required             []string                `json:"required"`
	Properties           map[string]*openAPINode `json:"properties"`
	Items                *openAPINode            `json:"items"`
	AdditionalProperties *openAPINode            `json:"additionalProperties"`
	AllOf                []*openAPINode          `json:"allOf"`
}

type openAPIDoc struct {
	Definitions map[string]*openAPINode `json:"definitions"`
}

// TestCRDCoversPublishedOpenAPI checks every property that gardener-apiserver
// publishes for ShootSpec and ShootStatus, recursively, against the generated
// CRD: a property missing from the CRD would make the local garden cluster
// prune it, and offline validation reject it, although Gardener accepts it.
func TestCRDCoversPublishedOpenAPI(t *testing.T) {
	path := filepath.Join(sharedCRDsDir(), openAPIFile)
	raw, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		t.Skipf("\n\n*** SKIPPED: %s not found. ***\n"+
			"*** The Shoot CRD was NOT cross-checked against Gardener's published OpenAPI. ***\n"+
			"*** Put the shared folder next to the clone (../shared/crds) or set SCS_SHARED_CRDS. ***\n", path)
	}
	if err != nil {
		t.Fatal(err)
	}
	var doc openAPIDoc
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatalf("parsing %s: %v", path, err)
	}

	var crd apiextensionsv1.CustomResourceDefinition
	if err := yaml.Unmarshal(generatedCRD(t), &crd); err != nil {
		t.Fatalf("parsing generated CRD: %v", err)
	}
	if len(crd.Spec.Versions) != 1 || crd.Spec.Versions[0].Schema == nil {
		t.Fatalf("expected one version with a schema, got %d", len(crd.Spec.Versions))
	}
	root := crd.Spec.Versions[0].Schema.OpenAPIV3Schema

	c := &checker{defs: doc.Definitions}
	c.compareRoot(t, root)
	sort.Strings(c.problems)
	for _, p := range c.problems {
		t.Error(p)
	}
	t.Logf("compared %d properties", c.compared)
	if c.compared < 300 {
		t.Errorf("only %d properties compared: the walk is broken", c.compared)
	}

	// The checker must notice a gap: drop a field Gardener publishes and
	// expect exactly that complaint.
	spec := root.Properties["spec"]
	delete(spec.Properties, "region")
	root.Properties["spec"] = spec
	broken := &checker{defs: doc.Definitions}
	broken.compareRoot(t, root)
	if len(broken.problems) != 1 || !strings.Contains(broken.problems[0], ".spec.region") {
		t.Errorf("checker missed a removed property; problems: %v", broken.problems)
	}
}

type checker struct {
	defs     map[string]*openAPINode
	problems []string
	compared int
}

func (c *checker) compareRoot(t *testing.T, root *apiextensionsv1.JSONSchemaProps) {
	t.Helper()
	for _, field := range []string{"spec", "status"} {
		prop, ok := root.Properties[field]
		if !ok {
			t.Fatalf("generated CRD has no .%s", field)
		}
		name := defPrefix + "Shoot" + strings.ToUpper(field[:1]) + field[1:]
		def, ok := c.defs[name]
		if !ok {
			t.Fatalf("the OpenAPI document has no definition %s", name)
		}
		c.compare("."+field, def, &prop, 0)
	}
}

// resolve follows $ref (also behind a single-element allOf, which OpenAPI v2
// uses to attach a description to a reference).
func (c *checker) resolve(n *openAPINode) (*openAPINode, string) {
	for n != nil {
		switch {
		case n.Ref != "":
			name := strings.TrimPrefix(n.Ref, "#/definitions/")
			def, ok := c.defs[name]
			if !ok {
				return nil, name
			}
			if def.Ref == "" && len(def.AllOf) == 0 {
				return def, name
			}
			n = def
		case len(n.AllOf) == 1:
			n = n.AllOf[0]
		default:
			return n, ""
		}
	}
	return nil, ""
}

func (c *checker) fail(format string, args ...any) {
	c.problems = append(c.problems, fmt.Sprintf(format, args...))
}

func (c *checker) compare(path string, api *openAPINode, crd *apiextensionsv1.JSONSchemaProps, depth int) {
	if depth > 40 {
		c.fail("%s: recursion deeper than 40 levels", path)
		return
	}
	api, name := c.resolve(api)
	if api == nil {
		c.fail("%s: unresolvable $ref %s", path, name)
		return
	}
	c.compared++

	switch {
	case strings.HasSuffix(name, "runtime.RawExtension"):
		if crd.XPreserveUnknownFields == nil || !*crd.XPreserveUnknownFields {
			c.fail("%s: RawExtension without x-kubernetes-preserve-unknown-fields", path)
		}
		return
	case strings.HasSuffix(name, "intstr.IntOrString"), strings.HasSuffix(name, "resource.Quantity"):
		if !crd.XIntOrString {
			c.fail("%s: %s without x-kubernetes-int-or-string", path, name)
		}
		return
	case strings.HasSuffix(name, "meta.v1.Time"), strings.HasSuffix(name, "meta.v1.MicroTime"):
		if crd.Type != "string" {
			c.fail("%s: time should be a string, CRD says %q", path, crd.Type)
		}
		return
	}

	// Types must agree where the published schema states one.
	if api.Type != "" && crd.Type != api.Type && !(api.Type == "number" && crd.Type == "integer") {
		c.fail("%s: type %q in Gardener's OpenAPI, %q in the CRD", path, api.Type, crd.Type)
		return
	}

	// The CRD must not require more than Gardener does, or it rejects Shoots
	// that Gardener accepts.
	apiRequired := map[string]bool{}
	for _, r := range api.Required {
		apiRequired[r] = true
	}
	for _, r := range crd.Required {
		if !apiRequired[r] {
			c.fail("%s: CRD requires %q, Gardener's OpenAPI does not", path, r)
		}
	}

	for prop, sub := range api.Properties {
		crdSub, ok := crd.Properties[prop]
		if !ok {
			c.fail("%s.%s: in Gardener's OpenAPI, missing in the CRD", path, prop)
			continue
		}
		c.compare(path+"."+prop, sub, &crdSub, depth+1)
	}
	if api.Items != nil {
		if crd.Items == nil || crd.Items.Schema == nil {
			c.fail("%s: array items missing in the CRD", path)
		} else {
			c.compare(path+"[]", api.Items, crd.Items.Schema, depth+1)
		}
	}
	if api.AdditionalProperties != nil {
		if crd.AdditionalProperties == nil || crd.AdditionalProperties.Schema == nil {
			c.fail("%s: map values missing in the CRD", path)
		} else {
			c.compare(path+"{}", api.AdditionalProperties, crd.AdditionalProperties.Schema, depth+1)
		}
	}
}
