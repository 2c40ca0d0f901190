package clusterstack

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/model"
)

func jsonValue(s string) apiextensionsv1.JSON { return apiextensionsv1.JSON{Raw: []byte(s)} }

// TestRenderMapsEveryPortableField writes down the Cluster the backend must render, field
// by field (docs/capabilities.md, Cluster API column).
func TestRenderMapsEveryPortableField(t *testing.T) {
	got, r := renderedCluster(t, request(spec(), environment("local"), standardReleases(), nil))

	workerLabels := func(pool string) map[string]string {
		return map[string]string{"kaas.scs.community/node-pool": pool, "node-role.kubernetes.io/system": "", "node.cluster.x-k8s.io/pool": "system"}
	}
	taints := []clusterv1.MachineTaint{{Key: "node.scs.community/system", Value: "true", Effect: corev1.TaintEffectNoSchedule, Propagation: clusterv1.MachineTaintPropagationAlways}}
	system := func(zone string, replicas int32) clusterv1.MachineDeploymentTopology {
		return clusterv1.MachineDeploymentTopology{
			Class: "default-worker", Name: "system-" + zone, FailureDomain: zone, Replicas: ptrTo(replicas),
			Metadata: clusterv1.ObjectMeta{Labels: workerLabels("system")}, Taints: taints,
			Variables: clusterv1.MachineDeploymentVariables{Overrides: []clusterv1.ClusterVariable{{Name: "workerFlavor", Value: jsonValue(`"SCS-4V-8"`)}}},
		}
	}
	general := func(zone, min, max string) clusterv1.MachineDeploymentTopology {
		return clusterv1.MachineDeploymentTopology{
			Class: "default-worker", Name: "general-" + zone, FailureDomain: zone,
			Metadata: clusterv1.ObjectMeta{
				Labels: map[string]string{"kaas.scs.community/node-pool": "general"},
				Annotations: map[string]string{
					"cluster.x-k8s.io/cluster-api-autoscaler-node-group-min-size": min,
					"cluster.x-k8s.io/cluster-api-autoscaler-node-group-max-size": max,
				},
			},
			Variables: clusterv1.MachineDeploymentVariables{Overrides: []clusterv1.ClusterVariable{
				{Name: "workerFlavor", Value: jsonValue(`"SCS-8V-32"`)},
				{Name: "workerRootDisk", Value: jsonValue(`100`)},
			}},
		}
	}
	want := &clusterv1.Cluster{}
	want.APIVersion, want.Kind = "cluster.x-k8s.io/v1beta2", "Cluster"
	want.Name, want.Namespace = "shop-9q8rz", "kaas-team1"
	want.Labels = map[string]string{"kaas.scs.community/cluster": "shop-9q8rz", "managed-secret": "clouds-yaml"}
	want.Spec.ClusterNetwork = clusterv1.ClusterNetwork{
		Pods:     clusterv1.NetworkRanges{CIDRBlocks: []string{"192.168.0.0/16"}},
		Services: clusterv1.NetworkRanges{CIDRBlocks: []string{"10.96.0.0/12"}},
	}
	want.Spec.Topology = clusterv1.Topology{
		// The newest ready release of 1.34: v10 is newer than v3 and v2.
		ClassRef:     clusterv1.ClusterClassRef{Name: "openstack-scs2-1-34-v10"},
		Version:      "v1.34.8",
		ControlPlane: clusterv1.ControlPlaneTopology{Replicas: ptrTo[int32](3)},
		Variables: []clusterv1.ClusterVariable{
			{Name: "controlPlaneAvailabilityZones", Value: jsonValue(`["az1","az2","az3"]`)},
			{Name: "identityRef", Value: jsonValue(`{"name":"openstack","cloudName":"openstack"}`)},
			{Name: "networkExternalID", Value: jsonValue(`"ebfe5546-f09f-4f42-ab54-094e457d42ec"`)},
			{Name: "nodeCIDR", Value: jsonValue(`"10.8.0.0/20"`)},
		},
		Workers: clusterv1.WorkersTopology{MachineDeployments: []clusterv1.MachineDeploymentTopology{
			// Four nodes over three zones: the first zone gets the remainder.
			system("az1", 2), system("az2", 1), system("az3", 1),
			// Min 1, max 5 over two zones; no replicas, so the autoscaler owns the size.
			general("az1", "1", "3"), general("az2", "0", "2"),
		}},
	}
	if diff := cmp.Diff(want, got, cmpJSON); diff != "" {
		t.Errorf("rendered Cluster: -want, +got:\n%s", diff)
	}
	if len(r.Unsupported) != 1 || r.Unsupported[0].Field != "spec.nodePools[system].labels" ||
		!strings.Contains(r.Unsupported[0].Reason, "node.cluster.x-k8s.io/pool for node.scs.community/pool") {
		t.Errorf("unsupported = %+v, want the moved label reported", r.Unsupported)
	}
	if r.NativeRef == nil || r.NativeRef.Name != "shop-9q8rz" || r.NativeRef.Kind != "Cluster" {
		t.Errorf("nativeRef = %+v", r.NativeRef)
	}
}

