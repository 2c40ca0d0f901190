package cli

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	clienttesting "k8s.io/client-go/testing"
)

// versioned is readyClaim asking for spec, running runs ("" for nothing yet), offered
// offered (nil: no status.offered).
func versioned(t *testing.T, spec, runs string, offered ...string) *unstructured.Unstructured {
	t.Helper()
	obj := object(t, readyClaim)
	_ = unstructured.SetNestedField(obj.Object, spec, "spec", "kubernetes", "version")
	if runs == "" {
		unstructured.RemoveNestedField(obj.Object, "status", "kubernetes")
	} else {
		_ = unstructured.SetNestedField(obj.Object, runs, "status", "kubernetes", "version")
	}
	if offered == nil {
		unstructured.RemoveNestedField(obj.Object, "status", "offered")
	} else {
		_ = unstructured.SetNestedStringSlice(obj.Object, offered, "status", "offered", "kubernetesVersions")
	}
	return obj
}

func TestUpgrade(t *testing.T) {
	offered := []string{"1.33", "1.34", "1.35"}
	for _, tc := range []struct {
		name    string
		cluster func(t *testing.T) *unstructured.Unstructured
		args    []string
		// server, when set, is the API server's answer to the patch.
		server error
		stdout string
		stderr string
		code   int
		// patch is the JSON patch sent; empty: none sent.
		patch string
	}{
		{
			name:    "one minor up",
			cluster: func(t *testing.T) *unstructured.Unstructured { return versioned(t, "1.34", "1.34.5", offered...) },
			args:    []string{"upgrade", "dev", "--to", "1.35"},
			stdout:  "scscluster.kaas.scs.community/dev upgrading: spec.kubernetes.version 1.34 -> 1.35 (the cluster runs 1.34.5)\n",
			stderr:  "Follow it with: kubectl scs wait dev -n team1 --for=ready\n",
			patch:   `[{"op":"test","path":"/spec/kubernetes/version","value":"1.34"},{"op":"replace","path":"/spec/kubernetes/version","value":"1.35"}]`,
		},
		{
			name:    "a patch of the same minor",
			cluster: func(t *testing.T) *unstructured.Unstructured { return versioned(t, "1.34", "1.34.5", offered...) },
			args:    []string{"upgrade", "dev", "--to", "1.34.6"},
			stdout:  "scscluster.kaas.scs.community/dev upgrading: spec.kubernetes.version 1.34 -> 1.34.6 (the cluster runs 1.34.5)\n",
			stderr:  "Follow it with: kubectl scs wait dev -n team1 --for=ready\n",
			patch:   `[{"op":"test","path":"/spec/kubernetes/version","value":"1.34"},{"op":"replace","path":"/spec/kubernetes/version","value":"1.34.6"}]`,
		},
		{
			name:    "back to the minor that runs, after asking too much",
			cluster: func(t *testing.T) *unstructured.Unstructured { return versioned(t, "1.35", "1.34.5", offered...) },
			args:    []string{"upgrade", "dev", "--to", "1.34"},
			stdout:  "scscluster.kaas.scs.community/dev upgrading: spec.kubernetes.version 1.35 -> 1.34 (the cluster runs 1.34.5)\n",
			stderr:  "Follow it with: kubectl scs wait dev -n team1 --for=ready\n",
			patch:   `[{"op":"test","path":"/spec/kubernetes/version","value":"1.35"},{"op":"replace","path":"/spec/kubernetes/version","value":"1.34"}]`,
		},
		{
			name:    "two minors up is refused before anything is sent",
			cluster: func(t *testing.T) *unstructured.Unstructured { return versioned(t, "1.33", "1.33.4", offered...) },
			args:    []string{"upgrade", "dev", "--to", "1.35"},
			stderr:  "error: refused: spec.kubernetes.version can move one minor at a time: it is 1.33, and the cluster runs 1.33.4, so the next is 1.34, not 1.35; upgrade to 1.34, wait until the cluster runs it (kubectl scs wait), then go on\n",
			code:    ExitRefused,
		},
		{
			name:    "a downgrade below what runs",
			cluster: func(t *testing.T) *unstructured.Unstructured { return versioned(t, "1.34", "1.34.5", offered...) },
			args:    []string{"upgrade", "dev", "--to", "1.33"},
			stderr:  "error: refused: spec.kubernetes.version cannot be downgraded from 1.34 to 1.33, and the cluster runs 1.34.5\n",
			code:    ExitRefused,
		},
		{
			name:    "a patch below the one that runs",
			cluster: func(t *testing.T) *unstructured.Unstructured { return versioned(t, "1.34", "1.34.5", offered...) },
			args:    []string{"upgrade", "dev", "--to", "1.34.2"},
			stderr:  "error: refused: spec.kubernetes.version: Forbidden: the cluster runs 1.34.5; downgrading to 1.34.2 is not supported\n",
			code:    ExitRefused,
		},
		{
			name:    "a minor up from the spec, but two from what still runs",
			cluster: func(t *testing.T) *unstructured.Unstructured { return versioned(t, "1.34", "1.33.9", offered...) },
			args:    []string{"upgrade", "dev", "--to", "1.35"},
			stderr:  "error: refused: spec.kubernetes.version: Forbidden: the cluster runs 1.33.9; upgrade one minor at a time (next: 1.34), not to 1.35\n",
			code:    ExitRefused,
		},
		{
			name:    "a minor the environment does not offer",
			cluster: func(t *testing.T) *unstructured.Unstructured { return versioned(t, "1.35", "1.35.1", offered...) },
			args:    []string{"upgrade", "dev", "--to", "1.36"},
			stderr:  "error: refused: Kubernetes 1.36 is not offered to this cluster: environment gardener-regionone offers 1.33, 1.34, 1.35 (status.offered.kubernetesVersions)\n",
			code:    ExitRefused,
		},
		{
			name:    "no offer reported yet: sent, with a warning",
			cluster: func(t *testing.T) *unstructured.Unstructured { return versioned(t, "1.34", "") },
			args:    []string{"upgrade", "dev", "--to", "1.35"},
			stdout:  "scscluster.kaas.scs.community/dev upgrading: spec.kubernetes.version 1.34 -> 1.35\n",
			stderr:  "Warning: team1/dev reports no offered versions yet (status.offered); the function checks 1.35 against its environment after the change\nFollow it with: kubectl scs wait dev -n team1 --for=ready\n",
			patch:   `[{"op":"test","path":"/spec/kubernetes/version","value":"1.34"},{"op":"replace","path":"/spec/kubernetes/version","value":"1.35"}]`,
		},
		{
			name:    "already there",
			cluster: func(t *testing.T) *unstructured.Unstructured { return versioned(t, "1.35", "1.34.5", offered...) },
			args:    []string{"upgrade", "dev", "--to", "1.35"},
			stdout:  "scscluster.kaas.scs.community/dev already asks for Kubernetes 1.35; nothing to do\n",
		},
		{
			name:    "a client dry run checks and sends nothing",
			cluster: func(t *testing.T) *unstructured.Unstructured { return versioned(t, "1.34", "1.34.5", offered...) },
			args:    []string{"upgrade", "dev", "--to", "1.35", "--dry-run=client"},
			stdout:  "scscluster.kaas.scs.community/dev upgrading: spec.kubernetes.version 1.34 -> 1.35 (the cluster runs 1.34.5) (dry run)\n",
		},
		{
			name:    "the API server's refusal is a refusal too",
			cluster: func(t *testing.T) *unstructured.Unstructured { return versioned(t, "1.34", "1.34.5", offered...) },
			args:    []string{"upgrade", "dev", "--to", "1.35"},
			server: apierrors.NewInvalid(schema.GroupKind{Group: "kaas.scs.community", Kind: "SCSCluster"}, "dev",
				field.ErrorList{field.Invalid(field.NewPath("spec", "kubernetes", "version"), "1.35", "spec.kubernetes.version can move one minor at a time")}),
			stderr: "error: upgrading SCSCluster team1/dev to 1.35 refused by the API server: SCSCluster.kaas.scs.community \"dev\" is invalid: spec.kubernetes.version: Invalid value: \"1.35\": spec.kubernetes.version can move one minor at a time\n",
			code:   ExitRefused,
			patch:  `[{"op":"test","path":"/spec/kubernetes/version","value":"1.34"},{"op":"replace","path":"/spec/kubernetes/version","value":"1.35"}]`,
		},
		{
			name:    "not a version",
			cluster: func(t *testing.T) *unstructured.Unstructured { return versioned(t, "1.34", "1.34.5", offered...) },
			args:    []string{"upgrade", "dev", "--to", "v1.35"},
			stderr:  "error: \"v1.35\" is not a Kubernetes version such as 1.35 or 1.35.2\n",
			code:    ExitUsage,
		},
		{
			name:   "--to is required",
			args:   []string{"upgrade", "dev"},
			stderr: "error: --to is required: the Kubernetes version to move to, such as 1.35 (or --environment, to adopt the environment's current values)\n",
			code:   ExitUsage,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var objs []*unstructured.Unstructured
			if tc.cluster != nil {
				objs = append(objs, tc.cluster(t))
			}
			h := newHarness(t, flavourLegacy, objs...)
			if tc.server != nil {
				h.dyn.PrependReactor("patch", "scsclusters", func(clienttesting.Action) (bool, runtime.Object, error) {
					return true, nil, tc.server
				})
			}
			stdout, stderr, code := h.run("", tc.args...)
			if diff := cmp.Diff(tc.stdout, stdout); diff != "" {
				t.Errorf("stdout (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.stderr, stderr); diff != "" {
				t.Errorf("stderr (-want +got):\n%s", diff)
			}
			if code != tc.code {
				t.Errorf("exit code %d, want %d", code, tc.code)
			}
			if diff := cmp.Diff(tc.patch, sentPatch(t, h)); diff != "" {
				t.Errorf("patch sent (-want +got):\n%s", diff)
			}
		})
	}
}

// sentPatch is the one patch the command sent, with its field manager checked; "" when
// none was sent.
func sentPatch(t *testing.T, h *harness) string {
	t.Helper()
	patches := h.actions("patch")
	switch len(patches) {
	case 0:
		return ""
	case 1:
	default:
		t.Fatalf("%d patches sent, want at most one", len(patches))
	}
	p := patches[0].(clienttesting.PatchActionImpl)
	if got := p.PatchOptions.FieldManager; got != FieldManager {
		t.Errorf("field manager %q, want %q", got, FieldManager)
	}
	return string(p.GetPatch())
}
