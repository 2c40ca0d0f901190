package wire

import (
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/SovereignCloudStack/scs-kaas/model/objectmap"
)

// AppendTyped appends obj, a non-nil pointer to a struct, encoded as proto.Marshal encodes
// objectmap.ToStruct(obj) (map entries in no particular order, as there), and returns true.
// It returns b and false where objectmap.Visit leaves obj to the way through a map.
//
// The function's status is a typed object: building a protobuf Struct of it, only to encode
// that, cost as much as the rest of encoding a response.
func AppendTyped(b []byte, obj any) ([]byte, bool) {
	w := &structWriter{b: b}
	if !objectmap.Visit(obj, w) || w.unusual {
		return b, false
	}
	return w.b, true
}

// structWriter is the objectmap.Visitor that appends the fields of a Struct.
type structWriter struct {
	b []byte
	// open are where the messages under way start, for endNested, the outermost first; a
	// map entry has two, the entry's and its value's.
	open []int
	// unusual is set by a key beginEntry refuses.
	unusual bool
}

func (w *structWriter) push(starts ...int) { w.open = append(w.open, starts...) }

func (w *structWriter) pop() int {
	start := w.open[len(w.open)-1]
	w.open = w.open[:len(w.open)-1]
	return start
}

func (w *structWriter) nested(num protowire.Number) {
	var start int
	w.b, start = beginNested(w.b, num)
	w.push(start)
}

func (w *structWriter) end() { w.b = endNested(w.b, w.pop()) }

// Field implements objectmap.Visitor.
func (w *structWriter) Field(name string) {
	b, entry, value, err := beginEntry(w.b, structFields, name)
	if err != nil {
		// Visit checks keys as beginEntry does: never reached, but not to be lost.
		w.unusual = true
		w.push(len(w.b), len(w.b))
		return
	}
	w.b = b
	w.push(entry, value)
}

// EndField implements objectmap.Visitor.
func (w *structWriter) EndField() {
	value := w.pop()
	w.b = endEntry(w.b, w.pop(), value)
}

// Object implements objectmap.Visitor.
func (w *structWriter) Object() { w.nested(valueStruct) }

// EndObject implements objectmap.Visitor.
func (w *structWriter) EndObject() { w.end() }

// List implements objectmap.Visitor.
func (w *structWriter) List() { w.nested(valueList) }

// Item implements objectmap.Visitor.
func (w *structWriter) Item() { w.nested(listValues) }

// EndItem implements objectmap.Visitor.
func (w *structWriter) EndItem() { w.end() }

// EndList implements objectmap.Visitor.
func (w *structWriter) EndList() { w.end() }

// String implements objectmap.Visitor.
func (w *structWriter) String(s string) { w.b = appendStringValue(w.b, s) }

// Number implements objectmap.Visitor.
func (w *structWriter) Number(f float64) { w.b = appendNumber(w.b, f) }

// Bool implements objectmap.Visitor.
func (w *structWriter) Bool(v bool) { w.b = appendBoolValue(w.b, v) }

// Null implements objectmap.Visitor.
func (w *structWriter) Null() { w.b = appendNullValue(w.b) }
