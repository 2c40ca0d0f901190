package wire

import (
	"unicode/utf8"

	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/types/known/structpb"
)

// The fields of a RunFunctionRequest that hold Structs, decoded by their Go types like State
// and Resource, and its meta, which every request has. Any other field, known or new, goes
// to protobuf-go.
const (
	requestMeta              protowire.Number = 1
	requestObserved          protowire.Number = 2
	requestDesired           protowire.Number = 3
	requestInput             protowire.Number = 4
	requestContext           protowire.Number = 5
	requestExtraResources    protowire.Number = 6
	requestRequiredResources protowire.Number = 8

	resourcesItems protowire.Number = 1

	requestMetaTag          protowire.Number = 1
	requestMetaCapabilities protowire.Number = 2
)

// consumeRequest decodes b into req, merging as protobuf does; with objects, the observed
// composite and composed resources and the required resources go there instead, as maps.
func consumeRequest(b []byte, req *fnv1.RunFunctionRequest, objects *Request) error {
	var required map[string][]map[string]any
	if objects != nil {
		required = objects.Required
	}
	r := fieldReader{b: b}
	for r.next() {
		var err error
		switch {
		case r.is(requestMeta):
			if req.Meta == nil {
				req.Meta = &fnv1.RequestMeta{}
			}
			err = consumeMeta(r.bytes(), req.Meta)
		case r.is(requestObserved):
			if req.Observed == nil {
				req.Observed = &fnv1.State{}
			}
			err = consumeState(r.bytes(), req.Observed, 1, objects)
		case r.is(requestDesired):
			if req.Desired == nil {
				req.Desired = &fnv1.State{}
			}
			err = consumeState(r.bytes(), req.Desired, 1, nil)
		case r.is(requestInput):
			if req.Input == nil {
				req.Input = &structpb.Struct{}
			}
			err = consumeStruct(r.bytes(), req.Input, 1)
		case r.is(requestContext):
			if req.Context == nil {
				req.Context = &structpb.Struct{}
			}
			err = consumeStruct(r.bytes(), req.Context, 1)
		case r.is(requestRequiredResources):
			if req.RequiredResources == nil && required == nil {
				req.RequiredResources = map[string]*fnv1.Resources{}
			}
			err = consumeResourcesEntry(r.bytes(), req.RequiredResources, required)
		case r.is(requestExtraResources):
			// Deprecated for required_resources, which the function reads; a request may
			// still carry it, and it is decoded as protobuf-go would.
			if req.ExtraResources == nil { //nolint:staticcheck // see above
				req.ExtraResources = map[string]*fnv1.Resources{} //nolint:staticcheck // see above
			}
			err = consumeResourcesEntry(r.bytes(), req.ExtraResources, nil) //nolint:staticcheck // see above
		default:
			r.keep()
		}
		if err != nil {
			return err
		}
	}
	return r.done(req)
}

// consumeResourcesEntry decodes a map entry of Resources into m, merging as protobuf does;
// with objects, its items go there instead, as maps.
func consumeResourcesEntry(b []byte, m map[string]*fnv1.Resources, objects map[string][]map[string]any) error {
	name, value, err := consumeEntry(b)
	if err != nil {
		return err
	}
	rs := &fnv1.Resources{}
	var items []map[string]any
	if objects != nil {
		items = make([]map[string]any, 0, 1)
	}
	r := fieldReader{b: value}
	for r.next() {
		switch {
		case !r.is(resourcesItems):
			r.keep()
		case objects != nil:
			o := Object{Resource: map[string]any{}}
			if err := consumeObject(r.bytes(), &o); err != nil {
				return err
			}
			items = append(items, o.Resource)
		default:
			res := &fnv1.Resource{}
			if err := consumeResource(r.bytes(), res, 3); err != nil {
				return err
			}
			rs.Items = append(rs.Items, res)
		}
	}
	// With objects, rs takes only what the maps leave out, for protobuf-go to check as it
	// would in the whole request.
	if err := r.done(rs); err != nil {
		return err
	}
	if objects != nil {
		objects[name] = items
	} else {
		m[name] = rs
	}
	return nil
}

// consumeMeta decodes b into m, merging as protobuf does.
func consumeMeta(b []byte, m *fnv1.RequestMeta) error {
	r := fieldReader{b: b}
	for r.next() {
		switch {
		case r.is(requestMetaTag):
			x := r.bytes()
			if !utf8.Valid(x) {
				return errUnusual
			}
			m.Tag = aliased(x)
		case r.num == requestMetaCapabilities && r.typ == protowire.VarintType:
			m.Capabilities = append(m.Capabilities, fnv1.Capability(int32(r.varint()))) //nolint:gosec // an enum is an int32 varint; protobuf truncates the same way
		case r.is(requestMetaCapabilities):
			// Packed, as protobuf writes repeated enums.
			for packed := r.bytes(); len(packed) > 0; {
				v, n := protowire.ConsumeVarint(packed)
				if n < 0 {
					return errUnusual
				}
				m.Capabilities = append(m.Capabilities, fnv1.Capability(int32(v))) //nolint:gosec // as above
				packed = packed[n:]
			}
		default:
			r.keep()
		}
	}
	return r.done(m)
}
