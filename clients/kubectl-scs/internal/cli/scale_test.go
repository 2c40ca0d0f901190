package cli

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func TestScale(t *testing.T) {
	for _, tc := range []struct {
		name   string
		args   []string
		stdout string
		stderr string
		code   int
		patch  string
		// pools is the claim's spec.nodePools afterwards, when the patch went through.
		pools []any
	}{
		{
			name:   "new autoscaling bounds",
			args:   []string{"scale", "dev", "default", "--min", "2", "--max", "5"},
			stdout: "scscluster.kaas.scs.community/dev scaled: pool default autoscaling 1-3 -> autoscaling 2-5\n",
			patch:  `[{"op":"test","path":"/spec/nodePools/0/name","value":"default"},{"op":"add","path":"/spec/nodePools/0/autoscaling","value":{"max":5,"min":2}}]`,
			pools: []any{
				map[string]any{"name": "default", "machineType": "SCS-4V-8", "autoscaling": map[string]any{"min": int64(2), "max": int64(5)}},
				map[string]any{"name": "ingress", "machineType": "SCS-2V-4", "count": int64(2)},
			},
		},
		{
			name:   "from autoscaling to a fixed count",
			args:   []string{"scale", "dev", "default", "--count", "4"},
			stdout: "scscluster.kaas.scs.community/dev scaled: pool default autoscaling 1-3 -> count 4\n",
			patch:  `[{"op":"test","path":"/spec/nodePools/0/name","value":"default"},{"op":"add","path":"/spec/nodePools/0/count","value":4},{"op":"remove","path":"/spec/nodePools/0/autoscaling"}]`,
			pools: []any{
				map[string]any{"name": "default", "machineType": "SCS-4V-8", "count": int64(4)},
				map[string]any{"name": "ingress", "machineType": "SCS-2V-4", "count": int64(2)},
			},
		},
		{
			name:   "from a fixed count to autoscaling",
			args:   []string{"scale", "dev", "ingress", "--min", "0", "--max", "3"},
			stdout: "scscluster.kaas.scs.community/dev scaled: pool ingress count 2 -> autoscaling 0-3\n",
			patch:  `[{"op":"test","path":"/spec/nodePools/1/name","value":"ingress"},{"op":"add","path":"/spec/nodePools/1/autoscaling","value":{"max":3,"min":0}},{"op":"remove","path":"/spec/nodePools/1/count"}]`,
			pools: []any{
				map[string]any{"name": "default", "machineType": "SCS-4V-8", "autoscaling": map[string]any{"min": int64(1), "max": int64(3)}},
				map[string]any{"name": "ingress", "machineType": "SCS-2V-4", "autoscaling": map[string]any{"min": int64(0), "max": int64(3)}},
			},
		},
		{
			name:   "already so",
			args:   []string{"scale", "dev", "ingress", "--count", "2"},
			stdout: "scscluster.kaas.scs.community/dev pool ingress is already count 2; nothing to do\n",
		},
		{
			name:   "server dry run",
			args:   []string{"scale", "dev", "ingress", "--count", "3", "--dry-run=server"},
			stdout: "scscluster.kaas.scs.community/dev scaled: pool ingress count 2 -> count 3 (server dry run)\n",
			patch:  `[{"op":"test","path":"/spec/nodePools/1/name","value":"ingress"},{"op":"add","path":"/spec/nodePools/1/count","value":3}]`,
		},
		{
			name:   "an unknown pool",
			args:   []string{"scale", "dev", "gpu", "--count", "1"},
			stderr: "error: SCSCluster team1/dev has no node pool \"gpu\"; its pools: default, ingress\n",
			code:   ExitError,
		},
		{
			name:   "count and bounds together",
			args:   []string{"scale", "dev", "default", "--count", "1", "--max", "3"},
			stderr: "error: give either --count, or --min and --max\n",
			code:   ExitUsage,
		},
		{
			name:   "min without max",
			args:   []string{"scale", "dev", "default", "--min", "1"},
			stderr: "error: --min and --max go together\n",
			code:   ExitUsage,
		},
		{
			name:   "min above max",
			args:   []string{"scale", "dev", "default", "--min", "4", "--max", "3"},
			stderr: "error: --min 4 is greater than --max 3\n",
			code:   ExitUsage,
		},
		{
			name:   "a count beyond the API's bound",
			args:   []string{"scale", "dev", "default", "--count", "1001"},
			stderr: "error: --count must be between 0 and 1000\n",
			code:   ExitUsage,
		},
		{
			name:   "the pool is missing",
			args:   []string{"scale", "dev", "--count", "1"},
			stderr: "error: kubectl scs scale takes NAME and POOL; see kubectl scs scale --help\n",
			code:   ExitUsage,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, flavourLegacy, object(t, readyClaim))
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
			if tc.pools == nil {
				return
			}
			obj, err := h.dyn.Tracker().Get(clusterGVR, "team1", "dev")
			if err != nil {
				t.Fatal(err)
			}
			pools, _, _ := unstructured.NestedSlice(obj.(*unstructured.Unstructured).Object, "spec", "nodePools")
			if diff := cmp.Diff(tc.pools, pools); diff != "" {
				t.Errorf("spec.nodePools after the patch (-want +got):\n%s", diff)
			}
		})
	}
}
