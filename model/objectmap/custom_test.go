package objectmap

import (
	"encoding/json"
	"math"
	"reflect"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// TestEncodeCustomTakesPointers: the converter takes a pointer to a custom type as a custom
// type of its own; the fast ways take both, and give what the converter gives.
func TestEncodeCustomTakesPointers(t *testing.T) {
	values := []any{
		&intstr.IntOrString{Type: intstr.Int, IntVal: -7},
		&intstr.IntOrString{Type: intstr.String, StrVal: "25%"},
		(*intstr.IntOrString)(nil),
		&runtime.RawExtension{Raw: []byte(`{"pointer":{"n":2}}`)},
		(*runtime.RawExtension)(nil),
	}
	for _, x := range values {
		p := reflect.ValueOf(x)
		vs := []reflect.Value{p}
		if !p.IsNil() {
			vs = append(vs, p.Elem())
		}
		for _, v := range vs {
			ti := typeOf(v.Type())
			got, ok, err := encodeCustom(ti, v)
			if !ok || err != nil {
				t.Fatalf("%s %#v: not taken the fast way (%v)", v.Type(), x, err)
			}
			want, err := ti.entry.ToUnstructured(v)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s: got %#v, the converter's %#v", v.Type(), got, want)
			}
		}
	}
	raw := `{"pointer":{"n":2}}`
	if _, cached := rawExtensions.Load(raw); !cached {
		t.Error("the RawExtension's value is not kept")
	}
}

// TestDecodeIntOrStringAsUnmarshalJSON: where decodeIntOrString sets an IntOrString, it sets
// what UnmarshalJSON sets from the value's JSON; it takes every string and whole int32.
func TestDecodeIntOrStringAsUnmarshalJSON(t *testing.T) {
	sources := []any{"25%", "", "\xff", 3.0, -2.0, 1.5, float64(math.MaxInt32) + 1, int64(40), int64(1) << 40, true, nil, map[string]any{}}
	for _, src := range sources {
		for _, before := range []intstr.IntOrString{{}, {Type: intstr.String, IntVal: 9, StrVal: "before"}} {
			raw, err := json.Marshal(src)
			if err != nil {
				t.Fatal(err)
			}
			want := before
			wantErr := want.UnmarshalJSON(raw)
			got := before
			taken := decodeIntOrString(src, reflect.ValueOf(&got).Elem())
			if taken && (wantErr != nil || got != want) {
				t.Errorf("%#v into %#v: %#v; UnmarshalJSON %#v (%v)", src, before, got, want, wantErr)
			}
			_, isString := src.(string)
			if !taken && wantErr == nil && (isString && src != "\xff" || src == 3.0 || src == -2.0 || src == int64(40)) {
				t.Errorf("%#v: left to UnmarshalJSON", src)
			}
		}
	}
}

// TestDecodeTime: a timestamp is set as the converter sets it, into a Time and a pointer
// to one, without the converter.
func TestDecodeTime(t *testing.T) {
	type times struct {
		At  metav1.Time  `json:"at"`
		Ptr *metav1.Time `json:"ptr"`
	}
	m := map[string]any{"at": "2026-11-29T10:00:00Z", "ptr": "2026-11-29T11:00:00+01:00"}
	var want, got times
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(m, &want); err != nil {
		t.Fatal(err)
	}
	if err := FromUnstructured(m, &got); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %#v, the converter's %#v", got, want)
	}
	for _, tt := range []reflect.Type{timeType, timePointerType} {
		if !decodeTime(typeOf(tt), "2026-11-29T10:00:00Z", reflect.New(tt).Elem()) {
			t.Errorf("%s: left to the converter", tt)
		}
	}
}
