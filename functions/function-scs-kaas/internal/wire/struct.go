package wire

import (
	"math"
	"unicode/utf8"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/structpb"
)

// The field numbers of google.protobuf.Struct, Value and ListValue.
const (
	structFields protowire.Number = 1

	valueNull   protowire.Number = 1
	valueNumber protowire.Number = 2
	valueString protowire.Number = 3
	valueBool   protowire.Number = 4
	valueStruct protowire.Number = 5
	valueList   protowire.Number = 6

	listValues protowire.Number = 1
)

// unknown reports whether m carries fields its type does not know (decoded from newer
// senders): protobuf-go keeps them, and encodes them again, so the hand encoder leaves such a
// message to it.
func unknown(m protoreflect.ProtoMessage) bool {
	return len(m.ProtoReflect().GetUnknown()) > 0
}

func appendStruct(b []byte, s *structpb.Struct) ([]byte, error) {
	return appendStructFields(b, s, nil)
}

// appendStructFields appends the fields of s but those replaced, which the caller writes.
func appendStructFields(b []byte, s *structpb.Struct, replaced map[string]bool) ([]byte, error) {
	if s != nil && unknown(s) {
		return nil, errUnusual
	}
	var (
		entry, value int
		err          error
	)
	for key, v := range s.GetFields() {
		if replaced[key] {
			continue
		}
		if b, entry, value, err = beginEntry(b, structFields, key); err != nil {
			return nil, err
		}
		if b, err = appendValue(b, v); err != nil {
			return nil, err
		}
		b = endEntry(b, entry, value)
	}
	return b, nil
}

func appendValue(b []byte, v *structpb.Value) ([]byte, error) {
	if v != nil && unknown(v) {
		return nil, errUnusual
	}
	var (
		start int
		err   error
	)
	switch k := v.GetKind().(type) {
	case nil:
	case *structpb.Value_NullValue:
		if k == nil {
			return nil, errUnusual
		}
		// An enum is an int32 varint: a negative one sign-extended to ten bytes, as protobuf does.
		b = protowire.AppendTag(b, valueNull, protowire.VarintType)
		b = protowire.AppendVarint(b, uint64(int64(k.NullValue))) //nolint:gosec // the sign extension is the encoding
	case *structpb.Value_NumberValue:
		if k == nil {
			return nil, errUnusual
		}
		b = protowire.AppendTag(b, valueNumber, protowire.Fixed64Type)
		b = protowire.AppendFixed64(b, math.Float64bits(k.NumberValue))
	case *structpb.Value_StringValue:
		if k == nil || !utf8.ValidString(k.StringValue) {
			return nil, errUnusual
		}
		b = appendStringValue(b, k.StringValue)
	case *structpb.Value_BoolValue:
		if k == nil {
			return nil, errUnusual
		}
		b = appendBoolValue(b, k.BoolValue)
	case *structpb.Value_StructValue:
		if k == nil {
			return nil, errUnusual
		}
		b, start = beginNested(b, valueStruct)
		if b, err = appendStruct(b, k.StructValue); err != nil {
			return nil, err
		}
		b = endNested(b, start)
	case *structpb.Value_ListValue:
		if k == nil {
			return nil, errUnusual
		}
		b, start = beginNested(b, valueList)
		if b, err = appendList(b, k.ListValue); err != nil {
			return nil, err
		}
		b = endNested(b, start)
	default:
		return nil, errUnusual
	}
	return b, nil
}

func appendList(b []byte, l *structpb.ListValue) ([]byte, error) {
	if l != nil && unknown(l) {
		return nil, errUnusual
	}
	var (
		start int
		err   error
	)
	for _, v := range l.GetValues() {
		b, start = beginNested(b, listValues)
		if b, err = appendValue(b, v); err != nil {
			return nil, err
		}
		b = endNested(b, start)
	}
	return b, nil
}

