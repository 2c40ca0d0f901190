package wire

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/testing/protocmp"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/structpb"
	"sigs.k8s.io/yaml"
)

// benchRequest is the request of a ready five-pool Gardener cluster that hack/bench.sh sends.
const benchRequest = "../../testdata/bench/request-ready.yaml"

func readBenchRequest(t testing.TB) *fnv1.RunFunctionRequest {
	t.Helper()
	y, err := os.ReadFile(benchRequest)
	if err != nil {
		t.Fatal(err)
	}
	j, err := yaml.YAMLToJSON(y)
	if err != nil {
		t.Fatal(err)
	}
	req := &fnv1.RunFunctionRequest{}
	if err := protojson.Unmarshal(j, req); err != nil {
		t.Fatal(err)
	}
	return req
}

// messages are what the codec must carry as protobuf-go does: the bench request, a response
// built of its parts, and requests and responses of random Structs.
func messages(t testing.TB) (requests map[string]*fnv1.RunFunctionRequest, responses map[string]*fnv1.RunFunctionResponse) {
	t.Helper()
	req := readBenchRequest(t)
	odd := &fnv1.State{
		Composite: &fnv1.Resource{Resource: &structpb.Struct{}},
		Resources: map[string]*fnv1.Resource{"": {}, "a": {Resource: &structpb.Struct{Fields: map[string]*structpb.Value{
			"": {}, "null": structpb.NewNullValue(), "zero": structpb.NewNumberValue(0), "false": structpb.NewBoolValue(false),
			"s": structpb.NewStructValue(&structpb.Struct{}), "l": structpb.NewListValue(&structpb.ListValue{}),
		}}}},
	}
	requests = map[string]*fnv1.RunFunctionRequest{
		"bench request":       req,
		"empty request":       {},
		"empty Struct values": {Observed: odd, Input: &structpb.Struct{}},
		"capabilities": {Meta: &fnv1.RequestMeta{Tag: "t", Capabilities: []fnv1.Capability{
			fnv1.Capability_CAPABILITY_CAPABILITIES, fnv1.Capability_CAPABILITY_CONDITIONS, fnv1.Capability(-1), fnv1.Capability(300),
		}}},
	}
	responses = map[string]*fnv1.RunFunctionResponse{
		"response": {
			Meta:       &fnv1.ResponseMeta{Tag: "t"},
			Desired:    req.GetObserved(),
			Context:    req.GetContext(),
			Results:    []*fnv1.Result{{Severity: fnv1.Severity_SEVERITY_NORMAL, Message: "ok"}},
			Conditions: []*fnv1.Condition{{Type: "Ready", Status: fnv1.Status_STATUS_CONDITION_TRUE}},
		},
		"empty response":      {},
		"empty Struct values": {Desired: odd, Context: &structpb.Struct{}, Output: &structpb.Struct{}},
		"every field":         everyField(),
		"nil values": {
			Desired: &fnv1.State{Resources: map[string]*fnv1.Resource{"nil": nil, "nil Struct": {}, "nil value": {
				Resource: &structpb.Struct{Fields: map[string]*structpb.Value{"nil": nil, "list": structpb.NewListValue(&structpb.ListValue{Values: []*structpb.Value{nil}})}},
			}}},
		},
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 40 {
		requests[fmt.Sprintf("random request %d", i)] = &fnv1.RunFunctionRequest{
			Meta:     &fnv1.RequestMeta{Tag: randomString(rng)},
			Observed: randomState(rng),
			Desired:  randomState(rng),
			Input:    randomStruct(rng, 3),
			Context:  randomStruct(rng, 3),
			RequiredResources: map[string]*fnv1.Resources{
				randomString(rng): {Items: []*fnv1.Resource{randomResource(rng), randomResource(rng)}},
			},
			Credentials: map[string]*fnv1.Credentials{"c": {Source: &fnv1.Credentials_CredentialData{
				CredentialData: &fnv1.CredentialData{Data: map[string][]byte{"k": []byte(randomString(rng))}},
			}}},
		}
		rsp := &fnv1.RunFunctionResponse{
			Desired: randomState(rng),
			Context: randomStruct(rng, 3),
			Output:  randomStruct(rng, 2),
			Results: []*fnv1.Result{{Message: randomString(rng)}},
		}
		// Each of the other fields, or not, from a response that has them all.
		every := everyField()
		if rng.IntN(2) == 0 {
			rsp.Meta = every.Meta
		}
		if rng.IntN(2) == 0 {
			rsp.Requirements = every.Requirements
		}
		for _, c := range every.Conditions {
			if rng.IntN(2) == 0 {
				rsp.Conditions = append(rsp.Conditions, c)
			}
		}
		for _, r := range every.Results {
			if rng.IntN(2) == 0 {
				rsp.Results = append(rsp.Results, r)
			}
		}
		responses[fmt.Sprintf("random response %d", i)] = rsp
	}
	return requests, responses
}

// everyField is a response with every field the hand encoder writes, set to values that
// need care: zeros with presence, negative enums and numbers, empty strings.
func everyField() *fnv1.RunFunctionResponse {
	empty, ns := "", "ns"
	return &fnv1.RunFunctionResponse{
		Meta: &fnv1.ResponseMeta{Tag: "tag", Ttl: &durationpb.Duration{Seconds: -70, Nanos: -5}},
		Results: []*fnv1.Result{
			{Severity: fnv1.Severity_SEVERITY_FATAL, Message: "m", Reason: &empty, Target: fnv1.Target_TARGET_COMPOSITE.Enum()},
			{Severity: fnv1.Severity(-1), Reason: &ns, Target: fnv1.Target(0).Enum()},
			{},
		},
		Requirements: &fnv1.Requirements{
			Resources: map[string]*fnv1.ResourceSelector{
				"by name":   {ApiVersion: "v1", Kind: "Namespace", Match: &fnv1.ResourceSelector_MatchName{MatchName: ""}, Namespace: &empty},
				"by labels": {ApiVersion: "v1", Kind: "ConfigMap", Match: &fnv1.ResourceSelector_MatchLabels{MatchLabels: &fnv1.MatchLabels{Labels: map[string]string{"a": "", "": "b"}}}, Namespace: &ns},
				"no labels": {Kind: "Secret", Match: &fnv1.ResourceSelector_MatchLabels{MatchLabels: &fnv1.MatchLabels{}}},
				"nothing":   {},
			},
			ExtraResources: map[string]*fnv1.ResourceSelector{"extra": {ApiVersion: "v1", Kind: "Secret"}}, //nolint:staticcheck // deprecated, still encoded
		},
		Conditions: []*fnv1.Condition{
			{Type: "Ready", Status: fnv1.Status_STATUS_CONDITION_TRUE, Reason: "Available", Message: &empty, Target: fnv1.Target_TARGET_COMPOSITE_AND_CLAIM.Enum()},
			{Type: "Synced", Status: fnv1.Status(-2), Message: &ns, Target: fnv1.Target(-1).Enum()},
			{},
		},
	}
}

func randomState(rng *rand.Rand) *fnv1.State {
	s := &fnv1.State{Composite: randomResource(rng), Resources: map[string]*fnv1.Resource{}}
	for range rng.IntN(4) {
		s.Resources[randomString(rng)] = randomResource(rng)
	}
	return s
}

func randomResource(rng *rand.Rand) *fnv1.Resource {
	return &fnv1.Resource{
		Resource:          randomStruct(rng, 4),
		ConnectionDetails: map[string][]byte{"kubeconfig": []byte(randomString(rng))},
		Ready:             fnv1.Ready(rng.IntN(3)),
	}
}

func randomStruct(rng *rand.Rand, depth int) *structpb.Struct {
	s := &structpb.Struct{Fields: map[string]*structpb.Value{}}
	for range rng.IntN(8) {
		s.Fields[randomString(rng)] = randomValue(rng, depth)
	}
	return s
}

func randomValue(rng *rand.Rand, depth int) *structpb.Value {
	kind := rng.IntN(7)
	if depth == 0 {
		kind %= 5
	}
	switch kind {
	case 0:
		return structpb.NewNullValue()
	case 1:
		return structpb.NewNumberValue([]float64{0, -1, 1.5, 1e300, math.Inf(-1), math.NaN(), rng.NormFloat64()}[rng.IntN(7)])
	case 2:
		return structpb.NewStringValue(randomString(rng))
	case 3:
		return structpb.NewBoolValue(rng.IntN(2) == 1)
	case 4:
		return &structpb.Value{}
	case 5:
		return structpb.NewStructValue(randomStruct(rng, depth-1))
	}
	l := &structpb.ListValue{}
	for range rng.IntN(5) {
		l.Values = append(l.Values, randomValue(rng, depth-1))
	}
	return structpb.NewListValue(l)
}

// randomString is empty, short, long enough for a two-byte length, or not ASCII.
func randomString(rng *rand.Rand) string {
	switch rng.IntN(5) {
	case 0:
		return ""
	case 1:
		return strings.Repeat("x", 100+rng.IntN(200))
	case 2:
		return "zoné-" + fmt.Sprint(rng.IntN(100))
	}
	return fmt.Sprint("k", rng.IntN(1000))
}

func TestMarshalDecodesAsTheMessage(t *testing.T) {
	_, responses := messages(t)
	for name, rsp := range responses {
		t.Run(name, func(t *testing.T) {
			b, err := appendResponse(nil, rsp, nil, nil)
			if err != nil {
				t.Fatalf("the hand encoder left the response to protobuf-go: %v", err)
			}
			if want := proto.Size(rsp); len(b) != want {
				t.Errorf("encoding has %d bytes, protobuf-go's %d", len(b), want)
			}
			compareMarshal(t, rsp, b)
		})
	}
}

// compareMarshal says where protobuf-go reads b, the codec's encoding of m, otherwise than
// its own encoding of m.
func compareMarshal(t *testing.T, m proto.Message, b []byte) {
	t.Helper()
	own, err := proto.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	want := m.ProtoReflect().New().Interface()
	if err := proto.Unmarshal(own, want); err != nil {
		t.Fatal(err)
	}
	got := m.ProtoReflect().New().Interface()
	if err := proto.Unmarshal(b, got); err != nil {
		t.Fatalf("protobuf-go cannot decode the encoding: %v", err)
	}
	if !proto.Equal(want, got) {
		t.Errorf("decoded encoding (-protobuf-go's +the codec's):\n%s", cmp.Diff(want, got, protocmp.Transform()))
	}
}

func TestUnmarshalDecodesAsProtobuf(t *testing.T) {
	requests, _ := messages(t)
	for name, req := range requests {
		t.Run(name, func(t *testing.T) {
			b, err := proto.Marshal(req)
			if err != nil {
				t.Fatal(err)
			}
			got := &fnv1.RunFunctionRequest{}
			if err := consumeRequest(b, got, nil); err != nil {
				t.Fatalf("the hand decoder left the request to protobuf-go: %v", err)
			}
			if !proto.Equal(req, got) {
				t.Errorf("decoded (-want +got):\n%s", cmp.Diff(req, got, protocmp.Transform()))
			}
			objects := &Request{Proto: &fnv1.RunFunctionRequest{}, Observed: map[string]Object{}, Required: map[string][]map[string]any{}}
			if err := handDecodeObjects(b, objects); err != nil {
				t.Fatalf("the hand decoder left the request's objects to protobuf-go: %v", err)
			}
			compareRequests(t, NewRequest(req), objects)
		})
	}
}

// TestTakenAsProtobufDoes: what protobuf-go accepts without complaint the hand decoder
// takes the same way.
func TestTakenAsProtobufDoes(t *testing.T) {
	e := protowire.AppendBytes(protowire.AppendTag(nil, 1, protowire.BytesType), []byte("a"))
	s := protowire.AppendBytes(protowire.AppendTag(nil, structFields, protowire.BytesType), e)
	cases := map[string][]byte{
		// An empty Value.
		"a Struct entry without a value": protowire.AppendBytes(protowire.AppendTag(nil, 4, protowire.BytesType), s),
		// An unknown field of the request: protobuf-go keeps it as such.
		"the input as a number": protowire.AppendVarint(protowire.AppendTag(nil, 4, protowire.VarintType), 1),
	}
	for name, b := range cases {
		t.Run(name, func(t *testing.T) {
			if err := consumeRequest(b, &fnv1.RunFunctionRequest{}, nil); err != nil {
				t.Fatalf("the hand decoder left it to protobuf-go: %v", err)
			}
			if err := handDecodeObjects(b, &Request{Proto: &fnv1.RunFunctionRequest{}, Observed: map[string]Object{}, Required: map[string][]map[string]any{}}); err != nil {
				t.Fatalf("the hand decoder left its objects to protobuf-go: %v", err)
			}
			compareUnmarshal(t, b)
		})
	}
}

// TestUnusualLeftToProtobuf gives the codec bytes it must not interpret itself; it must
// decode them, or refuse them, word for word as protobuf-go.
func TestUnusualLeftToProtobuf(t *testing.T) {
	str := func(v []byte) []byte {
		return protowire.AppendBytes(protowire.AppendTag(nil, valueString, protowire.BytesType), v)
	}
	entry := func(key string, value []byte) []byte {
		e := protowire.AppendBytes(protowire.AppendTag(nil, 1, protowire.BytesType), []byte(key))
		if value != nil {
			e = protowire.AppendBytes(protowire.AppendTag(e, 2, protowire.BytesType), value)
		}
		return protowire.AppendBytes(protowire.AppendTag(nil, structFields, protowire.BytesType), e)
	}
	// A request whose input is the given Struct encoding.
	input := func(s []byte) []byte {
		return protowire.AppendBytes(protowire.AppendTag(nil, 4, protowire.BytesType), s)
	}
	// The same Struct as an observed resource, as the observed composite and as a required
	// resource, which the hand decoder turns into maps.
	resource := func(s []byte) []byte {
		return protowire.AppendBytes(protowire.AppendTag(nil, resourceStruct, protowire.BytesType), s)
	}
	observed := func(s []byte) []byte {
		e := protowire.AppendBytes(protowire.AppendTag(nil, 1, protowire.BytesType), []byte("r"))
		e = protowire.AppendBytes(protowire.AppendTag(e, 2, protowire.BytesType), resource(s))
		st := protowire.AppendBytes(protowire.AppendTag(nil, stateResources, protowire.BytesType), e)
		return protowire.AppendBytes(protowire.AppendTag(nil, requestObserved, protowire.BytesType), st)
	}
	composite := func(s []byte) []byte {
		st := protowire.AppendBytes(protowire.AppendTag(nil, stateComposite, protowire.BytesType), resource(s))
		return protowire.AppendBytes(protowire.AppendTag(nil, requestObserved, protowire.BytesType), st)
	}
	required := func(s []byte) []byte {
		items := protowire.AppendBytes(protowire.AppendTag(nil, resourcesItems, protowire.BytesType), resource(s))
		e := protowire.AppendBytes(protowire.AppendTag(nil, 1, protowire.BytesType), []byte("r"))
		e = protowire.AppendBytes(protowire.AppendTag(e, 2, protowire.BytesType), items)
		return protowire.AppendBytes(protowire.AppendTag(nil, requestRequiredResources, protowire.BytesType), e)
	}
	nested := entry("a", nil)
	for range 100 {
		v := protowire.AppendBytes(protowire.AppendTag(nil, valueStruct, protowire.BytesType), nested)
		nested = entry("a", v)
	}
	structs := map[string][]byte{
		"invalid UTF-8 in a string":   entry("a", str([]byte{0xff})),
		"invalid UTF-8 in a key":      entry("\xff", str([]byte("v"))),
		"a kind given twice":          entry("a", append(str([]byte("v")), str([]byte("w"))...)),
		"an unknown field in Value":   entry("a", protowire.AppendVarint(protowire.AppendTag(nil, 9, protowire.VarintType), 1)),
		"an unknown field in Struct":  protowire.AppendVarint(protowire.AppendTag(nil, 7, protowire.VarintType), 1),
		"a null value of 1":           entry("a", protowire.AppendVarint(protowire.AppendTag(nil, valueNull, protowire.VarintType), 1)),
		"an entry, then a cut one":    append(entry("a", str([]byte("v"))), 0x0a, 0x05, 0x0a),
		"a truncated string":          entry("a", str([]byte("vw"))[:3]),
		"nesting past the hand limit": nested,
	}
	cases := map[string][]byte{
		"a tag of field zero": {0x00},
		"a truncated length":  {0x22, 0x80},
	}
	for name, s := range structs {
		cases[name+" in the input"] = input(s)
		cases[name+" in an observed resource"] = observed(s)
		cases[name+" in the observed composite"] = composite(s)
		cases[name+" in a required resource"] = required(s)
	}
	for name, b := range cases {
		t.Run(name, func(t *testing.T) {
			if err := consumeRequest(b, &fnv1.RunFunctionRequest{}, nil); err == nil {
				t.Fatal("the hand decoder took it")
			}
			objects := &Request{Proto: &fnv1.RunFunctionRequest{}, Observed: map[string]Object{}, Required: map[string][]map[string]any{}}
			if err := handDecodeObjects(b, objects); err == nil && !strings.HasSuffix(name, " in the input") {
				t.Fatal("the hand decoder took its objects")
			}
			compareUnmarshal(t, b)
		})
	}
}

// compareUnmarshal says where Unmarshal and proto.Unmarshal differ on b.
func compareUnmarshal(t *testing.T, b []byte) {
	t.Helper()
	want := &fnv1.RunFunctionRequest{}
	wantErr := proto.Unmarshal(b, want)
	got := &fnv1.RunFunctionRequest{Meta: &fnv1.RequestMeta{Tag: "left from before"}}
	gotErr := Unmarshal(b, got)
	if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
		t.Fatalf("Unmarshal: %v; protobuf-go: %v", gotErr, wantErr)
	}
	gotObjects := &Request{Composite: Object{Resource: map[string]any{"left": true}}, Observed: map[string]Object{"left": {}}}
	if err := UnmarshalRequest(b, gotObjects); fmt.Sprint(err) != fmt.Sprint(wantErr) {
		t.Fatalf("UnmarshalRequest: %v; protobuf-go: %v", err, wantErr)
	}
	if wantErr != nil {
		return
	}
	if !proto.Equal(want, got) {
		t.Errorf("decoded (-protobuf-go +Unmarshal):\n%s", cmp.Diff(want, got, protocmp.Transform()))
	}
	compareRequests(t, NewRequest(want), gotObjects)
}