// cmpJSON compares variable values by content, not by key order.
var cmpJSON = cmp.Transformer("json", func(j apiextensionsv1.JSON) any {
	var v any
	_ = json.Unmarshal(j.Raw, &v)
	return v
})

func TestRenderFixedSizeAndNonHA(t *testing.T) {
	s := spec()
	s.Purpose = kaasv1alpha1.PurposeDevelopment
	s.NodePools = s.NodePools[:1]
	s.NodePools[0].Zones = []string{"az1"}
	s.NodePools[0].MaxSurge = nil
	c, _ := renderedCluster(t, request(s, environment("local"), standardReleases(), nil))
	if got := *c.Spec.Topology.ControlPlane.Replicas; got != 1 {
		t.Errorf("control plane replicas = %d, want 1 without HA", got)
	}
	for _, v := range c.Spec.Topology.Variables {
		if v.Name == "controlPlaneAvailabilityZones" {
			t.Errorf("a single control plane node needs no zone list, got %s", v.Value.Raw)
		}
	}
	md := c.Spec.Topology.Workers.MachineDeployments
	if len(md) != 1 || *md[0].Replicas != 4 || md[0].Metadata.Annotations != nil {
		t.Errorf("machine deployments = %+v, want one with 4 replicas and no autoscaler bounds", md)
	}
}

func TestRenderWarnsAboutWhatClusterAPICannotDo(t *testing.T) {
	s := spec()
	s.Maintenance = &kaasv1alpha1.MaintenanceSpec{Window: &kaasv1alpha1.MaintenanceWindow{Begin: "220000+0000", End: "230000+0000"}}
	s.Hibernation = &kaasv1alpha1.HibernationSpec{Enabled: ptrTo(true)}
	s.Network.CNI = kaasv1alpha1.CNICalico
	env := environment("local")
	env.ClusterStack.TaintPropagation = false
	delete(env.ClusterStack.VariableNames, "workerRootDisk")
	req := request(s, env, standardReleases(), nil)
	c, r := renderedCluster(t, req)
	fields := map[string]bool{}
	// What Cluster API never honours is declared in its capabilities; the model warns about it.
	for _, u := range append(New().Capabilities().Warnings(&req.Cluster.Spec), r.Unsupported...) {
		fields[u.Field] = true
	}
	for _, f := range []string{"spec.hibernation", "spec.network.cni", "spec.nodePools[system].taints", "spec.nodePools[general].rootDiskGiB", "spec.nodePools[system].labels"} {
		if !fields[f] {
			t.Errorf("no warning for %s; got %+v", f, r.Unsupported)
		}
	}
	for _, md := range c.Spec.Topology.Workers.MachineDeployments {
		if len(md.Taints) > 0 {
			t.Errorf("%s has taints without the feature gate", md.Name)
		}
	}
}

func TestRenderRemoteManagementCluster(t *testing.T) {
	req := request(spec(), environment("capi-mgmt"), standardReleases(), nil)
	c, r := renderedCluster(t, req)
	if c.Spec.Topology.ClassRef.Name != "openstack-scs2-1-34-v10" {
		t.Errorf("class = %s: releases observed through the collection must be read", c.Spec.Topology.ClassRef.Name)
	}
	names := []string{}
	for _, res := range r.Resources {
		names = append(names, res.Name+"="+res.Object.GetKind()+"/"+res.Object.GetName())
	}
	want := []string{
		"clusterstack-cluster=Object/shop-9q8rz-cluster",
		"clusterstack-releases=ObservedObjectCollection/shop-9q8rz-releases",
		"clusterstack-kubeconfig=Object/shop-9q8rz-kubeconfig",
	}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("resources: -want, +got:\n%s", diff)
	}
	kc := r.Resources[2].Object.Object
	if p, _, _ := unstructured.NestedStringSlice(kc, "spec", "managementPolicies"); len(p) != 1 || p[0] != "Observe" {
		t.Errorf("the kubeconfig Object must only observe, got managementPolicies %v", p)
	}
	cd, _, _ := unstructured.NestedSlice(kc, "spec", "connectionDetails")
	if len(cd) != 1 || cd[0].(map[string]any)["fieldPath"] != "data.value" || cd[0].(map[string]any)["toConnectionSecretKey"] != "kubeconfig" {
		t.Errorf("connectionDetails = %v", cd)
	}
	if ns, _, _ := unstructured.NestedString(kc, "spec", "writeConnectionSecretToRef", "namespace"); ns != "crossplane-system" {
		t.Errorf("connection secret namespace = %q", ns)
	}
	reqs := New().Requirements(req)
	if sel := reqs[RequirementReleases]; sel.Kind != "Object" || sel.MatchLabels["kubernetes.crossplane.io/owned-by-collection"] != "shop-9q8rz-releases" {
		t.Errorf("remote release requirement = %+v", sel)
	}
}

