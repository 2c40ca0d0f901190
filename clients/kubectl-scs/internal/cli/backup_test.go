package cli

import (
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	clienttesting "k8s.io/client-go/testing"
)

// The clusters the backup tests start from, as the API server returns them: with the
// metadata it sets, the conditions Crossplane and the function write, and beside them the
// connection Secrets, which a backup never holds.

// batchClaim is a legacy claim of a Magnum cluster, bound to batchComposite.
const batchClaim = `
apiVersion: kaas.scs.community/v1alpha1
kind: SCSCluster
metadata:
  name: batch
  namespace: team1
  uid: 2b7c1e9a-6d4f-4c3e-8a1b-5e6f7a8b9c0d
  resourceVersion: "48213"
  generation: 3
  creationTimestamp: "2026-11-02T09:30:00Z"
  finalizers: [finalizer.apiextensions.crossplane.io]
  labels: {team: batch}
  annotations: {owner: data-platform@example.com}
  managedFields:
  - {manager: argocd-controller, operation: Apply, apiVersion: kaas.scs.community/v1alpha1, time: "2026-11-02T09:30:00Z", fieldsType: FieldsV1, fieldsV1: {"f:spec": {}}}
spec:
  environment: magnum-regionone
  kubernetes: {version: "1.34"}
  nodePools:
  - {name: default, machineType: SCS-4V-8, count: 3}
  writeConnectionSecretToRef: {name: batch-kubeconfig}
  compositeDeletePolicy: Background
  compositionRef: {name: xscsclusters.kaas.scs.community}
  compositionUpdatePolicy: Automatic
  resourceRef: {apiVersion: kaas.scs.community/v1alpha1, kind: XSCSCluster, name: batch-q3m8z}
status:
  phase: Ready
  apiServerURL: https://203.0.113.10:6443
  kubernetes: {version: 1.34.3}
  backend:
    type: magnum
    environment: magnum-regionone
    region: RegionOne
    name: batch-k7x2pd
    created: true
    deletionPolicy: Delete
    pinned: {data.magnum.keypair: platform-ops, data.magnum.providerConfigName: openstack}
    externalNames: {magnum-cluster: 5d2f8c1a-3b4e-4f6a-8c9d-0e1f2a3b4c5d}
  defaulted:
    network: {cni: calico}
    nodePools:
    - {name: default, zones: [nova], rootDiskGiB: 50}
  nodePools:
  - {name: default, machineType: SCS-4V-8, zones: [nova], replicas: 3, readyReplicas: 3}
  connectionDetails: {lastPublishedTime: "2026-11-02T10:02:00Z"}
  conditions:
  - {type: Synced, status: "True", reason: ReconcileSuccess, lastTransitionTime: "2026-11-02T09:30:01Z"}
  - {type: Ready, status: "True", reason: Available, lastTransitionTime: "2026-11-02T10:02:00Z"}
`

// batchComposite is the composite batchClaim binds: its status is the cluster's memory,
// Magnum's UUID with it.
const batchComposite = `
apiVersion: kaas.scs.community/v1alpha1
kind: XSCSCluster
metadata:
  name: batch-q3m8z
  uid: 0b7e3c52-91d4-4f7a-8c2e-5a6d1e9f3b20
  resourceVersion: "48290"
  generation: 5
  creationTimestamp: "2026-11-02T09:30:01Z"
  finalizers: [composite.apiextensions.crossplane.io]
  labels: {crossplane.io/claim-name: batch, crossplane.io/claim-namespace: team1, crossplane.io/composite: batch-q3m8z}
  managedFields:
  - {manager: apiextensions.crossplane.io/claim, operation: Apply, apiVersion: kaas.scs.community/v1alpha1, time: "2026-11-02T09:30:01Z", fieldsType: FieldsV1, fieldsV1: {"f:spec": {}}}
spec:
  environment: magnum-regionone
  kubernetes: {version: "1.34"}
  nodePools:
  - {name: default, machineType: SCS-4V-8, count: 3}
  claimRef: {apiVersion: kaas.scs.community/v1alpha1, kind: SCSCluster, namespace: team1, name: batch}
  compositionRef: {name: xscsclusters.kaas.scs.community}
  compositionRevisionRef: {name: xscsclusters.kaas.scs.community-5d2e7f1}
  compositionUpdatePolicy: Automatic
  resourceRefs:
  - {apiVersion: containerinfra.openstack.crossplane.io/v1alpha1, kind: ClusterV1, name: batch-k7x2pd-cluster}
  writeConnectionSecretToRef: {name: 2b7c1e9a-6d4f-4c3e-8a1b-5e6f7a8b9c0d, namespace: crossplane-system}
status:
  phase: Ready
  apiServerURL: https://203.0.113.10:6443
  kubernetes: {version: 1.34.3}
  backend:
    type: magnum
    environment: magnum-regionone
    region: RegionOne
    name: batch-k7x2pd
    created: true
    deletionPolicy: Delete
    pinned: {data.magnum.keypair: platform-ops, data.magnum.providerConfigName: openstack}
    externalNames: {magnum-cluster: 5d2f8c1a-3b4e-4f6a-8c9d-0e1f2a3b4c5d}
  defaulted:
    network: {cni: calico}
    nodePools:
    - {name: default, zones: [nova], rootDiskGiB: 50}
  nodePools:
  - {name: default, machineType: SCS-4V-8, zones: [nova], replicas: 3, readyReplicas: 3}
  connectionDetails: {lastPublishedTime: "2026-11-02T10:02:00Z"}
  conditions:
  - {type: Synced, status: "True", reason: ReconcileSuccess, lastTransitionTime: "2026-11-02T09:30:01Z"}
  - {type: Ready, status: "True", reason: Available, lastTransitionTime: "2026-11-02T10:02:00Z"}
  - {type: BackendReady, status: "True", reason: Healthy, message: the Magnum cluster is CREATE_COMPLETE}
`

