package wire

import (
	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// The fields of a RunFunctionResponse that hold Structs, encoded by hand; protobuf-go encodes
// the others, whichever there are.
const (
	responseDesired protowire.Number = 2
	responseContext protowire.Number = 4
	responseOutput  protowire.Number = 7
)

// appendResponse appends rsp, with the rendered resources and the composite resource's
// status, unless nil, in its desired state.
func appendResponse(b []byte, rsp *fnv1.RunFunctionResponse, rendered map[string]Rendered, status []byte) ([]byte, error) {
	// The other fields, shallow: protoreflect copies whatever fields the message has, so that
	// none is lost when function-sdk-go adds one.
	src := rsp.ProtoReflect()
	others := src.New()
	src.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch fd.Number() {
		case responseDesired, responseContext, responseOutput:
		default:
			others.Set(fd, v)
		}
		return true
	})
	others.SetUnknown(src.GetUnknown())
	b, err := proto.MarshalOptions{}.MarshalAppend(b, others.Interface())
	if err != nil {
		return nil, err
	}
	var start int
	if rsp.Desired != nil || len(rendered) > 0 || status != nil {
		b, start = beginNested(b, responseDesired)
		if b, err = appendState(b, rsp.GetDesired(), rendered, status); err != nil {
			return nil, err
		}
		b = endNested(b, start)
	}
	if rsp.Context != nil {
		b, start = beginNested(b, responseContext)
		if b, err = appendStruct(b, rsp.GetContext()); err != nil {
			return nil, err
		}
		b = endNested(b, start)
	}
	if rsp.Output != nil {
		b, start = beginNested(b, responseOutput)
		if b, err = appendStruct(b, rsp.GetOutput()); err != nil {
			return nil, err
		}
		b = endNested(b, start)
	}
	return b, nil
}
