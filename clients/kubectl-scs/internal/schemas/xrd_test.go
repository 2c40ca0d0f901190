package schemas

import (
	"bytes"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// TestEmbeddedXRDIsCurrent fails when the embedded copy of the namespaced XRD differs from
// the generated one: run go generate ./... in clients/kubectl-scs.
func TestEmbeddedXRDIsCurrent(t *testing.T) {
	current, err := os.ReadFile("../../../../apis/xrd/namespaced/scsclusters.kaas.scs.community.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(current, xrdYAML) {
		t.Errorf("the embedded XRD is stale: run go generate ./... in clients/kubectl-scs")
	}
}

func TestPrinterColumns(t *testing.T) {
	var names []string
	for _, c := range PrinterColumns() {
		names = append(names, c.Name)
	}
	want := []string{"ENVIRONMENT", "BACKEND", "VERSION", "PHASE", "API-SERVER", "BACKEND-NAME"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("printer columns (-want +got):\n%s", diff)
	}
}

func TestValidate(t *testing.T) {
	sch := NewSet().Lookup(schema.GroupVersionKind{Group: "kaas.scs.community", Version: "v1alpha1", Kind: "SCSCluster"})
	if sch == nil {
		t.Fatal("no schema of SCSCluster")
	}
	for _, tc := range []struct {
		name string
		obj  map[string]any
		want []string
	}{
		{
			name: "valid",
			obj: map[string]any{"apiVersion": "kaas.scs.community/v1alpha1", "kind": "SCSCluster", "metadata": map[string]any{"name": "dev", "anything": true},
				"spec": map[string]any{"kubernetes": map[string]any{"version": "1.34"},
					"nodePools": []any{map[string]any{"name": "default", "machineType": "SCS-4V-8", "count": int64(1)}}}},
		},
		{
			name: "a field the schema does not declare, a wrong type, a version that is none",
			obj: map[string]any{"apiVersion": "kaas.scs.community/v1alpha1", "kind": "SCSCluster",
				"spec": map[string]any{"kubernetes": map[string]any{"version": "latest"}, "kubernets": "1.34",
					"nodePools": []any{map[string]any{"name": "default", "machineType": "SCS-4V-8", "count": "one"}}}},
			want: []string{
				`spec.kubernetes.version in body should match '^1\.(0|[1-9][0-9]*)(\.(0|[1-9][0-9]*))?$'`,
				"spec.kubernets: field not declared in the schema (the API server would drop it)",
				`spec.nodePools[0].count in body must be of type integer: "string"`,
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, sch.Validate(tc.obj)); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}