// pendingClaim is a legacy claim Crossplane has not bound yet: there is no composite, and
// no memory, to back up.
const pendingClaim = `
apiVersion: kaas.scs.community/v1alpha1
kind: SCSCluster
metadata:
  name: pending
  namespace: team2
  uid: 5e6f7a8b-9c0d-4e1f-8a2b-3c4d5e6f7a8b
  resourceVersion: "48301"
  generation: 1
  creationTimestamp: "2026-12-01T11:59:50Z"
spec:
  kubernetes: {version: "1.34"}
  nodePools:
  - {name: default, machineType: SCS-2V-4, count: 1}
  compositeDeletePolicy: Background
`

// webCluster is a namespaced SCSCluster, composite and cluster in one.
const webCluster = `
apiVersion: kaas.scs.community/v1alpha1
kind: SCSCluster
metadata:
  name: web
  namespace: team2
  uid: 9a1f3c52-64a8-4c5e-9f0e-2b6f6a1d0c11
  resourceVersion: "51002"
  generation: 2
  creationTimestamp: "2026-11-30T12:00:00Z"
  finalizers: [composite.apiextensions.crossplane.io]
  labels: {crossplane.io/composite: web}
  managedFields:
  - {manager: kubectl-scs, operation: Apply, apiVersion: kaas.scs.community/v1alpha1, time: "2026-11-30T12:00:00Z", fieldsType: FieldsV1, fieldsV1: {"f:spec": {}}}
spec:
  crossplane:
    compositionRef: {name: scsclusters.kaas.scs.community}
    compositionRevisionRef: {name: scsclusters.kaas.scs.community-1a2b3c4}
    compositionUpdatePolicy: Automatic
    resourceRefs:
    - {apiVersion: kubernetes.m.crossplane.io/v1alpha1, kind: Object, name: web-mfn4yr-shoot}
    - {apiVersion: v1, kind: Secret, name: web-kubeconfig}
  environment: gardener-regionone
  kubernetes: {version: "1.34"}
  nodePools:
  - {name: default, machineType: SCS-4V-8, count: 3}
status:
  phase: Ready
  apiServerURL: https://api.web-mfn4yr.team2.gardener.example.com
  kubernetes: {version: 1.34.5}
  backend:
    type: gardener
    environment: gardener-regionone
    region: RegionOne
    name: web-mfn4yr
    created: true
    deletionPolicy: Delete
    nativeRef: {apiVersion: core.gardener.cloud/v1beta1, kind: Shoot, namespace: garden-team1, name: web-mfn4yr}
    pinned: {data.gardener.floatingPoolName: ext-net, data.gardener.loadBalancerProvider: amphora}
  defaulted:
    network: {podCIDR: 100.64.0.0/12, serviceCIDR: 100.80.0.0/13, nodeCIDR: 10.250.0.0/16, cni: cilium}
    nodePools:
    - {name: default, zones: [az1, az2, az3], rootDiskGiB: 50}
  nodePools:
  - {name: default, machineType: SCS-4V-8, zones: [az1, az2, az3], replicas: 3, readyReplicas: 3}
  conditions:
  - {type: Synced, status: "True", reason: ReconcileSuccess}
  - {type: Ready, status: "True", reason: Available}
`

