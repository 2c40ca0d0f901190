package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	fakediscovery "k8s.io/client-go/discovery/fake"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	clienttesting "k8s.io/client-go/testing"
	"sigs.k8s.io/yaml"
)

// now is the clock of every test: ages and progress lines come out the same on every run.
var now = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

// harness runs kubectl-scs command lines against a fake API server.
type harness struct {
	t     *testing.T
	dyn   *dynamicfake.FakeDynamicClient
	disco *fakediscovery.FakeDiscovery
}

// listKinds lets the fake client list every resource kubectl-scs lists.
var listKinds = map[schema.GroupVersionResource]string{
	clusterGVR:   "SCSClusterList",
	compositeGVR: "XSCSClusterList",
	secretGVR:    "SecretList",
	namespaceGVR: "NamespaceList",
	eventGVR:     "EventList",
	envConfigGVR: "EnvironmentConfigList",
	// What the clusterstack backend requires, for live previews of its clusters.
	{Group: "clusterstack.x-k8s.io", Version: "v1alpha1", Resource: "clusterstackreleases"}: "ClusterStackReleaseList",
}

// newHarness serves objects of the given flavour: legacy serves XSCSCluster next to
// SCSCluster in discovery.
func newHarness(t *testing.T, f flavour, objs ...*unstructured.Unstructured) *harness {
	t.Helper()
	in := make([]runtime.Object, 0, len(objs))
	for _, o := range objs {
		in = append(in, o)
	}
	h := &harness{t: t, dyn: dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), listKinds, in...)}
	resources := []metav1.APIResource{{Name: "scsclusters", Namespaced: true, Kind: "SCSCluster"}}
	if f == flavourLegacy {
		resources = append(resources, metav1.APIResource{Name: "xscsclusters", Kind: "XSCSCluster"})
	}
	h.disco = &fakediscovery.FakeDiscovery{Fake: &clienttesting.Fake{Resources: []*metav1.APIResourceList{
		{GroupVersion: "kaas.scs.community/v1alpha1", APIResources: resources},
	}}}
	return h
}

// run runs one command line with stdin and returns what it wrote and its exit code. The
// namespace is -n, else team1, as a kubeconfig context would say.
func (h *harness) run(stdin string, args ...string) (stdout, stderr string, code int) {
	h.t.Helper()
	var out, errOut bytes.Buffer
	app := &App{
		IO:           genericiooptions.IOStreams{In: strings.NewReader(stdin), Out: &out, ErrOut: &errOut},
		Now:          func() time.Time { return now },
		PollInterval: time.Millisecond,
		Connect: func(flags *genericclioptions.ConfigFlags) (*Clients, error) {
			c := &Clients{Dynamic: h.dyn, Discovery: h.disco, Namespace: "team1"}
			if flags.Namespace != nil && *flags.Namespace != "" {
				c.Namespace, c.NamespaceExplicit = *flags.Namespace, true
			}
			return c, nil
		},
	}
	code = app.Run(context.Background(), args)
	return out.String(), errOut.String(), code
}

// object decodes a YAML manifest.
func object(t *testing.T, manifest string) *unstructured.Unstructured {
	t.Helper()
	obj := &unstructured.Unstructured{}
	data, err := yaml.YAMLToJSON([]byte(manifest))
	if err != nil {
		t.Fatal(err)
	}
	if err := obj.UnmarshalJSON(data); err != nil {
		t.Fatal(err)
	}
	return obj
}

// actions are the fake client's requests of one verb, in order.
func (h *harness) actions(verb string) []clienttesting.Action {
	var out []clienttesting.Action
	for _, a := range h.dyn.Actions() {
		if a.GetVerb() == verb {
			out = append(out, a)
		}
	}
	return out
}

// The objects most tests start from.

// readyClaim is a legacy claim in team1 that Crossplane has bound and the function has
// reported ready, as kubectl get -o yaml shows one.
const readyClaim = `
apiVersion: kaas.scs.community/v1alpha1
kind: SCSCluster
metadata:
  name: dev
  namespace: team1
  generation: 2
  creationTimestamp: "2026-12-01T11:48:00Z"
spec:
  kubernetes: {version: "1.34"}
  nodePools:
  - {name: default, machineType: SCS-4V-8, autoscaling: {min: 1, max: 3}}
  - {name: ingress, machineType: SCS-2V-4, count: 2}
  writeConnectionSecretToRef: {name: dev-kubeconfig}
  compositeDeletePolicy: Background
  resourceRef: {apiVersion: kaas.scs.community/v1alpha1, kind: XSCSCluster, name: dev-x7k2p}
status:
  phase: Ready
  apiServerURL: https://api.dev-mfn4yr.team1.gardener.example.com
  kubernetes: {version: 1.34.5}
  backend:
    type: gardener
    environment: gardener-regionone
    region: RegionOne
    name: dev-mfn4yr
    deletionPolicy: Delete
    nativeRef: {apiVersion: core.gardener.cloud/v1beta1, kind: Shoot, namespace: garden-team1, name: dev-mfn4yr}
  nodePools:
  - {name: default, machineType: SCS-4V-8, zones: [az1, az2, az3], min: 1, max: 3, replicas: 2, readyReplicas: 2}
  - {name: ingress, machineType: SCS-2V-4, zones: [az1], replicas: 2, readyReplicas: 1}
  offered:
    kubernetesVersions: ["1.33", "1.34", "1.35"]
    machineTypes: [SCS-2V-4, SCS-4V-8]
    zones: [az1, az2, az3]
    nextMinor: "1.35"
  defaulted:
    network: {podCIDR: 100.64.0.0/12, serviceCIDR: 100.80.0.0/13, nodeCIDR: 10.250.0.0/16, cni: cilium}
    nodePools:
    - {name: default, zones: [az1, az2, az3], rootDiskGiB: 50}
  conditions:
  - {type: Synced, status: "True", reason: ReconcileSuccess}
  - {type: Ready, status: "True", reason: Available}
  - {type: Rendered, status: "True", reason: Rendered, message: rendered for backend gardener in environment gardener-regionone}
  - {type: BackendReady, status: "True", reason: Healthy, message: the Shoot is reconciled and all health checks pass}
  - {type: KubeconfigReady, status: "True", reason: Delivered, message: the connection secret holds an admin kubeconfig}
  - {type: SpecSupported, status: "True", reason: AllFieldsHonoured, message: the backend honours every field that is set}
`

// newClaim is a legacy claim that Crossplane has bound but the function has not
// reported on yet.
const newClaim = `
apiVersion: kaas.scs.community/v1alpha1
kind: SCSCluster
metadata:
  name: fresh
  namespace: team1
  creationTimestamp: "2026-12-01T11:59:30Z"
spec:
  kubernetes: {version: "1.35"}
  nodePools:
  - {name: default, machineType: SCS-4V-8, count: 1}
  compositeDeletePolicy: Background
`
