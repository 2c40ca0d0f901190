package main

import (
	"strings"
	"testing"

	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/testing/protocmp"
	"google.golang.org/protobuf/types/known/structpb"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

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
