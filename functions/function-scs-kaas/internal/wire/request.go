package wire

import (
	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/types/known/structpb"
)

// The fields of a RunFunctionRequest that hold Structs, decoded by their Go types like State
// and Resource (resource.go). Any other field, known or new, goes to protobuf-go.
const (
	requestObserved          protowire.Number = 2
	requestDesired           protowire.Number = 3
	requestInput             protowire.Number = 4
	requestContext           protowire.Number = 5
	requestExtraResources    protowire.Number = 6
	requestRequiredResources protowire.Number = 8

	resourcesItems protowire.Number = 1
)

// consumeRequest decodes b into r, merging as protobuf does.
func consumeRequest(b []byte, r *fnv1.RunFunctionRequest, depth int) error {
	var rest []byte
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return errUnusual
		}
		if typ != protowire.BytesType || !requestField(num) {
			size := protowire.ConsumeFieldValue(num, typ, b[n:])
			if size < 0 {
				return errUnusual
			}
			rest = append(rest, b[:n+size]...)
			b = b[n+size:]
			continue
		}
		v, size := protowire.ConsumeBytes(b[n:])
		if size < 0 {
			return errUnusual
		}
		b = b[n+size:]
		if err := consumeRequestField(v, num, r, depth+1); err != nil {
			return err
		}
	}
	return mergeRest(rest, r.ProtoReflect())
}

func requestField(num protowire.Number) bool {
	switch num {
	case requestObserved, requestDesired, requestInput, requestContext, requestExtraResources, requestRequiredResources:
		return true
	}
	return false
}

func consumeRequestField(b []byte, num protowire.Number, r *fnv1.RunFunctionRequest, depth int) error {
	switch num {
	case requestObserved:
		if r.Observed == nil {
			r.Observed = &fnv1.State{}
		}
		return consumeState(b, r.Observed, depth)
	case requestDesired:
		if r.Desired == nil {
			r.Desired = &fnv1.State{}
		}
		return consumeState(b, r.Desired, depth)
	case requestInput:
		if r.Input == nil {
			r.Input = &structpb.Struct{}
		}
		return consumeStruct(b, r.Input, depth)
	case requestContext:
		if r.Context == nil {
			r.Context = &structpb.Struct{}
		}
		return consumeStruct(b, r.Context, depth)
	}
	name, value, err := consumeEntry(b)
	if err != nil {
		return err
	}
	rs := &fnv1.Resources{}
	if err := consumeResources(value, rs, depth); err != nil {
		return err
	}
	if num == requestExtraResources {
		// Deprecated for required_resources, which the function reads; a request may still
		// carry it, and it is decoded as protobuf-go would.
		if r.ExtraResources == nil { //nolint:staticcheck // see above
			r.ExtraResources = map[string]*fnv1.Resources{} //nolint:staticcheck // see above
		}
		r.ExtraResources[name] = rs //nolint:staticcheck // see above
		return nil
	}
	if r.RequiredResources == nil {
		r.RequiredResources = map[string]*fnv1.Resources{}
	}
	r.RequiredResources[name] = rs
	return nil
}

// consumeResources decodes b into rs, merging as protobuf does.
func consumeResources(b []byte, rs *fnv1.Resources, depth int) error {
	var rest []byte
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return errUnusual
		}
		if num != resourcesItems || typ != protowire.BytesType {
			size := protowire.ConsumeFieldValue(num, typ, b[n:])
			if size < 0 {
				return errUnusual
			}
			rest = append(rest, b[:n+size]...)
			b = b[n+size:]
			continue
		}
		v, size := protowire.ConsumeBytes(b[n:])
		if size < 0 {
			return errUnusual
		}
		b = b[n+size:]
		r := &fnv1.Resource{}
		if err := consumeResource(v, r, depth+1); err != nil {
			return err
		}
		rs.Items = append(rs.Items, r)
	}
	return mergeRest(rest, rs.ProtoReflect())
}