// compareRequests says where a Request differs from what NewRequest made of protobuf-go's
// decoding. The hand decoder leaves the resources it turns into maps out of Proto.
func compareRequests(t *testing.T, want, got *Request) {
	t.Helper()
	if diff := cmp.Diff(want.Composite, got.Composite); diff != "" {
		t.Errorf("observed composite resource (-protobuf-go +hand decoded):\n%s", diff)
	}
	if diff := cmp.Diff(want.Observed, got.Observed); diff != "" {
		t.Errorf("observed resources (-protobuf-go +hand decoded):\n%s", diff)
	}
	if diff := cmp.Diff(want.Required, got.Required); diff != "" {
		t.Errorf("required resources (-protobuf-go +hand decoded):\n%s", diff)
	}
	rest := proto.Clone(want.Proto).(*fnv1.RunFunctionRequest)
	if len(got.Proto.GetObserved().GetResources()) == 0 && rest.GetObserved() != nil {
		rest.Observed.Resources = nil
	}
	if got.Proto.GetObserved().GetComposite() == nil && rest.GetObserved() != nil {
		rest.Observed.Composite = nil
	}
	if len(got.Proto.GetRequiredResources()) == 0 {
		rest.RequiredResources = nil
	}
	if !proto.Equal(rest, got.Proto) {
		t.Errorf("the rest of the request (-protobuf-go +hand decoded):\n%s", cmp.Diff(rest, got.Proto, protocmp.Transform()))
	}
}

