package objectmap

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	gardencorev1beta1 "github.com/gardener/gardener/pkg/apis/core/v1beta1"
	"k8s.io/apimachinery/pkg/runtime"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
)

func compareFrom(t *testing.T, what string, m map[string]any, newObj func() any, fast bool) {
	t.Helper()
	want, got := newObj(), newObj()
	wantErr := runtime.DefaultUnstructuredConverter.FromUnstructured(m, want)
	err := FromUnstructured(m, got)
	if (err == nil) != (wantErr == nil) {
		t.Fatalf("%s: error %v, the converter's %v", what, err, wantErr)
	}
	if err != nil {
		// Where encoding/json refuses the object too, its error, which names the field, is
		// the one (TestFromUnstructuredNamesTheSameBadValue); else the converter's.
		want := wantErr.Error()
		if raw, merr := json.Marshal(m); merr == nil {
			if jerr := json.Unmarshal(raw, newObj()); jerr != nil {
				want = jerr.Error()
			}
		}
		if err.Error() != want {
			t.Fatalf("%s: error %v, want %v", what, err, want)
		}
		return
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s:\n got %#v\nwant %#v", what, got, want)
	}
	if fast {
		v := reflect.ValueOf(newObj()).Elem()
		if err := fromValue(typeOf(v.Type()), m, v); err != nil {
			t.Fatalf("%s: not decoded the fast way: %v", what, err)
		}
	}
}

// TestFromUnstructuredAsTheConverter fills API objects at random and decodes their
// unstructured forms, as the converter writes them (int64 numbers) and as a protobuf
// Struct gives them (float64 numbers), wanting exactly what the converter decodes.
func TestFromUnstructuredAsTheConverter(t *testing.T) {
	f := filler(4)
	types := []func() any{
		func() any { return &gardencorev1beta1.Shoot{} },
		func() any { return &clusterv1.Cluster{} },
		func() any { return &kaasv1alpha1.XSCSCluster{} },
	}
	for i := 0; i < 200; i++ {
		for _, newObj := range types {
			obj := newObj()
			f.Fill(obj)
			m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
			if err != nil {
				t.Fatal(err)
			}
			compareFrom(t, fmt.Sprintf("%T %d", obj, i), m, newObj, true)
			raw, err := json.Marshal(m)
			if err != nil {
				t.Fatal(err)
			}
			var fromJSON map[string]any
			if err := json.Unmarshal(raw, &fromJSON); err != nil {
				t.Fatal(err)
			}
			compareFrom(t, fmt.Sprintf("%T %d as JSON", obj, i), fromJSON, newObj, false)
		}
	}
}

// TestFromUnstructuredOddInput: values the converter refuses or converts specially give
// its values and errors.
func TestFromUnstructuredOddInput(t *testing.T) {
	newShoot := func() any { return &gardencorev1beta1.Shoot{} }
	worker := func(w map[string]any) map[string]any {
		return map[string]any{"spec": map[string]any{"provider": map[string]any{"workers": []any{w}}}}
	}
	for name, m := range map[string]map[string]any{
		"FractionForInteger": worker(map[string]any{"name": "a", "minimum": 1.5}),
		"WholeFloat":         worker(map[string]any{"name": "a", "minimum": 3.0, "maximum": int64(5)}),
		"StringForInteger":   worker(map[string]any{"name": "a", "minimum": "3"}),
		"NumberForString":    worker(map[string]any{"name": 3.0}),
		"IntegerForString":   worker(map[string]any{"name": int64(3)}),
		"ObjectForList":      {"spec": map[string]any{"provider": map[string]any{"workers": map[string]any{}}}},
		"ListForObject":      {"spec": []any{}},
		"BadTime":            {"metadata": map[string]any{"creationTimestamp": "yesterday"}},
		"GoodTime":           {"metadata": map[string]any{"creationTimestamp": "2026-12-01T10:00:00Z"}},
		"StringMapValues":    {"metadata": map[string]any{"labels": map[string]any{"a": nil, "b": "c"}}},
		"TypedMap":           {"metadata": map[string]any{"labels": map[string]string{"a": "b"}}},
		"Nulls":              {"metadata": nil, "spec": map[string]any{"provider": nil}},
		"Bytes":              {"spec": map[string]any{"kubernetes": map[string]any{"version": "1.34"}}},
	} {
		compareFrom(t, name, m, newShoot, false)
	}
}

// TestFromUnstructuredNamesTheSameBadValue: of several bad values in a map, the error names
// the same one on every call, whatever order the map gives, and says where it is.
func TestFromUnstructuredNamesTheSameBadValue(t *testing.T) {
	m := map[string]any{"metadata": map[string]any{"labels": map[string]any{"d": true, "b": 2.0, "c": []any{}, "a": 1.0}}}
	first := FromUnstructured(m, &gardencorev1beta1.Shoot{})
	if first == nil || !strings.Contains(first.Error(), "metadata.labels") || !strings.Contains(first.Error(), "number") {
		t.Fatalf("error = %v, want one that names metadata.labels and the number of label a", first)
	}
	for range 20 {
		if err := FromUnstructured(m, &gardencorev1beta1.Shoot{}); fmt.Sprint(err) != first.Error() {
			t.Fatalf("error = %v, then %v", first, err)
		}
	}
}

// numbers has a field of every kind a JSON number or string may be decoded into.
type numbers struct {
	I8    int8    `json:"i8"`
	I     int     `json:"i"`
	U8    uint8   `json:"u8"`
	U     uint    `json:"u"`
	UP    uintptr `json:"up"`
	F32   float32 `json:"f32"`
	F64   float64 `json:"f64"`
	S     string  `json:"s"`
	B     bool    `json:"b"`
	Named kaasv1alpha1.Phase
}

// TestFromUnstructuredNumbersAsTheConverter: numbers, strings and bools into every kind give
// the converter's values and errors: wrapped, truncated, rounded or refused.
func TestFromUnstructuredNumbersAsTheConverter(t *testing.T) {
	newNumbers := func() any { return &numbers{} }
	values := []any{float64(300), float64(-1), 2.5, float64(1 << 40), int64(300), int64(-1), "x", true}
	for _, field := range []string{"i8", "i", "u8", "u", "up", "f32", "f64", "s", "b", "Named"} {
		for _, v := range values {
			compareFrom(t, fmt.Sprintf("%s=%#v", field, v), map[string]any{field: v}, newNumbers, false)
		}
	}
}

// oneName has a field of the name of an inlined one, and one skipped.
type oneName struct {
	A       string `json:"a"`
	Skipped string `json:"-"`
	Inner   `json:",inline"`
}

type Inner struct {
	A string `json:"a"`
	Z *int   `json:"z"`
}

// TestFromUnstructuredFieldNamesAsTheConverter: where a field shares its name with an
// inlined one, or is skipped, the converter's values.
func TestFromUnstructuredFieldNamesAsTheConverter(t *testing.T) {
	newObj := func() any { return &oneName{} }
	for name, m := range map[string]map[string]any{
		"shared":  {"a": "x", "z": 2.0},
		"skipped": {"-": "y", "a": "x"},
		"nulls":   {"a": nil, "z": nil},
		"bad":     {"a": 1.0},
	} {
		compareFrom(t, name, m, newObj, false)
	}
	type inlined struct {
		Inner `json:",inline"`
		N     int `json:"n"`
	}
	compareFrom(t, "inlined", map[string]any{"a": "x", "n": 3.0, "z": 1.0, "other": true}, func() any { return &inlined{} }, true)
}
