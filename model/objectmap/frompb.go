package objectmap

import (
	"errors"
	"math"
	"reflect"

	"google.golang.org/protobuf/types/known/structpb"
)

// ErrIndirect says that FromStruct left the Struct alone: it holds something encoding/json
// must decide (an inexact number, a key that matches a field only case-insensitively, an
// unknown field in strict mode, a type that decodes itself from text). The caller decodes
// the JSON way it always did, which also gives the errors in its words.
var ErrIndirect = errors.New("objectmap: the Struct needs encoding/json")

// FromStruct decodes a protobuf Struct into obj, a pointer to a zero struct, straight from
// the Struct, with encoding/json's result for the Struct's JSON form, strictly or not; or
// it returns ErrIndirect with obj zero again.
func FromStruct(s *structpb.Struct, obj any, strict bool) error {
	v := reflect.ValueOf(obj)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return ErrIndirect
	}
	d := decoder{strict: strict}
	if err := d.decodePBStruct(s, v.Elem(), decodeInfoOf(v.Elem().Type())); err != nil {
		v.Elem().SetZero()
		return ErrIndirect
	}
	return nil
}

// decodePB is decode for a protobuf Value.
func (d decoder) decodePB(src *structpb.Value, v reflect.Value) error {
	di := decodeInfoOf(v.Type())
	if di.fallback {
		return errFallback
	}
	if di.self {
		j, ok := pbJSON(src)
		if !ok {
			return errFallback
		}
		return decodeSelf(j, v)
	}
	if _, null := src.GetKind().(*structpb.Value_NullValue); null || src.GetKind() == nil {
		switch v.Kind() {
		case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Interface:
			v.SetZero()
		}
		return nil
	}
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		return d.decodePB(src, v.Elem())
	case reflect.Interface:
		if v.NumMethod() != 0 {
			return errFallback
		}
		c, ok := pbJSON(src)
		if !ok {
			return errFallback
		}
		if c == nil {
			v.SetZero()
		} else {
			v.Set(reflect.ValueOf(c))
		}
		return nil
	case reflect.String:
		s, ok := src.GetKind().(*structpb.Value_StringValue)
		if !ok {
			return errFallback
		}
		v.SetString(s.StringValue)
		return nil
	case reflect.Bool:
		b, ok := src.GetKind().(*structpb.Value_BoolValue)
		if !ok {
			return errFallback
		}
		v.SetBool(b.BoolValue)
		return nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, ok := pbInt(src)
		if !ok || v.OverflowInt(n) {
			return errFallback
		}
		v.SetInt(n)
		return nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		n, ok := pbInt(src)
		if !ok || n < 0 || v.OverflowUint(uint64(n)) {
			return errFallback
		}
		v.SetUint(uint64(n))
		return nil
	case reflect.Float64:
		f, ok := src.GetKind().(*structpb.Value_NumberValue)
		if !ok || math.IsNaN(f.NumberValue) || math.IsInf(f.NumberValue, 0) {
			return errFallback
		}
		v.SetFloat(f.NumberValue)
		return nil
	case reflect.Struct:
		s, ok := src.GetKind().(*structpb.Value_StructValue)
		if !ok {
			return errFallback
		}
		return d.decodePBStruct(s.StructValue, v, di)
	case reflect.Map:
		s, ok := src.GetKind().(*structpb.Value_StructValue)
		if !ok || v.Type().Key().Kind() != reflect.String || decodeInfoOf(v.Type().Key()).fallback {
			return errFallback
		}
		fields := s.StructValue.GetFields()
		if v.IsNil() {
			v.Set(reflect.MakeMapWithSize(v.Type(), len(fields)))
		}
		et := v.Type().Elem()
		for k, e := range fields {
			ev := reflect.New(et).Elem()
			if err := d.decodePB(e, ev); err != nil {
				return err
			}
			v.SetMapIndex(reflect.ValueOf(k).Convert(v.Type().Key()), ev)
		}
		return nil
	case reflect.Slice:
		l, ok := src.GetKind().(*structpb.Value_ListValue)
		if !ok || v.Type().Elem().Kind() == reflect.Uint8 {
			return errFallback
		}
		values := l.ListValue.GetValues()
		s := reflect.MakeSlice(v.Type(), len(values), len(values))
		for i, e := range values {
			if err := d.decodePB(e, s.Index(i)); err != nil {
				return err
			}
		}
		v.Set(s)
		return nil
	}
	return errFallback
}

func (d decoder) decodePBStruct(s *structpb.Struct, v reflect.Value, di *decodeInfo) error {
	if di.fallback || di.self {
		return errFallback
	}
	for k, e := range s.GetFields() {
		fv, _, err := d.field(v, di, k)
		if err != nil {
			return err
		}
		if !fv.IsValid() {
			continue
		}
		if err := d.decodePB(e, fv); err != nil {
			return err
		}
	}
	return nil
}

// pbJSON is the JSON value of a protobuf Value, as encoding/json decodes it into an empty
// interface; ok is false for NaN and infinities, which JSON cannot carry (AsInterface
// would make strings of them).
func pbJSON(src *structpb.Value) (any, bool) {
	switch k := src.GetKind().(type) {
	case *structpb.Value_NumberValue:
		f := k.NumberValue
		return f, !math.IsNaN(f) && !math.IsInf(f, 0)
	case *structpb.Value_StringValue:
		return k.StringValue, true
	case *structpb.Value_BoolValue:
		return k.BoolValue, true
	case *structpb.Value_StructValue:
		out := make(map[string]any, len(k.StructValue.GetFields()))
		for name, e := range k.StructValue.GetFields() {
			j, ok := pbJSON(e)
			if !ok {
				return nil, false
			}
			out[name] = j
		}
		return out, true
	case *structpb.Value_ListValue:
		out := make([]any, len(k.ListValue.GetValues()))
		for i, e := range k.ListValue.GetValues() {
			j, ok := pbJSON(e)
			if !ok {
				return nil, false
			}
			out[i] = j
		}
		return out, true
	}
	return nil, true
}

// pbInt is a number that encoding/json reads as an integer: exact within float64.
func pbInt(src *structpb.Value) (int64, bool) {
	n, ok := src.GetKind().(*structpb.Value_NumberValue)
	if !ok {
		return 0, false
	}
	return exactInt(n.NumberValue)
}
