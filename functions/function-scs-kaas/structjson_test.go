package main

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/types/known/structpb"
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
