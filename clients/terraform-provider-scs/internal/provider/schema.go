package provider

// Schemas of the resource and the data source, derived from specFields.

import (
	"github.com/hashicorp/terraform-plugin-framework/attr"
	dschema "github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	rschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
)

// defaultPurpose is the API server's default of spec.purpose. The attribute has the same
// default, so that an unset purpose does not read back as a change.
const defaultPurpose = "development"

// resourceAttributes are the spec attributes of the resource.
func resourceSpecAttributes() map[string]rschema.Attribute {
	out := make(map[string]rschema.Attribute, len(specFields))
	for _, f := range specFields {
		a := f.resourceAttribute()
		if f.Name == "purpose" {
			a = rschema.StringAttribute{
				Optional: true, Computed: true, Description: f.Description,
				Default: stringdefault.StaticString(defaultPurpose),
			}
		}
		out[f.Name] = a
	}
	return out
}

func (f field) resourceAttribute() rschema.Attribute {
	opt := !f.Required
	switch f.Kind {
	case kString, kIntOrString:
		return rschema.StringAttribute{Required: f.Required, Optional: opt, Description: f.Description}
	case kBool:
		return rschema.BoolAttribute{Required: f.Required, Optional: opt, Description: f.Description}
	case kInt:
		return rschema.Int64Attribute{Required: f.Required, Optional: opt, Description: f.Description}
	case kStringList:
		return rschema.ListAttribute{ElementType: types.StringType, Required: f.Required, Optional: opt, Description: f.Description}
	case kStringMap:
		return rschema.MapAttribute{ElementType: types.StringType, Required: f.Required, Optional: opt, Description: f.Description}
	case kObject:
		return rschema.SingleNestedAttribute{Attributes: resourceAttributes(f.Fields), Required: f.Required, Optional: opt, Description: f.Description}
	case kObjectList:
		return rschema.ListNestedAttribute{
			NestedObject: rschema.NestedAttributeObject{Attributes: resourceAttributes(f.Fields)},
			Required:     f.Required, Optional: opt, Description: f.Description,
		}
	}
	panic("unknown kind")
}

func resourceAttributes(fields []field) map[string]rschema.Attribute {
	out := make(map[string]rschema.Attribute, len(fields))
	for _, f := range fields {
		out[f.Name] = f.resourceAttribute()
	}
	return out
}

// dataSourceSpecAttributes are the spec attributes of the data source, all computed.
func dataSourceSpecAttributes() map[string]dschema.Attribute {
	return dataSourceAttributes(specFields)
}

func (f field) dataSourceAttribute() dschema.Attribute {
	switch f.Kind {
	case kString, kIntOrString:
		return dschema.StringAttribute{Computed: true, Description: f.Description}
	case kBool:
		return dschema.BoolAttribute{Computed: true, Description: f.Description}
	case kInt:
		return dschema.Int64Attribute{Computed: true, Description: f.Description}
	case kStringList:
		return dschema.ListAttribute{ElementType: types.StringType, Computed: true, Description: f.Description}
	case kStringMap:
		return dschema.MapAttribute{ElementType: types.StringType, Computed: true, Description: f.Description}
	case kObject:
		return dschema.SingleNestedAttribute{Attributes: dataSourceAttributes(f.Fields), Computed: true, Description: f.Description}
	case kObjectList:
		return dschema.ListNestedAttribute{
			NestedObject: dschema.NestedAttributeObject{Attributes: dataSourceAttributes(f.Fields)},
			Computed:     true, Description: f.Description,
		}
	}
	panic("unknown kind")
}

func dataSourceAttributes(fields []field) map[string]dschema.Attribute {
	out := make(map[string]dschema.Attribute, len(fields))
	for _, f := range fields {
		out[f.Name] = f.dataSourceAttribute()
	}
	return out
}

// statusDescription describes the status attribute.
const statusDescription = "The cluster's status as its backend reports it."

