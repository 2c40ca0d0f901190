package objectmap

import (
	"encoding/base64"
	"math"
	"reflect"
	"unicode/utf8"

	"google.golang.org/protobuf/types/known/structpb"
)

// ToStruct returns obj, a non-nil pointer to a struct, as a protobuf Struct: what
// structpb.NewStruct makes of ToUnstructured(obj), without the map in between. Where it
// meets anything but plain values, it takes that way, so that errors are the same.
func ToStruct(obj any) (*structpb.Struct, error) {
	v := reflect.ValueOf(obj)
	if v.Kind() == reflect.Pointer && !v.IsNil() && v.Elem().Kind() == reflect.Struct {
		if ti := typeOf(v.Elem().Type()); !ti.custom {
			out := &structpb.Struct{Fields: make(map[string]*structpb.Value, setFields(ti, v.Elem()))}
			if pbStruct(ti, v.Elem(), out.Fields) {
				return out, nil
			}
		}
	}
	m, err := ToUnstructured(obj)
	if err != nil {
		return nil, err
	}
	return structpb.NewStruct(m)
}

func pbNumber(f float64) *structpb.Value { return newNumber(f) }

func pbString(s string) (*structpb.Value, bool) {
	if !utf8.ValidString(s) {
		return nil, false
	}
	return newString(s), true
}

var pbNull = func() *structpb.Value { return structpb.NewNullValue() }

// pbValue is encode's value as structpb.NewValue makes it; ok is false where the way
// through the map is needed.
func pbValue(ti *typeInfo, v reflect.Value) (*structpb.Value, bool) {
	if ti.custom {
		u, err := ti.entry.ToUnstructured(v)
		if err != nil {
			return nil, false
		}
		return newValue(u)
	}
	switch v.Kind() {
	case reflect.String:
		return pbString(v.String())
	case reflect.Bool:
		return newBool(v.Bool()), true
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return pbNumber(float64(v.Int())), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		u := v.Uint()
		if u > math.MaxInt64 {
			return nil, false
		}
		return pbNumber(float64(int64(u))), true
	case reflect.Float32, reflect.Float64:
		return pbNumber(v.Float()), true
	case reflect.Map:
		if v.IsNil() {
			return pbNull(), true
		}
		if v.Type().Key().Kind() != reflect.String {
			return nil, false
		}
		fields := make(map[string]*structpb.Value, v.Len())
		et := ti.elemInfo()
		for it := v.MapRange(); it.Next(); {
			k := it.Key().String()
			if !utf8.ValidString(k) {
				return nil, false
			}
			e, ok := pbValue(et, it.Value())
			if !ok {
				return nil, false
			}
			fields[k] = e
		}
		return newStruct(fields), true
	case reflect.Slice:
		if v.IsNil() {
			return pbNull(), true
		}
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return pbString(base64.StdEncoding.EncodeToString(v.Bytes()))
		}
		values := make([]*structpb.Value, v.Len())
		et := ti.elemInfo()
		for i := range values {
			e, ok := pbValue(et, v.Index(i))
			if !ok {
				return nil, false
			}
			values[i] = e
		}
		return newList(values), true
	case reflect.Pointer:
		if v.IsNil() {
			return pbNull(), true
		}
		return pbValue(ti.elemInfo(), v.Elem())
	case reflect.Interface:
		if v.IsNil() {
			return pbNull(), true
		}
		e := v.Elem()
		return pbValue(typeOf(e.Type()), e)
	case reflect.Struct:
		fields := make(map[string]*structpb.Value, setFields(ti, v))
		if !pbStruct(ti, v, fields) {
			return nil, false
		}
		return newStruct(fields), true
	}
	return nil, false
}

// pbStruct is encodeStruct for a protobuf Struct's fields.
func pbStruct(ti *typeInfo, v reflect.Value, out map[string]*structpb.Value) bool {
	for i := range ti.fields {
		f := &ti.fields[i]
		if f.skip {
			continue
		}
		fv := v.Field(f.index)
		if f.omitempty && isEmpty(fv) || f.omitzero != nil && f.omitzero(fv) {
			continue
		}
		if f.inline {
			it := f.typeInfo()
			for fv.Kind() == reflect.Pointer {
				if fv.IsNil() {
					break
				}
				fv, it = fv.Elem(), it.elemInfo()
			}
			if fv.Kind() == reflect.Pointer {
				continue
			}
			if it.custom || fv.Kind() != reflect.Struct || !pbStruct(it, fv, out) {
				return false
			}
			continue
		}
		if !utf8.ValidString(f.name) {
			return false
		}
		var e *structpb.Value
		ok := true
		switch fv.Kind() {
		case reflect.String:
			e, ok = pbString(fv.String())
		case reflect.Bool:
			e = newBool(fv.Bool())
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			e = pbNumber(float64(fv.Int()))
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			e = pbNumber(float64(fv.Uint()))
		case reflect.Float32, reflect.Float64:
			e = pbNumber(fv.Float())
		default:
			e, ok = pbValue(f.typeInfo(), fv)
		}
		if !ok {
			return false
		}
		out[f.name] = e
	}
	return true
}
