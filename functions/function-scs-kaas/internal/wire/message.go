package wire

import (
	"errors"
	"sync"
	"unicode/utf8"

	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/structpb"
)

// errUnusual stops the hand coder: protobuf-go takes the whole message instead.
var errUnusual = errors.New("left to protobuf-go")

// maxDepth is how deeply the hand coder follows nested messages; deeper ones go to
// protobuf-go, whose limit is far higher and whose error says so.
const maxDepth = 64

var (
	structName = (&structpb.Struct{}).ProtoReflect().Descriptor().FullName()
	valueName  = (&structpb.Value{}).ProtoReflect().Descriptor().FullName()
	listName   = (&structpb.ListValue{}).ProtoReflect().Descriptor().FullName()
)

// plan says which fields of a message the hand coder takes: those that hold Structs, at any
// depth. protobuf-go codes all others.
type plan struct {
	byNumber map[protowire.Number]protoreflect.FieldDescriptor
	fields   []protoreflect.FieldDescriptor // in field number order
}

var plans sync.Map // protoreflect.FullName -> *plan

func planFor(md protoreflect.MessageDescriptor) *plan {
	if p, ok := plans.Load(md.FullName()); ok {
		return p.(*plan)
	}
	p := &plan{byNumber: map[protowire.Number]protoreflect.FieldDescriptor{}}
	fds := md.Fields()
	for i := range fds.Len() {
		fd := fds.Get(i)
		if handled(fd) {
			p.byNumber[fd.Number()] = fd
			p.fields = append(p.fields, fd)
		}
	}
	plans.Store(md.FullName(), p)
	return p
}

// handled reports whether the hand coder takes a field: a message, list of messages, or map
// with string keys and message values, whose messages hold Structs.
func handled(fd protoreflect.FieldDescriptor) bool {
	if fd.IsMap() {
		return fd.MapKey().Kind() == protoreflect.StringKind &&
			fd.MapValue().Kind() == protoreflect.MessageKind &&
			holdsStruct(fd.MapValue().Message(), map[protoreflect.FullName]bool{})
	}
	return fd.Kind() == protoreflect.MessageKind && holdsStruct(fd.Message(), map[protoreflect.FullName]bool{})
}

func holdsStruct(md protoreflect.MessageDescriptor, seen map[protoreflect.FullName]bool) bool {
	switch md.FullName() {
	case structName, valueName, listName:
		return true
	}
	if seen[md.FullName()] {
		return false
	}
	seen[md.FullName()] = true
	fds := md.Fields()
	for i := range fds.Len() {
		fd := fds.Get(i)
		if fd.IsMap() {
			fd = fd.MapValue()
		}
		if fd.Kind() == protoreflect.MessageKind && holdsStruct(fd.Message(), seen) {
			return true
		}
	}
	return false
}

// appendMessage appends m's encoding: the fields that hold Structs by hand, the others
// through protobuf-go.
func appendMessage(b []byte, m protoreflect.Message) ([]byte, error) {
	if !m.IsValid() {
		return b, nil
	}
	switch x := m.Interface().(type) {
	case *fnv1.State:
		return appendState(b, x)
	case *fnv1.Resource:
		return appendResource(b, x)
	}
	switch m.Descriptor().FullName() {
	case structName:
		return appendStruct(b, m.Interface().(*structpb.Struct))
	case valueName:
		return appendValue(b, m.Interface().(*structpb.Value))
	case listName:
		return appendList(b, m.Interface().(*structpb.ListValue))
	}
	p := planFor(m.Descriptor())
	if len(p.fields) == 0 {
		return proto.MarshalOptions{}.MarshalAppend(b, m.Interface())
	}
	rest := m.New()
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if _, ok := p.byNumber[fd.Number()]; !ok {
			rest.Set(fd, v)
		}
		return true
	})
	rest.SetUnknown(m.GetUnknown())
	b, err := proto.MarshalOptions{}.MarshalAppend(b, rest.Interface())
	if err != nil {
		return nil, err
	}
	for _, fd := range p.fields {
		if !m.Has(fd) {
			continue
		}
		if b, err = appendField(b, fd, m.Get(fd)); err != nil {
			return nil, err
		}
	}
	return b, nil
}

func appendField(b []byte, fd protoreflect.FieldDescriptor, v protoreflect.Value) ([]byte, error) {
	var err error
	switch {
	case fd.IsMap():
		v.Map().Range(func(k protoreflect.MapKey, mv protoreflect.Value) bool {
			key := k.String()
			if !utf8.ValidString(key) {
				err = errUnusual
				return false
			}
			b = protowire.AppendTag(b, fd.Number(), protowire.BytesType)
			entry := len(b) + 1
			b = append(b, 0)
			b = protowire.AppendTag(b, 1, protowire.BytesType)
			b = protowire.AppendString(b, key)
			b = protowire.AppendTag(b, 2, protowire.BytesType)
			value := len(b) + 1
			b = append(b, 0)
			if b, err = appendMessage(b, mv.Message()); err != nil {
				return false
			}
			b = closeLength(b, value)
			b = closeLength(b, entry)
			return true
		})
	case fd.IsList():
		l := v.List()
		for i := range l.Len() {
			if b, err = appendNested(b, fd.Number(), l.Get(i).Message()); err != nil {
				break
			}
		}
	default:
		b, err = appendNested(b, fd.Number(), v.Message())
	}
	return b, err
}

