package provider

// Reading and writing attributes of plans, states and configurations by path: the spec
// attributes are many and generated from specFields, so the resource reads them one by one
// rather than through a model struct.

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// getter reads attributes: tfsdk.Plan, tfsdk.State and tfsdk.Config.
type getter interface {
	GetAttribute(context.Context, path.Path, any) diag.Diagnostics
}

// readSpecValues reads the spec attributes.
func readSpecValues(ctx context.Context, g getter) (map[string]attr.Value, diag.Diagnostics) {
	var diags diag.Diagnostics
	out := make(map[string]attr.Value, len(specFields))
	for _, f := range specFields {
		v, d := getValue(ctx, g, path.Root(f.Name), f.Kind)
		diags.Append(d...)
		out[f.Name] = v
	}
	return out, diags
}

func getValue(ctx context.Context, g getter, p path.Path, k kind) (attr.Value, diag.Diagnostics) {
	switch k {
	case kString, kIntOrString:
		var v types.String
		d := g.GetAttribute(ctx, p, &v)
		return v, d
	case kBool:
		var v types.Bool
		d := g.GetAttribute(ctx, p, &v)
		return v, d
	case kInt:
		var v types.Int64
		d := g.GetAttribute(ctx, p, &v)
		return v, d
	case kStringList, kObjectList:
		var v types.List
		d := g.GetAttribute(ctx, p, &v)
		return v, d
	case kStringMap:
		var v types.Map
		d := g.GetAttribute(ctx, p, &v)
		return v, d
	case kObject:
		var v types.Object
		d := g.GetAttribute(ctx, p, &v)
		return v, d
	}
	panic("unknown kind")
}

func setSpecValues(ctx context.Context, s *tfsdk.State, values map[string]attr.Value) diag.Diagnostics {
	var diags diag.Diagnostics
	for _, f := range specFields {
		diags.Append(s.SetAttribute(ctx, path.Root(f.Name), values[f.Name])...)
	}
	return diags
}

func getString(ctx context.Context, g getter, name string, diags *diag.Diagnostics) types.String {
	var v types.String
	diags.Append(g.GetAttribute(ctx, path.Root(name), &v)...)
	return v
}
