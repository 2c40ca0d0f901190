package main

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/testing/protocmp"
	"google.golang.org/protobuf/types/known/structpb"
	"sigs.k8s.io/randfill"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
)

// TestStructJSON compares the fast writer with protojson on values that need care:
// escapes, non-ASCII, large and fractional numbers, nulls, nesting.
func TestStructJSON(t *testing.T) {
	in := map[string]any{
		"plain":    "SCS-4V-8",
		"quote":    `say "hi" \ back`,
		"control":  "line\nbreak\ttab\u0001",
		"unicode":  "Grüße, 世界 😀",
		"html":     "<a href=\"x\">&</a>",
		"int":      3,
		"negative": -12,
		"big":      float64(1 << 52),
		"fraction": 0.25,
		"bool":     true,
		"null":     nil,
		"list":     []any{"a", 1, false, nil, map[string]any{"k": "v"}, []any{}},
		"empty":    map[string]any{},
		"ключ":     "key in Cyrillic",
	}
	s, err := structpb.NewStruct(in)
	if err != nil {
		t.Fatal(err)
	}
	want, err := protojson.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var wantObj, gotObj any
	if err := json.Unmarshal(want, &wantObj); err != nil {
		t.Fatal(err)
	}
	got := structJSON(s)
	if err := json.Unmarshal(got, &gotObj); err != nil {
		t.Fatalf("structJSON wrote invalid JSON: %v\n%s", err, got)
	}
	if diff := cmp.Diff(wantObj, gotObj); diff != "" {
		t.Errorf("structJSON differs from protojson: -want, +got:\n%s", diff)
	}
}

// TestStructJSONSortsKeys: the JSON of a Struct is the same on every call, whatever the
// order its map gives; encoding/json's errors and case-insensitive matches depend on it.
func TestStructJSONSortsKeys(t *testing.T) {
	s, err := structpb.NewStruct(map[string]any{
		"kind": []any{}, "apiVersion": []any{}, "b": 1, "a": map[string]any{"d": true, "c": nil, "C": "x"},
	})
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"a":{"C":"x","c":null,"d":true},"apiVersion":[],"b":1,"kind":[]}`
	for range 20 {
		if got := string(structJSON(s)); got != want {
			t.Fatalf("structJSON = %s, want %s", got, want)
		}
	}
}

// TestTypedStructAsJSON: the status reaches the composite as its JSON form would, for
// statuses filled at random (the JSON round trip typedStruct replaced is the reference).
func TestTypedStructAsJSON(t *testing.T) {
	f := randfill.NewWithSeed(1).NilChance(0.3).NumElements(0, 3)
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
		got, err := typedStruct(&status)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got, protocmp.Transform()); diff != "" {
			t.Fatalf("status %d differs from its JSON form: -want, +got:\n%s", i, diff)
		}
	}
}
