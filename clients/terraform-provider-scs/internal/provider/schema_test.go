package provider

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	dschema "github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	rschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"sigs.k8s.io/yaml"
)

// TestProviderSchema: the framework accepts every schema (GetProviderSchema validates them)
// and serves the resource and data sources under their names.
func TestProviderSchema(t *testing.T) {
	srv, err := providerserver.NewProtocol6WithError(New("test")())()
	if err != nil {
		t.Fatal(err)
	}
	resp, err := srv.GetProviderSchema(context.Background(), &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range resp.Diagnostics {
		t.Errorf("schema diagnostic: %s: %s", d.Summary, d.Detail)
	}
	var got []string
	for n := range resp.ResourceSchemas {
		got = append(got, "resource "+n)
	}
	for n := range resp.DataSourceSchemas {
		got = append(got, "data "+n)
	}
	sort.Strings(got)
	want := []string{"data scs_cluster", "data scs_environments", "resource scs_cluster"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("schemas (-want +got):\n%s", diff)
	}

	// What the resource's attributes are and which are required, sensitive or computed.
	r := resp.ResourceSchemas["scs_cluster"]
	if r == nil {
		t.Fatal("no scs_cluster resource schema")
	}
	flags := map[string]string{}
	for _, a := range r.Block.Attributes {
		var f []string
		for _, x := range []struct {
			on   bool
			name string
		}{{a.Required, "required"}, {a.Optional, "optional"}, {a.Computed, "computed"}, {a.Sensitive, "sensitive"}} {
			if x.on {
				f = append(f, x.name)
			}
		}
		flags[a.Name] = strings.Join(f, ",")
	}
	wantFlags := map[string]string{
		"id": "computed", "namespace": "optional,computed", "name": "required",
		"environment": "optional", "purpose": "optional,computed", "kubernetes": "required",
		"control_plane": "optional", "node_pools": "required", "network": "optional",
		"maintenance": "optional", "hibernation": "optional", "deletion_protection": "optional", "access": "optional", "addons": "optional",
		"write_connection_secret_to_ref": "optional", "wait_for_ready": "optional,computed",
		"status": "computed", "kubeconfig": "computed,sensitive", "timeouts": "optional",
	}
	if diff := cmp.Diff(wantFlags, flags); diff != "" {
		t.Errorf("resource attributes (-want +got):\n%s", diff)
	}
}

// TestSpecFieldsMatchXRD: every field of the API's spec (the namespaced XRD, generated
// from apis/kaas/v1alpha1, which also has writeConnectionSecretToRef) is an attribute of
// the right kind and required the same way, and every attribute is a field. A field added
// to the API fails here until the provider has it.
func TestSpecFieldsMatchXRD(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "..", "apis", "xrd", "namespaced", "scsclusters.kaas.scs.community.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var xrd struct {
		Spec struct {
			Versions []struct {
				Schema struct {
					OpenAPIV3Schema struct {
						Properties map[string]*jsonSchema `json:"properties"`
					} `json:"openAPIV3Schema"`
				} `json:"schema"`
			} `json:"versions"`
		} `json:"spec"`
	}
	if err := yaml.Unmarshal(data, &xrd); err != nil {
		t.Fatal(err)
	}
	if len(xrd.Spec.Versions) != 1 {
		t.Fatalf("want one version in the XRD, got %d", len(xrd.Spec.Versions))
	}
	spec := xrd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"]
	if spec == nil {
		t.Fatal("the XRD has no spec")
	}
	var problems []string
	compareFields(specFields, spec, "spec", &problems)
	for _, p := range problems {
		t.Error(p)
	}
}

type jsonSchema struct {
	Type                 string                 `json:"type"`
	Properties           map[string]*jsonSchema `json:"properties"`
	Items                *jsonSchema            `json:"items"`
	AdditionalProperties *jsonSchema            `json:"additionalProperties"`
	Required             []string               `json:"required"`
	IntOrString          bool                   `json:"x-kubernetes-int-or-string"`
}

