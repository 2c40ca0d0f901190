package wire

import (
	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/types/known/structpb"
)

// State and Resource, the messages around every Struct of requests and responses, are coded
// by their Go types rather than through protoreflect, whose field access cost more than the
// Structs' decoding. TestHandCodedFields fails when function-sdk-go gives either a field
// these numbers do not know: the encoder would drop it.
const (
	stateComposite protowire.Number = 1
	stateResources protowire.Number = 2

	resourceStruct      protowire.Number = 1
	resourceConnDetails protowire.Number = 2
	resourceReady       protowire.Number = 3
)

// appendState appends s, with the rendered resources among its resources and the
// composite resource's status, unless nil.
func appendState(b []byte, s *fnv1.State, rendered map[string]Rendered, status []byte) ([]byte, error) {
	var (
		start, entry, value int
		err                 error
	)
	if c := s.GetComposite(); c != nil || status != nil {
		b, start = beginNested(b, stateComposite)
		if b, err = appendComposite(b, c, status); err != nil {
			return nil, err
		}
		b = endNested(b, start)
	}
	if s == nil {
		return appendRendered(b, rendered)
	}
	for name, r := range s.GetResources() {
		if b, entry, value, err = beginEntry(b, stateResources, name); err != nil {
			return nil, err
		}
		if b, err = appendResource(b, r); err != nil {
			return nil, err
		}
		b = endEntry(b, entry, value)
	}
	if b, err = appendRendered(b, rendered); err != nil {
		return nil, err
	}
	return append(b, s.ProtoReflect().GetUnknown()...), nil
}

func appendResource(b []byte, r *fnv1.Resource) ([]byte, error) {
	if r == nil {
		return b, nil
	}
	var (
		start int
		err   error
	)
	if s := r.GetResource(); s != nil {
		b, start = beginNested(b, resourceStruct)
		if b, err = appendStruct(b, s); err != nil {
			return nil, err
		}
		b = endNested(b, start)
	}
	return appendResourceRest(b, r)
}

// compositeStatus is the field of the composite resource that a Response's Status replaces.
var compositeStatus = map[string]bool{"status": true}

// appendComposite appends the composite resource c with status, unless nil, in place of
// any status c has.
func appendComposite(b []byte, c *fnv1.Resource, status []byte) ([]byte, error) {
	if status == nil {
		return appendResource(b, c)
	}
	var (
		start, entry, value, inner int
		err                        error
	)
	b, start = beginNested(b, resourceStruct)
	if b, err = appendStructFields(b, c.GetResource(), compositeStatus); err != nil {
		return nil, err
	}
	if b, entry, value, err = beginEntry(b, structFields, "status"); err != nil {
		return nil, err
	}
	b, inner = beginNested(b, valueStruct)
	b = append(b, status...)
	b = endEntry(endNested(b, inner), entry, value)
	b = endNested(b, start)
	if c == nil {
		return b, nil
	}
	return appendResourceRest(b, c)
}

// appendResourceRest appends the fields of r after its Struct.
func appendResourceRest(b []byte, r *fnv1.Resource) ([]byte, error) {
	var err error
	for key, v := range r.GetConnectionDetails() {
		if b, err = appendScalarEntry(b, resourceConnDetails, key, v); err != nil {
			return nil, err
		}
	}
	b = appendReady(b, r.GetReady())
	return append(b, r.ProtoReflect().GetUnknown()...), nil
}

// consumeState decodes b into s, merging as protobuf does; with objects, its composite and
// composed resources go there instead (Composite, Observed), as maps.
func consumeState(b []byte, s *fnv1.State, depth int, objects *Request) error {
	if depth > maxDepth {
		return errUnusual
	}
	r := fieldReader{b: b}
	for r.next() {
		switch {
		case r.is(stateComposite) && objects != nil:
			if objects.Composite.Resource == nil {
				objects.Composite.Resource = map[string]any{}
			}
			if err := consumeObject(r.bytes(), &objects.Composite); err != nil {
				return err
			}
		case objects != nil && (r.num == stateComposite || r.num == stateResources) && r.typ != protowire.BytesType:
			// A field objects takes, with another wire type: protobuf-go decides, as in
			// consumeObject.
			return errUnusual
		case r.is(stateComposite):
			if s.Composite == nil {
				s.Composite = &fnv1.Resource{}
			}
			if err := consumeResource(r.bytes(), s.Composite, depth+1); err != nil {
				return err
			}
		case r.is(stateResources):
			name, value, err := consumeEntry(r.bytes())
			if err != nil {
				return err
			}
			if objects != nil {
				o := Object{Resource: map[string]any{}}
				if err := consumeObject(value, &o); err != nil {
					return err
				}
				objects.Observed[name] = o
				continue
			}
			res := &fnv1.Resource{}
			if err := consumeResource(value, res, depth+1); err != nil {
				return err
			}
			if s.Resources == nil {
				s.Resources = map[string]*fnv1.Resource{}
			}
			s.Resources[name] = res
		default:
			r.keep()
		}
	}
	return r.done(s)
}

// consumeResource decodes b into res, merging as protobuf does.
func consumeResource(b []byte, res *fnv1.Resource, depth int) error {
	if depth > maxDepth {
		return errUnusual
	}
	r := fieldReader{b: b}
	for r.next() {
		switch {
		case r.is(resourceStruct):
			if res.Resource == nil {
				res.Resource = &structpb.Struct{}
			}
			if err := consumeStruct(r.bytes(), res.Resource, depth+1); err != nil {
				return err
			}
		case r.is(resourceConnDetails):
			if err := consumeConnectionDetail(r.bytes(), &res.ConnectionDetails); err != nil {
				return err
			}
		case r.num == resourceReady && r.typ == protowire.VarintType:
			res.Ready = fnv1.Ready(int32(r.varint())) //nolint:gosec // an enum is an int32 varint; protobuf truncates the same way
		default:
			r.keep()
		}
	}
	return r.done(res)
}

// consumeConnectionDetail decodes a map entry of a Resource's connection details into
// details, made when it is the first.
func consumeConnectionDetail(b []byte, details *map[string][]byte) error {
	key, value, err := consumeEntry(b)
	if err != nil {
		return err
	}
	if *details == nil {
		*details = map[string][]byte{}
	}
	// A copy: the decoded strings share the request's bytes, a secret's value does not.
	(*details)[key] = append([]byte{}, value...)
	return nil
}

// appendReady appends a Resource's readiness, where it is not the default.
func appendReady(b []byte, ready fnv1.Ready) []byte {
	return appendEnum(b, resourceReady, int32(ready), false)
}