// TestRenderWhileRemoteReleasesAreUnknown: a new cluster waits for the releases; an
// existing Cluster stays in the desired state on its release, so nothing is deleted.
func TestRenderWhileRemoteReleasesAreUnknown(t *testing.T) {
	env := environment("capi-mgmt")
	r, err := renderOf(request(spec(), env, []*unstructured.Unstructured{}, nil))
	if err != nil {
		t.Fatal(err)
	}
	for _, res := range r.Resources {
		if res.Name == ResourceCluster {
			t.Errorf("a Cluster was rendered before its release is known")
		}
	}
	obs, err := observeOf(request(spec(), env, []*unstructured.Unstructured{}, nil))
	if err != nil || obs.Conditions[0].Reason != "WaitingForReleases" {
		t.Errorf("observation = %+v, %v; want reason WaitingForReleases", obs, err)
	}

	c, _ := renderedCluster(t, request(spec(), env, []*unstructured.Unstructured{}, existingCluster()))
	if c.Spec.Topology.ClassRef.Name != "openstack-scs2-1-34-v2" || c.Spec.Topology.Version != "v1.34.6" {
		t.Errorf("the existing Cluster must keep its release, got %s %s", c.Spec.Topology.ClassRef.Name, c.Spec.Topology.Version)
	}
	up := spec()
	up.Kubernetes.Version = "1.35"
	if _, err := renderOf(request(up, env, []*unstructured.Unstructured{}, existingCluster())); err == nil {
		t.Error("an upgrade without known releases must be refused")
	}
}

// TestRenderWhileRemoteReleasesAreObservedInPart: provider-kubernetes reads the members of
// the collection one by one; a new cluster must not be given the newest release of the
// part read so far (seen in the e2e under load: v2 instead of v3), but wait for the rest.
func TestRenderWhileRemoteReleasesAreObservedInPart(t *testing.T) {
	env := environment("capi-mgmt")
	req := request(spec(), env, standardReleases(), nil)
	for _, o := range req.Required[RequirementReleases] {
		if o.GetName() == "openstack-scs2-1-34-v10" {
			delete(o.Object, "status") // created by the collection, not read yet
		}
	}
	r, err := renderOf(req)
	if err != nil {
		t.Fatal(err)
	}
	for _, res := range r.Resources {
		if res.Name == ResourceCluster {
			t.Errorf("a Cluster was rendered from part of the releases: %s", res.Object.GetName())
		}
	}
	obs, err := observeOf(req)
	if err != nil || obs.Conditions[0].Reason != "WaitingForReleases" {
		t.Errorf("observation = %+v, %v; want reason WaitingForReleases", obs, err)
	}
}

func TestChooseRelease(t *testing.T) {
	env := environment("local")
	req := request(spec(), env, standardReleases(), nil)
	rels, _, err := releases(req, management(req))
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct {
		version      string
		autoPatch    bool
		running      string
		stackVersion string
		want         string
		wantErr      string
	}{
		"NewestReadyOfTheMinor":     {version: "1.34", autoPatch: true, want: "openstack-scs2-1-34-v10"},
		"KeepsTheRunningRelease":    {version: "1.34", running: "openstack-scs2-1-34-v2", want: "openstack-scs2-1-34-v2"},
		"PatchUpdatesMoveOn":        {version: "1.34", autoPatch: true, running: "openstack-scs2-1-34-v2", want: "openstack-scs2-1-34-v10"},
		"PinnedPatch":               {version: "1.34.7", autoPatch: true, want: "openstack-scs2-1-34-v3"},
		"PinnedStackVersion":        {version: "1.34", stackVersion: "v2", autoPatch: true, want: "openstack-scs2-1-34-v2"},
		"NextMinorAfterTheRunning":  {version: "1.33", running: "openstack-scs2-1-34-v2", want: "openstack-scs2-1-33-v4"},
		"MinorNotReady":             {version: "1.35", wantErr: "Kubernetes 1.35 is not offered by Cluster Stack openstack/scs2 in namespace kaas-team1; releases there: openstack-scs2-1-33-v4 (v1.33.9, ready), openstack-scs2-1-34-v10 (v1.34.8, ready), openstack-scs2-1-34-v2 (v1.34.6, ready), openstack-scs2-1-34-v3 (v1.34.7, ready), openstack-scs2-1-35-v1 (v1.35.1, not ready)"},
		"PatchNotOffered":           {version: "1.34.9", wantErr: "Kubernetes 1.34.9 is not offered"},
		"OtherStackIsNotConsidered": {version: "1.34.2", wantErr: "is not offered"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			cs := *env.ClusterStack
			cs.StackVersion = tc.stackVersion
			got, err := chooseRelease(&cs, rels, tc.version, tc.autoPatch, tc.running)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Class != tc.want {
				t.Errorf("release = %s, want %s", got.Class, tc.want)
			}
		})
	}
}

