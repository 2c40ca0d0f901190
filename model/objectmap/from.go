package objectmap

import (
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// FromUnstructured decodes u into obj, a non-nil pointer to a zero struct, with exactly the
// result of runtime.DefaultUnstructuredConverter.FromUnstructured, in a fraction of its
// time: the converter looks every field of every struct up through reflect.Value.MapIndex
// and tracks the keys it matched; this looks fields up in the map directly. Where this
// meets an error, the converter decodes again from zero and decides.
//
// The converter's error names no field, and of several bad values in a map it reports the
// one it meets first in map order: the same object fails with one message, then another.
// Where encoding/json refuses the object too, its error is returned instead: it reads the
// keys in sorted order (json.Marshal writes them so) and names the field.
func FromUnstructured(u map[string]any, obj any) error {
	v := reflect.ValueOf(obj)
	if v.Kind() == reflect.Pointer && !v.IsNil() && v.Elem().Kind() == reflect.Struct {
		if err := fromValue(typeOf(v.Elem().Type()), u, v.Elem()); err == nil {
			return nil
		}
		v.Elem().SetZero()
	}
	err := runtime.DefaultUnstructuredConverter.FromUnstructured(u, obj)
	if err == nil || v.Kind() != reflect.Pointer || v.IsNil() {
		return err
	}
	if raw, merr := json.Marshal(u); merr == nil {
		if jerr := json.Unmarshal(raw, reflect.New(v.Elem().Type()).Interface()); jerr != nil {
			return jerr
		}
	}
	return err
}

var (
	timeType        = reflect.TypeFor[metav1.Time]()
	timePointerType = reflect.TypeFor[*metav1.Time]()
)

// decodeTime sets dv, a metav1.Time or a pointer to one, from src and reports whether it
// did. metav1.Time decodes itself from JSON: the converter writes src as JSON for it. A
// timestamp it parses is the time it sets, as the converter's way would; the rest, errors
// included, is the converter's.
func decodeTime(ti *typeInfo, src any, dv reflect.Value) bool {
	if ti.t != timeType && ti.t != timePointerType {
		return false
	}
	s, ok := src.(string)
	if !ok {
		return false
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return false
	}
	mt := metav1.NewTime(t.Local())
	if ti.t == timePointerType {
		dv.Set(reflect.ValueOf(&mt))
	} else {
		dv.Set(reflect.ValueOf(mt))
	}
	return true
}

// errConvert stands for any error: the converter says which.
var errConvert = errors.New("objectmap: cannot convert")

// fromValue sets dv, of the type ti describes, from src as the converter's
// fromUnstructured does.
func fromValue(ti *typeInfo, src any, dv reflect.Value) error {
	if src == nil {
		dv.SetZero()
		return nil
	}
	dt := dv.Type()
	switch dt.Kind() {
	case reflect.Map, reflect.Slice, reflect.Pointer, reflect.Struct, reflect.Interface:
	default:
		if done, err := simpleFromValue(src, dv); done {
			return err
		}
	}
	if decodeTime(ti, src, dv) {
		return nil
	}
	if ti.fromCustom {
		return ti.entry.FromUnstructured(reflect.ValueOf(src), dv)
	}
	switch dt.Kind() {
	case reflect.Map:
		m, ok := src.(map[string]any)
		if !ok || dt.Key().Kind() != reflect.String {
			return errConvert
		}
		if m == nil {
			dv.SetZero()
			return nil
		}
		out := reflect.MakeMapWithSize(dt, len(m))
		et, kt, eti := dt.Elem(), dt.Key(), ti.elemInfo()
		for k, e := range m {
			ev := reflect.New(et).Elem()
			if e != nil {
				if err := fromValue(eti, e, ev); err != nil {
					return err
				}
			}
			out.SetMapIndex(reflect.ValueOf(k).Convert(kt), ev)
		}
		dv.Set(out)
		return nil
	case reflect.Slice:
		l, ok := src.([]any)
		if !ok {
			// A string for []byte, and everything the converter refuses.
			return errConvert
		}
		if l == nil {
			dv.SetZero()
			return nil
		}
		s := reflect.MakeSlice(dt, len(l), cap(l))
		eti := ti.elemInfo()
		for i, e := range l {
			if err := fromValue(eti, e, s.Index(i)); err != nil {
				return err
			}
		}
		dv.Set(s)
		return nil
	case reflect.Pointer:
		p := reflect.New(dt.Elem())
		dv.Set(p)
		return fromValue(ti.elemInfo(), src, p.Elem())
	case reflect.Struct:
		m, ok := src.(map[string]any)
		if !ok {
			return errConvert
		}
		for i := range ti.fields {
			f := &ti.fields[i]
			fv := dv.Field(f.index)
			if f.inline {
				if err := fromValue(f.typeInfo(), m, fv); err != nil {
					return err
				}
				continue
			}
			if e := m[f.name]; e != nil {
				if err := fromValue(f.typeInfo(), e, fv); err != nil {
					return err
				}
			} else {
				fv.SetZero()
			}
		}
		return nil
	case reflect.Interface:
		dv.Set(reflect.ValueOf(src))
		return nil
	}
	return errConvert
}

// simpleFromValue converts into a string, bool or number as the converter does: only
// within the groups JSON knows (strings, bools, numbers), and from a float to an integer
// only when it is whole. done is false where the converter goes on to the type's own
// conversion.
func simpleFromValue(src any, dv reflect.Value) (done bool, err error) {
	// The values JSON gives, set directly: reflect's Convert allocates a copy of each.
	switch x := src.(type) {
	case string:
		if dv.Kind() != reflect.String {
			return false, nil
		}
		dv.SetString(x)
		return true, nil
	case bool:
		if dv.Kind() != reflect.Bool {
			return false, nil
		}
		dv.SetBool(x)
		return true, nil
	case float64:
		return setFloat(x, dv)
	case int64:
		return setInt(x, dv)
	}
	sv := reflect.ValueOf(src)
	st, dt := sv.Type(), dv.Type()
	if st.AssignableTo(dt) {
		dv.Set(sv)
		return true, nil
	}
	if !st.ConvertibleTo(dt) {
		return false, nil
	}
	switch st.Kind() {
	case reflect.String:
		if dt.Kind() == reflect.String {
			dv.Set(sv.Convert(dt))
			return true, nil
		}
	case reflect.Bool:
		if dt.Kind() == reflect.Bool {
			dv.Set(sv.Convert(dt))
			return true, nil
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		switch dt.Kind() {
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
			reflect.Float32, reflect.Float64:
			dv.Set(sv.Convert(dt))
			return true, nil
		}
	case reflect.Float32, reflect.Float64:
		switch dt.Kind() {
		case reflect.Float32, reflect.Float64:
			dv.Set(sv.Convert(dt))
			return true, nil
		}
		if f := sv.Float(); f == math.Trunc(f) {
			dv.Set(sv.Convert(dt))
			return true, nil
		}
	}
	return true, errConvert
}

// setFloat is simpleFromValue of a float64.
func setFloat(f float64, dv reflect.Value) (done bool, err error) {
	switch dv.Kind() {
	case reflect.Float32, reflect.Float64:
		dv.SetFloat(f)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if f != math.Trunc(f) {
			return true, errConvert
		}
		dv.SetInt(int64(f))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		if f != math.Trunc(f) {
			return true, errConvert
		}
		dv.SetUint(uint64(f))
	default:
		return false, nil
	}
	return true, nil
}

// setInt is simpleFromValue of an int64.
func setInt(i int64, dv reflect.Value) (done bool, err error) {
	switch dv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		dv.SetInt(i)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		dv.SetUint(uint64(i)) //nolint:gosec // as reflect's Convert: the bits, wrapped
	case reflect.Float32, reflect.Float64:
		dv.SetFloat(float64(i))
	case reflect.String, reflect.Uintptr:
		// Convertible in Go, refused by the converter's rules.
		return true, errConvert
	default:
		return false, nil
	}
	return true, nil
}
