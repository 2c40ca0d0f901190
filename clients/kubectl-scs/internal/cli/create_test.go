package cli

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
	clienttesting "k8s.io/client-go/testing"
)

// manifest is an SCSCluster as a team writes it.
const manifest = `apiVersion: kaas.scs.community/v1alpha1
kind: SCSCluster
metadata:
  name: dev
spec:
  kubernetes:
    version: "1.34"
  nodePools:
  - name: default
    machineType: SCS-4V-8
    autoscaling: {min: 1, max: 3}
  writeConnectionSecretToRef:
    name: dev-kubeconfig
`

func TestCreateAndApply(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "dev.yaml")
	if err := os.WriteFile(file, []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	second := filepath.Join(dir, "web.yaml")
	if err := os.WriteFile(second, []byte("apiVersion: kaas.scs.community/v1alpha1\nkind: SCSCluster\nmetadata: {name: web, namespace: team2}\nspec: {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	invalid := apierrors.NewInvalid(schema.GroupKind{Group: "kaas.scs.community", Kind: "SCSCluster"}, "dev",
		field.ErrorList{field.Invalid(field.NewPath("spec", "nodePools").Index(0), "", "set exactly one of count (a fixed size) or autoscaling (min and max) on a node pool")})
	for _, tc := range []struct {
		name     string
		existing []string
		// server, when set, is the API server's answer to the write.
		server error
		stdin  string
		args   []string
		stdout string
		stderr string
		code   int
		// sent is what reached the API server: verb, namespace/name, field manager, force.
		sent []string
	}{
		{
			name:   "create, in the current namespace",
			args:   []string{"create", "-f", file},
			stdout: "scscluster.kaas.scs.community/dev created\n",
			sent:   []string{"create team1/dev kubectl-scs Strict"},
		},
		{
			name:   "create from stdin into -n, printed by name",
			stdin:  manifest,
			args:   []string{"create", "-f", "-", "-n", "team2", "-o", "name"},
			stdout: "scscluster.kaas.scs.community/dev\n",
			sent:   []string{"create team2/dev kubectl-scs Strict"},
		},
		{
			name:     "create of an existing one",
			existing: []string{readyClaim},
			args:     []string{"create", "-f", file},
			stderr:   "error: SCSCluster team1/dev already exists: apply changes it\n",
			code:     ExitError,
			sent:     []string{"create team1/dev kubectl-scs Strict"},
		},
		{
			name:   "the API server's validation refuses",
			server: invalid,
			args:   []string{"create", "-f", file},
			stderr: "error: creating SCSCluster team1/dev refused by the API server: SCSCluster.kaas.scs.community \"dev\" is invalid: spec.nodePools[0]: Invalid value: \"\": set exactly one of count (a fixed size) or autoscaling (min and max) on a node pool\n",
			code:   ExitRefused,
			sent:   []string{"create team1/dev kubectl-scs Strict"},
		},
		{
			name:   "apply a directory: server-side apply as kubectl-scs",
			args:   []string{"apply", "-f", dir},
			stdout: "scscluster.kaas.scs.community/dev serverside-applied\nscscluster.kaas.scs.community/web serverside-applied\n",
			sent:   []string{"apply team1/dev kubectl-scs false", "apply team2/web kubectl-scs false"},
		},
		{
			name:   "apply taking over fields",
			args:   []string{"apply", "-f", file, "--force-conflicts"},
			stdout: "scscluster.kaas.scs.community/dev serverside-applied\n",
			sent:   []string{"apply team1/dev kubectl-scs true"},
		},
		{
			name:   "a conflict says how to go on",
			server: apierrors.NewConflict(schema.GroupResource{Group: "kaas.scs.community", Resource: "scsclusters"}, "dev", errConflict),
			args:   []string{"apply", "-f", file},
			stderr: "error: applying SCSCluster team1/dev: Operation cannot be fulfilled on scsclusters.kaas.scs.community \"dev\": Apply failed with 1 conflict: conflict with \"argocd-controller\": .spec.kubernetes.version\nAnother field manager owns these fields; apply from where it does, or take them over with --force-conflicts\n",
			code:   ExitError,
			sent:   []string{"apply team1/dev kubectl-scs false"},
		},
		{
			name:   "a client dry run sends nothing",
			args:   []string{"apply", "-f", file, "--dry-run=client"},
			stdout: "scscluster.kaas.scs.community/dev serverside-applied (dry run)\n",
		},
		{
			name:   "-n names another namespace than the manifest",
			args:   []string{"apply", "-f", second, "-n", "team1"},
			stderr: "error: the namespace of SCSCluster \"web\" is \"team2\", not \"team1\" as -n says\n",
			code:   ExitUsage,
		},
		{
			name:   "only SCSClusters",
			stdin:  "apiVersion: kaas.scs.community/v1alpha1\nkind: XSCSCluster\nmetadata: {name: x}\n",
			args:   []string{"create", "-f", "-"},
			stderr: "error: XSCSCluster \"x\" is not an kaas.scs.community/v1alpha1 SCSCluster: XSCSCluster is the platform's cluster-scoped composite; teams write SCSCluster\n",
			code:   ExitUsage,
		},
		{
			name:   "-f is required",
			args:   []string{"apply"},
			stderr: "error: -f is required: the SCSCluster manifests to send\n",
			code:   ExitUsage,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, flavourLegacy)
			for _, o := range tc.existing {
				if err := h.dyn.Tracker().Add(object(t, o)); err != nil {
					t.Fatal(err)
				}
			}
			var sent []string
			h.dyn.PrependReactor("*", "scsclusters", func(a clienttesting.Action) (bool, runtime.Object, error) {
				switch a := a.(type) {
				case clienttesting.CreateActionImpl:
					obj := a.GetObject().(*unstructured.Unstructured)
					sent = append(sent, "create "+a.GetNamespace()+"/"+obj.GetName()+" "+a.CreateOptions.FieldManager+" "+a.CreateOptions.FieldValidation)
				case clienttesting.PatchActionImpl:
					if a.GetPatchType() != types.ApplyPatchType {
						t.Errorf("patch of type %s, want server-side apply", a.GetPatchType())
					}
					force := a.PatchOptions.Force != nil && *a.PatchOptions.Force
					sent = append(sent, "apply "+a.GetNamespace()+"/"+a.GetName()+" "+a.PatchOptions.FieldManager+" "+map[bool]string{true: "true", false: "false"}[force])
					if tc.server == nil {
						// The fake tracker cannot apply what does not exist: answer as the
						// API server does, with the object applied.
						obj := &unstructured.Unstructured{}
						if err := obj.UnmarshalJSON(a.GetPatch()); err != nil {
							t.Fatal(err)
						}
						return true, obj, nil
					}
				default:
					return false, nil, nil
				}
				if tc.server != nil {
					return true, nil, tc.server
				}
				return false, nil, nil
			})
			stdout, stderr, code := h.run(tc.stdin, tc.args...)
			if diff := cmp.Diff(tc.stdout, stdout); diff != "" {
				t.Errorf("stdout (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.stderr, stderr); diff != "" {
				t.Errorf("stderr (-want +got):\n%s", diff)
			}
			if code != tc.code {
				t.Errorf("exit code %d, want %d", code, tc.code)
			}
			if diff := cmp.Diff(tc.sent, sent); diff != "" {
				t.Errorf("requests (-want +got):\n%s", diff)
			}
		})
	}
}

type conflictError struct{}

func (conflictError) Error() string {
	return `Apply failed with 1 conflict: conflict with "argocd-controller": .spec.kubernetes.version`
}

var errConflict = conflictError{}