func TestKubeconfigConnectionDetailsFromALocalSecret(t *testing.T) {
	c := existingCluster()
	c.Status.Conditions = append(c.Status.Conditions, availableTrue())
	req := request(spec(), environment("local"), standardReleases(), c)
	req.Required[RequirementKubeconfig] = []*unstructured.Unstructured{kubeconfigSecret()}
	obs, err := observeOf(req)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]byte{
		model.ConnectionKeyKubeconfig: []byte(testKubeconfig),
		model.ConnectionKeyEndpoint:   []byte("https://203.0.113.10:6443"),
		model.ConnectionKeyCA:         []byte("CA-PEM"),
	}
	if diff := cmp.Diff(want, obs.ConnectionDetails); diff != "" {
		t.Errorf("connection details: -want, +got:\n%s", diff)
	}
	if !obs.Ready || !obs.ResourceReady[ResourceCluster] {
		t.Errorf("ready = %v, resource ready = %v; want both with an available Cluster and its kubeconfig", obs.Ready, obs.ResourceReady)
	}
}

func TestKubeconfigConnectionDetailsFromARemoteSecret(t *testing.T) {
	c := existingCluster()
	c.Status.Conditions = append(c.Status.Conditions, availableTrue())
	req := request(spec(), environment("capi-mgmt"), standardReleases(), c)
	req.Observed[ResourceKubeconfig] = model.ObservedResource{
		Object:            management(req).SecretResources(kubeconfigRead(req))[0].Object,
		ConnectionDetails: map[string][]byte{"kubeconfig": []byte(testKubeconfig)},
	}
	obs, err := observeOf(req)
	if err != nil {
		t.Fatal(err)
	}
	if string(obs.ConnectionDetails[model.ConnectionKeyKubeconfig]) != testKubeconfig {
		t.Errorf("kubeconfig not delivered: %v", obs.ConnectionDetails)
	}
	if !obs.ResourceReady[ResourceKubeconfig] || !obs.ResourceReady[ResourceReleases] || !obs.ResourceReady[ResourceCluster] {
		t.Errorf("resource readiness = %v, want all ready", obs.ResourceReady)
	}
}

// TestNodeLabelsThatCollide: labels that Cluster API would not carry move under
// node.cluster.x-k8s.io/; where two land on one key, the same one wins on every call and
// the user is told which was dropped.
func TestNodeLabelsThatCollide(t *testing.T) {
	cases := map[string]struct {
		in        map[string]string
		want      map[string]string
		wantMoved []string
	}{
		"MovedUnderTheNodeDomain": {
			in:        map[string]string{"example.com/tier": "gold", "node-role.kubernetes.io/worker": ""},
			want:      map[string]string{"node.cluster.x-k8s.io/tier": "gold", "node-role.kubernetes.io/worker": ""},
			wantMoved: []string{"node.cluster.x-k8s.io/tier for example.com/tier"},
		},
		"TheLabelAlreadyThereWins": {
			in:        map[string]string{"role": "db", "node.cluster.x-k8s.io/role": "web"},
			want:      map[string]string{"node.cluster.x-k8s.io/role": "web"},
			wantMoved: []string{"nothing for role (node.cluster.x-k8s.io/role is set already)"},
		},
		"TheFirstByNameWins": {
			in:   map[string]string{"b.io/role": "y", "a.com/role": "x", "c.org/role": "z"},
			want: map[string]string{"node.cluster.x-k8s.io/role": "x"},
			wantMoved: []string{
				"node.cluster.x-k8s.io/role for a.com/role",
				"nothing for b.io/role (node.cluster.x-k8s.io/role is set already)",
				"nothing for c.org/role (node.cluster.x-k8s.io/role is set already)",
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			// Map order differs between calls; every call must give the same labels.
			for range 20 {
				got, moved := nodeLabels(tc.in)
				if diff := cmp.Diff(tc.want, got); diff != "" {
					t.Fatalf("labels: -want, +got:\n%s", diff)
				}
				if diff := cmp.Diff(tc.wantMoved, moved); diff != "" {
					t.Fatalf("what the user is told: -want, +got:\n%s", diff)
				}
			}
		})
	}
}
