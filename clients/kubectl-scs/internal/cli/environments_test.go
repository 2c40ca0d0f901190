package cli

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clienttesting "k8s.io/client-go/testing"
)

// exampleEnvironments are the project's example EnvironmentConfigs: three admit team1 and
// team2 by name, clusterstack-remote admits namespaces labelled for it.
func exampleEnvironments(t *testing.T) []*unstructured.Unstructured {
	t.Helper()
	objs, err := readManifests(nil, repo+"/examples/environments")
	if err != nil {
		t.Fatal(err)
	}
	return objs
}

// Namespaces as the cluster has them.
const (
	team1Namespace = `
apiVersion: v1
kind: Namespace
metadata: {name: team1, labels: {kubernetes.io/metadata.name: team1}}
`
	labNamespace = `
apiVersion: v1
kind: Namespace
metadata: {name: lab, labels: {kubernetes.io/metadata.name: lab, kaas.scs.community/clusterstack-remote: "true"}}
`
)

// offersCase is one command line of environments or versions against a fake cluster.
type offersCase struct {
	name string
	// configs says whether the example EnvironmentConfigs exist.
	configs bool
	objects []string
	// forbid makes the fake API server refuse to list or get these resources.
	forbid []string
	args   []string
	stdout string
	stderr string
	code   int
}

