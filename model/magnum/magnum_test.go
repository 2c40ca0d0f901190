package magnum

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	envv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/environment/v1alpha1"
	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/model"
)

func environment() *model.Environment {
	return &model.Environment{Name: "magnum", ConfigName: "magnum-regionone", Environment: envv1alpha1.Environment{
		Backend: kaasv1alpha1.BackendMagnum,
		Region:  "RegionOne",
		Catalog: envv1alpha1.Catalog{KubernetesVersions: []string{"1.33", "1.34"}, Zones: []string{"nova"}},
		Defaults: envv1alpha1.Defaults{
			Network: kaasv1alpha1.NetworkSpec{CNI: kaasv1alpha1.CNICalico},
		},
		Magnum: &envv1alpha1.Magnum{
			ProviderConfigName: "openstack", Keypair: "ops", MasterFlavor: "SCS-2V-4",
			Templates: []envv1alpha1.MagnumTemplate{
				{KubernetesVersion: "1.33", ID: "tpl-133", KubeTag: "v1.33.6", NetworkDriver: "calico"},
				{KubernetesVersion: "1.34", ID: "tpl-134", KubeTag: "v1.34.3", NetworkDriver: "calico"},
			},
			Labels: map[string]string{"ingress_controller": "octavia"},
		},
	}}
}

func spec() kaasv1alpha1.ClusterSpec {
	return kaasv1alpha1.ClusterSpec{
		Purpose:    kaasv1alpha1.PurposeProduction,
		Kubernetes: kaasv1alpha1.KubernetesSpec{Version: "1.34"},
		Network:    &kaasv1alpha1.NetworkSpec{PodCIDR: "10.100.0.0/16", ServiceCIDR: "10.254.0.0/16"},
		NodePools: []kaasv1alpha1.NodePool{
			{Name: "default", MachineType: "SCS-4V-8", Count: ptrTo[int32](3), RootDiskGiB: ptrTo[int32](50)},
			{Name: "workers", MachineType: "SCS-8V-32", Autoscaling: &kaasv1alpha1.Autoscaling{Min: 1, Max: 6}, Zones: []string{"nova", "az2"}},
		},
	}
}

func request(s kaasv1alpha1.ClusterSpec, env *model.Environment, observed ...*unstructured.Unstructured) *model.Request {
	xr := &kaasv1alpha1.XSCSCluster{Spec: model.Default(s, env, nil)}
	xr.Name = "shop-4h7tw"
	req := &model.Request{Cluster: xr, NativeName: xr.Name, Environment: env, Observed: map[string]model.ObservedResource{},
		Options: model.Options{ConnectionSecretNamespace: "crossplane-system"}}
	for _, o := range observed {
		req.Observed[o.GetAnnotations()["crossplane.io/composition-resource-name"]] = model.ObservedResource{Object: o}
	}
	return req
}

// applied returns a rendered resource as provider-openstack reports it once created:
// what was applied under spec, the given id and conditions under status.
func applied(t *testing.T, req *model.Request, name, id string, ready bool) *unstructured.Unstructured {
	t.Helper()
	r, err := renderOf(req)
	if err != nil {
		t.Fatal(err)
	}
	for _, res := range r.Resources {
		if res.Name != name {
			continue
		}
		o := res.Object.DeepCopy()
		o.SetAnnotations(map[string]string{"crossplane.io/composition-resource-name": name, AnnotationDefaultPool: o.GetAnnotations()[AnnotationDefaultPool]})
		status := "False"
		if ready {
			status = "True"
		}
		o.Object["status"] = map[string]any{
			"atProvider": map[string]any{"id": id, "apiAddress": "https://198.51.100.20:6443", "coeVersion": "v1.34.3", "masterCount": int64(3), "nodeCount": int64(3)},
			"conditions": []any{
				map[string]any{"type": "Ready", "status": status, "reason": "Available"},
				map[string]any{"type": "Synced", "status": "True", "reason": "ReconcileSuccess"},
			},
		}
		return o
	}
	t.Fatalf("no resource %s rendered", name)
	return nil
}