// The connection Secrets of batch and web: the claim's, the composite's and the one the
// namespaced SCSCluster composes. The kubeconfig they hold is what no backup may hold.
const (
	kubeconfigData  = "YXBpVmVyc2lvbjogdjEKa2luZDogQ29uZmlnCg=="
	batchSecret     = `{"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "batch-kubeconfig", "namespace": "team1"}, "data": {"kubeconfig": "` + kubeconfigData + `"}}`
	compositeSecret = `{"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "2b7c1e9a-6d4f-4c3e-8a1b-5e6f7a8b9c0d", "namespace": "crossplane-system"}, "data": {"kubeconfig": "` + kubeconfigData + `"}}`
	webSecret       = `{"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "web-kubeconfig", "namespace": "team2"}, "data": {"kubeconfig": "` + kubeconfigData + `"}}`
)

// The files backup writes of the clusters above: spec, labels, annotations and status
// without conditions; none of the metadata the API server sets.
const (
	// batchBackup holds the composite first: restore creates it before the claim that
	// binds it.
	batchBackup = `apiVersion: kaas.scs.community/v1alpha1
kind: XSCSCluster
metadata:
  labels:
    crossplane.io/claim-name: batch
    crossplane.io/claim-namespace: team1
    crossplane.io/composite: batch-q3m8z
  name: batch-q3m8z
spec:
  claimRef:
    apiVersion: kaas.scs.community/v1alpha1
    kind: SCSCluster
    name: batch
    namespace: team1
  compositionRef:
    name: xscsclusters.kaas.scs.community
  compositionRevisionRef:
    name: xscsclusters.kaas.scs.community-5d2e7f1
  compositionUpdatePolicy: Automatic
  environment: magnum-regionone
  kubernetes:
    version: "1.34"
  nodePools:
  - count: 3
    machineType: SCS-4V-8
    name: default
  resourceRefs:
  - apiVersion: containerinfra.openstack.crossplane.io/v1alpha1
    kind: ClusterV1
    name: batch-k7x2pd-cluster
  writeConnectionSecretToRef:
    name: 2b7c1e9a-6d4f-4c3e-8a1b-5e6f7a8b9c0d
    namespace: crossplane-system
status:
  apiServerURL: https://203.0.113.10:6443
  backend:
    created: true
    deletionPolicy: Delete
    environment: magnum-regionone
    externalNames:
      magnum-cluster: 5d2f8c1a-3b4e-4f6a-8c9d-0e1f2a3b4c5d
    name: batch-k7x2pd
    pinned:
      data.magnum.keypair: platform-ops
      data.magnum.providerConfigName: openstack
    region: RegionOne
    type: magnum
  connectionDetails:
    lastPublishedTime: "2026-11-02T10:02:00Z"
  defaulted:
    network:
      cni: calico
    nodePools:
    - name: default
      rootDiskGiB: 50
      zones:
      - nova
  kubernetes:
    version: 1.34.3
  nodePools:
  - machineType: SCS-4V-8
    name: default
    readyReplicas: 3
    replicas: 3
    zones:
    - nova
  phase: Ready
---
apiVersion: kaas.scs.community/v1alpha1
kind: SCSCluster
metadata:
  annotations:
    owner: data-platform@example.com
  labels:
    team: batch
  name: batch
  namespace: team1
spec:
  compositeDeletePolicy: Background
  compositionRef:
    name: xscsclusters.kaas.scs.community
  compositionUpdatePolicy: Automatic
  environment: magnum-regionone
  kubernetes:
    version: "1.34"
  nodePools:
  - count: 3
    machineType: SCS-4V-8
    name: default
  resourceRef:
    apiVersion: kaas.scs.community/v1alpha1
    kind: XSCSCluster
    name: batch-q3m8z
  writeConnectionSecretToRef:
    name: batch-kubeconfig
status:
  apiServerURL: https://203.0.113.10:6443
  backend:
    created: true
    deletionPolicy: Delete
    environment: magnum-regionone
    externalNames:
      magnum-cluster: 5d2f8c1a-3b4e-4f6a-8c9d-0e1f2a3b4c5d
    name: batch-k7x2pd
    pinned:
      data.magnum.keypair: platform-ops
      data.magnum.providerConfigName: openstack
    region: RegionOne
    type: magnum
  connectionDetails:
    lastPublishedTime: "2026-11-02T10:02:00Z"
  defaulted:
    network:
      cni: calico
    nodePools:
    - name: default
      rootDiskGiB: 50
      zones:
      - nova
  kubernetes:
    version: 1.34.3
  nodePools:
  - machineType: SCS-4V-8
    name: default
    readyReplicas: 3
    replicas: 3
    zones:
    - nova
  phase: Ready
`

	// pendingBackup is the claim alone: it binds no composite yet.
	pendingBackup = `apiVersion: kaas.scs.community/v1alpha1
kind: SCSCluster
metadata:
  name: pending
  namespace: team2
spec:
  compositeDeletePolicy: Background
  kubernetes:
    version: "1.34"
  nodePools:
  - count: 1
    machineType: SCS-2V-4
    name: default
`

	// webBackup is the namespaced SCSCluster: composite and cluster in one. Its
	// spec.crossplane.resourceRefs name the Secret it composes; the Secret is not there.
	webBackup = `apiVersion: kaas.scs.community/v1alpha1
kind: SCSCluster
metadata:
  labels:
    crossplane.io/composite: web
  name: web
  namespace: team2
spec:
  crossplane:
    compositionRef:
      name: scsclusters.kaas.scs.community
    compositionRevisionRef:
      name: scsclusters.kaas.scs.community-1a2b3c4
    compositionUpdatePolicy: Automatic
    resourceRefs:
    - apiVersion: kubernetes.m.crossplane.io/v1alpha1
      kind: Object
      name: web-mfn4yr-shoot
    - apiVersion: v1
      kind: Secret
      name: web-kubeconfig
  environment: gardener-regionone
  kubernetes:
    version: "1.34"
  nodePools:
  - count: 3
    machineType: SCS-4V-8
    name: default
status:
  apiServerURL: https://api.web-mfn4yr.team2.gardener.example.com
  backend:
    created: true
    deletionPolicy: Delete
    environment: gardener-regionone
    name: web-mfn4yr
    nativeRef:
      apiVersion: core.gardener.cloud/v1beta1
      kind: Shoot
      name: web-mfn4yr
      namespace: garden-team1
    pinned:
      data.gardener.floatingPoolName: ext-net
      data.gardener.loadBalancerProvider: amphora
    region: RegionOne
    type: gardener
  defaulted:
    network:
      cni: cilium
      nodeCIDR: 10.250.0.0/16
      podCIDR: 100.64.0.0/12
      serviceCIDR: 100.80.0.0/13
    nodePools:
    - name: default
      rootDiskGiB: 50
      zones:
      - az1
      - az2
      - az3
  kubernetes:
    version: 1.34.5
  nodePools:
  - machineType: SCS-4V-8
    name: default
    readyReplicas: 3
    replicas: 3
    zones:
    - az1
    - az2
    - az3
  phase: Ready
`
)

