package provider

// Conversion between Terraform values and the spec of an SCSCluster, both ways, driven by
// specFields. The spec is built as plain JSON values (map[string]any) rather than through
// the API's Go types, because those drop empty lists and maps (omitempty): what the user
// writes is what is applied, and what is read back equals it.

import (
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
)

// errUnknown says a value is not known yet: the spec cannot be built while planning.
var errUnknown = errors.New("value not known yet")

// specToJSON builds the spec from the top-level attribute values (by attribute name). A
// null or missing value leaves its field out.
func specToJSON(values map[string]attr.Value) (map[string]any, error) {
	return fieldsToJSON(specFields, values, "")
}

func fieldsToJSON(fields []field, values map[string]attr.Value, prefix string) (map[string]any, error) {
	out := map[string]any{}
	for _, f := range fields {
		j, set, err := f.toJSON(values[f.Name], prefix+f.Name)
		if err != nil {
			return nil, err
		}
		if set {
			out[f.JSON] = j
		}
	}
	return out, nil
}

// toJSON converts one value; set is false for null. at is the attribute path, for errors.
func (f field) toJSON(v attr.Value, at string) (out any, set bool, err error) {
	if v == nil || v.IsNull() {
		return nil, false, nil
	}
	if v.IsUnknown() {
		return nil, false, errUnknown
	}
	wrong := func() (any, bool, error) {
		return nil, false, fmt.Errorf("%s: unexpected value type %T", at, v)
	}
	switch f.Kind {
	case kString:
		s, ok := v.(basetypes.StringValue)
		if !ok {
			return wrong()
		}
		return s.ValueString(), true, nil
	case kIntOrString:
		s, ok := v.(basetypes.StringValue)
		if !ok {
			return wrong()
		}
		return intOrString(s.ValueString()), true, nil
	case kBool:
		b, ok := v.(basetypes.BoolValue)
		if !ok {
			return wrong()
		}
		return b.ValueBool(), true, nil
	case kInt:
		i, ok := v.(basetypes.Int64Value)
		if !ok {
			return wrong()
		}
		return i.ValueInt64(), true, nil
	case kStringList:
		l, ok := v.(basetypes.ListValue)
		if !ok {
			return wrong()
		}
		items := make([]any, 0, len(l.Elements()))
		for i, e := range l.Elements() {
			s, err := stringElement(e, fmt.Sprintf("%s[%d]", at, i))
			if err != nil {
				return nil, false, err
			}
			items = append(items, s)
		}
		return items, true, nil
	case kStringMap:
		m, ok := v.(basetypes.MapValue)
		if !ok {
			return wrong()
		}
		items := make(map[string]any, len(m.Elements()))
		for k, e := range m.Elements() {
			s, err := stringElement(e, fmt.Sprintf("%s[%q]", at, k))
			if err != nil {
				return nil, false, err
			}
			items[k] = s
		}
		return items, true, nil
	case kObject:
		o, ok := v.(basetypes.ObjectValue)
		if !ok {
			return wrong()
		}
		m, err := fieldsToJSON(f.Fields, o.Attributes(), at+".")
		return m, err == nil, err
	case kObjectList:
		l, ok := v.(basetypes.ListValue)
		if !ok {
			return wrong()
		}
		items := make([]any, 0, len(l.Elements()))
		for i, e := range l.Elements() {
			elem := fmt.Sprintf("%s[%d]", at, i)
			if e.IsUnknown() {
				return nil, false, errUnknown
			}
			o, ok := e.(basetypes.ObjectValue)
			if !ok || o.IsNull() {
				return nil, false, fmt.Errorf("%s: an element must be an object", elem)
			}
			m, err := fieldsToJSON(f.Fields, o.Attributes(), elem+".")
			if err != nil {
				return nil, false, err
			}
			items = append(items, m)
		}
		return items, true, nil
	}
	return wrong()
}