// compareCoding: on any bytes, Unmarshal decodes or refuses as protobuf-go does, and
// whatever protobuf-go decodes, as a request or a response, the codec encodes so that
// protobuf-go reads it back the same.
func compareCoding(t *testing.T, b []byte) {
	t.Helper()
	// Unmarshal and Marshal turn a panic of the hand coder into protobuf-go's answer; here it
	// fails the test.
	_ = consumeRequest(b, &fnv1.RunFunctionRequest{}, nil)
	_ = consumeRequest(b, &fnv1.RunFunctionRequest{}, &Request{Observed: map[string]Object{}, Required: map[string][]map[string]any{}})
	compareUnmarshal(t, b)
	for _, m := range []proto.Message{&fnv1.RunFunctionRequest{}, &fnv1.RunFunctionResponse{}} {
		if proto.Unmarshal(b, m) != nil {
			continue
		}
		if rsp, ok := m.(*fnv1.RunFunctionResponse); ok {
			_, _ = appendResponse(nil, rsp, nil, nil)
			compareRendered(t, rsp)
		}
		encoded, err := Marshal(m)
		if err != nil {
			t.Fatalf("Marshal: %v", err)
		}
		compareMarshal(t, m, encoded)
	}
}

// TestPanicLeftToProtobuf: a panic of the hand coder (here a nil message, which the hand
// coder is never given) ends in protobuf-go's answer, not in a crashed function.
func TestPanicLeftToProtobuf(t *testing.T) {
	if err := handDecode([]byte{0x12, 0x00}, nil); !errors.Is(err, errUnusual) {
		t.Errorf("handDecode: %v, want errUnusual", err)
	}
	if err := handDecodeObjects([]byte{0x12, 0x00}, &Request{}); !errors.Is(err, errUnusual) {
		t.Errorf("handDecodeObjects: %v, want errUnusual", err)
	}
	if _, err := handEncode(nil, nil, nil, nil); !errors.Is(err, errUnusual) {
		t.Errorf("handEncode: %v, want errUnusual", err)
	}
}

