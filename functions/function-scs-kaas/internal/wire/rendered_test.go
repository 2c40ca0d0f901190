package wire

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/testing/protocmp"
	"google.golang.org/protobuf/types/known/structpb"
)

// randomObject is a rendered object: the maps of a random Struct, with the integer types
// the Kubernetes converter gives besides float64.
func randomObject(rng *rand.Rand) map[string]any {
	m := randomStruct(rng, 4).AsMap()
	m["int64"], m["int"], m["int32"], m["uint64"] = int64(-3), 1<<40, int32(7), uint64(1)<<60
	m["nested"] = map[string]any{"list": []any{int64(1), nil, "s", map[string]any{}, []any{}}}
	return m
}

// TestAppendObject: protobuf-go reads the encoding of an object as the Struct
// structpb.NewStruct makes of it.
func TestAppendObject(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	objects := map[string]map[string]any{"empty": {}}
	for i := range 40 {
		objects[fmt.Sprintf("random %d", i)] = randomObject(rng)
	}
	for name, m := range objects {
		t.Run(name, func(t *testing.T) {
			b, err := AppendObject([]byte("prefix"), m)
			if err != nil {
				t.Fatal(err)
			}
			if string(b[:6]) != "prefix" {
				t.Fatalf("AppendObject changed what it appends to: %q", b[:6])
			}
			want, err := structpb.NewStruct(m)
			if err != nil {
				t.Fatal(err)
			}
			got := &structpb.Struct{}
			if err := proto.Unmarshal(b[6:], got); err != nil {
				t.Fatalf("protobuf-go cannot read the encoding: %v", err)
			}
			if diff := cmp.Diff(want, got, protocmp.Transform()); diff != "" {
				t.Errorf("decoded (-structpb.NewStruct +AppendObject):\n%s", diff)
			}
		})
	}
}

// TestAppendObjectLeavesToStructpb: values the encoder does not take are ErrNotEncodable, for
// structpb.NewStruct to take or refuse.
func TestAppendObjectLeavesToStructpb(t *testing.T) {
	deep := map[string]any{}
	for range maxDepth {
		deep = map[string]any{"a": deep}
	}
	cases := map[string]map[string]any{
		"invalid UTF-8 in a string": {"a": "\xff"},
		"invalid UTF-8 in a key":    {"\xff": "a"},
		"a json.Number":             {"a": json.Number("1")},
		"bytes":                     {"a": []byte("x")},
		"a typed slice":             {"a": []string{"x"}},
		"in a list":                 {"a": []any{"\xff"}},
		"nested past the limit":     deep,
	}
	for name, m := range cases {
		t.Run(name, func(t *testing.T) {
			if _, err := AppendObject(nil, m); !errors.Is(err, ErrNotEncodable) {
				t.Errorf("AppendObject: %v, want ErrNotEncodable", err)
			}
		})
	}
}

// TestMarshalResponse: a Response encodes as its RunFunctionResponse, with the rendered
// resources among the desired ones, by hand and where the hand encoder gives up.
func TestMarshalResponse(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	_, responses := messages(t)
	// A Struct with an unknown field: the hand encoder leaves the response to protobuf-go.
	unusual := &structpb.Struct{}
	unusual.ProtoReflect().SetUnknown([]byte{0x38, 0x01})
	responses["unusual context"] = &fnv1.RunFunctionResponse{Context: unusual}
	for name, rsp := range responses {
		t.Run(name, func(t *testing.T) {
			rendered := map[string]Rendered{}
			for i := range 3 {
				b, err := AppendObject(nil, randomObject(rng))
				if err != nil {
					t.Fatal(err)
				}
				rendered[fmt.Sprintf("rendered-%d", i)] = Rendered{Struct: b, Ready: fnv1.Ready(i)}
			}
			// A status too, which replaces any the composite has.
			status, err := AppendObject(nil, randomObject(rng))
			if err != nil {
				t.Fatal(err)
			}
			r := &Response{Proto: proto.Clone(rsp).(*fnv1.RunFunctionResponse), Rendered: rendered, Status: status}
			if c := r.Proto.GetDesired().GetComposite(); c.GetResource() != nil {
				// A status of an earlier step, which the new one replaces.
				if c.Resource.Fields == nil {
					c.Resource.Fields = map[string]*structpb.Value{}
				}
				c.Resource.Fields["status"] = structpb.NewStructValue(&structpb.Struct{Fields: map[string]*structpb.Value{"replaced": structpb.NewBoolValue(true)}})
			}
			b, err := MarshalResponse(r)
			if err != nil {
				t.Fatal(err)
			}
			want, err := r.ToProto()
			if err != nil {
				t.Fatal(err)
			}
			if n := len(want.GetDesired().GetResources()); n < 3 {
				t.Fatalf("ToProto desired %d resources, want the 3 rendered at least", n)
			}
			if want.GetDesired().GetComposite().GetResource().GetFields()["status"] == nil {
				t.Fatal("ToProto desired no composite status")
			}
			// Each field once: the replaced status is not written besides the new one.
			if n := proto.Size(want); len(b) != n {
				t.Errorf("encoding has %d bytes, protobuf-go's %d", len(b), n)
			}
			compareMarshal(t, want, b)
		})
	}
	if _, err := MarshalResponse(nil); err == nil {
		t.Error("MarshalResponse took nil")
	}
}

// compareRendered: rsp, with its desired composed resources as rendered ones, encodes as
// rsp (as protobuf-go reads rsp's resources through AsMap and NewStruct).
func compareRendered(t *testing.T, rsp *fnv1.RunFunctionResponse) {
	t.Helper()
	r := &Response{Proto: proto.Clone(rsp).(*fnv1.RunFunctionResponse), Rendered: map[string]Rendered{}}
	for name, res := range r.Proto.GetDesired().GetResources() {
		b, err := AppendObject(nil, res.GetResource().AsMap())
		if err != nil {
			// Invalid UTF-8 in a string, which AsMap keeps.
			continue
		}
		r.Rendered[name] = Rendered{Struct: b, Ready: res.GetReady()}
		delete(r.Proto.Desired.Resources, name)
	}
	// The composite's status as a status, and a status that replaces it.
	if st := r.Proto.GetDesired().GetComposite().GetResource().GetFields()["status"].GetStructValue(); st != nil {
		if b, err := AppendObject(nil, st.AsMap()); err == nil {
			r.Status = b
			st.Fields = map[string]*structpb.Value{"replaced": structpb.NewBoolValue(true)}
		}
	}
	// The hand coder must not panic; MarshalResponse would turn a panic into protobuf-go's
	// answer.
	_, _ = appendResponse(nil, r.Proto, r.Rendered, r.Status)
	b, err := MarshalResponse(r)
	if err != nil {
		t.Fatalf("MarshalResponse: %v", err)
	}
	want, err := r.ToProto()
	if err != nil {
		t.Fatal(err)
	}
	compareMarshal(t, want, b)
}