// statusResourceAttribute and statusDataSourceAttribute are the computed status.
func statusResourceAttribute() rschema.SingleNestedAttribute {
	attrs := map[string]rschema.Attribute{}
	for n, t := range statusAttrTypes {
		attrs[n] = computedResourceAttribute(t, statusDescriptions[n], statusNestedDescriptions[n])
	}
	return rschema.SingleNestedAttribute{Computed: true, Attributes: attrs, Description: statusDescription}
}

func statusDataSourceAttribute() dschema.SingleNestedAttribute {
	attrs := map[string]dschema.Attribute{}
	for n, t := range statusAttrTypes {
		attrs[n] = computedDataSourceAttribute(t, statusDescriptions[n], statusNestedDescriptions[n])
	}
	return dschema.SingleNestedAttribute{Computed: true, Attributes: attrs, Description: statusDescription}
}

// statusNestedDescriptions document the attributes of the status attributes that are objects.
var statusNestedDescriptions = map[string]map[string]string{
	"planned_update":     updateDescriptions,
	"update_in_progress": updateDescriptions,
}

// computedResourceAttribute and computedDataSourceAttribute are the computed attribute of
// type t: strings, bools, lists of them, objects of them and lists of objects of them, what
// the status holds; nested describes an object's attributes.
// The framework's resource and data source schema packages have attributes of the same
// shapes but no common constructor, hence one function for each.
//
//nolint:dupl // one per schema package, see above
func computedResourceAttribute(t attr.Type, desc string, nested map[string]string) rschema.Attribute {
	switch t := t.(type) {
	case basetypes.StringType:
		return rschema.StringAttribute{Computed: true, Description: desc}
	case basetypes.BoolType:
		return rschema.BoolAttribute{Computed: true, Description: desc}
	case types.ListType:
		if o, ok := t.ElemType.(types.ObjectType); ok {
			attrs := map[string]rschema.Attribute{}
			for n, at := range o.AttrTypes {
				attrs[n] = computedResourceAttribute(at, nested[n], nil)
			}
			return rschema.ListNestedAttribute{Computed: true, Description: desc,
				NestedObject: rschema.NestedAttributeObject{Attributes: attrs}}
		}
		return rschema.ListAttribute{Computed: true, ElementType: t.ElemType, Description: desc}
	case types.ObjectType:
		attrs := map[string]rschema.Attribute{}
		for n, at := range t.AttrTypes {
			attrs[n] = computedResourceAttribute(at, nested[n], nil)
		}
		return rschema.SingleNestedAttribute{Computed: true, Description: desc, Attributes: attrs}
	}
	panic("unsupported computed type")
}

//nolint:dupl // one per schema package, see computedResourceAttribute
func computedDataSourceAttribute(t attr.Type, desc string, nested map[string]string) dschema.Attribute {
	switch t := t.(type) {
	case basetypes.StringType:
		return dschema.StringAttribute{Computed: true, Description: desc}
	case basetypes.BoolType:
		return dschema.BoolAttribute{Computed: true, Description: desc}
	case types.ListType:
		if o, ok := t.ElemType.(types.ObjectType); ok {
			attrs := map[string]dschema.Attribute{}
			for n, at := range o.AttrTypes {
				attrs[n] = computedDataSourceAttribute(at, nested[n], nil)
			}
			return dschema.ListNestedAttribute{Computed: true, Description: desc,
				NestedObject: dschema.NestedAttributeObject{Attributes: attrs}}
		}
		return dschema.ListAttribute{Computed: true, ElementType: t.ElemType, Description: desc}
	case types.ObjectType:
		attrs := map[string]dschema.Attribute{}
		for n, at := range t.AttrTypes {
			attrs[n] = computedDataSourceAttribute(at, nested[n], nil)
		}
		return dschema.SingleNestedAttribute{Computed: true, Description: desc, Attributes: attrs}
	}
	panic("unsupported computed type")
}
