package objectmap

import (
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
	switch x := v.(type) {
	case nil, string, bool, int64, float64:
		return x, true
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			c, ok := copyJSON(e)
			if !ok {
				return nil, false
			}
			out[k] = c
		}
		return out, true
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			c, ok := copyJSON(e)
			if !ok {
				return nil, false
			}
			out[i] = c
		}
		return out, true
	}
	return nil, false
}
