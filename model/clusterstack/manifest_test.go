package clusterstack

import (
	"encoding/json"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/randfill"
)

// TestManifestIsTheJSONForm: the manifest of a Cluster filled at random is its JSON form
// without status and creationTimestamp, compared as JSON text, where numbers look the same
// whether int64 or float64.
func TestManifestIsTheJSONForm(t *testing.T) {
	f := randfill.NewWithSeed(3).NilChance(0.3).NumElements(0, 3).Funcs(
		func(q *resource.Quantity, c randfill.Continue) {
			*q = *resource.NewMilliQuantity(c.Int63n(1<<40), resource.DecimalSI)
		},
		func(r *runtime.RawExtension, c randfill.Continue) {
			if c.Bool() {
				r.Raw = []byte(`{"kind":"X","n":1.5,"l":[true,null,"s"]}`)
			}
		},
		func(tm *metav1.Time, c randfill.Continue) {
			if c.Bool() {
				*tm = metav1.Unix(c.Int63n(1<<32), 0)
			}
		},
		func(j *apiextensionsv1.JSON, c randfill.Continue) {
			if c.Bool() {
				j.Raw = []byte(`{"image":"ubuntu","n":2}`)
			}
		},
		func(i *int64, c randfill.Continue) { *i = c.Int63n(1 << 40) },
		func(fv *metav1.FieldsV1, c randfill.Continue) {
			if c.Bool() {
				fv.SetRawBytes([]byte(`{"f:spec":{}}`))
			}
		},
	)
	for i := 0; i < 300; i++ {
		c := &clusterv1.Cluster{}
		f.Fill(c)
		raw, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		var want map[string]any
		if err := json.Unmarshal(raw, &want); err != nil {
			t.Fatal(err)
		}
		delete(want, "status")
		if meta, ok := want["metadata"].(map[string]any); ok {
			delete(meta, "creationTimestamp")
		}
		got, err := manifest(c)
		if err != nil {
			t.Fatal(err)
		}
		wantJSON, _ := json.Marshal(want)
		gotJSON, err := json.Marshal(got)
		if err != nil {
			t.Fatal(err)
		}
		if string(gotJSON) != string(wantJSON) {
			t.Fatalf("Cluster %d:\n got %s\nwant %s", i, gotJSON, wantJSON)
		}
	}
}