// legacyFleet and namespacedFleet are the objects of a control plane of each flavour.
var (
	legacyFleet     = []string{batchClaim, batchComposite, pendingClaim, batchSecret, compositeSecret}
	namespacedFleet = []string{webCluster, webSecret}
)

// harnessWith serves the manifests in a control plane of flavour f.
func harnessWith(t *testing.T, f flavour, manifests ...string) *harness {
	t.Helper()
	objs := make([]*unstructured.Unstructured, 0, len(manifests))
	for _, m := range manifests {
		objs = append(objs, object(t, m))
	}
	return newHarness(t, f, objs...)
}

// readTree is every file under dir, by its slash-separated path below dir.
func readTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		files[filepath.ToSlash(rel)] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// writeTree writes files, by slash-separated path, under a new directory.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		must(t, os.MkdirAll(filepath.Dir(path), 0o750))
		must(t, os.WriteFile(path, []byte(content), 0o600))
	}
	return dir
}

// checkOnlyMemory fails when a backup holds a Secret, a kubeconfig or a condition.
func checkOnlyMemory(t *testing.T, files map[string]string) {
	t.Helper()
	for name, content := range files {
		objs, err := decodeManifests(name, strings.NewReader(content))
		if err != nil {
			t.Errorf("%s: %v", name, err)
		}
		for _, o := range objs {
			if o.GetKind() == "Secret" {
				t.Errorf("%s holds Secret %s", name, o.GetName())
			}
			if _, found, _ := unstructured.NestedFieldNoCopy(o.Object, "status", "conditions"); found {
				t.Errorf("%s holds the conditions of %s %s", name, o.GetKind(), o.GetName())
			}
		}
		if strings.Contains(content, kubeconfigData) {
			t.Errorf("%s holds the kubeconfig", name)
		}
	}
}

