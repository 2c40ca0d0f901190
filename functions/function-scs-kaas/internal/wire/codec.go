package wire

import (
	"bytes"
	"errors"
	"fmt"
	"sync/atomic"

	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/protoadapt"
)

// errUnusual stops the hand coder: protobuf-go takes the whole message instead.
var errUnusual = errors.New("left to protobuf-go")

// maxDepth is how deeply the hand decoder follows nested messages; deeper ones go to
// protobuf-go, whose limit is far higher and whose error says so.
const maxDepth = 64

// Name is the codec's gRPC name: it replaces gRPC's default protobuf codec.
const Name = "proto"

// Codec is a gRPC encoding.CodecV2 for protobuf messages.
type Codec struct{}

var _ encoding.CodecV2 = Codec{}

// Register makes Codec the process's protobuf codec for gRPC. Call it before serving.
func Register() {
	encoding.RegisterCodecV2(Codec{})
}

// Name returns the content subtype the codec serves.
func (Codec) Name() string { return Name }

// Marshal encodes a protobuf message, or a Response as its RunFunctionResponse.
func (Codec) Marshal(v any) (mem.BufferSlice, error) {
	if r, ok := v.(*Response); ok {
		b, err := MarshalResponse(r)
		if err != nil {
			return nil, err
		}
		return mem.BufferSlice{mem.SliceBuffer(b)}, nil
	}
	m := messageOf(v)
	if m == nil {
		return nil, fmt.Errorf("proto: failed to marshal, message is %T, want proto.Message", v)
	}
	b, err := Marshal(m)
	if err != nil {
		return nil, err
	}
	return mem.BufferSlice{mem.SliceBuffer(b)}, nil
}

// Unmarshal decodes a protobuf message, or a RunFunctionRequest into a Request.
func (Codec) Unmarshal(data mem.BufferSlice, v any) error {
	req, isRequest := v.(*Request)
	m := messageOf(v)
	if m == nil && (!isRequest || req == nil) {
		return fmt.Errorf("failed to unmarshal, message is %T, want proto.Message", v)
	}
	if isRequest {
		// A copy of its own, which the decoded strings alias: one copy, not a pooled one
		// and a copy of that.
		return unmarshalOwnedRequest(data.Materialize(), req)
	}
	buf := data.MaterializeToBuffer(mem.DefaultBufferPool())
	defer buf.Free()
	// Unmarshal copies what it keeps: nothing of the pooled buffer outlives this call.
	return Unmarshal(buf.ReadOnlyData(), m)
}

// handDecode is consumeRequest with a panic, a bug here on an input no test foresaw, turned
// into errUnusual: protobuf-go decodes that request instead. gRPC does not recover panics in
// codecs; one would stop the function for every tenant.
func handDecode(b []byte, req *fnv1.RunFunctionRequest) (err error) {
	defer func() {
		if recover() != nil {
			err = errUnusual
		}
	}()
	// The decoded strings alias a copy of b, one allocation for all (aliased).
	return consumeRequest(bytes.Clone(b), req, nil)
}

// handEncode is appendResponse with a panic turned into errUnusual, as handDecode.
func handEncode(b []byte, rsp *fnv1.RunFunctionResponse, rendered map[string]Rendered, status []byte) (out []byte, err error) {
	defer func() {
		if recover() != nil {
			out, err = nil, errUnusual
		}
	}()
	return appendResponse(b, rsp, rendered, status)
}

func messageOf(v any) proto.Message {
	switch v := v.(type) {
	case protoadapt.MessageV1:
		return protoadapt.MessageV2Of(v)
	case protoadapt.MessageV2:
		return v
	}
	return nil
}

// lastSize is the size of the last message Marshal encoded: the next one, most likely the
// next response about the same cluster, starts with room for as much, rather than growing
// its buffer step by step.
var lastSize atomic.Int64

// Marshal encodes m as proto.Marshal does (map entries in no particular order, as there): a
// RunFunctionResponse by hand, any other message through protobuf-go.
func Marshal(m proto.Message) ([]byte, error) {
	rsp, ok := m.(*fnv1.RunFunctionResponse)
	if !ok || rsp == nil {
		return proto.Marshal(m)
	}
	b, err := handEncode(make([]byte, 0, lastSize.Load()*9/8), rsp, nil, nil)
	if err != nil {
		// Whatever the hand encoder does not take, protobuf-go encodes or refuses.
		return proto.Marshal(m)
	}
	lastSize.Store(int64(len(b)))
	return b, nil
}

// MarshalResponse encodes r as proto.Marshal encodes what r.ToProto returns.
func MarshalResponse(r *Response) ([]byte, error) {
	if r == nil || r.Proto == nil {
		return nil, errors.New("proto: failed to marshal, the response is nil")
	}
	b, err := handEncode(make([]byte, 0, lastSize.Load()*9/8), r.Proto, r.Rendered, r.Status)
	if err != nil {
		rsp, err := r.ToProto()
		if err != nil {
			return nil, err
		}
		return proto.Marshal(rsp)
	}
	lastSize.Store(int64(len(b)))
	return b, nil
}

// Unmarshal decodes b into m as proto.Unmarshal does, m reset first: a RunFunctionRequest by
// hand, any other message through protobuf-go.
func Unmarshal(b []byte, m proto.Message) error {
	req, ok := m.(*fnv1.RunFunctionRequest)
	if !ok || req == nil {
		return proto.Unmarshal(b, m)
	}
	proto.Reset(req)
	if err := handDecode(b, req); err != nil {
		// Whatever the hand decoder does not take, protobuf-go decodes or refuses, from the
		// start and in its own words.
		proto.Reset(req)
		return proto.Unmarshal(b, req)
	}
	return nil
}