func resource(t *testing.T, r *model.Rendering, name string) map[string]any {
	t.Helper()
	for _, res := range r.Resources {
		if res.Name == name {
			return res.Object.Object
		}
	}
	t.Fatalf("no resource %s in %v", name, names(r))
	return nil
}

func names(r *model.Rendering) []string {
	var out []string
	for _, res := range r.Resources {
		out = append(out, res.Name)
	}
	return out
}

// TestRenderMapsEveryPortableField writes down the ClusterV1 and NodegroupV1s the backend
// must render (docs/capabilities.md, Magnum column).
func TestRenderMapsEveryPortableField(t *testing.T) {
	req := request(spec(), environment())
	req.Observed[ResourceCluster] = model.ObservedResource{Object: applied(t, req, ResourceCluster, "magnum-id", false)}
	r, err := renderOf(req)
	if err != nil {
		t.Fatal(err)
	}
	wantCluster := map[string]any{
		"apiVersion": "containerinfra.openstack.crossplane.io/v1alpha1",
		"kind":       "ClusterV1",
		"metadata": map[string]any{
			"name":        "shop-4h7tw-cluster",
			"labels":      map[string]any{"kaas.scs.community/cluster": "shop-4h7tw"},
			"annotations": map[string]any{"kaas.scs.community/default-node-pool": "default"},
		},
		"spec": map[string]any{
			"forProvider": map[string]any{
				"name": "shop-4h7tw", "region": "RegionOne", "clusterTemplateId": "tpl-134",
				"flavor": "SCS-4V-8", "dockerVolumeSize": int64(50), "nodeCount": int64(3),
				"masterCount": int64(3), "masterLbEnabled": true, "masterFlavor": "SCS-2V-4", "keypair": "ops",
				"mergeLabels": true,
				"labels": map[string]any{
					"auto_scaling_enabled": "true", "availability_zone": "nova",
					"calico_ipv4pool": "10.100.0.0/16", "service_cluster_ip_range": "10.254.0.0/16",
					"ingress_controller": "octavia",
				},
			},
			"providerConfigRef":          map[string]any{"name": "openstack"},
			"writeConnectionSecretToRef": map[string]any{"name": "shop-4h7tw-magnum", "namespace": "crossplane-system"},
			// purpose production: deletion protection on.
			"deletionPolicy": "Orphan",
		},
	}
	if diff := cmp.Diff(wantCluster, resource(t, r, ResourceCluster)); diff != "" {
		t.Errorf("ClusterV1: -want, +got:\n%s", diff)
	}
	// The autoscaled pool over two zones: one node group per zone, bounds divided, the
	// start size in initProvider so the autoscaler owns nodeCount.
	wantGroup := func(zone string, min, max int64) map[string]any {
		return map[string]any{
			"apiVersion": "containerinfra.openstack.crossplane.io/v1alpha1",
			"kind":       "NodegroupV1",
			"metadata": map[string]any{
				"name":   "shop-4h7tw-workers-" + zone,
				"labels": map[string]any{"kaas.scs.community/cluster": "shop-4h7tw", "kaas.scs.community/node-pool": "workers"},
			},
			"spec": map[string]any{
				"forProvider": map[string]any{
					"clusterId": "magnum-id", "name": "workers-" + zone, "region": "RegionOne",
					"flavorId": "SCS-8V-32", "role": "worker", "minNodeCount": min, "maxNodeCount": max,
					"labels": map[string]any{"availability_zone": zone},
				},
				"initProvider":      map[string]any{"nodeCount": min},
				"providerConfigRef": map[string]any{"name": "openstack"},
				"deletionPolicy":    "Orphan",
			},
		}
	}
	if diff := cmp.Diff(wantGroup("nova", 1, 3), resource(t, r, "magnum-nodegroup-workers-nova")); diff != "" {
		t.Errorf("NodegroupV1 nova: -want, +got:\n%s", diff)
	}
	if diff := cmp.Diff(wantGroup("az2", 0, 3), resource(t, r, "magnum-nodegroup-workers-az2")); diff != "" {
		t.Errorf("NodegroupV1 az2: -want, +got:\n%s", diff)
	}
}