// objectID is namespace/name, or the name of a cluster-scoped object.
func objectID(obj *unstructured.Unstructured) string {
	if ns := obj.GetNamespace(); ns != "" {
		return ns + "/" + obj.GetName()
	}
	return obj.GetName()
}

// writes describes the fake API server's write requests in order: what was created (paused
// or not, with a status or not), which status was written, what was patched.
func writes(h *harness) []string {
	var out []string
	for _, a := range h.dyn.Actions() {
		resource := a.GetResource().Resource
		if sub := a.GetSubresource(); sub != "" {
			resource += "/" + sub
		}
		switch a.GetVerb() {
		case "create":
			obj := a.(clienttesting.CreateAction).GetObject().(*unstructured.Unstructured)
			_, status := obj.Object["status"]
			paused, annotated := obj.GetAnnotations()[pausedAnnotation]
			if !annotated {
				paused = "(none)"
			}
			out = append(out, fmt.Sprintf("create %s %s: %s %s, status %v", resource, objectID(obj), pausedAnnotation, paused, status))
		case "update":
			obj := a.(clienttesting.UpdateAction).GetObject().(*unstructured.Unstructured)
			status, _ := obj.Object["status"].(map[string]any)
			out = append(out, fmt.Sprintf("update %s %s: %s", resource, objectID(obj), strings.Join(slices.Sorted(maps.Keys(status)), " ")))
		case "patch":
			p := a.(clienttesting.PatchAction)
			out = append(out, fmt.Sprintf("patch %s %s: %s", resource, p.GetName(), p.GetPatch()))
		case "delete":
			out = append(out, "delete "+resource)
		}
	}
	return out
}

// stored is the object of like's kind, namespace and name that the fake API server holds.
func stored(t *testing.T, h *harness, like *unstructured.Unstructured) *unstructured.Unstructured {
	t.Helper()
	gvr := clusterGVR
	if like.GetKind() == "XSCSCluster" {
		gvr = compositeGVR
	}
	obj, err := h.dyn.Tracker().Get(gvr, like.GetNamespace(), like.GetName())
	if err != nil {
		t.Fatalf("%s %s is not there: %v", like.GetKind(), objectID(like), err)
	}
	return obj.(*unstructured.Unstructured)
}

func TestBackup(t *testing.T) {
	for _, tc := range []struct {
		name    string
		flavour flavour
		objects []string
		args    []string
		files   map[string]string
		stdout  string
		stderr  string
		code    int
	}{
		{
			name:    "a namespaced SCSCluster",
			flavour: flavourNamespaced,
			objects: namespacedFleet,
			args:    []string{"-n", "team2"},
			files:   map[string]string{"team2/web.yaml": webBackup},
			stdout:  "scscluster.kaas.scs.community/web backed up to DIR/team2/web.yaml\n",
		},
		{
			name:    "a legacy claim with the composite it binds",
			flavour: flavourLegacy,
			objects: legacyFleet,
			files:   map[string]string{"team1/batch.yaml": batchBackup},
			stdout:  "scscluster.kaas.scs.community/batch backed up to DIR/team1/batch.yaml with xscscluster.kaas.scs.community/batch-q3m8z\n",
		},
		{
			name:    "every namespace; a claim not bound yet alone",
			flavour: flavourLegacy,
			objects: legacyFleet,
			args:    []string{"-A"},
			files:   map[string]string{"team1/batch.yaml": batchBackup, "team2/pending.yaml": pendingBackup},
			stdout: "scscluster.kaas.scs.community/batch backed up to DIR/team1/batch.yaml with xscscluster.kaas.scs.community/batch-q3m8z\n" +
				"scscluster.kaas.scs.community/pending backed up to DIR/team2/pending.yaml\n",
		},
		{
			name:    "a claim whose composite cannot be read: nothing is written",
			flavour: flavourLegacy,
			objects: []string{batchClaim, pendingClaim},
			args:    []string{"-A"},
			files:   map[string]string{},
			stderr: `error: reading XSCSCluster batch-q3m8z, which SCSCluster team1/batch binds: xscsclusters.kaas.scs.community "batch-q3m8z" not found` +
				" (the composite's status is the cluster's memory: a backup without it is none; nothing was written)\n",
			code: ExitError,
		},
		{
			name:    "a namespace without SCSClusters",
			flavour: flavourLegacy,
			objects: legacyFleet,
			args:    []string{"-n", "team3"},
			files:   map[string]string{},
			stderr:  "No resources found in team3 namespace.\n",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := harnessWith(t, tc.flavour, tc.objects...)
			dir := t.TempDir()
			stdout, stderr, code := h.run("", append([]string{"backup", "-o", dir}, tc.args...)...)
			if diff := cmp.Diff(tc.stdout, strings.ReplaceAll(stdout, dir, "DIR")); diff != "" {
				t.Errorf("stdout (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.stderr, stderr); diff != "" {
				t.Errorf("stderr (-want +got):\n%s", diff)
			}
			if code != tc.code {
				t.Errorf("exit code %d, want %d", code, tc.code)
			}
			files := readTree(t, dir)
			if diff := cmp.Diff(tc.files, files); diff != "" {
				t.Errorf("files (-want +got):\n%s", diff)
			}
			checkOnlyMemory(t, files)
			if w := writes(h); len(w) > 0 {
				t.Errorf("backup wrote to the API server: %q", w)
			}
		})
	}
}

