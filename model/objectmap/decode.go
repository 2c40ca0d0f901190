package objectmap

import (
	"bytes"
	"encoding"
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
)

// FromJSONValue decodes m, a map of JSON values as json.Unmarshal or structpb's AsMap
// return them, into obj, a pointer to a zero struct, with exactly the result of encoding m
// as JSON and decoding that with encoding/json: with DisallowUnknownFields when strict. It
// does so without the JSON text where m holds nothing unusual (numbers that are not exact,
// keys that match a field only case-insensitively, unknown fields in strict mode, types that
// decode themselves from text), and takes the JSON way for the whole object where it does,
// so that values and errors are the ones encoding/json gives.
func FromJSONValue(m map[string]any, obj any, strict bool) error {
	v := reflect.ValueOf(obj)
	if v.Kind() == reflect.Pointer && !v.IsNil() && v.Elem().Kind() == reflect.Struct {
		d := decoder{strict: strict}
		if err := d.decode(m, v.Elem(), decodeInfoOf(v.Elem().Type())); err == nil {
			return nil
		} else if !errors.Is(err, errFallback) {
			return err
		}
		// The fast way may have set some fields: start again from zero.
		v.Elem().SetZero()
	}
	raw, err := json.Marshal(m)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if strict {
		dec.DisallowUnknownFields()
	}
	return dec.Decode(obj)
}

type decoder struct{ strict bool }