// TestNodegroupsWaitForTheClusterID: the first render has only the ClusterV1, and the pool
// says why its node groups are missing; once the id is known they are rendered.
func TestNodegroupsWaitForTheClusterID(t *testing.T) {
	req := request(spec(), environment())
	r, err := renderOf(req)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{ResourceCluster}, names(r)); diff != "" {
		t.Errorf("first render: -want, +got:\n%s", diff)
	}
	obs, err := observeOf(req)
	if err != nil {
		t.Fatal(err)
	}
	if p := obs.Status.NodePools[1]; p.Name != "workers" || !strings.Contains(p.Pending, "waiting for the Magnum cluster's id") {
		t.Errorf("pool status = %+v, want workers pending on the cluster id", p)
	}

	created := applied(t, req, ResourceCluster, "magnum-id", false)
	r, err = renderOf(request(spec(), environment(), created))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{ResourceCluster, "magnum-nodegroup-workers-nova", "magnum-nodegroup-workers-az2"}
	if diff := cmp.Diff(want, names(r)); diff != "" {
		t.Errorf("second render: -want, +got:\n%s", diff)
	}
}

// TestExistingNodegroupsSurviveALostClusterID: a NodegroupV1 that exists stays desired,
// with the cluster id it was created with, when the ClusterV1's id is not observed.
func TestExistingNodegroupsSurviveALostClusterID(t *testing.T) {
	req := request(spec(), environment())
	req.Observed[ResourceCluster] = model.ObservedResource{Object: applied(t, req, ResourceCluster, "magnum-id", true)}
	group := applied(t, req, "magnum-nodegroup-workers-nova", "ng-id", true)
	cluster := applied(t, req, ResourceCluster, "", true)
	r, err := renderOf(request(spec(), environment(), cluster, group))
	if err != nil {
		t.Fatal(err)
	}
	ng := resource(t, r, "magnum-nodegroup-workers-nova")
	if id, _, _ := unstructured.NestedString(ng, "spec", "forProvider", "clusterId"); id != "magnum-id" {
		t.Errorf("clusterId = %q, want the one the node group was created with", id)
	}
}

