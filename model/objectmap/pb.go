package objectmap

import (
	"reflect"

	"google.golang.org/protobuf/types/known/structpb"
)

// ToStruct returns obj, a non-nil pointer to a struct, as a protobuf Struct: what
// structpb.NewStruct makes of ToUnstructured(obj), without the map in between. Where it
// meets anything but plain values, it takes that way, so that errors are the same.
func ToStruct(obj any) (*structpb.Struct, error) {
	v := reflect.ValueOf(obj)
	if v.Kind() == reflect.Pointer && !v.IsNil() && v.Elem().Kind() == reflect.Struct {
		_, n := setFields(typeOf(v.Elem().Type()), v.Elem(), nil)
		b := structBuilder{frames: []frame{{fields: make(map[string]*structpb.Value, n)}}}
		if Visit(obj, &b) {
			return &structpb.Struct{Fields: b.frames[0].fields}, nil
		}
	}
	m, err := ToUnstructured(obj)
	if err != nil {
		return nil, err
	}
	return structpb.NewStruct(m)
}

// structBuilder is the Visitor that builds a protobuf Struct.
type structBuilder struct {
	// frames are the objects and lists under way, the outermost first.
	frames []frame
	// names are the names of the members under way, the outermost first.
	names []string
}

// frame is an object (fields) or a list (values) under way.
type frame struct {
	fields map[string]*structpb.Value
	values []*structpb.Value
	list   bool
}

// set puts v where the innermost frame takes its next value.
func (b *structBuilder) set(v *structpb.Value) {
	f := &b.frames[len(b.frames)-1]
	if f.list {
		f.values = append(f.values, v)
		return
	}
	f.fields[b.names[len(b.names)-1]] = v
}

func (b *structBuilder) Field(name string) { b.names = append(b.names, name) }
func (b *structBuilder) EndField()         { b.names = b.names[:len(b.names)-1] }
func (b *structBuilder) Object() {
	b.frames = append(b.frames, frame{fields: map[string]*structpb.Value{}})
}
func (b *structBuilder) List() {
	b.frames = append(b.frames, frame{list: true, values: []*structpb.Value{}})
}
func (b *structBuilder) Item()            {}
func (b *structBuilder) EndItem()         {}
func (b *structBuilder) String(s string)  { b.set(newString(s)) }
func (b *structBuilder) Number(f float64) { b.set(newNumber(f)) }
func (b *structBuilder) Bool(v bool)      { b.set(newBool(v)) }
func (b *structBuilder) Null()            { b.set(structpb.NewNullValue()) }

func (b *structBuilder) EndObject() {
	f := b.frames[len(b.frames)-1]
	b.frames = b.frames[:len(b.frames)-1]
	b.set(newStruct(f.fields))
}

func (b *structBuilder) EndList() {
	f := b.frames[len(b.frames)-1]
	b.frames = b.frames[:len(b.frames)-1]
	b.set(newList(f.values))
}
