package objectmap

import (
	"reflect"
	"testing"

	gardencorev1beta1 "github.com/gardener/gardener/pkg/apis/core/v1beta1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/randfill"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
)

// quirks has a field of every kind the converter treats specially.
type quirks struct {
	Inline          `json:",inline"`
	*InlinePointer  `json:",inline"`
	Skipped         string            `json:"-"`
	Untagged        string            //nolint:tagliatelle // the converter names it after the field
	Unsigned        uint32            `json:"unsigned"`
	UnsignedInSlice []uint16          `json:"unsignedInSlice"`
	Bytes           []byte            `json:"bytes,omitempty"`
	Empty           map[string]string `json:"empty"`
	NilPointer      *string           `json:"nilPointer"`
	Zero            metav1.Time       `json:"zero"`
	OmitZero        metav1.Time       `json:"omitZero,omitzero"`
	Any             any               `json:"any"`
	Float           float32           `json:"float,omitempty"`
	Quantity        resource.Quantity `json:"quantity"`
	IntOrString     intstr.IntOrString
}

type Inline struct {
	InlineName string `json:"inlineName"`
}

type InlinePointer struct {
	Pointed int8 `json:"pointed"`
}

// TestSameAsTheConverter fills API objects at random and wants exactly what
// runtime.DefaultUnstructuredConverter returns for each, error or map, value types included.
func TestSameAsTheConverter(t *testing.T) {
	f := randfill.NewWithSeed(1).NilChance(0.3).NumElements(0, 3).Funcs(
		func(q *resource.Quantity, c randfill.Continue) {
			*q = *resource.NewMilliQuantity(c.Int63n(1<<40), resource.DecimalSI)
		},
		func(r *runtime.RawExtension, c randfill.Continue) {
			if c.Bool() {
				r.Raw = []byte(`{"kind":"X","n":1.5,"l":[true,null,"s"]}`)
			}
		},
		func(v *any, c randfill.Continue) {
			if c.Bool() {
				*v = map[string]any{"s": c.String(5), "n": int64(c.Int31())}
			}
		},
		func(t *metav1.Time, c randfill.Continue) {
			if c.Bool() {
				*t = metav1.Unix(c.Int63n(1<<32), 0)
			}
		},
	)
	for i := 0; i < 300; i++ {
		for _, obj := range []any{&gardencorev1beta1.Shoot{}, &kaasv1alpha1.ClusterStatus{}, &kaasv1alpha1.ClusterSpec{}, &quirks{}} {
			f.Fill(obj)
			want, wantErr := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
			got, err := ToUnstructured(obj)
			if (err != nil) != (wantErr != nil) {
				t.Fatalf("%T: error %v, the converter's %v", obj, err, wantErr)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%T:\n got %#v\nwant %#v", obj, got, want)
			}
		}
	}
}

// TestFallsBackToTheConverter: what is not a pointer to a struct is the converter's.
func TestFallsBackToTheConverter(t *testing.T) {
	for _, obj := range []any{quirks{}, (*quirks)(nil), &map[string]any{}, &[]string{}} {
		_, wantErr := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
		if _, err := ToUnstructured(obj); (err != nil) != (wantErr != nil) {
			t.Errorf("%T: error %v, the converter's %v", obj, err, wantErr)
		}
	}
}

// TestRawExtensionsKeptApart: each conversion of the same RawExtension gets a value of its
// own; changing one changes no other.
func TestRawExtensionsKeptApart(t *testing.T) {
	type config struct {
		Config *runtime.RawExtension `json:"config"`
	}
	obj := &config{Config: &runtime.RawExtension{Raw: []byte(`{"kapart":{"n":1,"l":["a",1.5,null]}}`)}}
	want, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		got, err := ToUnstructured(obj)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("got %#v\nwant %#v", got, want)
		}
		inner := got["config"].(map[string]any)["kapart"].(map[string]any)
		inner["n"] = "changed"
		inner["l"].([]any)[0] = "changed"
	}
}
