package cli

import (
	"context"
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	clienttesting "k8s.io/client-go/testing"
	"sigs.k8s.io/yaml"

	"github.com/SovereignCloudStack/scs-kaas/clients/kubectl-scs/internal/conformance"
)

const conformanceEnvironment = `
apiVersion: apiextensions.crossplane.io/v1beta1
kind: EnvironmentConfig
metadata:
  name: gardener-regionone
  labels: {kaas.scs.community/environment: gardener-regionone}
data:
  backend: gardener
  access: {namespaces: [team1]}
  catalog:
    kubernetesVersions: ["1.34"]
    machineTypes: [SCS-2V-4]
`

// fakeCluster answers like a cluster of Kubernetes answers; it has no nodes.
type fakeCluster struct{ answers string }

func (f fakeCluster) ServerVersion(context.Context) (string, error) { return f.answers, nil }
func (f fakeCluster) NodeZones(context.Context) (map[string]string, error) {
	return map[string]string{}, nil
}

// playProvider makes the harness's fake API server act as the provider's: created clusters
// get a kubeconfig Secret and read as Ready at what their spec asks for.
func playProvider(h *harness) {
	tracker := h.dyn.Tracker()
	h.dyn.PrependReactor("create", "scsclusters", func(a clienttesting.Action) (bool, runtime.Object, error) {
		obj := a.(clienttesting.CreateAction).GetObject().(*unstructured.Unstructured)
		enc := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
		secret := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "v1", "kind": "Secret",
			"metadata": map[string]any{"name": obj.GetName() + "-kubeconfig", "namespace": obj.GetNamespace()},
			"data":     map[string]any{"kubeconfig": enc("kubeconfig"), "endpoint": enc("https://127.0.0.1"), "ca.crt": enc("ca")},
		}}
		return false, nil, tracker.Create(secretGVR, secret, obj.GetNamespace())
	})
	h.dyn.PrependReactor("get", "scsclusters", func(a clienttesting.Action) (bool, runtime.Object, error) {
		g := a.(clienttesting.GetAction)
		o, err := tracker.Get(clusterGVR, g.GetNamespace(), g.GetName())
		if err != nil {
			return true, nil, err
		}
		obj := o.(*unstructured.Unstructured).DeepCopy()
		pools, _, _ := unstructured.NestedSlice(obj.Object, "spec", "nodePools")
		status := make([]any, 0, len(pools))
		for _, p := range pools {
			m := p.(map[string]any)
			bounds := m["autoscaling"].(map[string]any)
			status = append(status, map[string]any{"name": m["name"], "min": bounds["min"], "max": bounds["max"]})
		}
		obj.Object["status"] = map[string]any{
			"kubernetes": map[string]any{"version": str(obj, "spec", "kubernetes", "version")},
			"nodePools":  status,
			"conditions": []any{map[string]any{"type": "Ready", "status": "True"}},
		}
		return true, obj, nil
	})
	// As the XRD's rule does, a downgrade is refused naming the field.
	h.dyn.PrependReactor("patch", "scsclusters", func(a clienttesting.Action) (bool, runtime.Object, error) {
		if p := string(a.(clienttesting.PatchAction).GetPatch()); strings.Contains(p, `"value":"1.33"`) {
			return true, nil, apierrors.NewInvalid(schema.GroupKind{Group: "kaas.scs.community", Kind: "SCSCluster"}, a.(clienttesting.PatchAction).GetName(),
				field.ErrorList{field.Forbidden(field.NewPath("spec", "kubernetes", "version"), "cannot be downgraded from 1.34 to 1.33")})
		}
		return false, nil, nil
	})
}

func TestConformanceCommand(t *testing.T) {
	for _, c := range []struct {
		name, answers string
		args          []string
		code          int
		stdout        []string
		stderr        string
	}{
		{name: "no environment", args: nil, code: ExitUsage, stderr: "--environment is required"},
		{name: "not a minor", args: []string{"--environment", "gardener-regionone", "--minors", "1.34.2"}, code: ExitUsage,
			stderr: `--minors takes Kubernetes minors such as 1.34, not "1.34.2"`},
		{name: "an environment not offered", args: []string{"--environment", "elsewhere"}, code: ExitError,
			stdout: []string{"- FAIL (0 passed, 1 failed, 1 skipped)", "FAILED  environment-offers"},
			stderr: "error: environment elsewhere does not conform: 1 checks failed, 0 clusters left"},
		{name: "conforms", answers: "v1.34.2", args: []string{"--environment", "gardener-regionone"}, code: ExitOK,
			stdout: []string{
				"- PASS (6 passed, 3 skipped)",
				"PASSED  create-ready-1.34", "PASSED  kubeconfig-version-1.34", "SKIPPED node-zones-1.34", "SKIPPED addons-1.34",
				"PASSED  scale-pool", "SKIPPED upgrade-minor", "PASSED  refused-change", "PASSED  delete-cleanup",
			}},
		{name: "answers with another minor", answers: "v1.35.0", args: []string{"--environment", "gardener-regionone"}, code: ExitError,
			stdout: []string{"FAILED  kubeconfig-version-1.34", "answers with Kubernetes v1.35.0, not 1.34"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, flavourNamespaced, object(t, conformanceEnvironment))
			playProvider(h)
			saved := connectWorkload
			connectWorkload = func([]byte) (conformance.Workload, error) { return fakeCluster{answers: c.answers}, nil }
			t.Cleanup(func() { connectWorkload = saved })
			report := filepath.Join(t.TempDir(), "report.yaml")
			args := append([]string{"conformance", "--timeout", "1s", "--report", report}, c.args...)
			stdout, stderr, code := h.run("", args...)
			if code != c.code {
				t.Fatalf("exit code %d, want %d\nstdout:\n%s\nstderr:\n%s", code, c.code, stdout, stderr)
			}
			for _, want := range c.stdout {
				if !strings.Contains(stdout, want) {
					t.Errorf("stdout lacks %q:\n%s", want, stdout)
				}
			}
			if !strings.Contains(stderr, c.stderr) {
				t.Errorf("stderr lacks %q:\n%s", c.stderr, stderr)
			}
			if strings.Contains(stdout+stderr, "kubeconfig\n") {
				t.Error("a kubeconfig reached the output")
			}
			if c.code == ExitUsage {
				return
			}
			data, err := os.ReadFile(report)
			if err != nil {
				t.Fatalf("no report: %v", err)
			}
			var r conformance.Report
			if err := yaml.UnmarshalStrict(data, &r); err != nil {
				t.Fatalf("report: %v\n%s", err, data)
			}
			if r.Subject != c.args[1] || len(r.Run.Invocations) != 1 || r.Spec.Name == "" {
				t.Errorf("report subject %q, %d invocations, spec %+v", r.Subject, len(r.Run.Invocations), r.Spec)
			}
			for _, inv := range r.Run.Invocations {
				if inv.RC != c.code {
					t.Errorf("report rc %d, want %d", inv.RC, c.code)
				}
			}
			if got := h.actions("delete"); c.answers != "" && len(got) != 1 {
				t.Errorf("%d deletes, want the one cluster the run created", len(got))
			}
		})
	}
}