func TestBackupRestoreUsage(t *testing.T) {
	h := harnessWith(t, flavourLegacy, legacyFleet...)
	for _, tc := range []struct {
		args   []string
		stderr string
	}{
		{[]string{"backup"}, "error: -o is required: the directory to write the backup to\n"},
		{[]string{"backup", "-o", t.TempDir(), "team1"}, "error: kubectl scs backup takes no arguments; the directory comes with -o; see kubectl scs backup --help\n"},
		{[]string{"restore"}, "error: -f is required: the directory kubectl scs backup wrote, or files of it\n"},
		{[]string{"restore", "-f", writeTree(t, nil)}, "error: no backup files in DIR\n"},
	} {
		_, stderr, code := h.run("", tc.args...)
		if len(tc.args) > 2 {
			stderr = strings.ReplaceAll(stderr, tc.args[2], "DIR")
		}
		if diff := cmp.Diff(tc.stderr, stderr); diff != "" {
			t.Errorf("%v: stderr (-want +got):\n%s", tc.args, diff)
		}
		if code != ExitUsage {
			t.Errorf("%v: exit code %d, want %d", tc.args, code, ExitUsage)
		}
	}
	if n := len(h.dyn.Actions()); n != 0 {
		t.Errorf("%d requests sent to the API server, want none", n)
	}
}

// Restore's lines of what it wrote, one a request.
const (
	unpause = `{"metadata":{"annotations":{"crossplane.io/paused":null}}}`

	restoredBatch = "scscluster.kaas.scs.community/batch restored from DIR/team1/batch.yaml with xscscluster.kaas.scs.community/batch-q3m8z: created paused, status written, unpaused\n"
	batchStatus   = "apiServerURL backend connectionDetails defaulted kubernetes nodePools phase"
)

// batchWrites is what restoring batch writes, in order.
var batchWrites = []string{
	"create xscsclusters batch-q3m8z: crossplane.io/paused true, status false",
	"update xscsclusters/status batch-q3m8z: " + batchStatus,
	"create scsclusters team1/batch: crossplane.io/paused true, status false",
	"update scsclusters/status team1/batch: " + batchStatus,
	"patch xscsclusters batch-q3m8z: " + unpause,
	"patch scsclusters batch: " + unpause,
}

// refusedExisting is restore's refusal of team1/batch, whose object what exists.
func refusedExisting(what string) string {
	return "error: restore refused 1 cluster that exists already: team1/batch (" + what + " exists; DIR/team1/batch.yaml)\n" +
		`Restore never writes over the memory of a live cluster. To restore one from its backup, delete it
first and keep what runs: annotate it kaas.scs.community/deletion-policy=Orphan, wait until
status.backend.deletionPolicy says Orphan, then delete it (docs/deletion-protection.md); or
restore without its file.
`
}