func TestCodecThroughGRPCBuffers(t *testing.T) {
	req := readBenchRequest(t)
	data, err := Codec{}.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	got := &fnv1.RunFunctionRequest{}
	if err := (Codec{}).Unmarshal(mem.BufferSlice{mem.SliceBuffer(data.Materialize())}, got); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(req, got, protocmp.Transform()); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	objects := &Request{}
	if err := (Codec{}).Unmarshal(mem.BufferSlice{mem.SliceBuffer(data.Materialize())}, objects); err != nil {
		t.Fatal(err)
	}
	compareRequests(t, NewRequest(req), objects)
	if _, err := (Codec{}).Marshal("not a message"); err == nil {
		t.Error("Marshal took a string")
	}
}

// FuzzUnmarshal: compareCoding on any bytes.
func FuzzUnmarshal(f *testing.F) {
	requests, responses := messages(f)
	var seeds []proto.Message
	for _, m := range requests {
		seeds = append(seeds, m)
	}
	for _, m := range responses {
		seeds = append(seeds, m)
	}
	for _, m := range seeds {
		b, err := proto.Marshal(m)
		if err != nil {
			f.Fatal(err)
		}
		if len(b) < 4096 {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		compareCoding(t, b)
	})
}

func BenchmarkCodec(b *testing.B) {
	req := readBenchRequest(b)
	raw, err := proto.Marshal(req)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("Unmarshal/protobuf-go", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := proto.Unmarshal(raw, &fnv1.RunFunctionRequest{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Unmarshal/wire", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := Unmarshal(raw, &fnv1.RunFunctionRequest{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("UnmarshalRequest/wire", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := UnmarshalRequest(raw, &Request{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	rsp := &fnv1.RunFunctionResponse{Meta: &fnv1.ResponseMeta{Tag: "t"}, Desired: req.GetObserved()}
	b.Run("Marshal/protobuf-go", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := proto.Marshal(rsp); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Marshal/wire", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := Marshal(rsp); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestHandCodedFields: State and Resource are coded by their Go types, field by field. A
// field function-sdk-go adds would be dropped when encoding: this fails first.
func TestHandCodedFields(t *testing.T) {
	cases := map[string]struct {
		message proto.Message
		want    []string
	}{
		"State":    {&fnv1.State{}, []string{"1 composite message", "2 resources map"}},
		"Resource": {&fnv1.Resource{}, []string{"1 resource message", "2 connection_details map", "3 ready enum"}},
		"RunFunctionResponse": {&fnv1.RunFunctionResponse{}, []string{
			"1 meta message", "2 desired message", "3 results message", "4 context message",
			"5 requirements message", "6 conditions message", "7 output message",
		}},
		"RequestMeta":      {&fnv1.RequestMeta{}, []string{"1 tag string", "2 capabilities enum"}},
		"ResponseMeta":     {&fnv1.ResponseMeta{}, []string{"1 tag string", "2 ttl message"}},
		"Duration":         {&durationpb.Duration{}, []string{"1 seconds int64", "2 nanos int32"}},
		"Result":           {&fnv1.Result{}, []string{"1 severity enum", "2 message string", "3 reason string", "4 target enum"}},
		"Condition":        {&fnv1.Condition{}, []string{"1 type string", "2 status enum", "3 reason string", "4 message string", "5 target enum"}},
		"Requirements":     {&fnv1.Requirements{}, []string{"1 extra_resources map", "2 resources map", "3 schemas map"}},
		"ResourceSelector": {&fnv1.ResourceSelector{}, []string{"1 api_version string", "2 kind string", "3 match_name string", "4 match_labels message", "5 namespace string"}},
		"MatchLabels":      {&fnv1.MatchLabels{}, []string{"1 labels map"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			fields := tc.message.ProtoReflect().Descriptor().Fields()
			var got []string
			for i := range fields.Len() {
				fd := fields.Get(i)
				kind := fd.Kind().String()
				if fd.IsMap() {
					kind = "map"
				}
				got = append(got, fmt.Sprintf("%d %s %s", fd.Number(), fd.Name(), kind))
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s's fields changed: update the hand coder (-coded +now):\n%s", name, diff)
			}
		})
	}
}

// TestUnusualResponsesLeftToProtobuf: a response with anything the hand encoder does not
// write goes to protobuf-go whole, which encodes it or says what is wrong.
func TestUnusualResponsesLeftToProtobuf(t *testing.T) {
	bad := "\xff"
	withUnknown := &fnv1.Condition{Type: "Ready"}
	withUnknown.ProtoReflect().SetUnknown(protowire.AppendVarint(protowire.AppendTag(nil, 9, protowire.VarintType), 1))
	selector := func(s *fnv1.ResourceSelector) *fnv1.RunFunctionResponse {
		return &fnv1.RunFunctionResponse{Requirements: &fnv1.Requirements{Resources: map[string]*fnv1.ResourceSelector{"a": s}}}
	}
	cases := map[string]*fnv1.RunFunctionResponse{
		"schema requirements":                {Requirements: &fnv1.Requirements{Schemas: map[string]*fnv1.SchemaSelector{"s": {}}}},
		"invalid UTF-8 in a condition":       {Conditions: []*fnv1.Condition{{Type: bad}}},
		"invalid UTF-8 in a result's reason": {Results: []*fnv1.Result{{Reason: &bad}}},
		"invalid UTF-8 in the tag":           {Meta: &fnv1.ResponseMeta{Tag: bad}},
		"invalid UTF-8 in a label": selector(&fnv1.ResourceSelector{
			Match: &fnv1.ResourceSelector_MatchLabels{MatchLabels: &fnv1.MatchLabels{Labels: map[string]string{"a": bad}}},
		}),
		"a nil result":                    {Results: []*fnv1.Result{nil}},
		"a nil condition":                 {Conditions: []*fnv1.Condition{nil}},
		"a nil selector":                  selector(nil),
		"nil match labels":                selector(&fnv1.ResourceSelector{Match: &fnv1.ResourceSelector_MatchLabels{}}),
		"an unknown field in a condition": {Conditions: []*fnv1.Condition{withUnknown}},
	}
	for name, rsp := range cases {
		t.Run(name, func(t *testing.T) {
			if _, err := appendResponse(nil, rsp, nil, nil); err == nil {
				t.Fatal("the hand encoder took it")
			}
			_, wantErr := proto.Marshal(rsp)
			got, err := Marshal(rsp)
			if fmt.Sprint(err) != fmt.Sprint(wantErr) {
				t.Fatalf("Marshal: %v; protobuf-go: %v", err, wantErr)
			}
			if err == nil {
				compareMarshal(t, rsp, got)
			}
		})
	}
}

// TestMetaAsProtobuf: a request's meta decodes as protobuf-go decodes it, however it is
// written: capabilities packed or one by one, the meta given twice (merged), or refused.
func TestMetaAsProtobuf(t *testing.T) {
	meta := func(fields ...[]byte) []byte {
		var b []byte
		for _, f := range fields {
			b = append(b, f...)
		}
		return protowire.AppendBytes(protowire.AppendTag(nil, requestMeta, protowire.BytesType), b)
	}
	tag := func(s string) []byte {
		return protowire.AppendString(protowire.AppendTag(nil, requestMetaTag, protowire.BytesType), s)
	}
	capability := func(v uint64) []byte {
		return protowire.AppendVarint(protowire.AppendTag(nil, requestMetaCapabilities, protowire.VarintType), v)
	}
	packed := func(p []byte) []byte {
		return protowire.AppendBytes(protowire.AppendTag(nil, requestMetaCapabilities, protowire.BytesType), p)
	}
	unknown := protowire.AppendVarint(protowire.AppendTag(nil, 9, protowire.VarintType), 1)
	cases := map[string][]byte{
		"one by one":                          meta(tag("t"), capability(1), capability(2)),
		"packed and not":                      meta(capability(1), packed([]byte{2, 3}), capability(1<<40)),
		"twice":                               append(meta(tag("a"), capability(1)), meta(tag("b"), packed([]byte{2}))...),
		"an unknown field":                    meta(tag("t"), unknown),
		"invalid UTF-8":                       meta(tag("\xff")),
		"a truncated varint":                  meta(packed([]byte{0x80})),
		"a capability of the wrong wire type": meta(protowire.AppendString(protowire.AppendTag(nil, requestMetaCapabilities, protowire.Fixed32Type), "")),
	}
	for name, b := range cases {
		t.Run(name, func(t *testing.T) {
			compareUnmarshal(t, b)
		})
	}
}

// TestOtherWireTypesLeftToProtobuf: a field the hand decoder turns into maps, given with
// another wire type, goes to protobuf-go with the whole request, which may make an empty
// map of it (FuzzUnmarshal found that for connection details).
func TestOtherWireTypesLeftToProtobuf(t *testing.T) {
	fixed64 := func(num protowire.Number) []byte {
		return protowire.AppendFixed64(protowire.AppendTag(nil, num, protowire.Fixed64Type), 0)
	}
	message := func(num protowire.Number, b []byte) []byte {
		return protowire.AppendBytes(protowire.AppendTag(nil, num, protowire.BytesType), b)
	}
	entry := func(b []byte) []byte {
		return message(stateResources, append(message(1, []byte("r")), message(2, b)...))
	}
	cases := map[string][]byte{
		"connection details of the composite": message(requestObserved, message(stateComposite, fixed64(resourceConnDetails))),
		"the composite's Struct":              message(requestObserved, message(stateComposite, fixed64(resourceStruct))),
		"connection details of a resource":    message(requestObserved, entry(fixed64(resourceConnDetails))),
		"the observed composite":              message(requestObserved, fixed64(stateComposite)),
		"an observed resource":                message(requestObserved, fixed64(stateResources)),
	}
	for name, b := range cases {
		t.Run(name, func(t *testing.T) {
			objects := &Request{Proto: &fnv1.RunFunctionRequest{}, Observed: map[string]Object{}, Required: map[string][]map[string]any{}}
			if err := handDecodeObjects(b, objects); err == nil {
				t.Fatal("the hand decoder took it into maps")
			}
			compareUnmarshal(t, b)
		})
	}
}
