package cli

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// namespacedCluster is a Crossplane v2 namespaced SCSCluster in team2, on its way.
const namespacedCluster = `
apiVersion: kaas.scs.community/v1alpha1
kind: SCSCluster
metadata:
  name: web
  namespace: team2
  creationTimestamp: "2026-11-30T12:00:00Z"
spec:
  crossplane:
    compositionRef: {name: scsclusters.kaas.scs.community}
    compositionRevisionRef: {name: scsclusters.kaas.scs.community-1a2b3c4}
  kubernetes: {version: "1.34"}
  nodePools:
  - {name: default, machineType: SCS-4V-8, count: 3}
status:
  phase: Provisioning
  backend: {type: clusterstack, environment: clusterstack-regionone, name: web-k2p9q1}
  conditions:
  - {type: Synced, status: "True", reason: ReconcileSuccess}
  - {type: Ready, status: "False", reason: Creating}
`

func TestGet(t *testing.T) {
	for _, tc := range []struct {
		name    string
		flavour flavour
		objects []string
		args    []string
		stdout  string
		stderr  string
		code    int
	}{
		{
			name:    "a namespace's claims with the columns of kubectl get kaas",
			flavour: flavourLegacy,
			objects: []string{readyClaim, newClaim},
			args:    []string{"get"},
			stdout: `NAME    ENVIRONMENT          BACKEND    VERSION   PHASE   SYNCED   READY   CONNECTION-SECRET   AGE
dev     gardener-regionone   gardener   1.34.5    Ready   True     True    dev-kubeconfig      12m
fresh                                                                                          30s
`,
		},
		{
			name:    "list is get without names",
			flavour: flavourLegacy,
			objects: []string{readyClaim, newClaim},
			args:    []string{"list", "-o", "name"},
			stdout:  "scscluster.kaas.scs.community/dev\nscscluster.kaas.scs.community/fresh\n",
		},
		{
			name:    "wide adds the priority columns",
			flavour: flavourLegacy,
			objects: []string{readyClaim},
			args:    []string{"get", "dev", "-o", "wide"},
			stdout: `NAME   ENVIRONMENT          BACKEND    VERSION   PHASE   API-SERVER                                          BACKEND-NAME   SYNCED   READY   CONNECTION-SECRET   AGE
dev    gardener-regionone   gardener   1.34.5    Ready   https://api.dev-mfn4yr.team1.gardener.example.com   dev-mfn4yr     True     True    dev-kubeconfig      12m
`,
		},
		{
			name:    "namespaced composites show Crossplane's composition column",
			flavour: flavourNamespaced,
			objects: []string{namespacedCluster},
			args:    []string{"get", "-n", "team2", "-o", "wide"},
			stdout: `NAME   ENVIRONMENT              BACKEND        VERSION   PHASE          API-SERVER   BACKEND-NAME   SYNCED   READY   COMPOSITION                      COMPOSITIONREVISION                      AGE
web    clusterstack-regionone   clusterstack             Provisioning                web-k2p9q1     True     False   scsclusters.kaas.scs.community   scsclusters.kaas.scs.community-1a2b3c4   24h
`,
		},
		{
			name:    "all namespaces",
			flavour: flavourNamespaced,
			objects: []string{namespacedCluster, `{"apiVersion": "kaas.scs.community/v1alpha1", "kind": "SCSCluster", "metadata": {"name": "app", "namespace": "team1", "creationTimestamp": "2026-12-01T11:00:00Z"}, "spec": {"crossplane": {}}}`},
			args:    []string{"get", "-A"},
			stdout: `NAMESPACE   NAME   ENVIRONMENT              BACKEND        VERSION   PHASE          SYNCED   READY   COMPOSITION                      AGE
team1       app                                                                                                                       60m
team2       web    clusterstack-regionone   clusterstack             Provisioning   True     False   scsclusters.kaas.scs.community   24h
`,
		},
		{
			name:    "an object not reconciled yet takes the columns of the flavour discovery reports",
			flavour: flavourNamespaced,
			objects: []string{`{"apiVersion": "kaas.scs.community/v1alpha1", "kind": "SCSCluster", "metadata": {"name": "app", "namespace": "team1", "creationTimestamp": "2026-12-01T11:00:00Z"}}`},
			args:    []string{"get"},
			stdout: `NAME   ENVIRONMENT   BACKEND   VERSION   PHASE   SYNCED   READY   COMPOSITION   AGE
app                                                                             60m
`,
		},
		{
			name:    "one object as YAML, without managed fields",
			flavour: flavourLegacy,
			objects: []string{`{"apiVersion": "kaas.scs.community/v1alpha1", "kind": "SCSCluster", "metadata": {"name": "app", "namespace": "team1", "managedFields": [{"manager": "kubectl"}]}, "spec": {"kubernetes": {"version": "1.34"}}}`},
			args:    []string{"get", "app", "-o", "yaml"},
			stdout: `apiVersion: kaas.scs.community/v1alpha1
kind: SCSCluster
metadata:
  name: app
  namespace: team1
spec:
  kubernetes:
    version: "1.34"
`,
		},
		{
			name:    "a list as JSON is a List, as in kubectl",
			flavour: flavourLegacy,
			objects: []string{`{"apiVersion": "kaas.scs.community/v1alpha1", "kind": "SCSCluster", "metadata": {"name": "app", "namespace": "team1"}}`},
			args:    []string{"get", "-o", "json"},
			stdout: `{
    "apiVersion": "v1",
    "items": [
        {
            "apiVersion": "kaas.scs.community/v1alpha1",
            "kind": "SCSCluster",
            "metadata": {
                "name": "app",
                "namespace": "team1"
            }
        }
    ],
    "kind": "List",
    "metadata": {
        "resourceVersion": ""
    }
}
`,
		},
		{
			name:    "an empty namespace says so on stderr",
			flavour: flavourLegacy,
			args:    []string{"get", "-n", "team9"},
			stderr:  "No resources found in team9 namespace.\n",
		},
		{
			name:    "a missing name is an error",
			flavour: flavourLegacy,
			args:    []string{"get", "nope"},
			stderr:  "error: SCSCluster team1/nope not found\n",
			code:    ExitError,
		},
		{
			name:    "an unknown output format is a usage error",
			flavour: flavourLegacy,
			args:    []string{"get", "-o", "table"},
			stderr:  "error: unknown output format \"table\": use one of wide|yaml|json|name\n",
			code:    ExitUsage,
		},
		{
			name:    "a name and -A do not go together",
			flavour: flavourLegacy,
			args:    []string{"get", "dev", "-A"},
			stderr:  "error: a NAME cannot be combined with --all-namespaces: names are per namespace\n",
			code:    ExitUsage,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var objs []*unstructured.Unstructured
			for _, o := range tc.objects {
				objs = append(objs, object(t, o))
			}
			stdout, stderr, code := newHarness(t, tc.flavour, objs...).run("", tc.args...)
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