// gitBatch is team1/batch as it is applied from Git again before the restore: spec only.
const gitBatch = `{"apiVersion": "kaas.scs.community/v1alpha1", "kind": "SCSCluster", "metadata": {"name": "batch", "namespace": "team1"},
  "spec": {"environment": "magnum-regionone", "kubernetes": {"version": "1.34"}, "nodePools": [{"name": "default", "machineType": "SCS-4V-8", "count": 3}]}}`

func TestRestore(t *testing.T) {
	// The claim alone, without the composite it binds.
	claimOnly := batchBackup[strings.Index(batchBackup, "---\n")+len("---\n"):]
	for _, tc := range []struct {
		name    string
		flavour flavour
		// existing are in the control plane before the restore.
		existing []string
		files    map[string]string
		args     []string
		stdout   string
		stderr   string
		code     int
		writes   []string
		// restored are the files whose objects exist afterwards as the file has them.
		restored []string
	}{
		{
			name:     "a legacy backup into an empty control plane: the composite first, both paused until their status is back",
			flavour:  flavourLegacy,
			files:    map[string]string{"team1/batch.yaml": batchBackup},
			stdout:   restoredBatch,
			writes:   batchWrites,
			restored: []string{"team1/batch.yaml"},
		},
		{
			name:    "a namespaced backup into an empty control plane",
			flavour: flavourNamespaced,
			files:   map[string]string{"team2/web.yaml": webBackup},
			stdout:  "scscluster.kaas.scs.community/web restored from DIR/team2/web.yaml: created paused, status written, unpaused\n",
			writes: []string{
				"create scsclusters team2/web: crossplane.io/paused true, status false",
				"update scsclusters/status team2/web: apiServerURL backend defaulted kubernetes nodePools phase",
				"patch scsclusters web: " + unpause,
			},
			restored: []string{"team2/web.yaml"},
		},
		{
			name:    "a cluster paused when it was backed up stays paused",
			flavour: flavourNamespaced,
			files:   map[string]string{"team2/web.yaml": strings.Replace(webBackup, "metadata:\n", "metadata:\n  annotations:\n    crossplane.io/paused: \"true\"\n", 1)},
			stdout:  "scscluster.kaas.scs.community/web restored from DIR/team2/web.yaml: created paused, status written, left paused as it was backed up (crossplane.io/paused)\n",
			writes: []string{
				"create scsclusters team2/web: crossplane.io/paused true, status false",
				"update scsclusters/status team2/web: apiServerURL backend defaulted kubernetes nodePools phase",
			},
			restored: []string{"team2/web.yaml"},
		},
		{
			name:     "a claim that exists is refused; the other clusters are restored",
			flavour:  flavourLegacy,
			existing: []string{gitBatch},
			files:    map[string]string{"team1/batch.yaml": batchBackup, "team2/pending.yaml": pendingBackup},
			stdout:   "scscluster.kaas.scs.community/pending restored from DIR/team2/pending.yaml: created paused, no status backed up, unpaused\n",
			stderr:   refusedExisting("SCSCluster team1/batch"),
			code:     ExitRefused,
			writes: []string{
				"create scsclusters team2/pending: crossplane.io/paused true, status false",
				"patch scsclusters pending: " + unpause,
			},
			restored: []string{"team2/pending.yaml"},
		},
		{
			name:     "a composite that exists is refused",
			flavour:  flavourLegacy,
			existing: []string{batchComposite},
			files:    map[string]string{"team1/batch.yaml": batchBackup},
			stderr:   refusedExisting("XSCSCluster batch-q3m8z"),
			code:     ExitRefused,
		},
		{
			name:    "a claim without the composite it binds: nothing is restored",
			flavour: flavourLegacy,
			files:   map[string]string{"team1/batch.yaml": claimOnly, "team2/pending.yaml": pendingBackup},
			stderr: "error: DIR/team1/batch.yaml: SCSCluster team1/batch binds XSCSCluster batch-q3m8z, which the file does not hold: " +
				"restored alone, it would get a new composite without the cluster's memory\n",
			code: ExitError,
		},
		{
			name:    "a Secret is not restored",
			flavour: flavourLegacy,
			files:   map[string]string{"team1/batch.yaml": batchBackup + "---\n" + batchSecret + "\n"},
			stderr: "error: DIR/team1/batch.yaml: Secret batch-kubeconfig is not what kubectl scs backup writes: " +
				"one SCSCluster and, in the legacy flavour, the XSCSCluster it binds\n",
			code: ExitError,
		},
		{
			name:    "a legacy backup into a namespaced control plane",
			flavour: flavourNamespaced,
			files:   map[string]string{"team1/batch.yaml": batchBackup},
			stderr: "error: DIR/team1/batch.yaml is a backup of the legacy flavour; this control plane serves the namespaced one: " +
				"restore it into a control plane of its flavour (docs/migration.md moves clusters between them)\n",
			code: ExitError,
		},
		{
			name:    "-n names another namespace",
			flavour: flavourLegacy,
			files:   map[string]string{"team1/batch.yaml": batchBackup},
			args:    []string{"-n", "team2"},
			stderr:  "error: DIR/team1/batch.yaml is a backup of team1/batch, not of namespace team2 as -n says\n",
			code:    ExitUsage,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := harnessWith(t, tc.flavour, tc.existing...)
			dir := writeTree(t, tc.files)
			stdout, stderr, code := h.run("", append([]string{"restore", "-f", dir}, tc.args...)...)
			if diff := cmp.Diff(tc.stdout, strings.ReplaceAll(stdout, dir, "DIR")); diff != "" {
				t.Errorf("stdout (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.stderr, strings.ReplaceAll(stderr, dir, "DIR")); diff != "" {
				t.Errorf("stderr (-want +got):\n%s", diff)
			}
			if code != tc.code {
				t.Errorf("exit code %d, want %d", code, tc.code)
			}
			if diff := cmp.Diff(tc.writes, writes(h)); diff != "" {
				t.Errorf("writes (-want +got):\n%s", diff)
			}
			for _, name := range tc.restored {
				want, err := decodeManifests(name, strings.NewReader(tc.files[name]))
				if err != nil {
					t.Fatal(err)
				}
				for _, w := range want {
					got := stored(t, h, w)
					if diff := cmp.Diff(w.Object["status"], got.Object["status"]); diff != "" {
						t.Errorf("status of %s %s (-backed up +restored):\n%s", w.GetKind(), objectID(w), diff)
					}
					if diff := cmp.Diff(w.Object["spec"], got.Object["spec"]); diff != "" {
						t.Errorf("spec of %s %s (-backed up +restored):\n%s", w.GetKind(), objectID(w), diff)
					}
					if diff := cmp.Diff(w.GetAnnotations()[pausedAnnotation], got.GetAnnotations()[pausedAnnotation]); diff != "" {
						t.Errorf("%s of %s %s (-backed up +restored):\n%s", pausedAnnotation, w.GetKind(), objectID(w), diff)
					}
				}
			}
			// What existed is as it was.
			for _, e := range tc.existing {
				want := object(t, e)
				if diff := cmp.Diff(want.Object, stored(t, h, want).Object); diff != "" {
					t.Errorf("%s %s changed (-before +after):\n%s", want.GetKind(), objectID(want), diff)
				}
			}
		})
	}
}

