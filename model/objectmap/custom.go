// The custom types that rendered and observed objects hold many of (IntOrString,
// RawExtension, metav1.Time), converted here as the converter converts them, without the
// JSON round trip it takes for them.

package objectmap

import (
	"math"
	"reflect"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
)

var (
	rawExtensionType = reflect.TypeFor[runtime.RawExtension]()
	intOrStringType  = reflect.TypeFor[intstr.IntOrString]()
)

// encodeIntOrString returns what the converter returns for an IntOrString, false where it
// leaves that to the converter: the converter writes it as JSON and parses that again, a
// JSON decoder for every pool's maxSurge and maxUnavailable. A string that is not valid
// UTF-8 is the converter's (JSON replaces the bytes), and so is a type that is neither.
func encodeIntOrString(v reflect.Value) (any, bool) {
	x, _ := v.Interface().(intstr.IntOrString)
	switch {
	case x.Type == intstr.Int:
		return int64(x.IntVal), true
	case x.Type == intstr.String && utf8.ValidString(x.StrVal):
		return x.StrVal, true
	}
	return nil, false
}

// rawExtensions holds what the converter made of the JSON of RawExtensions (string of the
// JSON -> its value), at most maxRawExtensions of them. The converter parses that JSON on
// every conversion, with a decoder of its own: of a rendered Shoot, whose provider
// configurations are RawExtensions, that was a tenth of the conversion. The same few
// configurations come back on every call (they derive from the environment), so a copy of
// the value is what each call gets.
var (
	rawExtensions      sync.Map
	rawExtensionsCount atomic.Int32
)

const maxRawExtensions = 256

// encodeCustom converts the custom types a rendered object holds, or a pointer to one, as
// the converter does; ok is false for the others. The converter takes a pointer to such a
// type as a custom type of its own: nil is nil, else what the value converts to.
func encodeCustom(ti *typeInfo, v reflect.Value) (out any, ok bool, err error) {
	t := ti.t
	if t.Kind() == reflect.Pointer {
		if t = t.Elem(); t != rawExtensionType && t != intOrStringType {
			return nil, false, nil
		}
		if v.IsNil() {
			return nil, true, nil
		}
		ti, v = ti.elemInfo(), v.Elem()
	}
	switch t {
	case rawExtensionType:
		out, err := encodeRawExtension(ti, v)
		return out, true, err
	case intOrStringType:
		out, ok := encodeIntOrString(v)
		return out, ok, nil
	}
	return nil, false, nil
}

// encodeRawExtension returns what the converter returns for a RawExtension.
func encodeRawExtension(ti *typeInfo, v reflect.Value) (any, error) {
	raw := v.Interface().(runtime.RawExtension).Raw // Object is marshalled only where Raw is nil
	if raw == nil {
		return ti.entry.ToUnstructured(v)
	}
	if cached, ok := rawExtensions.Load(string(raw)); ok {
		out, _ := copyJSON(cached)
		return out, nil
	}
	out, err := ti.entry.ToUnstructured(v)
	if err != nil {
		return nil, err
	}
	if kept, ok := copyJSON(out); ok && rawExtensionsCount.Load() < maxRawExtensions {
		if _, loaded := rawExtensions.LoadOrStore(string(raw), kept); !loaded {
			rawExtensionsCount.Add(1)
		}
	}
	return out, nil
}

// copyJSON returns a deep copy of a JSON value as the converter gives it, false for any
// other value.
func copyJSON(v any) (any, bool) {
	return copyTree(v, func(leaf any) (any, bool) {
		switch leaf.(type) {
		case nil, string, bool, int64, float64:
			return leaf, true
		}
		return nil, false
	})
}

// decodeIntOrString sets v, an IntOrString, from src as its UnmarshalJSON does from src's
// JSON, and reports whether it did: a string (valid UTF-8, which JSON keeps as it is) or a
// whole number within int32. The rest, errors included, goes the JSON way.
func decodeIntOrString(src any, v reflect.Value) bool {
	if v.Type() != intOrStringType || !v.CanAddr() {
		return false
	}
	x, _ := v.Addr().Interface().(*intstr.IntOrString)
	var f float64
	switch s := src.(type) {
	case string:
		if !utf8.ValidString(s) {
			return false
		}
		// UnmarshalJSON sets the type and the string only.
		x.Type, x.StrVal = intstr.String, s
		return true
	case float64:
		f = s
	case int64:
		f = float64(s)
		if int64(f) != s {
			return false
		}
	default:
		return false
	}
	if f != math.Trunc(f) || f < math.MinInt32 || f > math.MaxInt32 {
		return false
	}
	x.Type, x.IntVal = intstr.Int, int32(f)
	return true
}
