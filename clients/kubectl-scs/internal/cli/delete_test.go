package cli

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clienttesting "k8s.io/client-go/testing"
)

// protectionRefusal is what the API server answers when the deletion-protection policy
// (package/deletion-protection.yaml) refuses a DELETE.
var protectionRefusal = apierrors.NewForbidden(schema.GroupResource{Group: "kaas.scs.community", Resource: "scsclusters"}, "prod",
	errors.New("ValidatingAdmissionPolicy 'deletion-protection.kaas.scs.community' with binding 'deletion-protection.kaas.scs.community' denied request: SCSCluster team1/prod has deletion protection on (spec.deletionProtection, defaulted by purpose production); set spec.deletionProtection to false, wait until it is Synced, then delete it"))

func TestDelete(t *testing.T) {
	for _, tc := range []struct {
		name    string
		objects []string
		// refuse is the API server's answer to the DELETE; nil: it deletes.
		refuse error
		args   []string
		stdout string
		stderr string
		code   int
		// deletes is how many DELETEs were sent.
		deletes int
	}{
		{
			name:    "deleted",
			objects: []string{readyClaim},
			args:    []string{"delete", "dev"},
			stdout:  "scscluster.kaas.scs.community/dev deleted\n",
			deletes: 1,
		},
		{
			name:    "deleted, and waited for",
			objects: []string{readyClaim},
			args:    []string{"delete", "dev", "--wait"},
			stdout:  "scscluster.kaas.scs.community/dev deleted\n",
			deletes: 1,
		},
		{
			name:    "refused by deletion protection: says which field and how to release it",
			objects: []string{`{"apiVersion": "kaas.scs.community/v1alpha1", "kind": "SCSCluster", "metadata": {"name": "prod", "namespace": "team1"}, "spec": {"purpose": "production"}}`},
			refuse:  protectionRefusal,
			args:    []string{"delete", "prod"},
			stderr: `error: deletion of SCSCluster team1/prod refused by the deletion-protection admission policy: SCSCluster team1/prod has deletion protection on (spec.deletionProtection, defaulted by purpose production); set spec.deletionProtection to false, wait until it is Synced, then delete it
To delete it with its cluster: set spec.deletionProtection: false in its manifest and apply it
  (or: kubectl -n team1 patch scscluster prod --type=merge -p '{"spec":{"deletionProtection":false}}'),
  wait until it is Synced and Rendered again, then delete it.
To let the object go and keep the cluster running: annotate it kaas.scs.community/deletion-policy=Orphan
  (kubectl -n team1 annotate scscluster prod kaas.scs.community/deletion-policy=Orphan), wait until status.backend.deletionPolicy
  says Orphan, then delete it.
See docs/deletion-protection.md.
`,
			code:    ExitRefused,
			deletes: 1,
		},
		{
			name:    "other refusals are errors as they are",
			objects: []string{readyClaim},
			refuse:  apierrors.NewForbidden(schema.GroupResource{Group: "kaas.scs.community", Resource: "scsclusters"}, "dev", errors.New(`User "alice" cannot delete resource`)),
			args:    []string{"delete", "dev"},
			stderr:  "error: deleting SCSCluster team1/dev: scsclusters.kaas.scs.community \"dev\" is forbidden: User \"alice\" cannot delete resource\n",
			code:    ExitError,
			deletes: 1,
		},
		{
			name:    "an orphaning deletion says the cluster stays",
			objects: []string{`{"apiVersion": "kaas.scs.community/v1alpha1", "kind": "SCSCluster", "metadata": {"name": "old", "namespace": "team1"}, "status": {"backend": {"deletionPolicy": "Orphan"}}}`},
			args:    []string{"delete", "old"},
			stdout:  "scscluster.kaas.scs.community/old deleted (its cluster is left running: status.backend.deletionPolicy is Orphan)\n",
			deletes: 1,
		},
		{
			name:    "a server dry run",
			objects: []string{readyClaim},
			args:    []string{"delete", "dev", "--dry-run=server"},
			stdout:  "scscluster.kaas.scs.community/dev deleted (server dry run)\n",
			deletes: 1,
		},
		{
			name:   "a missing name",
			args:   []string{"delete", "nope"},
			stderr: "error: SCSCluster team1/nope not found\n",
			code:   ExitError,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, flavourLegacy)
			for _, o := range tc.objects {
				if err := h.dyn.Tracker().Add(object(t, o)); err != nil {
					t.Fatal(err)
				}
			}
			var dryRun []string
			h.dyn.PrependReactor("delete", "scsclusters", func(a clienttesting.Action) (bool, runtime.Object, error) {
				dryRun = a.(clienttesting.DeleteActionImpl).DeleteOptions.DryRun
				if tc.refuse != nil {
					return true, nil, tc.refuse
				}
				if len(dryRun) > 0 {
					return true, nil, nil
				}
				return false, nil, nil
			})
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
			if got := len(h.actions("delete")); got != tc.deletes {
				t.Errorf("%d DELETEs sent, want %d", got, tc.deletes)
			}
			if want := []string{metav1.DryRunAll}; tc.name == "a server dry run" && !cmp.Equal(dryRun, want) {
				t.Errorf("dryRun %v, want %v", dryRun, want)
			}
		})
	}
}