// TestForceNewChangesAreRefused: a change Magnum can only make by replacing the cluster or
// a node group is refused with the portable field that causes it; a change it can make in
// place is not.
func TestForceNewChangesAreRefused(t *testing.T) {
	cases := map[string]struct {
		spec func(s *kaasv1alpha1.ClusterSpec)
		env  func(e *model.Environment)
		want []string
	}{
		"Unchanged":         {},
		"ScaleTheFirstPool": {spec: func(s *kaasv1alpha1.ClusterSpec) { s.NodePools[0].Count = ptrTo[int32](5) }},
		"OtherTemplate":     {spec: func(s *kaasv1alpha1.ClusterSpec) { s.Kubernetes.Version = "1.33" }}, // clusterTemplateId changes in place (an upgrade); its direction is checked by the model layer
		"ScaleAnAutoscaledPool": {
			spec: func(s *kaasv1alpha1.ClusterSpec) { s.NodePools[1].Autoscaling.Max = 10 },
		},
		"FirstPoolMachineType": {
			spec: func(s *kaasv1alpha1.ClusterSpec) { s.NodePools[0].MachineType = "SCS-8V-32" },
			want: []string{`spec.nodePools[0].machineType: Forbidden: Magnum cannot change flavor of the Magnum cluster in place ("SCS-4V-8", now "SCS-8V-32")`},
		},
		"HighAvailabilityOff": {
			spec: func(s *kaasv1alpha1.ClusterSpec) { s.ControlPlane.HighAvailability = ptrTo(false) },
			want: []string{"spec.controlPlane.highAvailability: Forbidden: Magnum cannot change masterCount of the Magnum cluster in place (3, now 1)"},
		},
		"FirstPoolRootDisk": {
			spec: func(s *kaasv1alpha1.ClusterSpec) { s.NodePools[0].RootDiskGiB = ptrTo[int32](80) },
			want: []string{"spec.nodePools[0].rootDiskGiB: Forbidden: Magnum cannot change dockerVolumeSize of the Magnum cluster in place (50, now 80)"},
		},
		"FirstPoolBecomesAutoscaled": {
			spec: func(s *kaasv1alpha1.ClusterSpec) {
				s.NodePools[0].Count = nil
				s.NodePools[0].Autoscaling = &kaasv1alpha1.Autoscaling{Min: 1, Max: 3}
			},
			want: []string{"spec.nodePools[0].autoscaling: Forbidden: Magnum cannot change label max_node_count of the Magnum cluster in place"},
		},
		"ServiceCIDR": {
			spec: func(s *kaasv1alpha1.ClusterSpec) { s.Network.ServiceCIDR = "10.253.0.0/16" },
			want: []string{`spec.network.serviceCIDR: Forbidden: Magnum cannot change label service_cluster_ip_range of the Magnum cluster in place ("10.254.0.0/16", now "10.253.0.0/16")`},
		},
		"PlatformLabel": {
			env:  func(e *model.Environment) { e.Magnum.Labels["ingress_controller"] = "nginx" },
			want: []string{`data.magnum.labels: Forbidden: Magnum cannot change label ingress_controller of the Magnum cluster in place ("octavia", now "nginx")`},
		},
		"Keypair": {
			env:  func(e *model.Environment) { e.Magnum.Keypair = "other" },
			want: []string{`data.magnum.keypair: Forbidden: Magnum cannot change keypair of the Magnum cluster in place`},
		},
		"NodegroupMachineType": {
			spec: func(s *kaasv1alpha1.ClusterSpec) { s.NodePools[1].MachineType = "SCS-4V-8" },
			want: []string{`spec.nodePools[1].machineType: Forbidden: Magnum cannot change flavorId of node group workers-nova in place`},
		},
		"FirstPoolRenamed": {
			spec: func(s *kaasv1alpha1.ClusterSpec) { s.NodePools[0].Name = "system" },
			want: []string{`spec.nodePools[0].name: Forbidden: the first node pool is the Magnum cluster's default node group, which is pool "default"`},
		},
		"PoolsReordered": {
			spec: func(s *kaasv1alpha1.ClusterSpec) { s.NodePools[0], s.NodePools[1] = s.NodePools[1], s.NodePools[0] },
			want: []string{`spec.nodePools[0].name: Forbidden: the first node pool is the Magnum cluster's default node group, which is pool "default"`},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			before := request(spec(), environment())
			before.Observed[ResourceCluster] = model.ObservedResource{Object: applied(t, before, ResourceCluster, "magnum-id", true)}
			cluster := before.Observed[ResourceCluster].Object
			group := applied(t, before, "magnum-nodegroup-workers-nova", "ng-id", true)

			s := spec()
			if tc.spec != nil {
				tc.spec(&s)
			}
			env := environment()
			if tc.env != nil {
				tc.env(env)
			}
			errs := invalidOf(request(s, env, cluster, group))
			if len(tc.want) == 0 {
				if len(errs) > 0 {
					t.Fatalf("want no refusal, got %v", errs.ToAggregate())
				}
				return
			}
			got := errs.ToAggregate()
			if got == nil {
				t.Fatalf("want a refusal containing %q, got none", tc.want)
			}
			for _, w := range tc.want {
				if !strings.Contains(got.Error(), w) {
					t.Errorf("errors\n  %s\nshould contain\n  %s", got, w)
				}
			}
		})
	}
}

