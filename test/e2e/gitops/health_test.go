package gitops

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

var update = flag.Bool("update", false, "rewrite package/gitops/argocd-cm.yaml from health.lua")

func repoFile(t *testing.T, rel string) string {
	t.Helper()
	return filepath.Join("..", "..", "..", filepath.FromSlash(rel))
}

func readScript(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(repoFile(t, ScriptPath))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestHealthInEveryPhase: what Argo CD and Flux make of an SCS cluster in each phase its
// life goes through (testdata/*.yaml, shaped like live claims). Flux's kstatus calls a
// cluster that Crossplane has not reconciled yet Current, for want of any condition: a
// status-less object is Current to kstatus whatever its kind; Crossplane gives every claim
// its conditions within a second.
func TestHealthInEveryPhase(t *testing.T) {
	script := readScript(t)
	cases := map[string]struct {
		argo    string
		kstatus string
	}{
		"created":         {argo: "Progressing", kstatus: "Current"},
		"provisioning":    {argo: "Progressing", kstatus: "InProgress"},
		"ready":           {argo: "Healthy", kstatus: "Current"},
		"updating":        {argo: "Progressing", kstatus: "InProgress"},
		"refused":         {argo: "Degraded", kstatus: "Failed"},
		"backend-refused": {argo: "Degraded", kstatus: "InProgress"},
		"failed":          {argo: "Degraded", kstatus: "Failed"},
		"hibernated":      {argo: "Suspended", kstatus: "Current"},
		"deleting":        {argo: "Progressing", kstatus: "Terminating"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			raw, err := os.ReadFile(filepath.Join("testdata", name+".yaml"))
			if err != nil {
				t.Fatal(err)
			}
			js, err := yaml.YAMLToJSON(raw)
			if err != nil {
				t.Fatal(err)
			}
			obj := &unstructured.Unstructured{}
			if err := obj.UnmarshalJSON(js); err != nil {
				t.Fatal(err)
			}
			h, err := ArgoCDHealth(script, obj)
			if err != nil {
				t.Fatalf("Argo CD health check: %v", err)
			}
			if h.Status != tc.argo || h.Message == "" {
				t.Errorf("Argo CD: %s %q, want %s with a message", h.Status, h.Message, tc.argo)
			}
			ks, msg, err := Kstatus(obj)
			if err != nil {
				t.Fatal(err)
			}
			if ks != tc.kstatus {
				t.Errorf("kstatus: %s (%s), want %s", ks, msg, tc.kstatus)
			}
		})
	}
}

// TestArgoCDConfigMap: the argocd-cm patch a platform applies carries health.lua, unchanged,
// for every kind (go test -update rewrites it).
func TestArgoCDConfigMap(t *testing.T) {
	script := readScript(t)
	cm := &corev1.ConfigMap{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Name: "argocd-cm", Namespace: "argocd", Labels: map[string]string{"app.kubernetes.io/part-of": "argocd"}},
		Data:       map[string]string{},
	}
	for _, k := range Kinds {
		cm.Data["resource.customizations.health."+k] = script
	}
	out, err := yaml.Marshal(cm)
	if err != nil {
		t.Fatal(err)
	}
	want := append([]byte("# Generated from health.lua by go test ./gitops -update in test/e2e; merge into Argo CD's argocd-cm\n# (kubectl -n argocd patch configmap argocd-cm --patch-file package/gitops/argocd-cm.yaml).\n"), out...)
	path := repoFile(t, ConfigMapPath)
	if *update {
		if err := os.WriteFile(path, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s is stale (go test ./gitops -update): -want, +got:\n%s", ConfigMapPath, diff)
	}
}
