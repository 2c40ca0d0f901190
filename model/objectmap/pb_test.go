package objectmap

import (
	"encoding/json"
	"fmt"
	"testing"

	gardencorev1beta1 "github.com/gardener/gardener/pkg/apis/core/v1beta1"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
)

// TestToStructAsNewStruct: for objects filled at random, ToStruct gives what
// structpb.NewStruct makes of ToUnstructured, errors included.
func TestToStructAsNewStruct(t *testing.T) {
	f := filler(5)
	for i := 0; i < 200; i++ {
		for _, obj := range []any{&gardencorev1beta1.Shoot{}, &clusterv1.Cluster{}, &kaasv1alpha1.ClusterStatus{}, &quirks{}} {
			f.Fill(obj)
			compareStruct(t, fmt.Sprintf("%T %d", obj, i), obj)
			if !Visit(obj, &structBuilder{frames: []frame{{fields: map[string]*structpb.Value{}}}}) {
				t.Fatalf("%T %d: not encoded the direct way", obj, i)
			}
		}
	}
	compareStruct(t, "invalid UTF-8", &kaasv1alpha1.ClusterStatus{APIServerURL: "\xff"})
	compareStruct(t, "unsigned overflow", &struct {
		L []uint64 `json:"l"`
	}{L: []uint64{1 << 63}})
}

func compareStruct(t *testing.T, what string, obj any) {
	t.Helper()
	var want *structpb.Struct
	m, wantErr := ToUnstructured(obj)
	if wantErr == nil {
		want, wantErr = structpb.NewStruct(m)
	}
	got, err := ToStruct(obj)
	if fmt.Sprint(err) != fmt.Sprint(wantErr) {
		t.Fatalf("%s: error %v, NewStruct's %v", what, err, wantErr)
	}
	if !proto.Equal(got, want) {
		t.Fatalf("%s:\n got %v\nwant %v", what, got, want)
	}
}

// TestNewStructAsStructpb: NewStruct gives what structpb.NewStruct gives, for the maps the
// converter and encoding/json make and for values structpb refuses.
func TestNewStructAsStructpb(t *testing.T) {
	f := filler(6)
	var maps []map[string]any
	for i := 0; i < 100; i++ {
		shoot := &gardencorev1beta1.Shoot{}
		f.Fill(shoot)
		m, err := ToUnstructured(shoot)
		if err != nil {
			t.Fatal(err)
		}
		raw, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		var fromJSON map[string]any
		if err := json.Unmarshal(raw, &fromJSON); err != nil {
			t.Fatal(err)
		}
		maps = append(maps, m, fromJSON)
	}
	maps = append(maps,
		map[string]any{"a": "\xff"}, map[string]any{"\xff": 1.0},
		map[string]any{"n": json.Number("1.5"), "bad": json.Number("x")},
		map[string]any{"b": []byte("hi"), "u": uint64(7), "i": 3, "l": []any{nil, true, map[string]any{}}},
		map[string]any{"unknown": struct{}{}}, nil)
	for i, m := range maps {
		want, wantErr := structpb.NewStruct(m)
		got, err := NewStruct(m)
		if fmt.Sprint(err) != fmt.Sprint(wantErr) {
			t.Fatalf("map %d: error %v, structpb's %v", i, err, wantErr)
		}
		if !proto.Equal(got, want) {
			t.Fatalf("map %d:\n got %v\nwant %v", i, got, want)
		}
	}
}