func TestValidateTemplates(t *testing.T) {
	s := spec()
	s.Kubernetes.Version = "1.34.5"
	got := invalidOf(request(s, environment())).ToAggregate()
	if got == nil || !strings.Contains(got.Error(), `spec.kubernetes.version: Invalid value: "1.34.5": Magnum's cluster template for 1.34 runs "v1.34.3"`) {
		t.Errorf("a pinned patch the template does not run: got %v", got)
	}
	s.Kubernetes.Version = "1.34.3"
	if errs := invalidOf(request(s, environment())); len(errs) > 0 {
		t.Errorf("the template's own patch: %v", errs.ToAggregate())
	}

	env := environment()
	env.Catalog.KubernetesVersions = append(env.Catalog.KubernetesVersions, "1.35")
	env.Magnum.Scope = "Regional"
	msg := New().ValidateEnvironment(env).ToAggregate().Error()
	for _, w := range []string{
		"data.catalog.kubernetesVersions[2]: Required value: minor 1.35 is offered but data.magnum.templates has no cluster template for it",
		`data.magnum.scope: Unsupported value: "Regional": supported values: "Cluster", "Namespaced"`,
	} {
		if !strings.Contains(msg, w) {
			t.Errorf("errors %q should contain %q", msg, w)
		}
	}
}

func TestNamespacedKinds(t *testing.T) {
	env := environment()
	env.Magnum.Scope = envv1alpha1.MagnumScopeNamespaced
	env.Magnum.Namespace = "team1-openstack"
	env.Magnum.ProviderConfigKind = "ClusterProviderConfig"
	r, err := renderOf(request(spec(), env))
	if err != nil {
		t.Fatal(err)
	}
	c := resource(t, r, ResourceCluster)
	u := &unstructured.Unstructured{Object: c}
	if u.GetAPIVersion() != "containerinfra.openstack.m.crossplane.io/v1alpha1" || u.GetNamespace() != "team1-openstack" {
		t.Errorf("got %s in namespace %q", u.GetAPIVersion(), u.GetNamespace())
	}
	spc := c["spec"].(map[string]any)
	want := map[string]any{"name": "openstack", "kind": "ClusterProviderConfig"}
	if diff := cmp.Diff(want, spc["providerConfigRef"]); diff != "" {
		t.Errorf("providerConfigRef: -want, +got:\n%s", diff)
	}
	if _, ok := spc["deletionPolicy"]; ok {
		t.Error("namespaced managed resources have no deletionPolicy")
	}
	if diff := cmp.Diff([]any{"Observe", "Create", "Update", "LateInitialize"}, spc["managementPolicies"]); diff != "" {
		t.Errorf("a protected namespaced resource must not be deleted: -want, +got:\n%s", diff)
	}
	if diff := cmp.Diff(map[string]any{"name": "shop-4h7tw-magnum"}, spc["writeConnectionSecretToRef"]); diff != "" {
		t.Errorf("writeConnectionSecretToRef: -want, +got:\n%s", diff)
	}
}

func TestRenderWarnsAboutWhatMagnumCannotDo(t *testing.T) {
	s := spec()
	s.Maintenance = &kaasv1alpha1.MaintenanceSpec{Window: &kaasv1alpha1.MaintenanceWindow{Begin: "220000+0000", End: "230000+0000"}}
	s.Hibernation = &kaasv1alpha1.HibernationSpec{Schedules: []kaasv1alpha1.HibernationSchedule{{Start: "0 20 * * *"}}}
	s.Network.CNI = kaasv1alpha1.CNICilium
	s.Network.NodeCIDR = "10.0.0.0/24"
	s.NodePools[1].Taints = []kaasv1alpha1.Taint{{Key: "a", Effect: "NoSchedule"}}
	s.NodePools[1].Labels = map[string]string{"a": "b"}
	req := request(s, environment())
	r, err := renderOf(req)
	if err != nil {
		t.Fatal(err)
	}
	// What Magnum never honours is declared in its capabilities; the model warns about it.
	var got []string
	for _, u := range append(New().Capabilities().Warnings(&req.Cluster.Spec), r.Unsupported...) {
		got = append(got, u.Field)
	}
	want := []string{"spec.nodePools[workers].labels", "spec.nodePools[workers].taints", "spec.network.nodeCIDR", "spec.hibernation", "spec.network.cni"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("warnings: -want, +got:\n%s", diff)
	}
}

