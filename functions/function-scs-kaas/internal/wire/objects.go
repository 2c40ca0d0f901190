package wire

import (
	"bytes"
	"encoding/binary"
	"math"
	"unicode/utf8"

	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
)

// Request is a RunFunctionRequest as the function reads it: the observed composite and
// composed resources and the required resources as the maps structpb's AsMap returns,
// everything else as protobuf-go's types. The function reads those resources only as maps;
// decoding them from the wire into Structs first, only to convert them, was a tenth of a
// call's CPU.
type Request struct {
	// Proto is the request. Where UnmarshalRequest took it from the wire, its observed
	// composite and composed resources and its required resources are empty: they are in
	// Composite, Observed and Required.
	Proto *fnv1.RunFunctionRequest
	// Composite is the observed composite resource; its Resource is nil where the request
	// has none.
	Composite Object
	// Observed are the observed composed resources by name.
	Observed map[string]Object
	// Required are the required resources by requirement name.
	Required map[string][]map[string]any
}

// Object is an observed composed resource.
type Object struct {
	Resource          map[string]any
	ConnectionDetails map[string][]byte
}

// NewRequest returns req as a Request, its resources converted by AsMap.
func NewRequest(req *fnv1.RunFunctionRequest) *Request {
	out := &Request{
		Proto:    req,
		Observed: make(map[string]Object, len(req.GetObserved().GetResources())),
		Required: make(map[string][]map[string]any, len(req.GetRequiredResources())),
	}
	if c := req.GetObserved().GetComposite(); c != nil {
		out.Composite = Object{Resource: c.GetResource().AsMap(), ConnectionDetails: c.GetConnectionDetails()}
	}
	for name, r := range req.GetObserved().GetResources() {
		out.Observed[name] = Object{Resource: r.GetResource().AsMap(), ConnectionDetails: r.GetConnectionDetails()}
	}
	for name, rs := range req.GetRequiredResources() {
		items := make([]map[string]any, 0, len(rs.GetItems()))
		for _, r := range rs.GetItems() {
			items = append(items, r.GetResource().AsMap())
		}
		out.Required[name] = items
	}
	return out
}

// UnmarshalRequest decodes b into req: what NewRequest returns for the RunFunctionRequest
// proto.Unmarshal decodes from b, or its error. The resources go from the wire straight into
// maps; anything the hand decoder does not take goes to protobuf-go and NewRequest whole.
func UnmarshalRequest(b []byte, req *Request) error {
	return unmarshalOwnedRequest(bytes.Clone(b), req)
}

// unmarshalOwnedRequest is UnmarshalRequest of bytes nobody else holds and that nobody
// changes afterwards: the decoded strings alias them (aliased).
func unmarshalOwnedRequest(b []byte, req *Request) error {
	*req = Request{Proto: &fnv1.RunFunctionRequest{}, Observed: map[string]Object{}, Required: map[string][]map[string]any{}}
	if handDecodeObjects(b, req) == nil {
		return nil
	}
	p := &fnv1.RunFunctionRequest{}
	if err := proto.Unmarshal(b, p); err != nil {
		return err
	}
	*req = *NewRequest(p)
	return nil
}

// handDecodeObjects is consumeRequest into req, with a panic turned into errUnusual as in
// handDecode. The decoded strings alias b.
func handDecodeObjects(b []byte, req *Request) (err error) {
	defer func() {
		if recover() != nil {
			err = errUnusual
		}
	}()
	return consumeRequest(b, req.Proto, req)
}

// consumeObject decodes a Resource into o, merging as protobuf does.
func consumeObject(b []byte, o *Object) error {
	r := fieldReader{b: b}
	for r.next() {
		switch {
		case r.is(resourceStruct):
			if err := consumeMap(r.bytes(), o.Resource, 3); err != nil {
				return err
			}
		case r.is(resourceConnDetails):
			if err := consumeConnectionDetail(r.bytes(), &o.ConnectionDetails); err != nil {
				return err
			}
		case r.num == resourceStruct || r.num == resourceConnDetails:
			// A field o holds, with another wire type: protobuf-go decides what that makes of
			// it (an empty map, FuzzUnmarshal found), and kept fields go to a Resource that is
			// dropped.
			return errUnusual
		default:
			// Ready, which an observed resource does not use, and fields the function does
			// not know: protobuf-go checks them.
			r.keep()
		}
	}
	return r.done(&fnv1.Resource{})
}