// consumeStruct decodes b into s, adding to the fields s has, as protobuf merges.
func consumeStruct(b []byte, s *structpb.Struct, depth int) error {
	if depth > maxDepth {
		return errUnusual
	}
	// The Values of one Struct are allocated together, and its map at its size: fewer,
	// larger allocations than one per value and a map grown step by step.
	values := make([]slot, count(b))
	if s.Fields == nil {
		s.Fields = make(map[string]*structpb.Value, len(values))
	}
	for i := 0; len(b) > 0; i++ {
		if i == len(values) {
			return errUnusual
		}
		key, value, rest, err := nextField(b)
		if err != nil {
			return err
		}
		b = rest
		if err := consumeValue(value, &values[i], depth+1); err != nil {
			return err
		}
		s.Fields[key] = &values[i].value
	}
	return nil
}

func consumeList(b []byte, l *structpb.ListValue, depth int) error {
	if depth > maxDepth {
		return errUnusual
	}
	values := make([]slot, count(b))
	if l.Values == nil {
		l.Values = make([]*structpb.Value, 0, len(values))
	}
	for i := 0; len(b) > 0; i++ {
		if b[0] != tagValues || i == len(values) {
			return errUnusual
		}
		value, n := protowire.ConsumeBytes(b[1:])
		if n < 0 {
			return errUnusual
		}
		b = b[1+n:]
		if err := consumeValue(value, &values[i], depth+1); err != nil {
			return err
		}
		l.Values = append(l.Values, &values[i].value)
	}
	return nil
}

// nextField reads the first entry of the fields of a Struct in b: its key and value, and
// what follows it. Only the usual one-byte tag is read; anything else is errUnusual.
func nextField(b []byte) (key string, value, rest []byte, err error) {
	if b[0] != tagFields {
		return "", nil, nil, errUnusual
	}
	entry, n := protowire.ConsumeBytes(b[1:])
	if n < 0 {
		return "", nil, nil, errUnusual
	}
	key, value, err = consumeEntry(entry)
	return key, value, b[1+n:], err
}

// count is the number of fields in b, or 0 where b is not well formed (which the decoder
// then finds).
func count(b []byte) int {
	n := 0
	for len(b) > 0 {
		num, typ, size := protowire.ConsumeTag(b)
		if size < 0 {
			return 0
		}
		b = b[size:]
		size = protowire.ConsumeFieldValue(num, typ, b)
		if size < 0 {
			return 0
		}
		b = b[size:]
		n++
	}
	return n
}

// slot is a Value with room for the kind most values have, a string: one allocation for
// both.
type slot struct {
	value  structpb.Value
	string structpb.Value_StringValue
}

// consumeValue decodes b into an empty slot: one kind, given once.
func consumeValue(b []byte, s *slot, depth int) error {
	if depth > maxDepth {
		return errUnusual
	}
	v := &s.value
	// One field with its usual tag, as nearly every Value is: read directly.
	if len(b) > 1 && b[0] == tagString {
		if x, n := protowire.ConsumeBytes(b[1:]); n == len(b)-1 {
			if !utf8.Valid(x) {
				return errUnusual
			}
			s.string.StringValue = aliased(x)
			v.Kind = &s.string
			return nil
		}
	}
	r := fieldReader{b: b}
	for r.next() {
		if v.Kind != nil {
			return errUnusual
		}
		switch {
		case r.num == valueNull && r.typ == protowire.VarintType:
			if r.varint() != 0 {
				return errUnusual
			}
			v.Kind = &structpb.Value_NullValue{}
		case r.num == valueNumber && r.typ == protowire.Fixed64Type:
			v.Kind = &structpb.Value_NumberValue{NumberValue: math.Float64frombits(r.fixed64())}
		case r.is(valueString):
			x := r.bytes()
			if !utf8.Valid(x) {
				return errUnusual
			}
			s.string.StringValue = aliased(x)
			v.Kind = &s.string
		case r.num == valueBool && r.typ == protowire.VarintType:
			v.Kind = &structpb.Value_BoolValue{BoolValue: protowire.DecodeBool(r.varint())}
		case r.is(valueStruct):
			x := r.bytes()
			st := &structpb.Struct{}
			if err := consumeStruct(x, st, depth+1); err != nil {
				return err
			}
			v.Kind = &structpb.Value_StructValue{StructValue: st}
		case r.is(valueList):
			x := r.bytes()
			l := &structpb.ListValue{}
			if err := consumeList(x, l, depth+1); err != nil {
				return err
			}
			v.Kind = &structpb.Value_ListValue{ListValue: l}
		default:
			return errUnusual
		}
	}
	return r.err
}