func stringElement(e attr.Value, at string) (string, error) {
	if e.IsUnknown() {
		return "", errUnknown
	}
	s, ok := e.(basetypes.StringValue)
	if !ok || s.IsNull() {
		return "", fmt.Errorf("%s: an element must be a string, not null", at)
	}
	return s.ValueString(), nil
}

// intOrString is the JSON of a Kubernetes IntOrString written as a string: a number when it
// is one ("1"), else the string ("25%").
func intOrString(s string) any {
	if i, err := strconv.ParseInt(s, 10, 32); err == nil && strconv.FormatInt(i, 10) == s {
		return i
	}
	return s
}

// specFromJSON converts a spec read from the API server into attribute values, one per
// top-level field (null where the spec leaves it out). Fields the provider does not know
// (Crossplane's own, or ones newer than this provider) are ignored.
func specFromJSON(spec map[string]any) (map[string]attr.Value, error) {
	return fieldsFromJSON(specFields, spec, "spec.")
}

func fieldsFromJSON(fields []field, obj map[string]any, prefix string) (map[string]attr.Value, error) {
	out := make(map[string]attr.Value, len(fields))
	for _, f := range fields {
		raw, present := obj[f.JSON]
		v, err := f.fromJSON(raw, present, prefix+f.JSON)
		if err != nil {
			return nil, err
		}
		out[f.Name] = v
	}
	return out, nil
}

// fromJSON converts one field's JSON value; at is its path in the object, for errors.
func (f field) fromJSON(raw any, present bool, at string) (attr.Value, error) {
	if !present || raw == nil {
		return f.null(), nil
	}
	wrong := func() (attr.Value, error) {
		return nil, fmt.Errorf("%s: unexpected %T in the object", at, raw)
	}
	switch f.Kind {
	case kString:
		s, ok := raw.(string)
		if !ok {
			return wrong()
		}
		return types.StringValue(s), nil
	case kIntOrString:
		switch v := raw.(type) {
		case string:
			return types.StringValue(v), nil
		default:
			i, ok := toInt64(raw)
			if !ok {
				return wrong()
			}
			return types.StringValue(strconv.FormatInt(i, 10)), nil
		}
	case kBool:
		b, ok := raw.(bool)
		if !ok {
			return wrong()
		}
		return types.BoolValue(b), nil
	case kInt:
		i, ok := toInt64(raw)
		if !ok {
			return wrong()
		}
		return types.Int64Value(i), nil
	case kStringList:
		l, ok := raw.([]any)
		if !ok {
			return wrong()
		}
		elems := make([]attr.Value, 0, len(l))
		for i, e := range l {
			s, ok := e.(string)
			if !ok {
				return nil, fmt.Errorf("%s[%d]: unexpected %T in the object", at, i, e)
			}
			elems = append(elems, types.StringValue(s))
		}
		v, d := types.ListValue(types.StringType, elems)
		return v, diagErr(d)
	case kStringMap:
		m, ok := raw.(map[string]any)
		if !ok {
			return wrong()
		}
		elems := make(map[string]attr.Value, len(m))
		for k, e := range m {
			s, ok := e.(string)
			if !ok {
				return nil, fmt.Errorf("%s[%s]: unexpected %T in the object", at, k, e)
			}
			elems[k] = types.StringValue(s)
		}
		v, d := types.MapValue(types.StringType, elems)
		return v, diagErr(d)
	case kObject:
		m, ok := raw.(map[string]any)
		if !ok {
			return wrong()
		}
		attrs, err := fieldsFromJSON(f.Fields, m, at+".")
		if err != nil {
			return nil, err
		}
		v, d := types.ObjectValue(attrTypes(f.Fields), attrs)
		return v, diagErr(d)
	case kObjectList:
		l, ok := raw.([]any)
		if !ok {
			return wrong()
		}
		elems := make([]attr.Value, 0, len(l))
		for i, e := range l {
			m, ok := e.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("%s[%d]: unexpected %T in the object", at, i, e)
			}
			attrs, err := fieldsFromJSON(f.Fields, m, fmt.Sprintf("%s[%d].", at, i))
			if err != nil {
				return nil, err
			}
			o, d := types.ObjectValue(attrTypes(f.Fields), attrs)
			if err := diagErr(d); err != nil {
				return nil, err
			}
			elems = append(elems, o)
		}
		v, d := types.ListValue(f.objectType(), elems)
		return v, diagErr(d)
	}
	return wrong()
}