// TestUpgradeWarnsAboutNodegroupsLeftBehind: while a change of minor moves the ClusterV1
// to the next template, the claim is told that further node groups keep their version; a
// single-pool cluster, and a cluster already on the template, get no such warning.
func TestUpgradeWarnsAboutNodegroupsLeftBehind(t *testing.T) {
	on133 := func(pools int) (kaasv1alpha1.ClusterSpec, *unstructured.Unstructured) {
		s := spec()
		s.NodePools = s.NodePools[:pools]
		s.Kubernetes.Version = "1.33"
		return s, applied(t, request(s, environment()), ResourceCluster, "magnum-id", true)
	}
	versionWarning := func(s kaasv1alpha1.ClusterSpec, observed *unstructured.Unstructured) string {
		t.Helper()
		r, err := renderOf(request(s, environment(), observed))
		if err != nil {
			t.Fatal(err)
		}
		for _, u := range r.Unsupported {
			if u.Field == "spec.kubernetes.version" {
				return u.Reason
			}
		}
		return ""
	}

	s, cluster := on133(2)
	if got := versionWarning(s, cluster); got != "" {
		t.Errorf("no upgrade under way, but warned: %s", got)
	}
	s.Kubernetes.Version = "1.34"
	got := versionWarning(s, cluster)
	for _, want := range []string{"pool default", "Kubernetes 1.34", "pools workers keep the version"} {
		if !strings.Contains(got, want) {
			t.Errorf("upgrade warning %q does not say %q", got, want)
		}
	}

	s, cluster = on133(1)
	s.Kubernetes.Version = "1.34"
	if got := versionWarning(s, cluster); got != "" {
		t.Errorf("single-pool upgrade warned: %s", got)
	}
}