func (tc offersCase) run(t *testing.T) {
	t.Helper()
	var objs []*unstructured.Unstructured
	if tc.configs {
		objs = exampleEnvironments(t)
	}
	for _, o := range tc.objects {
		objs = append(objs, object(t, o))
	}
	h := newHarness(t, flavourLegacy, objs...)
	for _, resource := range tc.forbid {
		h.dyn.PrependReactor("*", resource, func(clienttesting.Action) (bool, runtime.Object, error) {
			return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: resource}, "", errors.New(`User "dev" cannot list resource "`+resource+`"`))
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
}

func TestEnvironments(t *testing.T) {
	for _, tc := range []offersCase{
		{
			name:    "the environments that admit the namespace by name, from their EnvironmentConfigs",
			configs: true,
			objects: []string{team1Namespace},
			args:    []string{"environments"},
			stdout: `NAME                     DEFAULT   KUBERNETES       MACHINE TYPES                                                ZONES         SOURCE
clusterstack-regionone   -         1.33,1.34,1.35   SCS-2V-4,SCS-4V-8,SCS-4V-16,SCS-8V-32                        az1,az2,az3   EnvironmentConfig
gardener-regionone       yes       1.33,1.34,1.35   SCS-2V-4,SCS-4V-8,SCS-4V-16,SCS-8V-32,SCS-8V-64,SCS-16V-32   az1,az2,az3   EnvironmentConfig
magnum-regionone         -         1.33,1.34        SCS-2V-4,SCS-4V-8,SCS-8V-32                                  nova          EnvironmentConfig
`,
		},
		{
			name:    "a namespace admitted by its labels sees the environment that selects it, and only that",
			configs: true,
			objects: []string{labNamespace},
			args:    []string{"environments", "-n", "lab"},
			stdout: `NAME                  DEFAULT   KUBERNETES       MACHINE TYPES   ZONES         SOURCE
clusterstack-remote   -         1.33,1.34,1.35   any             az1,az2,az3   EnvironmentConfig
`,
		},
		{
			name:    "a namespace no environment admits",
			configs: true,
			args:    []string{"environments", "-n", "outsider"},
			stderr: `Note: namespace outsider is not readable (not found): environments that admit namespaces by label are left out
No environment found for namespace outsider.
`,
		},
		{
			name:    "EnvironmentConfigs not readable: what the namespace's clusters report",
			configs: true,
			objects: []string{readyClaim, newClaim},
			forbid:  []string{"environmentconfigs"},
			args:    []string{"environments"},
			stdout: `NAME                 DEFAULT   KUBERNETES       MACHINE TYPES       ZONES         SOURCE
gardener-regionone   -         1.33,1.34,1.35   SCS-2V-4,SCS-4V-8   az1,az2,az3   status.offered of SCSCluster dev
`,
			stderr: `Note: EnvironmentConfigs are not readable (forbidden for your credentials): shown is what the SCSClusters of namespace team1 report in status.offered, so environments none of them uses are missing
`,
		},
		{
			name:    "the namespace not readable: an environment that selects by label is left out",
			configs: true,
			objects: []string{labNamespace},
			forbid:  []string{"namespaces"},
			args:    []string{"environments", "-n", "lab", "-o", "json"},
			stdout: `{
    "environments": [],
    "namespace": "lab"
}
`,
			stderr: "Note: namespace lab is not readable (forbidden for your credentials): environments that admit namespaces by label are left out\n",
		},
		{
			name:    "nothing readable",
			configs: true,
			forbid:  []string{"environmentconfigs", "scsclusters"},
			args:    []string{"environments"},
			stderr:  `error: neither the SCSClusters of namespace team1 nor EnvironmentConfigs are readable: scsclusters is forbidden: User "dev" cannot list resource "scsclusters"` + "\n",
			code:    ExitError,
		},
		{
			name:   "an output format it does not have",
			args:   []string{"environments", "-o", "wide"},
			stderr: "error: unknown output format \"wide\": use one of yaml|json\n",
			code:   ExitUsage,
		},
	} {
		t.Run(tc.name, tc.run)
	}
}

func TestVersions(t *testing.T) {
	for _, tc := range []offersCase{
		{
			name:    "the environments' versions and where each cluster stands",
			configs: true,
			objects: []string{team1Namespace, readyClaim, newClaim},
			args:    []string{"versions"},
			stdout: `ENVIRONMENT              KUBERNETES VERSIONS
clusterstack-regionone   1.33, 1.34, 1.35
gardener-regionone       1.33, 1.34, 1.35
magnum-regionone         1.33, 1.34

CLUSTER   ENVIRONMENT          SPEC   RUNS     NEXT MINOR
dev       gardener-regionone   1.34   1.34.5   1.35
fresh     -                    1.35   -        -
`,
		},
		{
			name:    "as YAML",
			configs: true,
			objects: []string{team1Namespace, readyClaim},
			args:    []string{"versions", "-o", "yaml"},
			stdout: `clusters:
- environment: gardener-regionone
  name: dev
  nextMinor: "1.35"
  runs: 1.34.5
  spec: "1.34"
environments:
- kubernetesVersions:
  - "1.33"
  - "1.34"
  - "1.35"
  name: clusterstack-regionone
- kubernetesVersions:
  - "1.33"
  - "1.34"
  - "1.35"
  name: gardener-regionone
- kubernetesVersions:
  - "1.33"
  - "1.34"
  name: magnum-regionone
namespace: team1
`,
		},
		{
			name:    "no clusters: only the environments",
			configs: true,
			objects: []string{team1Namespace},
			args:    []string{"versions"},
			stdout: `ENVIRONMENT              KUBERNETES VERSIONS
clusterstack-regionone   1.33, 1.34, 1.35
gardener-regionone       1.33, 1.34, 1.35
magnum-regionone         1.33, 1.34
`,
		},
		{
			name:    "EnvironmentConfigs not readable: the versions the clusters report",
			objects: []string{readyClaim},
			forbid:  []string{"environmentconfigs"},
			args:    []string{"versions"},
			stdout: `ENVIRONMENT          KUBERNETES VERSIONS
gardener-regionone   1.33, 1.34, 1.35

CLUSTER   ENVIRONMENT          SPEC   RUNS     NEXT MINOR
dev       gardener-regionone   1.34   1.34.5   1.35
`,
			stderr: `Note: EnvironmentConfigs are not readable (forbidden for your credentials): shown is what the SCSClusters of namespace team1 report in status.offered, so environments none of them uses are missing
`,
		},
	} {
		t.Run(tc.name, tc.run)
	}
}
