package objectmap

import (
	"encoding/base64"
	"encoding/json"
	"unicode/utf8"

	"google.golang.org/protobuf/types/known/structpb"
)

// A protobuf Value and its oneof wrapper, allocated together: structpb allocates them
// apart, two allocations for every value of a composed resource.
type (
	stringValue struct {
		v structpb.Value
		k structpb.Value_StringValue
	}
	numberValue struct {
		v structpb.Value
		k structpb.Value_NumberValue
	}
	boolValue struct {
		v structpb.Value
		k structpb.Value_BoolValue
	}
	structValue struct {
		v structpb.Value
		k structpb.Value_StructValue
		s structpb.Struct
	}
	listValue struct {
		v structpb.Value
		k structpb.Value_ListValue
		l structpb.ListValue
	}
)

func newString(s string) *structpb.Value {
	x := &stringValue{k: structpb.Value_StringValue{StringValue: s}}
	x.v.Kind = &x.k
	return &x.v
}

func newNumber(f float64) *structpb.Value {
	x := &numberValue{k: structpb.Value_NumberValue{NumberValue: f}}
	x.v.Kind = &x.k
	return &x.v
}

func newBool(b bool) *structpb.Value {
	x := &boolValue{k: structpb.Value_BoolValue{BoolValue: b}}
	x.v.Kind = &x.k
	return &x.v
}

func newStruct(fields map[string]*structpb.Value) *structpb.Value {
	x := &structValue{}
	x.s.Fields = fields
	x.k.StructValue = &x.s
	x.v.Kind = &x.k
	return &x.v
}

func newList(values []*structpb.Value) *structpb.Value {
	x := &listValue{}
	x.l.Values = values
	x.k.ListValue = &x.l
	x.v.Kind = &x.k
	return &x.v
}

// NewStruct returns what structpb.NewStruct returns for m, with one allocation for each
// value where structpb makes two. Values structpb would refuse, or that are not plain
// JSON values, go to structpb.NewStruct, which says what is wrong.
func NewStruct(m map[string]any) (*structpb.Struct, error) {
	fields, ok := newFields(m)
	if !ok {
		return structpb.NewStruct(m)
	}
	return &structpb.Struct{Fields: fields}, nil
}

func newFields(m map[string]any) (map[string]*structpb.Value, bool) {
	fields := make(map[string]*structpb.Value, len(m))
	for k, e := range m {
		if !utf8.ValidString(k) {
			return nil, false
		}
		v, ok := newValue(e)
		if !ok {
			return nil, false
		}
		fields[k] = v
	}
	return fields, true
}

// newValue is structpb.NewValue for the values JSON and the converter give.
func newValue(e any) (*structpb.Value, bool) {
	switch x := e.(type) {
	case nil:
		return structpb.NewNullValue(), true
	case string:
		if !utf8.ValidString(x) {
			return nil, false
		}
		return newString(x), true
	case bool:
		return newBool(x), true
	case float64:
		return newNumber(x), true
	case int64:
		return newNumber(float64(x)), true
	case int:
		return newNumber(float64(x)), true
	case int32:
		return newNumber(float64(x)), true
	case uint64:
		return newNumber(float64(x)), true
	case json.Number:
		f, err := x.Float64()
		if err != nil {
			return nil, false
		}
		return newNumber(f), true
	case []byte:
		return newString(base64.StdEncoding.EncodeToString(x)), true
	case map[string]any:
		fields, ok := newFields(x)
		if !ok {
			return nil, false
		}
		return newStruct(fields), true
	case []any:
		values := make([]*structpb.Value, len(x))
		for i, v := range x {
			pv, ok := newValue(v)
			if !ok {
				return nil, false
			}
			values[i] = pv
		}
		return newList(values), true
	}
	return nil, false
}