func TestObserve(t *testing.T) {
	base := request(spec(), environment())
	base.Observed[ResourceCluster] = model.ObservedResource{Object: applied(t, base, ResourceCluster, "magnum-id", true)}
	readyCluster := base.Observed[ResourceCluster].Object
	readyGroups := []*unstructured.Unstructured{
		applied(t, base, "magnum-nodegroup-workers-nova", "ng-1", true),
		applied(t, base, "magnum-nodegroup-workers-az2", "ng-2", true),
	}
	const kubeconfig = "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster: {server: https://198.51.100.20:6443}\n"

	t.Run("ReadyWithKubeconfig", func(t *testing.T) {
		req := request(spec(), environment(), append([]*unstructured.Unstructured{readyCluster}, readyGroups...)...)
		res := req.Observed[ResourceCluster]
		res.ConnectionDetails = map[string][]byte{ConnectionKeyKubeconfig: []byte(kubeconfig)}
		req.Observed[ResourceCluster] = res
		obs, err := observeOf(req)
		if err != nil {
			t.Fatal(err)
		}
		if !obs.Ready || obs.Status.Phase != kaasv1alpha1.PhaseReady || obs.Conditions[0].Status != model.ConditionTrue {
			t.Errorf("ready = %v, phase = %s, condition = %+v", obs.Ready, obs.Status.Phase, obs.Conditions[0])
		}
		want := map[string][]byte{"kubeconfig": []byte(kubeconfig), "endpoint": []byte("https://198.51.100.20:6443")}
		if diff := cmp.Diff(want, obs.ConnectionDetails); diff != "" {
			t.Errorf("connection details: -want, +got:\n%s", diff)
		}
		if obs.Status.APIServerURL != "https://198.51.100.20:6443" || obs.Status.Kubernetes.Version != "1.34.3" || !obs.Status.ControlPlane.HighAvailability {
			t.Errorf("status = %+v", obs.Status)
		}
	})
	t.Run("RunningWithoutKubeconfigIsNotReadyForTheClaim", func(t *testing.T) {
		obs, err := observeOf(request(spec(), environment(), append([]*unstructured.Unstructured{readyCluster}, readyGroups...)...))
		if err != nil {
			t.Fatal(err)
		}
		if obs.Ready || obs.Status.Phase != kaasv1alpha1.PhaseReady {
			t.Errorf("ready = %v, phase = %s; want phase Ready but not ready for the claim", obs.Ready, obs.Status.Phase)
		}
	})
	t.Run("VersionOfTheAppliedTemplateUntilMagnumReportsOne", func(t *testing.T) {
		c := readyCluster.DeepCopy()
		unstructured.RemoveNestedField(c.Object, "status", "atProvider", "coeVersion")
		obs, err := observeOf(request(spec(), environment(), c))
		if err != nil {
			t.Fatal(err)
		}
		if obs.Status.Kubernetes == nil || obs.Status.Kubernetes.Version != "1.34.3" {
			t.Errorf("kubernetes status = %+v, want the 1.34 template's kube_tag 1.34.3", obs.Status.Kubernetes)
		}
	})
	t.Run("SyncedErrorSurfaces", func(t *testing.T) {
		c := readyCluster.DeepCopy()
		c.Object["status"].(map[string]any)["conditions"] = []any{
			map[string]any{"type": "Ready", "status": "False", "reason": "Creating"},
			map[string]any{"type": "Synced", "status": "False", "reason": "ReconcileError", "message": "Quota exceeded for resources: instances"},
		}
		obs, err := observeOf(request(spec(), environment(), c))
		if err != nil {
			t.Fatal(err)
		}
		cond := obs.Conditions[0]
		if cond.Reason != "ReconcileError" || !strings.Contains(cond.Message, "Quota exceeded for resources: instances") {
			t.Errorf("condition = %+v", cond)
		}
	})
	t.Run("NodegroupNotReady", func(t *testing.T) {
		g := readyGroups[1].DeepCopy()
		g.Object["status"].(map[string]any)["conditions"] = []any{map[string]any{"type": "Ready", "status": "False", "reason": "Creating"}}
		obs, err := observeOf(request(spec(), environment(), readyCluster, readyGroups[0], g))
		if err != nil {
			t.Fatal(err)
		}
		if obs.ResourceReady["magnum-nodegroup-workers-az2"] || !obs.ResourceReady[ResourceCluster] {
			t.Errorf("resource readiness = %v", obs.ResourceReady)
		}
		if c := obs.Conditions[0]; c.Status != model.ConditionFalse || !strings.Contains(c.Message, "NodegroupV1 workers-az2 is not ready yet (Creating)") {
			t.Errorf("condition = %+v", c)
		}
	})
	t.Run("Undecodable", func(t *testing.T) {
		c := readyCluster.DeepCopy()
		c.Object["status"].(map[string]any)["conditions"] = "broken"
		if _, err := observeOf(request(spec(), environment(), c)); err == nil {
			t.Error("want an error")
		}
		bad := readyCluster.DeepCopy()
		bad.SetKind("NodegroupV1")
		if _, err := observeOf(request(spec(), environment(), bad)); err == nil {
			t.Error("want an error for a resource of the wrong kind")
		}
	})
	t.Run("SeveralUndecodableNameTheFirstEveryTime", func(t *testing.T) {
		// Map order differs between calls; the same request must give the same error. Twenty
		// calls with four broken node groups would all agree by chance once in 4^19.
		var groups []*unstructured.Unstructured
		for _, name := range []string{"magnum-nodegroup-d", "magnum-nodegroup-b", "magnum-nodegroup-a", "magnum-nodegroup-c"} {
			g := readyGroups[0].DeepCopy()
			g.SetAnnotations(map[string]string{"crossplane.io/composition-resource-name": name})
			g.SetKind("ClusterV1")
			groups = append(groups, g)
		}
		req := request(spec(), environment(), append([]*unstructured.Unstructured{readyCluster}, groups...)...)
		for range 20 {
			_, err := observeOf(req)
			if err == nil || !strings.Contains(err.Error(), "observed resource magnum-nodegroup-a is") {
				t.Fatalf("error = %v, want the one of magnum-nodegroup-a, the first by name", err)
			}
		}
	})
}