func (s *jsonSchema) kind() (kind, bool) {
	switch {
	case s.IntOrString:
		return kIntOrString, true
	case s.Type == "string":
		return kString, true
	case s.Type == "boolean":
		return kBool, true
	case s.Type == "integer":
		return kInt, true
	case s.Type == "array" && s.Items != nil && s.Items.Type == "string":
		return kStringList, true
	case s.Type == "array" && s.Items != nil && s.Items.Type == "object":
		return kObjectList, true
	case s.Type == "object" && s.AdditionalProperties != nil && s.AdditionalProperties.Type == "string":
		return kStringMap, true
	case s.Type == "object" && s.Properties != nil:
		return kObject, true
	}
	return 0, false
}

func compareFields(fields []field, s *jsonSchema, at string, problems *[]string) {
	props := s.Properties
	if s.Type == "array" {
		props = s.Items.Properties
		s = s.Items
	}
	seen := map[string]bool{}
	for _, f := range fields {
		seen[f.JSON] = true
		p, ok := props[f.JSON]
		if !ok {
			*problems = append(*problems, at+"."+f.JSON+": attribute "+f.Name+" has no field in the API")
			continue
		}
		k, ok := p.kind()
		if !ok || k != f.Kind {
			*problems = append(*problems, at+"."+f.JSON+": kind in the API differs from attribute "+f.Name+"'s")
		}
		req := false
		for _, r := range s.Required {
			req = req || r == f.JSON
		}
		if req != f.Required {
			*problems = append(*problems, at+"."+f.JSON+": required in the API differs from attribute "+f.Name+"'s")
		}
		if f.Kind == kObject || f.Kind == kObjectList {
			compareFields(f.Fields, p, at+"."+f.JSON, problems)
		}
	}
	for n := range props {
		if !seen[n] {
			*problems = append(*problems, at+"."+n+": a field of the API the provider has no attribute for")
		}
	}
}

// TestStatusAttributesDescribed: every attribute of the status (of the resource and of the
// data source) is computed and described, and so are the attributes of its objects, such as
// planned_update.
func TestStatusAttributesDescribed(t *testing.T) {
	type shape struct {
		Computed    bool
		Description bool
		Nested      map[string]shape
	}
	want := map[string]shape{}
	for n, ty := range statusAttrTypes {
		s := shape{Computed: true, Description: true}
		if o, ok := ty.(types.ObjectType); ok {
			s.Nested = map[string]shape{}
			for m := range o.AttrTypes {
				s.Nested[m] = shape{Computed: true, Description: true}
			}
		}
		want[n] = s
	}
	for _, n := range []string{"planned_update", "update_in_progress", "upgraded_minor"} {
		if _, ok := want[n]; !ok {
			t.Errorf("status has no attribute %s", n)
		}
	}
	ds := map[string]shape{}
	for n, a := range statusDataSourceAttribute().Attributes {
		s := shape{Computed: a.IsComputed(), Description: a.GetDescription() != ""}
		if o, ok := a.(dschema.SingleNestedAttribute); ok {
			s.Nested = map[string]shape{}
			for m, na := range o.Attributes {
				s.Nested[m] = shape{Computed: na.IsComputed(), Description: na.GetDescription() != ""}
			}
		}
		ds[n] = s
	}
	if diff := cmp.Diff(want, ds); diff != "" {
		t.Errorf("data source status (-want +got):\n%s", diff)
	}
	rs := map[string]shape{}
	for n, a := range statusResourceAttribute().Attributes {
		s := shape{Computed: a.IsComputed(), Description: a.GetDescription() != ""}
		if o, ok := a.(rschema.SingleNestedAttribute); ok {
			s.Nested = map[string]shape{}
			for m, na := range o.Attributes {
				s.Nested[m] = shape{Computed: na.IsComputed(), Description: na.GetDescription() != ""}
			}
		}
		rs[n] = s
	}
	if diff := cmp.Diff(want, rs); diff != "" {
		t.Errorf("resource status (-want +got):\n%s", diff)
	}
}