var (
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// decodeInfo is how encoding/json decodes into a type, computed once per type.
type decodeInfo struct {
	// self: the type decodes itself from JSON (json.Unmarshaler on its pointer).
	self bool
	// fallback: the type needs encoding/json (text unmarshalers, ",string" fields,
	// ambiguous embedded fields).
	fallback bool
	fields   map[string]*decodeField
	// folded holds the lower-case names of all fields: a key that matches one of them only
	// case-insensitively is left to encoding/json.
	folded map[string]bool
	// elem is the decodeInfo of the element of a pointer, slice or map type, resolved on
	// first use: a lookup in decodeTypes for every value was a tenth of decoding, and more
	// where the lookup's memory had left the CPU's caches.
	elem atomic.Pointer[decodeInfo]
}

// elemInfo is the decodeInfo of t's element; t is the type di describes.
func (di *decodeInfo) elemInfo(t reflect.Type) *decodeInfo {
	if e := di.elem.Load(); e != nil {
		return e
	}
	e := decodeInfoOf(t.Elem())
	di.elem.Store(e)
	return e
}

type decodeField struct {
	// index is the path through embedded structs.
	index []int
	// info is the decodeInfo of the field's type, resolved on first use.
	info atomic.Pointer[decodeInfo]
}

// infoOf is the decodeInfo of the field's type t.
func (f *decodeField) infoOf(t reflect.Type) *decodeInfo {
	if di := f.info.Load(); di != nil {
		return di
	}
	di := decodeInfoOf(t)
	f.info.Store(di)
	return di
}

var decodeTypes sync.Map // reflect.Type -> *decodeInfo

func decodeInfoOf(t reflect.Type) *decodeInfo {
	if di, ok := decodeTypes.Load(t); ok {
		return di.(*decodeInfo)
	}
	di := &decodeInfo{}
	pt := reflect.PointerTo(t)
	switch {
	case t.Kind() == reflect.Pointer || t.Kind() == reflect.Interface:
		// Decoded through what they point to.
	case pt.Implements(jsonUnmarshaler):
		di.self = true
	case pt.Implements(textUnmarshaler), t.Kind() == reflect.Float32:
		// Text unmarshalers see strings differently, and a float32 is rounded from the
		// JSON text, not from a float64.
		di.fallback = true
	case t.Kind() == reflect.Struct:
		di.fields, di.fallback = structFields(t)
		di.folded = make(map[string]bool, len(di.fields))
		for name := range di.fields {
			di.folded[strings.ToLower(name)] = true
		}
	}
	actual, _ := decodeTypes.LoadOrStore(t, di)
	return actual.(*decodeInfo)
}

// structFields lists the JSON fields of a struct as encoding/json sees them, embedded
// structs' fields promoted; ambiguous is true where encoding/json's rules for names that
// occur more than once would be needed, or a field has the ",string" option.
func structFields(t reflect.Type) (fields map[string]*decodeField, ambiguous bool) {
	fields = map[string]*decodeField{}
	depth := map[string]int{}
	var walk func(t reflect.Type, index []int)
	walk = func(t reflect.Type, index []int) {
		for i := 0; i < t.NumField(); i++ {
			sf := t.Field(i)
			tag := sf.Tag.Get("json")
			if tag == "-" {
				continue
			}
			name, opts, _ := strings.Cut(tag, ",")
			if strings.Contains(","+opts+",", ",string,") {
				ambiguous = true
			}
			idx := append(append([]int{}, index...), i)
			if sf.Anonymous && name == "" {
				ft := sf.Type
				if ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				if !sf.IsExported() && ft.Kind() != reflect.Struct {
					continue
				}
				if ft.Kind() == reflect.Struct {
					walk(ft, idx)
					continue
				}
			}
			if !sf.IsExported() {
				continue
			}
			if name == "" {
				name = sf.Name
			}
			if d, ok := depth[name]; ok {
				if d == len(idx) {
					ambiguous = true
				}
				if d <= len(idx) {
					continue
				}
			}
			depth[name] = len(idx)
			fields[name] = &decodeField{index: idx}
		}
	}
	walk(t, nil)
	return fields, ambiguous
}

// decode sets v, of the type di describes, from the JSON value src as encoding/json would,
// or returns errFallback.
func (d decoder) decode(src any, v reflect.Value, di *decodeInfo) error {
	if di.fallback {
		return errFallback
	}
	if di.self {
		return decodeSelf(src, v)
	}
	if src == nil {
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
		return d.decode(src, v.Elem(), di.elemInfo(v.Type()))
	case reflect.Interface:
		if v.NumMethod() != 0 {
			return errFallback
		}
		c, ok := jsonCopy(src)
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
		s, ok := src.(string)
		if !ok {
			return errFallback
		}
		v.SetString(s)
		return nil
	case reflect.Bool:
		b, ok := src.(bool)
		if !ok {
			return errFallback
		}
		v.SetBool(b)
		return nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, ok := exactInt(src)
		if !ok || v.OverflowInt(n) {
			return errFallback
		}
		v.SetInt(n)
		return nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		n, ok := exactInt(src)
		if !ok || n < 0 || v.OverflowUint(uint64(n)) {
			return errFallback
		}
		v.SetUint(uint64(n))
		return nil
	case reflect.Float32, reflect.Float64:
		f, ok := src.(float64)
		if !ok || math.IsNaN(f) || math.IsInf(f, 0) {
			return errFallback
		}
		v.SetFloat(f)
		return nil
	case reflect.Struct:
		m, ok := src.(map[string]any)
		if !ok {
			return errFallback
		}
		return d.decodeStruct(m, v, di)
	case reflect.Map:
		m, ok := src.(map[string]any)
		if !ok || v.Type().Key().Kind() != reflect.String || decodeInfoOf(v.Type().Key()).fallback {
			return errFallback
		}
		if v.IsNil() {
			v.Set(reflect.MakeMapWithSize(v.Type(), len(m)))
		}
		et, eti := v.Type().Elem(), di.elemInfo(v.Type())
		for k, e := range m {
			ev := reflect.New(et).Elem()
			if err := d.decode(e, ev, eti); err != nil {
				return err
			}
			v.SetMapIndex(reflect.ValueOf(k).Convert(v.Type().Key()), ev)
		}
		return nil
	case reflect.Slice:
		l, ok := src.([]any)
		if !ok || v.Type().Elem().Kind() == reflect.Uint8 {
			return errFallback
		}
		s := reflect.MakeSlice(v.Type(), len(l), len(l))
		eti := di.elemInfo(v.Type())
		for i, e := range l {
			if err := d.decode(e, s.Index(i), eti); err != nil {
				return err
			}
		}
		v.Set(s)
		return nil
	}
	return errFallback
}

func (d decoder) decodeStruct(m map[string]any, v reflect.Value, di *decodeInfo) error {
	for k, e := range m {
		fv, f, err := d.field(v, di, k)
		if err != nil {
			return err
		}
		if !fv.IsValid() {
			continue
		}
		if err := d.decode(e, fv, f.infoOf(fv.Type())); err != nil {
			return err
		}
	}
	return nil
}

// field is the field of struct v that key k sets, allocating embedded pointers on the
// way, and how it is decoded; the zero Value for a key encoding/json ignores.
func (d decoder) field(v reflect.Value, di *decodeInfo, k string) (reflect.Value, *decodeField, error) {
	f, ok := di.fields[k]
	if !ok {
		if d.strict || !isASCII(k) || di.folded[strings.ToLower(k)] {
			return reflect.Value{}, nil, errFallback
		}
		return reflect.Value{}, nil, nil
	}
	fv := v
	for i, x := range f.index {
		if i > 0 && fv.Kind() == reflect.Pointer {
			if fv.IsNil() {
				if !fv.CanSet() {
					return reflect.Value{}, nil, errFallback
				}
				fv.Set(reflect.New(fv.Type().Elem()))
			}
			fv = fv.Elem()
		}
		fv = fv.Field(x)
	}
	if !fv.CanSet() {
		return reflect.Value{}, nil, errFallback
	}
	return fv, f, nil
}

// decodeSelf hands a type that decodes itself its JSON, as encoding/json does; errors are
// left to encoding/json, which reports them in its own words.
func decodeSelf(src any, v reflect.Value) error {
	if decodeIntOrString(src, v) {
		return nil
	}
	raw, err := json.Marshal(src)
	if err != nil {
		return errFallback
	}
	if !v.CanAddr() {
		return errFallback
	}
	if err := v.Addr().Interface().(json.Unmarshaler).UnmarshalJSON(raw); err != nil {
		return errFallback
	}
	return nil
}

// jsonCopy copies a JSON value as encoding/json would decode it into an empty interface:
// numbers become float64. ok is false for what is not a JSON value.
func jsonCopy(src any) (any, bool) {
	return copyTree(src, func(leaf any) (any, bool) {
		switch x := leaf.(type) {
		case float64:
			return x, !math.IsNaN(x) && !math.IsInf(x, 0)
		case nil, string, bool:
			return x, true
		case int64:
			return float64(x), true
		}
		return nil, false
	})
}

// copyTree copies the maps and slices of a JSON value, and its other values as leaf
// returns them; ok is false where leaf refuses one.
func copyTree(v any, leaf func(any) (any, bool)) (any, bool) {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			c, ok := copyTree(e, leaf)
			if !ok {
				return nil, false
			}
			out[k] = c
		}
		return out, true
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			c, ok := copyTree(e, leaf)
			if !ok {
				return nil, false
			}
			out[i] = c
		}
		return out, true
	}
	return leaf(v)
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// exactInt is a JSON number that encoding/json writes as an integer literal.
func exactInt(src any) (int64, bool) {
	switch n := src.(type) {
	case float64:
		if n == math.Trunc(n) && math.Abs(n) < 1<<53 {
			return int64(n), true
		}
	case int64:
		return n, true
	}
	return 0, false
}
