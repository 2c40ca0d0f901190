package cli

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	clienttesting "k8s.io/client-go/testing"
)

// stage is the claim as one GET of a wait sees it: phase, BackendReady, Ready, Stalled.
func stage(t *testing.T, phase, backendReady, ready, stalled string) runtime.Object {
	t.Helper()
	var conds []string
	if backendReady != "" {
		conds = append(conds, "{type: BackendReady, "+backendReady+"}")
	}
	if ready != "" {
		conds = append(conds, "{type: Ready, status: \""+ready+"\"}")
	}
	if stalled != "" {
		conds = append(conds, "{type: Stalled, "+stalled+"}")
	}
	return object(t, `
apiVersion: kaas.scs.community/v1alpha1
kind: SCSCluster
metadata: {name: dev, namespace: team1, generation: 3}
spec: {compositeDeletePolicy: Background}
status:
  phase: "`+phase+`"
  conditions: [`+strings.Join(conds, ", ")+`]
`)
}

func TestWait(t *testing.T) {
	creating := `status: "False", reason: Creating, message: the Shoot does not exist in the garden cluster yet`
	processing := `status: "False", reason: Processing, message: Waiting until the Kubernetes API server is ready`
	quota := `status: "False", reason: ERR_INFRA_QUOTA_EXCEEDED, message: "Quota exceeded for resources: [floatingip]"`
	healthy := `status: "True", reason: Healthy, message: the Shoot is reconciled and all health checks pass`
	for _, tc := range []struct {
		name string
		// stages are what successive GETs return; the last one repeats. nil: not found.
		stages func(t *testing.T) []runtime.Object
		args   []string
		stdout string
		stderr string
		code   int
	}{
		{
			name: "a line per change, then ready",
			stages: func(t *testing.T) []runtime.Object {
				return []runtime.Object{
					stage(t, "Provisioning", creating, "False", ""),
					stage(t, "Provisioning", creating, "False", ""),
					stage(t, "Provisioning", processing, "False", ""),
					stage(t, "Provisioning", quota, "False", ""),
					stage(t, "Ready", healthy, "True", ""),
				}
			},
			args:   []string{"wait", "dev", "--for=ready"},
			stdout: "scscluster.kaas.scs.community/dev condition met\n",
			stderr: `[0s] dev: phase Provisioning, BackendReady False (Creating): the Shoot does not exist in the garden cluster yet
[0s] dev: phase Provisioning, BackendReady False (Processing): Waiting until the Kubernetes API server is ready
[0s] dev: phase Provisioning, BackendReady False (ERR_INFRA_QUOTA_EXCEEDED): Quota exceeded for resources: [floatingip]
[0s] dev: phase Ready, BackendReady True (Healthy): the Shoot is reconciled and all health checks pass
`,
		},
		{
			name: "not ready by the timeout",
			stages: func(t *testing.T) []runtime.Object {
				return []runtime.Object{stage(t, "Provisioning", creating, "False", "")}
			},
			args: []string{"wait", "dev", "--timeout=20ms"},
			stderr: `[0s] dev: phase Provisioning, BackendReady False (Creating): the Shoot does not exist in the garden cluster yet
error: SCSCluster team1/dev is not ready after 20ms: phase Provisioning, BackendReady False (Creating): the Shoot does not exist in the garden cluster yet
`,
			code: ExitNotReady,
		},
		{
			name: "a refusal of the current spec ends the wait at once",
			stages: func(t *testing.T) []runtime.Object {
				return []runtime.Object{stage(t, "", "", "False",
					`status: "True", reason: InvalidSpec, observedGeneration: 3, message: "spec.nodePools[0].machineType: Unsupported value"`)}
			},
			args: []string{"wait", "dev"},
			stderr: `[0s] dev: phase not reported yet, BackendReady not reported
error: SCSCluster team1/dev will not become ready: Stalled True (InvalidSpec): spec.nodePools[0].machineType: Unsupported value
`,
			code: ExitRefused,
		},
		{
			name: "a refusal of an older spec does not: the fix may be on its way",
			stages: func(t *testing.T) []runtime.Object {
				return []runtime.Object{
					stage(t, "", "", "False", `status: "True", reason: InvalidSpec, observedGeneration: 2, message: old`),
					stage(t, "Ready", healthy, "True", ""),
				}
			},
			args:   []string{"wait", "dev"},
			stdout: "scscluster.kaas.scs.community/dev condition met\n",
			stderr: `[0s] dev: phase not reported yet, BackendReady not reported
[0s] dev: phase Ready, BackendReady True (Healthy): the Shoot is reconciled and all health checks pass
`,
		},
		{
			name: "until deleted",
			stages: func(t *testing.T) []runtime.Object {
				return []runtime.Object{stage(t, "Deleting", healthy, "False", ""), nil}
			},
			args:   []string{"wait", "dev", "--for=delete"},
			stdout: "scscluster.kaas.scs.community/dev deleted\n",
			stderr: "[0s] dev: phase Deleting, BackendReady True (Healthy): the Shoot is reconciled and all health checks pass\n",
		},
		{
			name:   "a missing cluster is an error, not a wait",
			stages: func(*testing.T) []runtime.Object { return []runtime.Object{nil} },
			args:   []string{"wait", "dev"},
			stderr: "error: SCSCluster team1/dev not found\n",
			code:   ExitError,
		},
		{
			name:   "an unknown --for",
			stages: func(*testing.T) []runtime.Object { return nil },
			args:   []string{"wait", "dev", "--for=healthy"},
			stderr: "error: --for must be ready or delete, not \"healthy\"\n",
			code:   ExitUsage,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, flavourLegacy)
			stages := tc.stages(t)
			h.dyn.PrependReactor("get", "scsclusters", func(clienttesting.Action) (bool, runtime.Object, error) {
				s := stages[0]
				if len(stages) > 1 {
					stages = stages[1:]
				}
				if s == nil {
					return true, nil, apierrors.NewNotFound(clusterGVR.GroupResource(), "dev")
				}
				return true, s.DeepCopyObject(), nil
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
		})
	}
}
