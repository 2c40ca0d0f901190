package main

import (
	"encoding/json"
	"strings"
	"testing"

	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/testing/protocmp"
	"google.golang.org/protobuf/types/known/structpb"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/randfill"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/model"
)

// TestEncodeResources: each rendered resource decodes as the Struct structpb.NewStruct makes
// of it, also where the hand encoder leaves a value to structpb (bytes) between others that
// share its buffer; one that structpb refuses is an error that names the resource.
func TestEncodeResources(t *testing.T) {
	objects := map[string]map[string]any{
		"a": {"kind": "Object", "spec": map[string]any{"n": int64(3), "l": []any{"x", true, nil}}},
		"b": {"kind": "Secret", "data": map[string]any{"k": []byte("bytes, which structpb writes in base64")}},
		"c": {"kind": "Object", "metadata": map[string]any{"name": "c"}},
	}
	resources := []model.Resource{}
	for _, name := range []string{"a", "b", "c"} {
		resources = append(resources, model.Resource{Name: name, Object: &unstructured.Unstructured{Object: objects[name]}})
	}
	// Twice: the second call encodes into a buffer sized after the first.
	for range 2 {
		got, err := encodeResources(resources, map[string]bool{"b": true})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(objects) {
			t.Fatalf("encoded %d resources, want %d", len(got), len(objects))
		}
		for name, m := range objects {
			want, err := structpb.NewStruct(m)
			if err != nil {
				t.Fatal(err)
			}
			s := &structpb.Struct{}
			if err := proto.Unmarshal(got[name].Struct, s); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if diff := cmp.Diff(want, s, protocmp.Transform()); diff != "" {
				t.Errorf("%s (-structpb.NewStruct +encoded):\n%s", name, diff)
			}
			if wantReady := map[bool]fnv1.Ready{true: fnv1.Ready_READY_TRUE, false: fnv1.Ready_READY_FALSE}[name == "b"]; got[name].Ready != wantReady {
				t.Errorf("%s: ready %v, want %v", name, got[name].Ready, wantReady)
			}
		}
	}

	bad := append(resources, model.Resource{Name: "bad", Object: &unstructured.Unstructured{Object: map[string]any{"s": "\xff"}}})
	if _, err := encodeResources(bad, nil); err == nil || !strings.Contains(err.Error(), "desired resource bad") {
		t.Errorf("encodeResources with invalid UTF-8: %v, want an error naming resource bad", err)
	}
}

// TestEncodeCompositeAsJSON: the status reaches the composite as its JSON form would, for
// statuses filled at random (the JSON round trip the encoders replaced is the reference),
// straight from the typed status and merged with the status earlier steps desired.
func TestEncodeCompositeAsJSON(t *testing.T) {
	f := randfill.NewWithSeed(1).NilChance(0.3).NumElements(0, 3)
	earlier := &fnv1.Resource{Resource: &structpb.Struct{Fields: map[string]*structpb.Value{
		"status": structpb.NewStructValue(&structpb.Struct{Fields: map[string]*structpb.Value{"fromEarlierStep": structpb.NewBoolValue(true)}}),
	}}}
	for i := 0; i < 500; i++ {
		status := kaasv1alpha1.ClusterStatus{}
		f.Fill(&status)
		raw, err := json.Marshal(status)
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]any{}
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatal(err)
		}
		want, err := structpb.NewStruct(m)
		if err != nil {
			t.Fatal(err)
		}

		c, b, err := encodeComposite(nil, status, nil)
		if err != nil || b == nil {
			t.Fatalf("status %d: not encoded straight from the typed status (error %v)", i, err)
		}
		if _, ok := c.GetResource().GetFields()["status"]; ok {
			t.Fatalf("status %d: the composite has a status besides the encoded one", i)
		}
		got := &structpb.Struct{}
		if err := proto.Unmarshal(b, got); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got, protocmp.Transform()); diff != "" {
			t.Fatalf("status %d differs from its JSON form: -want, +got:\n%s", i, diff)
		}

		c, b, err = encodeComposite(earlier, status, nil)
		if err != nil || b != nil {
			t.Fatalf("status %d: with an earlier status: %v, %d bytes apart", i, err, len(b))
		}
		want.Fields["fromEarlierStep"] = structpb.NewBoolValue(true)
		if diff := cmp.Diff(want, c.GetResource().GetFields()["status"].GetStructValue(), protocmp.Transform()); diff != "" {
			t.Fatalf("status %d merged with an earlier one: -want, +got:\n%s", i, diff)
		}
	}
}

// TestEncodeOutputRefusesAnUnencodableStatus: a status that cannot be encoded (a string
// that is not UTF-8, which no protobuf Struct can hold) is an error that leaves the response
// as it was, straight from the typed status and merged with an earlier one alike: the
// caller refuses with the desired state as it came.
func TestEncodeOutputRefusesAnUnencodableStatus(t *testing.T) {
	earlier := &fnv1.State{Composite: &fnv1.Resource{Resource: &structpb.Struct{Fields: map[string]*structpb.Value{
		"status": structpb.NewStructValue(&structpb.Struct{Fields: map[string]*structpb.Value{"fromEarlierStep": structpb.NewBoolValue(true)}}),
	}}}}
	for name, desired := range map[string]*fnv1.State{"nothing desired before": {}, "an earlier status": earlier} {
		t.Run(name, func(t *testing.T) {
			rsp := &fnv1.RunFunctionResponse{Desired: desired}
			before := proto.Clone(rsp)
			out := &model.Output{
				Environment: &model.Environment{},
				Rendering:   &model.Rendering{},
				Observation: &model.Observation{},
				Status:      kaasv1alpha1.ClusterStatus{APIServerURL: "\xff"},
			}
			res, err := encodeOutput(rsp, out, false)
			if err == nil || !strings.Contains(err.Error(), "status") {
				t.Fatalf("encodeOutput = %v, %v; want an error about the status", res, err)
			}
			if !proto.Equal(before, rsp) {
				t.Errorf("the response changed (-before +after):\n%s", cmp.Diff(before, rsp, protocmp.Transform()))
			}
		})
	}
}
