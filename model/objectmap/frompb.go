package objectmap

import (
	"errors"
	"math"
	"reflect"

	"google.golang.org/protobuf/types/known/structpb"
)

// FromStruct decodes a protobuf Struct into obj, a pointer to a zero struct, as
// FromJSONValue decodes s.AsMap(): with encoding/json's result, strictly or not. It reads
// the Struct directly where FromJSONValue would not need encoding/json, without the map
// in between.
func FromStruct(s *structpb.Struct, obj any, strict bool) error {
	v := reflect.ValueOf(obj)
	if v.Kind() == reflect.Pointer && !v.IsNil() && v.Elem().Kind() == reflect.Struct {
		d := decoder{strict: strict}
		err := d.decodePBStruct(s, v.Elem(), decodeInfoOf(v.Elem().Type()))
		if err == nil {
			return nil
		}
		if !errors.Is(err, errFallback) {
			return err
		}
		v.Elem().SetZero()
	}
	return FromJSONValue(s.AsMap(), obj, strict)
}

// decodePB is decode for a protobuf Value.
func (d decoder) decodePB(src *structpb.Value, v reflect.Value) error {
	di := decodeInfoOf(v.Type())
	if di.fallback {
		return errFallback
	}
	if di.self {
		return decodeSelf(src.AsInterface(), v)
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
		c, ok := jsonCopy(src.AsInterface())
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
		fv, err := d.field(v, di, k)
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

// pbInt is a number that encoding/json reads as an integer: exact within float64.
func pbInt(src *structpb.Value) (int64, bool) {
	n, ok := src.GetKind().(*structpb.Value_NumberValue)
	if !ok {
		return 0, false
	}
	return exactInt(n.NumberValue)
}
