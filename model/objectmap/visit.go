package objectmap

import (
	"encoding/base64"
	"math"
	"reflect"
	"unicode/utf8"
)

// Visitor receives a typed object as the JSON value ToUnstructured returns for it, a part at
// a time, so that an encoder can write that value without the maps in between (Visit).
type Visitor interface {
	// Field begins a member of the object under way; its value follows, then EndField.
	Field(name string)
	EndField()
	// Object begins an object value; its members follow, then EndObject.
	Object()
	EndObject()
	// List begins an array value; each element follows between Item and EndItem, then
	// EndList.
	List()
	Item()
	EndItem()
	EndList()

	String(s string)
	Number(f float64)
	Bool(b bool)
	Null()
}

// Visit tells v the members of obj, a non-nil pointer to a struct, as ToUnstructured
// returns them, numbers as structpb.NewValue holds them (float64). It returns false where
// the value needs the way through the map to be exactly what ToUnstructured and
// structpb.NewStruct give, errors included: a string that is not valid UTF-8, an unsigned
// number past int64, a conversion that fails. Then v has received only part of obj: the
// caller discards it and takes that way.
func Visit(obj any, v Visitor) bool {
	rv := reflect.ValueOf(obj)
	if rv.Kind() != reflect.Pointer || rv.IsNil() || rv.Elem().Kind() != reflect.Struct {
		return false
	}
	ti := typeOf(rv.Elem().Type())
	return !ti.custom && visitStruct(ti, rv.Elem(), v)
}

// visitStruct tells vis the members of struct v as encodeStruct sets them.
func visitStruct(ti *typeInfo, v reflect.Value, vis Visitor) bool {
	var room [64]int
	set, _ := setFields(ti, v, room[:0])
	for _, i := range set {
		f := &ti.fields[i]
		fv := v.Field(f.index)
		if f.inline {
			it := f.typeInfo()
			for fv.Kind() == reflect.Pointer && !fv.IsNil() {
				fv, it = fv.Elem(), it.elemInfo()
			}
			if fv.Kind() == reflect.Pointer {
				continue
			}
			if it.custom || fv.Kind() != reflect.Struct || !visitStruct(it, fv, vis) {
				return false
			}
			continue
		}
		if !utf8.ValidString(f.name) {
			return false
		}
		vis.Field(f.name)
		// As encodeStruct: a string, bool or number field without asking its type for a
		// conversion, an unsigned one as uint64 (which NewStruct takes whole).
		switch fv.Kind() {
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			vis.Number(float64(fv.Uint()))
		default:
			if !visitScalar(fv, vis) && !visitValue(f.typeInfo(), fv, vis) {
				return false
			}
		}
		vis.EndField()
	}
	return true
}

// visitScalar tells vis a string, bool or signed or floating-point number v and returns
// true, or returns false for any other kind of value, or for a string NewStruct refuses.
func visitScalar(v reflect.Value, vis Visitor) bool {
	switch v.Kind() {
	case reflect.String:
		s := v.String()
		if !utf8.ValidString(s) {
			return false
		}
		vis.String(s)
	case reflect.Bool:
		vis.Bool(v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		vis.Number(float64(v.Int()))
	case reflect.Float32, reflect.Float64:
		vis.Number(v.Float())
	default:
		return false
	}
	return true
}

// visitValue tells vis the value encode returns for v.
func visitValue(ti *typeInfo, v reflect.Value, vis Visitor) bool {
	if ti.custom {
		u, err := ti.entry.ToUnstructured(v)
		return err == nil && visitJSON(u, vis)
	}
	switch v.Kind() {
	case reflect.String, reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Float32, reflect.Float64:
		return visitScalar(v, vis)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		u := v.Uint()
		if u > math.MaxInt64 {
			return false
		}
		vis.Number(float64(u))
	case reflect.Map:
		if v.IsNil() {
			vis.Null()
			return true
		}
		if v.Type().Key().Kind() != reflect.String {
			return false
		}
		et := ti.elemInfo()
		vis.Object()
		for it := v.MapRange(); it.Next(); {
			k := it.Key().String()
			if !utf8.ValidString(k) {
				return false
			}
			vis.Field(k)
			if !visitValue(et, it.Value(), vis) {
				return false
			}
			vis.EndField()
		}
		vis.EndObject()
	case reflect.Slice:
		if v.IsNil() {
			vis.Null()
			return true
		}
		if v.Type().Elem().Kind() == reflect.Uint8 {
			vis.String(base64.StdEncoding.EncodeToString(v.Bytes()))
			return true
		}
		et := ti.elemInfo()
		vis.List()
		for i := range v.Len() {
			vis.Item()
			if !visitValue(et, v.Index(i), vis) {
				return false
			}
			vis.EndItem()
		}
		vis.EndList()
	case reflect.Pointer:
		if v.IsNil() {
			vis.Null()
			return true
		}
		return visitValue(ti.elemInfo(), v.Elem(), vis)
	case reflect.Interface:
		if v.IsNil() {
			vis.Null()
			return true
		}
		e := v.Elem()
		return visitValue(typeOf(e.Type()), e, vis)
	case reflect.Struct:
		vis.Object()
		if !visitStruct(ti, v, vis) {
			return false
		}
		vis.EndObject()
	default:
		return false
	}
	return true
}

// visitJSON tells vis a value a type's own conversion returned, as newValue takes it.
func visitJSON(u any, vis Visitor) bool {
	switch x := u.(type) {
	case nil:
		vis.Null()
	case string:
		if !utf8.ValidString(x) {
			return false
		}
		vis.String(x)
	case bool:
		vis.Bool(x)
	case float64:
		vis.Number(x)
	case int64:
		vis.Number(float64(x))
	case int:
		vis.Number(float64(x))
	case int32:
		vis.Number(float64(x))
	case uint64:
		vis.Number(float64(x))
	case map[string]any:
		vis.Object()
		for k, e := range x {
			if !utf8.ValidString(k) {
				return false
			}
			vis.Field(k)
			if !visitJSON(e, vis) {
				return false
			}
			vis.EndField()
		}
		vis.EndObject()
	case []any:
		vis.List()
		for _, e := range x {
			vis.Item()
			if !visitJSON(e, vis) {
				return false
			}
			vis.EndItem()
		}
		vis.EndList()
	default:
		return false
	}
	return true
}