// appendNested appends m as field num of its parent.
func appendNested(b []byte, num protowire.Number, m protoreflect.Message) ([]byte, error) {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	start := len(b) + 1
	b = append(b, 0)
	b, err := appendMessage(b, m)
	if err != nil {
		return nil, err
	}
	return closeLength(b, start), nil
}

// closeLength writes the length of the bytes from start on into the one byte before start,
// which appending them left free, moving them up where the length needs more bytes than one.
func closeLength(b []byte, start int) []byte {
	n := len(b) - start
	if n < 0x80 {
		b[start-1] = byte(n) //nolint:gosec // below 0x80: one byte of varint
		return b
	}
	extra := protowire.SizeVarint(uint64(n)) - 1
	for range extra {
		b = append(b, 0)
	}
	copy(b[start+extra:], b[start:start+n])
	protowire.AppendVarint(b[:start-1], uint64(n))
	return b
}

// consumeMessage decodes b into m, merging as protobuf does: the fields that hold Structs by
// hand, the others through protobuf-go.
func consumeMessage(b []byte, m protoreflect.Message, depth int) error {
	if depth > maxDepth {
		return errUnusual
	}
	switch x := m.Interface().(type) {
	case *fnv1.RunFunctionRequest:
		return consumeRequest(b, x, depth)
	case *fnv1.Resources:
		return consumeResources(b, x, depth)
	case *fnv1.State:
		return consumeState(b, x, depth)
	case *fnv1.Resource:
		return consumeResource(b, x, depth)
	}
	switch m.Descriptor().FullName() {
	case structName:
		return consumeStruct(b, m.Interface().(*structpb.Struct), depth)
	case valueName, listName:
		// Only reached as a field of another message, which none of the function's messages
		// has; protobuf-go takes it.
		return errUnusual
	}
	p := planFor(m.Descriptor())
	if len(p.fields) == 0 {
		return mergeRest(b, m)
	}
	var rest []byte
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return errUnusual
		}
		fd, ok := p.byNumber[num]
		if !ok {
			size := protowire.ConsumeFieldValue(num, typ, b[n:])
			if size < 0 {
				return errUnusual
			}
			rest = append(rest, b[:n+size]...)
			b = b[n+size:]
			continue
		}
		if typ != protowire.BytesType {
			return errUnusual
		}
		v, size := protowire.ConsumeBytes(b[n:])
		if size < 0 {
			return errUnusual
		}
		b = b[n+size:]
		if fd.ContainingOneof() != nil && len(rest) > 0 {
			// Of a oneof, the member given last wins: what came before goes in first.
			if err := mergeRest(rest, m); err != nil {
				return err
			}
			rest = rest[:0]
		}
		if err := consumeField(v, m, fd, depth); err != nil {
			return err
		}
	}
	return mergeRest(rest, m)
}

// mergeRest decodes the fields the hand decoder does not take into m.
func mergeRest(b []byte, m protoreflect.Message) error {
	if len(b) == 0 {
		return nil
	}
	if err := (proto.UnmarshalOptions{Merge: true}).Unmarshal(b, m.Interface()); err != nil {
		return errUnusual
	}
	return nil
}

func consumeField(b []byte, m protoreflect.Message, fd protoreflect.FieldDescriptor, depth int) error {
	switch {
	case fd.IsMap():
		key, value, err := consumeEntry(b)
		if err != nil {
			return err
		}
		mp := m.Mutable(fd).Map()
		mv := mp.NewValue()
		if err := consumeMessage(value, mv.Message(), depth+1); err != nil {
			return err
		}
		mp.Set(protoreflect.ValueOfString(key).MapKey(), mv)
	case fd.IsList():
		l := m.Mutable(fd).List()
		e := l.NewElement()
		if err := consumeMessage(b, e.Message(), depth+1); err != nil {
			return err
		}
		l.Append(e)
	default:
		return consumeMessage(b, m.Mutable(fd).Message(), depth+1)
	}
	return nil
}

// consumeEntry reads a map entry with a string key and a message value, each given at most
// once.
func consumeEntry(b []byte) (key string, value []byte, err error) {
	var haveKey, haveValue bool
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 || typ != protowire.BytesType {
			return "", nil, errUnusual
		}
		v, size := protowire.ConsumeBytes(b[n:])
		if size < 0 {
			return "", nil, errUnusual
		}
		b = b[n+size:]
		switch {
		case num == 1 && !haveKey && utf8.Valid(v):
			key, haveKey = string(v), true
		case num == 2 && !haveValue:
			value, haveValue = v, true
		default:
			return "", nil, errUnusual
		}
	}
	return key, value, nil
}
