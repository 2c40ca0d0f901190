package wire

import (
	"bytes"
	"fmt"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/randfill"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/model/objectmap"
)

// mixed has a value of every kind objectmap.Visit tells, nulls and a conversion of its own
// (metav1.Time) among them.
type mixed struct {
	Any         any                 `json:"any"`
	Map         map[string]any      `json:"map"`
	Lists       map[string][]string `json:"lists,omitempty"`
	Ints        []int               `json:"ints"`
	Pointer     *string             `json:"pointer"`
	Float       float64             `json:"float"`
	Unsigned    uint32              `json:"unsigned"`
	Bool        bool                `json:"bool"`
	Bytes       []byte              `json:"bytes,omitempty"`
	Time        metav1.Time         `json:"time"`
	Status      kaasv1alpha1.ClusterStatus
	mixedInline `json:",inline"`
}

type mixedInline struct {
	Inline string `json:"inline"`
}

// TestAppendTyped: for objects filled at random, AppendTyped encodes what objectmap.ToStruct
// returns, after whatever b held: the direct way.
func TestAppendTyped(t *testing.T) {
	f := randfill.NewWithSeed(7).NilChance(0.3).NumElements(0, 3).Funcs(
		func(tm *metav1.Time, c randfill.Continue) { *tm = metav1.Unix(c.Int63n(1<<32), 0) },
		func(v *any, c randfill.Continue) {
			switch c.Intn(4) {
			case 0:
				*v = map[string]any{"s": c.String(5), "l": []any{float64(c.Int31()), nil, true}}
			case 1:
				*v = c.String(5)
			case 2:
				*v = c.Float64()
			}
		},
	)
	prefix := []byte("prefix")
	for i := range 200 {
		for _, obj := range []any{&kaasv1alpha1.ClusterStatus{}, &mixed{}} {
			f.Fill(obj)
			what := fmt.Sprintf("%T %d", obj, i)
			want, err := objectmap.ToStruct(obj)
			if err != nil {
				t.Fatalf("%s: ToStruct: %v", what, err)
			}
			b, ok := AppendTyped(bytes.Clone(prefix), obj)
			if !ok {
				t.Fatalf("%s: not encoded the direct way", what)
			}
			if !bytes.HasPrefix(b, prefix) {
				t.Fatalf("%s: what b held is lost", what)
			}
			got := &structpb.Struct{}
			if err := proto.Unmarshal(b[len(prefix):], got); err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			if !proto.Equal(got, want) {
				t.Fatalf("%s:\n got %v\nwant %v", what, got, want)
			}
		}
	}
}

// TestAppendTypedLeavesToTheMap: what objectmap.Visit leaves to the way through a map is
// false, with b as it was.
func TestAppendTypedLeavesToTheMap(t *testing.T) {
	cases := map[string]any{
		"invalid UTF-8":     &kaasv1alpha1.ClusterStatus{APIServerURL: "\xff"},
		"invalid UTF-8 key": &kaasv1alpha1.NodePool{Name: "a", Labels: map[string]string{"\xff": "x"}},
		"unsigned overflow": &struct {
			L []uint64 `json:"l"`
		}{L: []uint64{1 << 63}},
		"not a pointer": kaasv1alpha1.ClusterStatus{},
		"nil":           (*kaasv1alpha1.ClusterStatus)(nil),
	}
	for name, obj := range cases {
		t.Run(name, func(t *testing.T) {
			b, ok := AppendTyped([]byte("b"), obj)
			if ok || string(b) != "b" {
				t.Errorf("AppendTyped: %q, %v; want b as it was, false", b, ok)
			}
		})
	}
}
