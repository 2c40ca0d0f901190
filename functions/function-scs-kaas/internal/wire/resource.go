package wire

import (
	"unicode/utf8"

	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/types/known/structpb"
)

// The two messages around every Struct of a request and a response, State and Resource, are
// coded by their Go types rather than through protoreflect, whose field access cost more than
// the Structs' decoding. TestHandCodedFields fails when function-sdk-go gives either a field
// these numbers do not know.
const (
	stateComposite protowire.Number = 1
	stateResources protowire.Number = 2

	resourceStruct      protowire.Number = 1
	resourceConnDetails protowire.Number = 2
	resourceReady       protowire.Number = 3
)

func appendState(b []byte, s *fnv1.State) ([]byte, error) {
	if s == nil {
		return b, nil
	}
	var err error
	if c := s.GetComposite(); c != nil {
		b = protowire.AppendTag(b, stateComposite, protowire.BytesType)
		start := len(b) + 1
		b = append(b, 0)
		if b, err = appendResource(b, c); err != nil {
			return nil, err
		}
		b = closeLength(b, start)
	}
	for name, r := range s.GetResources() {
		if !utf8.ValidString(name) {
			return nil, errUnusual
		}
		b = protowire.AppendTag(b, stateResources, protowire.BytesType)
		entry := len(b) + 1
		b = append(b, 0)
		b = protowire.AppendTag(b, 1, protowire.BytesType)
		b = protowire.AppendString(b, name)
		b = protowire.AppendTag(b, 2, protowire.BytesType)
		value := len(b) + 1
		b = append(b, 0)
		if b, err = appendResource(b, r); err != nil {
			return nil, err
		}
		b = closeLength(b, value)
		b = closeLength(b, entry)
	}
	return append(b, s.ProtoReflect().GetUnknown()...), nil
}

func appendResource(b []byte, r *fnv1.Resource) ([]byte, error) {
	if r == nil {
		return b, nil
	}
	var err error
	if s := r.GetResource(); s != nil {
		b = protowire.AppendTag(b, resourceStruct, protowire.BytesType)
		start := len(b) + 1
		b = append(b, 0)
		if b, err = appendStruct(b, s); err != nil {
			return nil, err
		}
		b = closeLength(b, start)
	}
	for key, v := range r.GetConnectionDetails() {
		if !utf8.ValidString(key) {
			return nil, errUnusual
		}
		b = protowire.AppendTag(b, resourceConnDetails, protowire.BytesType)
		entry := len(b) + 1
		b = append(b, 0)
		b = protowire.AppendTag(b, 1, protowire.BytesType)
		b = protowire.AppendString(b, key)
		b = protowire.AppendTag(b, 2, protowire.BytesType)
		b = protowire.AppendBytes(b, v)
		b = closeLength(b, entry)
	}
	if ready := r.GetReady(); ready != 0 {
		b = protowire.AppendTag(b, resourceReady, protowire.VarintType)
		b = protowire.AppendVarint(b, uint64(int64(ready))) //nolint:gosec // an enum is a sign-extended int32 varint
	}
	return append(b, r.ProtoReflect().GetUnknown()...), nil
}

// consumeState decodes b into s, merging as protobuf does.
func consumeState(b []byte, s *fnv1.State, depth int) error {
	var rest []byte
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return errUnusual
		}
		if typ != protowire.BytesType || (num != stateComposite && num != stateResources) {
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
		if num == stateComposite {
			if s.Composite == nil {
				s.Composite = &fnv1.Resource{}
			}
			if err := consumeResource(v, s.Composite, depth+1); err != nil {
				return err
			}
			continue
		}
		name, value, err := consumeEntry(v)
		if err != nil {
			return err
		}
		r := &fnv1.Resource{}
		if err := consumeResource(value, r, depth+1); err != nil {
			return err
		}
		if s.Resources == nil {
			s.Resources = map[string]*fnv1.Resource{}
		}
		s.Resources[name] = r
	}
	return mergeRest(rest, s.ProtoReflect())
}

// consumeResource decodes b into r, merging as protobuf does.
func consumeResource(b []byte, r *fnv1.Resource, depth int) error {
	if depth > maxDepth {
		return errUnusual
	}
	var rest []byte
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return errUnusual
		}
		switch {
		case num == resourceStruct && typ == protowire.BytesType:
			v, size := protowire.ConsumeBytes(b[n:])
			if size < 0 {
				return errUnusual
			}
			b = b[n+size:]
			if r.Resource == nil {
				r.Resource = &structpb.Struct{}
			}
			if err := consumeStruct(v, r.Resource, depth+1); err != nil {
				return err
			}
		case num == resourceConnDetails && typ == protowire.BytesType:
			v, size := protowire.ConsumeBytes(b[n:])
			if size < 0 {
				return errUnusual
			}
			b = b[n+size:]
			key, value, err := consumeEntry(v)
			if err != nil {
				return err
			}
			if r.ConnectionDetails == nil {
				r.ConnectionDetails = map[string][]byte{}
			}
			r.ConnectionDetails[key] = append([]byte{}, value...)
		case num == resourceReady && typ == protowire.VarintType:
			x, size := protowire.ConsumeVarint(b[n:])
			if size < 0 {
				return errUnusual
			}
			b = b[n+size:]
			r.Ready = fnv1.Ready(int32(x)) //nolint:gosec // an enum is an int32 varint; protobuf truncates the same way
		default:
			size := protowire.ConsumeFieldValue(num, typ, b[n:])
			if size < 0 {
				return errUnusual
			}
			rest = append(rest, b[:n+size]...)
			b = b[n+size:]
		}
	}
	return mergeRest(rest, r.ProtoReflect())
}