// One-byte tags of the fields of Struct, Value and ListValue, as protobuf writes them: the
// decoder reads fields so tagged directly; anything else goes the general way.
const (
	tagFields = byte(structFields)<<3 | byte(protowire.BytesType)
	tagNumber = byte(valueNumber)<<3 | byte(protowire.Fixed64Type)
	tagString = byte(valueString)<<3 | byte(protowire.BytesType)
	tagStruct = byte(valueStruct)<<3 | byte(protowire.BytesType)
	tagList   = byte(valueList)<<3 | byte(protowire.BytesType)
	tagValues = byte(listValues)<<3 | byte(protowire.BytesType)
	tagKey    = 1<<3 | byte(protowire.BytesType)
	tagValue  = 2<<3 | byte(protowire.BytesType)
)

// consumeMap decodes a Struct into m, adding to the fields m has, as protobuf merges.
func consumeMap(b []byte, m map[string]any, depth int) error {
	if depth > maxDepth {
		return errUnusual
	}
	for len(b) > 0 {
		key, value, rest, err := nextField(b)
		if err != nil {
			return err
		}
		b = rest
		v, err := consumeAny(value, depth+1)
		if err != nil {
			return err
		}
		m[key] = v
	}
	return nil
}

// consumeAny decodes a Value into what its AsInterface returns: one kind, given once. A
// Value that is one field with the usual tag, as nearly all are, is read directly.
func consumeAny(b []byte, depth int) (any, error) {
	if depth > maxDepth {
		return nil, errUnusual
	}
	if len(b) > 1 {
		switch b[0] {
		case tagString, tagStruct, tagList:
			x, n := protowire.ConsumeBytes(b[1:])
			if n != len(b)-1 {
				break
			}
			switch b[0] {
			case tagString:
				if !utf8.Valid(x) {
					return nil, errUnusual
				}
				return aliased(x), nil
			case tagStruct:
				m := make(map[string]any, count(x))
				if err := consumeMap(x, m, depth+1); err != nil {
					return nil, err
				}
				return m, nil
			}
			l, err := consumeSlice(x, depth+1)
			if err != nil {
				return nil, err
			}
			return l, nil
		case tagNumber:
			if len(b) == 9 {
				return number(math.Float64frombits(binary.LittleEndian.Uint64(b[1:]))), nil
			}
		}
	}
	var (
		v    any
		have bool
	)
	r := fieldReader{b: b}
	for r.next() {
		if have {
			return nil, errUnusual
		}
		have = true
		switch {
		case r.num == valueNull && r.typ == protowire.VarintType:
			if r.varint() != 0 {
				return nil, errUnusual
			}
			v = nil
		case r.num == valueNumber && r.typ == protowire.Fixed64Type:
			v = number(math.Float64frombits(r.fixed64()))
		case r.is(valueString):
			x := r.bytes()
			if !utf8.Valid(x) {
				return nil, errUnusual
			}
			v = aliased(x)
		case r.num == valueBool && r.typ == protowire.VarintType:
			v = protowire.DecodeBool(r.varint())
		case r.is(valueStruct):
			x := r.bytes()
			m := make(map[string]any, count(x))
			if err := consumeMap(x, m, depth+1); err != nil {
				return nil, err
			}
			v = m
		case r.is(valueList):
			x := r.bytes()
			l, err := consumeSlice(x, depth+1)
			if err != nil {
				return nil, err
			}
			v = l
		default:
			return nil, errUnusual
		}
	}
	return v, r.err
}

// number is a NumberValue as AsInterface returns it: JSON has no NaN or infinities, so
// those are the strings protojson writes for them.
func number(f float64) any {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	return f
}

// consumeSlice decodes a ListValue into what its AsSlice returns.
func consumeSlice(b []byte, depth int) ([]any, error) {
	if depth > maxDepth {
		return nil, errUnusual
	}
	l := make([]any, 0, count(b))
	for len(b) > 0 {
		if b[0] != tagValues {
			return nil, errUnusual
		}
		x, n := protowire.ConsumeBytes(b[1:])
		if n < 0 {
			return nil, errUnusual
		}
		b = b[1+n:]
		v, err := consumeAny(x, depth+1)
		if err != nil {
			return nil, err
		}
		l = append(l, v)
	}
	return l, nil
}
