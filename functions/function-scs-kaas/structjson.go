package main

import (
	"encoding/json"
	"maps"
	"math"
	"slices"
	"strconv"

	"google.golang.org/protobuf/types/known/structpb"

	"github.com/SovereignCloudStack/scs-kaas/model/objectmap"
)

// structJSON writes a protobuf Struct as JSON, its keys sorted as protojson writes them.
// The order matters: encoding/json reports the first error in the text, and of two keys
// that differ only in case the later one wins, so in map order the same request would
// decode differently from call to call.
func structJSON(s *structpb.Struct) []byte {
	return appendStruct(make([]byte, 0, 2048), s)
}

func appendStruct(b []byte, s *structpb.Struct) []byte {
	b = append(b, '{')
	fields := s.GetFields()
	for i, k := range slices.Sorted(maps.Keys(fields)) {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, k)
		b = append(b, ':')
		b = appendValue(b, fields[k])
	}
	return append(b, '}')
}

func appendValue(b []byte, v *structpb.Value) []byte {
	switch k := v.GetKind().(type) {
	case *structpb.Value_StringValue:
		return appendString(b, k.StringValue)
	case *structpb.Value_NumberValue:
		f := k.NumberValue
		if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
			return strconv.AppendInt(b, int64(f), 10)
		}
		return strconv.AppendFloat(b, f, 'g', -1, 64)
	case *structpb.Value_BoolValue:
		return strconv.AppendBool(b, k.BoolValue)
	case *structpb.Value_StructValue:
		return appendStruct(b, k.StructValue)
	case *structpb.Value_ListValue:
		b = append(b, '[')
		for i, e := range k.ListValue.GetValues() {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendValue(b, e)
		}
		return append(b, ']')
	default:
		return append(b, "null"...)
	}
}

// typedStruct turns a pointer to a typed value into a protobuf Struct, so that the JSON tags
// (omitempty, names) decide the shape, as they do for the XRD schema. objectmap builds the
// Struct directly; the JSON round trip it replaced was a tenth of a call.
func typedStruct(v any) (*structpb.Struct, error) {
	return objectmap.ToStruct(v)
}

// appendString quotes s as JSON. strconv's Go quoting is not JSON for every string, so
// strings with anything but printable ASCII go through encoding/json.
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			raw, _ := json.Marshal(s)
			return append(b, raw...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
