package objectmap

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"testing"

	gardencorev1beta1 "github.com/gardener/gardener/pkg/apis/core/v1beta1"
	"google.golang.org/protobuf/types/known/structpb"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/randfill"

	envv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/environment/v1alpha1"
	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
)

// viaJSON is what FromJSONValue must equal: encoding/json on the JSON text of m.
func viaJSON(m map[string]any, obj any, strict bool) error {
	raw, err := json.Marshal(m)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if strict {
		dec.DisallowUnknownFields()
	}
	return dec.Decode(obj)
}

func compareDecoding(t *testing.T, what string, m map[string]any, newObj func() any) {
	t.Helper()
	for _, strict := range []bool{false, true} {
		want, got := newObj(), newObj()
		wantErr := viaJSON(m, want, strict)
		err := FromJSONValue(m, got, strict)
		if fmt.Sprint(err) != fmt.Sprint(wantErr) {
			t.Fatalf("%s (strict %v): error %v, encoding/json's %v", what, strict, err, wantErr)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s (strict %v):\n got %#v\nwant %#v", what, strict, got, want)
		}
		// The same from the protobuf Struct the map makes, where it makes one.
		s, serr := structpb.NewStruct(m)
		if serr != nil {
			continue
		}
		got = newObj()
		if err := FromStruct(s, got, strict); err != nil {
			if !errors.Is(err, ErrIndirect) || !reflect.DeepEqual(got, newObj()) {
				t.Fatalf("%s (strict %v, from a Struct): %v, with %#v", what, strict, err, got)
			}
			continue
		}
		if wantErr != nil {
			t.Fatalf("%s (strict %v, from a Struct): decoded what encoding/json refuses: %v", what, strict, wantErr)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s (strict %v, from a Struct):\n got %#v\nwant %#v", what, strict, got, want)
		}
	}
}

// TestDecodesAsEncodingJSON fills API objects at random, turns them into maps of JSON
// values as AsMap would, and wants of FromJSONValue what encoding/json makes of the same.
func TestDecodesAsEncodingJSON(t *testing.T) {
	f := filler(2)
	types := []func() any{
		func() any { return &kaasv1alpha1.XSCSCluster{} },
		func() any { return &envv1alpha1.Environment{} },
		func() any { return &gardencorev1beta1.Shoot{} },
	}
	for i := 0; i < 200; i++ {
		for _, newObj := range types {
			obj := newObj()
			f.Fill(obj)
			raw, err := json.Marshal(obj)
			if err != nil {
				t.Fatal(err)
			}
			m := map[string]any{}
			if err := json.Unmarshal(raw, &m); err != nil {
				t.Fatal(err)
			}
			compareDecoding(t, fmt.Sprintf("%T %d", obj, i), m, newObj)
			if v := reflect.ValueOf(newObj()).Elem(); (decoder{}).decode(m, v, decodeInfoOf(v.Type())) != nil {
				t.Fatalf("%T %d: not decoded the fast way", obj, i)
			}
			if s, err := structpb.NewStruct(m); err == nil {
				v := reflect.ValueOf(newObj()).Elem()
				if err := (decoder{}).decodePBStruct(s, v, decodeInfoOf(v.Type())); err != nil {
					t.Fatalf("%T %d: not decoded from the Struct the fast way: %v", obj, i, err)
				}
			}
		}
	}
}

// TestDecodesOddInputAsEncodingJSON: what the fast way leaves to encoding/json gives the
// values and errors encoding/json gives.
func TestDecodesOddInputAsEncodingJSON(t *testing.T) {
	newCluster := func() any { return &kaasv1alpha1.XSCSCluster{} }
	pools := func(p map[string]any) map[string]any {
		return map[string]any{"kind": "XSCSCluster", "spec": map[string]any{"nodePools": []any{p}}}
	}
	withAny := func() any { return &struct{ A any }{} }
	compareDecoding(t, "NaNInAny", map[string]any{"A": map[string]any{"n": math.NaN()}}, withAny)
	compareDecoding(t, "Any", map[string]any{"A": map[string]any{"n": 1.5, "l": []any{"s", true, nil}}}, withAny)
	for name, m := range map[string]map[string]any{
		"UnknownField":       {"kind": "XSCSCluster", "unknown": 1.0},
		"FoldedKey":          {"Kind": "XSCSCluster", "SPEC": map[string]any{"Kubernetes": map[string]any{"version": "1.34"}}},
		"BothKeys":           {"kind": "a", "Kind": "b"},
		"NonASCIIKey":        {"ſpec": map[string]any{}},
		"StringForObject":    {"spec": "text"},
		"NumberForString":    {"kind": 1.0},
		"FractionForInteger": pools(map[string]any{"name": "a", "count": 1.5}),
		"HugeInteger":        pools(map[string]any{"name": "a", "count": 1e20}),
		"NegativeInteger":    pools(map[string]any{"name": "a", "count": -3.0}),
		"NaN":                pools(map[string]any{"name": "a", "count": math.NaN()}),
		"Int64":              pools(map[string]any{"name": "a", "count": int64(3)}),
		"NullEverywhere":     {"metadata": nil, "spec": map[string]any{"nodePools": nil, "kubernetes": nil}},
		"BadTime":            {"metadata": map[string]any{"creationTimestamp": "yesterday"}},
		"GoodTime":           {"metadata": map[string]any{"creationTimestamp": "2026-12-01T10:00:00Z", "labels": map[string]any{"a": "b"}}},
		"NullLabel":          {"metadata": map[string]any{"labels": map[string]any{"a": nil}}},
		"EmptyList":          {"spec": map[string]any{"nodePools": []any{}}},
	} {
		compareDecoding(t, name, m, newCluster)
	}
}

// filler fills API objects at random with values their types can take: valid JSON in raw
// extensions, times in seconds, integers exact as float64.
func filler(seed int64) *randfill.Filler {
	return randfill.NewWithSeed(seed).NilChance(0.3).NumElements(0, 3).Funcs(
		func(q *resource.Quantity, c randfill.Continue) {
			*q = *resource.NewMilliQuantity(c.Int63n(1<<40), resource.DecimalSI)
		},
		func(r *runtime.RawExtension, c randfill.Continue) {
			if c.Bool() {
				r.Raw = []byte(`{"kind":"X","n":1.5,"l":[true,null,"s"]}`)
			}
		},
		func(t *metav1.Time, c randfill.Continue) {
			if c.Bool() {
				*t = metav1.Unix(c.Int63n(1<<32), 0)
			}
		},
		func(v *any, c randfill.Continue) {
			if c.Bool() {
				*v = map[string]any{"s": c.String(5), "n": float64(c.Int31())}
			}
		},
		// Integers beyond 2^53 are not exact as float64; TestDecodesOddInputAsEncodingJSON
		// has them.
		func(i *int64, c randfill.Continue) { *i = c.Int63n(1 << 40) },
		func(f *metav1.FieldsV1, c randfill.Continue) {
			if c.Bool() {
				f.SetRawBytes([]byte(`{"f:spec":{}}`))
			}
		},
		func(j *apiextensionsv1.JSON, c randfill.Continue) {
			if c.Bool() {
				j.Raw = []byte(`{"image":"ubuntu","n":2}`)
			}
		},
		func(r *json.RawMessage, c randfill.Continue) {
			if c.Bool() {
				*r = json.RawMessage(`{"a":[1,"b"]}`)
			}
		},
	)
}