// TestBackupRestoreRoundTrip: a control plane restored from a backup backs up as the same
// files, in either flavour.
func TestBackupRestoreRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		flavour flavour
		objects []string
		files   []string
	}{
		{flavourLegacy, legacyFleet, []string{"team1/batch.yaml", "team2/pending.yaml"}},
		{flavourNamespaced, namespacedFleet, []string{"team2/web.yaml"}},
	} {
		t.Run(string(tc.flavour), func(t *testing.T) {
			first := t.TempDir()
			if _, stderr, code := harnessWith(t, tc.flavour, tc.objects...).run("", "backup", "-A", "-o", first); code != ExitOK {
				t.Fatalf("backup: exit code %d: %s", code, stderr)
			}
			restored := harnessWith(t, tc.flavour)
			if _, stderr, code := restored.run("", "restore", "-f", first); code != ExitOK {
				t.Fatalf("restore: exit code %d: %s", code, stderr)
			}
			second := t.TempDir()
			if _, stderr, code := restored.run("", "backup", "-A", "-o", second); code != ExitOK {
				t.Fatalf("backup of the restored control plane: exit code %d: %s", code, stderr)
			}
			before, after := readTree(t, first), readTree(t, second)
			if got := slices.Sorted(maps.Keys(before)); !slices.Equal(got, tc.files) {
				t.Errorf("backed up %q, want %q", got, tc.files)
			}
			if diff := cmp.Diff(before, after); diff != "" {
				t.Errorf("backup of the restored control plane (-first backup +second):\n%s", diff)
			}
		})
	}
}
