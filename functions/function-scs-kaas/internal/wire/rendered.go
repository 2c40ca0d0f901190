package wire

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"unicode/utf8"

	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"
)

// Response is a RunFunctionResponse with the composed resources the function rendered
// already encoded: the function renders them as maps, and building protobuf Structs of them
// only to encode those was a twentieth of a call's CPU.
type Response struct {
	Proto *fnv1.RunFunctionResponse
	// Rendered are desired composed resources by name, besides those in Proto's desired
	// state: no name is in both.
	Rendered map[string]Rendered
	// Status, unless nil, is the status of the desired composite resource: the fields of a
	// google.protobuf.Struct (AppendTyped). It replaces any status Proto's desired
	// composite resource has.
	Status []byte
}

// Rendered is a desired composed resource.
type Rendered struct {
	// Struct is the resource encoded as a google.protobuf.Struct (AppendObject).
	Struct []byte
	Ready  fnv1.Ready
}

// ErrNotEncodable is AppendObject's error for a value it leaves to structpb.NewStruct.
var ErrNotEncodable = errors.New("a value structpb.NewStruct decides on")

// AppendObject appends m encoded as proto.Marshal encodes structpb.NewStruct(m), map entries
// in no particular order as there. It takes the values JSON and the Kubernetes converter
// give (nil, strings, bools, float64, int64, int, int32, uint64, maps of them and slices of
// them); anything else, and strings or keys that are not valid UTF-8, is ErrNotEncodable:
// structpb.NewStruct takes it or says what is wrong.
func AppendObject(b []byte, m map[string]any) ([]byte, error) {
	return appendMap(b, m, 0)
}

func appendMap(b []byte, m map[string]any, depth int) ([]byte, error) {
	if depth > maxDepth {
		return nil, ErrNotEncodable
	}
	var (
		entry, value int
		err          error
	)
	for key, v := range m {
		if b, entry, value, err = beginEntry(b, structFields, key); err != nil {
			return nil, ErrNotEncodable
		}
		if b, err = appendAny(b, v, depth+1); err != nil {
			return nil, err
		}
		b = endEntry(b, entry, value)
	}
	return b, nil
}

func appendAny(b []byte, v any, depth int) ([]byte, error) {
	var (
		start int
		err   error
	)
	switch x := v.(type) {
	case nil:
		b = appendNullValue(b)
	case string:
		if !utf8.ValidString(x) {
			return nil, ErrNotEncodable
		}
		b = appendStringValue(b, x)
	case bool:
		b = appendBoolValue(b, x)
	case float64:
		b = appendNumber(b, x)
	case int64:
		b = appendNumber(b, float64(x))
	case int:
		b = appendNumber(b, float64(x))
	case int32:
		b = appendNumber(b, float64(x))
	case uint64:
		b = appendNumber(b, float64(x))
	case map[string]any:
		b, start = beginNested(b, valueStruct)
		if b, err = appendMap(b, x, depth+1); err != nil {
			return nil, err
		}
		b = endNested(b, start)
	case []any:
		b, start = beginNested(b, valueList)
		for _, e := range x {
			var value int
			b, value = beginNested(b, listValues)
			if b, err = appendAny(b, e, depth+1); err != nil {
				return nil, err
			}
			b = endNested(b, value)
		}
		b = endNested(b, start)
	default:
		return nil, ErrNotEncodable
	}
	return b, nil
}

// The fields of a Value of each kind but Struct and ListValue.

func appendNumber(b []byte, f float64) []byte {
	b = protowire.AppendTag(b, valueNumber, protowire.Fixed64Type)
	return protowire.AppendFixed64(b, math.Float64bits(f))
}

func appendStringValue(b []byte, s string) []byte {
	b = protowire.AppendTag(b, valueString, protowire.BytesType)
	return protowire.AppendString(b, s)
}

func appendBoolValue(b []byte, v bool) []byte {
	b = protowire.AppendTag(b, valueBool, protowire.VarintType)
	return protowire.AppendVarint(b, protowire.EncodeBool(v))
}

func appendNullValue(b []byte) []byte {
	b = protowire.AppendTag(b, valueNull, protowire.VarintType)
	return protowire.AppendVarint(b, 0)
}

// ToProto returns the response as one RunFunctionResponse: Proto, with the rendered
// resources decoded by protobuf-go into its desired state. It changes Proto.
func (r *Response) ToProto() (*fnv1.RunFunctionResponse, error) {
	if len(r.Rendered) == 0 && r.Status == nil {
		return r.Proto, nil
	}
	if r.Proto.Desired == nil {
		r.Proto.Desired = &fnv1.State{}
	}
	if r.Status != nil {
		status := &structpb.Struct{}
		if err := proto.Unmarshal(r.Status, status); err != nil {
			return nil, fmt.Errorf("cannot decode the composite resource's status: %w", err)
		}
		c := r.Proto.Desired.Composite
		if c == nil {
			c = &fnv1.Resource{}
			r.Proto.Desired.Composite = c
		}
		if c.Resource == nil {
			c.Resource = &structpb.Struct{}
		}
		if c.Resource.Fields == nil {
			c.Resource.Fields = map[string]*structpb.Value{}
		}
		c.Resource.Fields["status"] = structpb.NewStructValue(status)
		r.Status = nil
	}
	if len(r.Rendered) == 0 {
		return r.Proto, nil
	}
	resources := make(map[string]*fnv1.Resource, len(r.Proto.Desired.GetResources())+len(r.Rendered))
	maps.Copy(resources, r.Proto.Desired.GetResources())
	for name, x := range r.Rendered {
		s := &structpb.Struct{}
		if err := proto.Unmarshal(x.Struct, s); err != nil {
			return nil, fmt.Errorf("cannot decode rendered resource %s: %w", name, err)
		}
		resources[name] = &fnv1.Resource{Resource: s, Ready: x.Ready}
	}
	r.Proto.Desired.Resources = resources
	r.Rendered = nil
	return r.Proto, nil
}

// appendRendered appends the rendered resources as entries of a State's resources.
func appendRendered(b []byte, rendered map[string]Rendered) ([]byte, error) {
	var (
		entry, value, start int
		err                 error
	)
	for name, x := range rendered {
		if b, entry, value, err = beginEntry(b, stateResources, name); err != nil {
			return nil, err
		}
		b, start = beginNested(b, resourceStruct)
		b = append(b, x.Struct...)
		b = endNested(b, start)
		b = appendReady(b, x.Ready)
		b = endEntry(b, entry, value)
	}
	return b, nil
}
