// Package objectmap turns typed API objects into the plain maps Crossplane composes, with
// exactly the result of runtime.DefaultUnstructuredConverter.ToUnstructured, in a fraction
// of its time: the converter sets every field through reflect.Value.SetMapIndex on a fresh
// reflect.New, which was the largest single cost of rendering a Shoot; this builds the maps
// directly and keeps the per-type field information in a cache.
//
// Values of types with their own conversion (metav1.Time, resource.Quantity,
// runtime.RawExtension, anything that implements json.Marshaler) go through the same
// structured-merge-diff entry the converter uses, but for the few a rendered object holds
// many of, which custom.go converts with the converter's results and without its JSON round
// trip. Whatever this package does not handle the converter's way falls back to the
// converter itself.
//
// Visit walks a typed object as ToUnstructured returns it, for encoders that write it
// without the maps in between; the function writes its status that way.
package objectmap

import (
	"encoding/base64"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/structured-merge-diff/v6/value"
)

// errFallback marks a value this package leaves to the converter.
var errFallback = errors.New("objectmap: left to the converter")

// ToUnstructured returns obj, a non-nil pointer to a struct, as a map of JSON values:
// what runtime.DefaultUnstructuredConverter.ToUnstructured returns for it.
func ToUnstructured(obj any) (map[string]any, error) {
	v := reflect.ValueOf(obj)
	if v.Kind() == reflect.Pointer && !v.IsNil() && v.Elem().Kind() == reflect.Struct {
		if t := typeOf(v.Elem().Type()); !t.custom {
			out, err := structMap(t, v.Elem())
			if err == nil {
				return out, nil
			}
			if !errors.Is(err, errFallback) {
				return nil, err
			}
		}
	}
	return runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
}

// typeInfo is what encoding a type needs, computed once per type.
type typeInfo struct {
	t reflect.Type
	// custom and fromCustom: the type converts itself to and from its unstructured form
	// (structured-merge-diff's reflect cache says so).
	custom, fromCustom bool
	entry              *value.TypeReflectCacheEntry
	fields             []field
	// elem is the element type's, resolved on first use: looking types up in the cache
	// for every value cost more than the conversion of many of them.
	elem atomic.Pointer[typeInfo]
}

// elemInfo is the typeInfo of the element of a pointer, slice or map type.
func (ti *typeInfo) elemInfo() *typeInfo {
	if e := ti.elem.Load(); e != nil {
		return e
	}
	e := typeOf(ti.t.Elem())
	ti.elem.Store(e)
	return e
}

type field struct {
	typ       reflect.Type
	info      atomic.Pointer[typeInfo]
	index     int
	name      string
	omitempty bool
	omitzero  func(reflect.Value) bool
	inline    bool
	skip      bool
}

// typeInfo is the typeInfo of the field's type.
func (f *field) typeInfo() *typeInfo {
	if ti := f.info.Load(); ti != nil {
		return ti
	}
	ti := typeOf(f.typ)
	f.info.Store(ti)
	return ti
}

var types sync.Map // reflect.Type -> *typeInfo

func typeOf(t reflect.Type) *typeInfo {
	if ti, ok := types.Load(t); ok {
		return ti.(*typeInfo)
	}
	entry := value.TypeReflectEntryOf(t)
	ti := &typeInfo{t: t, custom: entry.CanConvertToUnstructured(), fromCustom: entry.CanConvertFromUnstructured(), entry: entry}
	if t.Kind() == reflect.Struct {
		ti.fields = make([]field, t.NumField())
		for i := range ti.fields {
			fieldOf(&ti.fields[i], t.Field(i), i)
		}
	}
	actual, _ := types.LoadOrStore(t, ti)
	return actual.(*typeInfo)
}

// fieldOf reads a field's JSON tag as the converter does (fieldInfoFromField).
func fieldOf(f *field, sf reflect.StructField, i int) {
	f.typ, f.index = sf.Type, i
	tag := sf.Tag.Get("json")
	if tag == "" {
		if !sf.Anonymous {
			f.name = sf.Name
		}
	} else {
		items := strings.Split(tag, ",")
		f.name = items[0]
		if f.name == "" && !sf.Anonymous {
			f.name = sf.Name
		}
		for _, item := range items[1:] {
			switch item {
			case "omitempty":
				f.omitempty = true
			case "omitzero":
				f.omitzero = value.OmitZeroFunc(sf.Type)
			}
		}
	}
	f.skip = f.name == "-"
	f.inline = f.name == ""
}

