package wire

import (
	"unicode/utf8"
	"unsafe"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
)

// fieldReader reads the fields of one message, tag by tag. The fields its caller does not
// take it keeps, to be decoded by protobuf-go at the end. The first error stops it.
type fieldReader struct {
	b     []byte // what is left to read
	field []byte // from the current field's tag on
	kept  []byte
	num   protowire.Number
	typ   protowire.Type
	err   error
}

// next reads the next tag, false at the end or after an error.
func (r *fieldReader) next() bool {
	if r.err != nil || len(r.b) == 0 {
		return false
	}
	num, typ, n := protowire.ConsumeTag(r.b)
	if n < 0 {
		r.err = errUnusual
		return false
	}
	r.field, r.num, r.typ, r.b = r.b, num, typ, r.b[n:]
	return true
}

// is reports whether the current field is field num, length-delimited.
func (r *fieldReader) is(num protowire.Number) bool {
	return r.num == num && r.typ == protowire.BytesType
}

// bytes reads the value of a length-delimited field.
func (r *fieldReader) bytes() []byte {
	v, n := protowire.ConsumeBytes(r.b)
	if n < 0 {
		r.err = errUnusual
		return nil
	}
	r.b = r.b[n:]
	return v
}

// varint reads the value of a varint field.
func (r *fieldReader) varint() uint64 {
	v, n := protowire.ConsumeVarint(r.b)
	if n < 0 {
		r.err = errUnusual
		return 0
	}
	r.b = r.b[n:]
	return v
}

// fixed64 reads the value of a fixed64 field.
func (r *fieldReader) fixed64() uint64 {
	v, n := protowire.ConsumeFixed64(r.b)
	if n < 0 {
		r.err = errUnusual
		return 0
	}
	r.b = r.b[n:]
	return v
}

// keep passes the current field on to protobuf-go.
func (r *fieldReader) keep() {
	n := protowire.ConsumeFieldValue(r.num, r.typ, r.b)
	if n < 0 {
		r.err = errUnusual
		return
	}
	r.b = r.b[n:]
	r.kept = append(r.kept, r.field[:len(r.field)-len(r.b)]...)
}

// done ends the message: its first error, or the kept fields decoded into m by protobuf-go,
// merged as protobuf does.
func (r *fieldReader) done(m proto.Message) error {
	if r.err != nil || len(r.kept) == 0 {
		return r.err
	}
	if err := (proto.UnmarshalOptions{Merge: true}).Unmarshal(r.kept, m); err != nil {
		return errUnusual
	}
	return nil
}

// consumeEntry reads a map entry with a string key and a length-delimited value, each given
// at most once.
func consumeEntry(b []byte) (key string, value []byte, err error) {
	// Key, then value, each with its usual tag, as protobuf writes entries: read directly.
	if len(b) > 1 && b[0] == tagKey {
		if k, n := protowire.ConsumeBytes(b[1:]); n >= 0 && len(b) > 2+n && b[1+n] == tagValue {
			if v, m := protowire.ConsumeBytes(b[2+n:]); m == len(b)-2-n && utf8.Valid(k) {
				return aliased(k), v, nil
			}
		}
	}
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
			key, haveKey = aliased(v), true
		case num == 2 && !haveValue:
			value, haveValue = v, true
		default:
			return "", nil, errUnusual
		}
	}
	return key, value, nil
}

// aliased returns b as a string without copying it. The hand decoder decodes a copy of the
// message that it owns and never changes (handDecode, handDecodeObjects), so all the
// strings of a request, a few hundred, can share that one allocation rather than have one
// each.
func aliased(b []byte) string {
	return unsafe.String(unsafe.SliceData(b), len(b)) //nolint:gosec // the bytes are the decoder's own copy, never written after decoding
}

// beginNested appends the tag of length-delimited field num and one byte for its length,
// and returns where its value starts; endNested writes the length.
func beginNested(b []byte, num protowire.Number) ([]byte, int) {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	b = append(b, 0)
	return b, len(b)
}

// endNested writes the length of the bytes from start on into the one byte before start,
// which beginNested left free, moving them up where the length needs more bytes than one.
func endNested(b []byte, start int) []byte {
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

// beginEntry appends entry key of map field num up to its value, and returns where the entry
// and where its value start; endEntry writes both lengths. A key that protobuf-go would
// refuse (invalid UTF-8) is errUnusual.
func beginEntry(b []byte, num protowire.Number, key string) (out []byte, entry, value int, err error) {
	if !utf8.ValidString(key) {
		return nil, 0, 0, errUnusual
	}
	b, entry = beginNested(b, num)
	b = protowire.AppendTag(b, 1, protowire.BytesType)
	b = protowire.AppendString(b, key)
	b, value = beginNested(b, 2)
	return b, entry, value, nil
}

func endEntry(b []byte, entry, value int) []byte {
	return endNested(endNested(b, value), entry)
}

// appendScalarEntry appends an entry of map field num whose value is a string or bytes,
// written where beginEntry leaves room for a message: the same length-delimited encoding.
func appendScalarEntry[V string | []byte](b []byte, num protowire.Number, key string, v V) ([]byte, error) {
	b, entry, value, err := beginEntry(b, num, key)
	if err != nil {
		return nil, err
	}
	b = append(b, v...)
	return endEntry(b, entry, value), nil
}