// null is the field's null value.
func (f field) null() attr.Value {
	switch f.Kind {
	case kString, kIntOrString:
		return types.StringNull()
	case kBool:
		return types.BoolNull()
	case kInt:
		return types.Int64Null()
	case kStringList:
		return types.ListNull(types.StringType)
	case kStringMap:
		return types.MapNull(types.StringType)
	case kObject:
		return types.ObjectNull(attrTypes(f.Fields))
	case kObjectList:
		return types.ListNull(f.objectType())
	}
	panic("unknown kind")
}

// keepEmpty returns now, except where now is null and prior is an empty list, map or
// object: then prior, recursively. An empty collection the user wrote and the API server
// left out must not read as a change.
func (f field) keepEmpty(prior, now attr.Value) attr.Value {
	if prior == nil || prior.IsNull() || prior.IsUnknown() || now == nil {
		return now
	}
	if now.IsNull() {
		if isEmpty(prior) {
			return prior
		}
		return now
	}
	switch f.Kind {
	case kObject:
		p, ok1 := prior.(basetypes.ObjectValue)
		n, ok2 := now.(basetypes.ObjectValue)
		if !ok1 || !ok2 {
			return now
		}
		v, d := types.ObjectValue(attrTypes(f.Fields), keepEmptyFields(f.Fields, p.Attributes(), n.Attributes()))
		if d.HasError() {
			return now
		}
		return v
	case kObjectList:
		p, ok1 := prior.(basetypes.ListValue)
		n, ok2 := now.(basetypes.ListValue)
		if !ok1 || !ok2 || len(p.Elements()) != len(n.Elements()) {
			return now
		}
		elems := make([]attr.Value, len(n.Elements()))
		for i, e := range n.Elements() {
			po, ok1 := p.Elements()[i].(basetypes.ObjectValue)
			no, ok2 := e.(basetypes.ObjectValue)
			if !ok1 || !ok2 || po.IsNull() || po.IsUnknown() || no.IsNull() {
				elems[i] = e
				continue
			}
			o, d := types.ObjectValue(attrTypes(f.Fields), keepEmptyFields(f.Fields, po.Attributes(), no.Attributes()))
			if d.HasError() {
				return now
			}
			elems[i] = o
		}
		v, d := types.ListValue(f.objectType(), elems)
		if d.HasError() {
			return now
		}
		return v
	}
	return now
}

func keepEmptyFields(fields []field, prior, now map[string]attr.Value) map[string]attr.Value {
	out := make(map[string]attr.Value, len(now))
	for _, f := range fields {
		out[f.Name] = f.keepEmpty(prior[f.Name], now[f.Name])
	}
	return out
}

func isEmpty(v attr.Value) bool {
	switch x := v.(type) {
	case basetypes.ListValue:
		return len(x.Elements()) == 0
	case basetypes.MapValue:
		return len(x.Elements()) == 0
	case basetypes.ObjectValue:
		for _, a := range x.Attributes() {
			if !a.IsNull() {
				return false
			}
		}
		return true
	}
	return false
}

func toInt64(v any) (int64, bool) {
	switch n := v.(type) {
	case int64:
		return n, true
	case int:
		return int64(n), true
	case int32:
		return int64(n), true
	case float64:
		if n == math.Trunc(n) && math.Abs(n) < 1<<53 {
			return int64(n), true
		}
	}
	return 0, false
}