// encode returns the JSON value of v, of the type ti describes, as the converter's
// toUnstructured sets it.
func encode(ti *typeInfo, v reflect.Value) (any, error) {
	if ti.custom {
		if out, ok, err := encodeCustom(ti, v); ok {
			return out, err
		}
		return ti.entry.ToUnstructured(v)
	}
	switch v.Kind() {
	case reflect.String:
		return v.String(), nil
	case reflect.Bool:
		return v.Bool(), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int(), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		u := v.Uint()
		if u > math.MaxInt64 {
			return nil, fmt.Errorf("unsigned value %d does not fit into int64 (overflow)", u)
		}
		return int64(u), nil
	case reflect.Float32, reflect.Float64:
		return v.Float(), nil
	case reflect.Map:
		if v.IsNil() {
			return nil, nil
		}
		if v.Type().Key().Kind() != reflect.String {
			return nil, errFallback
		}
		out := make(map[string]any, v.Len())
		et := ti.elemInfo()
		for it := v.MapRange(); it.Next(); {
			e, err := encode(et, it.Value())
			if err != nil {
				return nil, err
			}
			out[it.Key().String()] = e
		}
		return out, nil
	case reflect.Slice:
		if v.IsNil() {
			return nil, nil
		}
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return base64.StdEncoding.EncodeToString(v.Bytes()), nil
		}
		out := make([]any, v.Len())
		et := ti.elemInfo()
		for i := range out {
			e, err := encode(et, v.Index(i))
			if err != nil {
				return nil, err
			}
			out[i] = e
		}
		return out, nil
	case reflect.Pointer:
		if v.IsNil() {
			return nil, nil
		}
		return encode(ti.elemInfo(), v.Elem())
	case reflect.Interface:
		if v.IsNil() {
			return nil, nil
		}
		e := v.Elem()
		return encode(typeOf(e.Type()), e)
	case reflect.Struct:
		return structMap(ti, v)
	}
	return nil, errFallback
}

// structMap returns struct v as encodeStruct sets it, in a map made for as many fields.
// API types have many optional fields, and a map made for all of them was most of the
// bytes a Cluster with many pools allocated.
func structMap(ti *typeInfo, v reflect.Value) (map[string]any, error) {
	var room [64]int
	set, n := setFields(ti, v, room[:0])
	out := make(map[string]any, n)
	return out, encodeFields(ti, v, set, out)
}

// encodeStruct sets the fields of a struct in out, as the converter's structToUnstructured
// does.
func encodeStruct(ti *typeInfo, v reflect.Value, out map[string]any) error {
	var room [64]int
	set, _ := setFields(ti, v, room[:0])
	return encodeFields(ti, v, set, out)
}

// encodeFields sets the fields of struct v that setFields found set in out, as the
// converter's structToUnstructured does, including its quirks: a string, bool or number
// field is set without asking its type for a conversion, and an unsigned one as uint64.
func encodeFields(ti *typeInfo, v reflect.Value, set []int, out map[string]any) error {
	for _, i := range set {
		f := &ti.fields[i]
		fv := v.Field(f.index)
		if f.inline {
			if err := encodeInline(f.typeInfo(), fv, out); err != nil {
				return err
			}
			continue
		}
		switch fv.Kind() {
		case reflect.String:
			out[f.name] = fv.String()
		case reflect.Bool:
			out[f.name] = fv.Bool()
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			out[f.name] = fv.Int()
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			out[f.name] = fv.Uint()
		case reflect.Float32, reflect.Float64:
			out[f.name] = fv.Float()
		default:
			e, err := encode(f.typeInfo(), fv)
			if err != nil {
				return err
			}
			out[f.name] = e
		}
	}
	return nil
}

// encodeInline merges an embedded struct, or a pointer to one, into its parent's map.
// Anything else embedded is left to the converter.
func encodeInline(ti *typeInfo, v reflect.Value, out map[string]any) error {
	for v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return nil
		}
		v, ti = v.Elem(), ti.elemInfo()
	}
	if ti.custom || v.Kind() != reflect.Struct {
		return errFallback
	}
	return encodeStruct(ti, v, out)
}

// setFields appends the indexes of the fields of struct v that are encoded, neither
// skipped nor omitted as empty, to set, and counts those among them that are not inlined:
// the size of the struct's map.
func setFields(ti *typeInfo, v reflect.Value, set []int) ([]int, int) {
	n := 0
	for i := range ti.fields {
		f := &ti.fields[i]
		if f.skip {
			continue
		}
		fv := v.Field(f.index)
		if f.omitempty && isEmpty(fv) || f.omitzero != nil && f.omitzero(fv) {
			continue
		}
		set = append(set, i)
		if !f.inline {
			n++
		}
	}
	return set, n
}

// isEmpty is the converter's omitempty test.
func isEmpty(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.String:
		return v.Len() == 0
	case reflect.Bool:
		return !v.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int() == 0
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return v.Uint() == 0
	case reflect.Float32, reflect.Float64:
		return v.Float() == 0
	case reflect.Map, reflect.Slice:
		return v.IsNil() || v.Len() == 0
	case reflect.Pointer, reflect.Interface:
		return v.IsNil()
	}
	return false
}
