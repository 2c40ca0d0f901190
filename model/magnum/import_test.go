package magnum

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	envv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/environment/v1alpha1"
	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/model"
)

// importEnvironment is environment() with defaults for what a spec may leave out, three
// zones and an always-allowed range: what a cluster takes from them shows in its natives.
func importEnvironment() *model.Environment {
	env := environment()
	env.Catalog.Zones = []string{"nova", "az2", "az3"}
	env.Defaults.Network = kaasv1alpha1.NetworkSpec{CNI: kaasv1alpha1.CNICalico, PodCIDR: "10.100.0.0/16", ServiceCIDR: "10.254.0.0/16"}
	env.Defaults.RootDiskGiB = ptrTo[int32](50)
	env.APIServerAccess = &envv1alpha1.APIServerAccess{RestrictSourceRanges: true, AlwaysAllowedSourceRanges: []string{"192.0.2.10/32"}}
	return env
}

// edited is env after its platform team changed every setting but where clusters live, and
// its defaults: a cluster read back in it must render as it was built, from its natives.
func edited(env *model.Environment) *model.Environment {
	out := *env
	out.Environment = *env.DeepCopy()
	m := out.Magnum
	m.Templates = []envv1alpha1.MagnumTemplate{
		{KubernetesVersion: "1.33", ID: "tpl-133-new", KubeTag: "v1.33.9", NetworkDriver: "cilium"},
		{KubernetesVersion: "1.34", ID: "tpl-134-new", KubeTag: "v1.34.9", NetworkDriver: "cilium"},
	}
	m.Keypair, m.MasterFlavor = "other", "SCS-4V-16"
	m.FloatingIPEnabled = ptrTo(true)
	m.MasterLBEnabled = !m.MasterLBEnabled
	m.FixedNetwork, m.FixedSubnet = "net-new", "subnet-new"
	m.Labels = map[string]string{"ingress_controller": "nginx", "cloud_provider_enabled": "true"}
	out.Defaults.Network = kaasv1alpha1.NetworkSpec{CNI: kaasv1alpha1.CNICilium, PodCIDR: "10.200.0.0/16", ServiceCIDR: "10.201.0.0/16"}
	out.Defaults.RootDiskGiB = ptrTo[int32](80)
	if a := out.APIServerAccess; a != nil {
		a.AlwaysAllowedSourceRanges = append(a.AlwaysAllowedSourceRanges, "198.51.100.7/32")
	}
	return &out
}

// fullSpec is spec() with an issuer, groups included, and source ranges.
func fullSpec() kaasv1alpha1.ClusterSpec {
	s := spec()
	s.Access = &kaasv1alpha1.AccessSpec{
		OIDC: &kaasv1alpha1.OIDCSpec{OIDCClaims: kaasv1alpha1.OIDCClaims{IssuerURL: "https://login.example.com/realms/team", ClientID: "kubectl",
			UsernameClaim: "email", UsernamePrefix: ptrTo(""), GroupsClaim: "groups"}},
		AllowedSourceRanges: []string{"203.0.113.0/24"},
	}
	return s
}

// importRequest is a request for s in env as the model makes it: defaulted, its access resolved.
func importRequest(s kaasv1alpha1.ClusterSpec, env *model.Environment, observed ...*unstructured.Unstructured) *model.Request {
	req := request(s, env, observed...)
	access, err := model.ResolveAccess(req, nil)
	if err != nil {
		panic(err)
	}
	req.Access = access
	return req
}

// existing is a rendered managed resource as it exists once provider-openstack created it:
// with server metadata, its external name, and status.atProvider as provider-openstack
// reports it: every parameter, what Magnum computes, the nodes a group runs, and a node
// group's bounds, which Magnum reports as 0 for a fixed group.
func existing(res model.Resource, clusterID, coeVersion string) *unstructured.Unstructured {
	o := res.Object.DeepCopy()
	o.SetUID(types.UID("4c1f6a52-" + res.Name))
	o.SetResourceVersion("48213")
	o.SetGeneration(2)
	o.SetCreationTimestamp(metav1.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC))
	annotations := o.GetAnnotations()
	if annotations == nil {
		annotations = map[string]string{}
	}
	annotations["crossplane.io/composition-resource-name"] = res.Name
	at, _, _ := unstructured.NestedMap(o.Object, "spec", "forProvider")
	if started, ok, _ := unstructured.NestedInt64(o.Object, "spec", "initProvider", "nodeCount"); ok {
		at["nodeCount"] = started
	}
	if o.GetKind() == kindCluster {
		annotations[annotationExternalName] = clusterID
		at["id"], at["apiAddress"], at["coeVersion"] = clusterID, "https://198.51.100.20:6443", coeVersion
		at["stackId"], at["createTimeout"] = "stack-"+clusterID, int64(60)
	} else {
		annotations[annotationExternalName] = clusterID + "/ng-" + res.Name
		at["id"] = "ng-" + res.Name
		for _, bound := range []string{"minNodeCount", "maxNodeCount"} {
			if _, ok := at[bound]; !ok {
				at[bound] = int64(0)
			}
		}
	}
	o.SetAnnotations(annotations)
	o.Object["status"] = map[string]any{
		"atProvider": at,
		"conditions": []any{
			map[string]any{"type": "Ready", "status": "True", "reason": "Available"},
			map[string]any{"type": "Synced", "status": "True", "reason": "ReconcileSuccess"},
		},
	}
	return o
}

// built is a cluster rendered from s in env as it comes to exist: the ClusterV1 first, then,
// once Magnum gave it an id, the NodegroupV1s. It returns the rendered managed resources by
// resource name and the natives as they exist.
func built(t *testing.T, s kaasv1alpha1.ClusterSpec, env *model.Environment) (map[string]map[string]any, []*unstructured.Unstructured) {
	t.Helper()
	req := importRequest(s, env)
	tpl, _ := template(env, req.Cluster.Spec.Kubernetes.Version)
	first, err := renderOf(req)
	if err != nil {
		t.Fatal(err)
	}
	cluster := existing(first.Resources[0], "5d2f3c8e-magnum", tpl.KubeTag)
	r, err := renderOf(importRequest(s, env, cluster))
	if err != nil {
		t.Fatal(err)
	}
	var natives []*unstructured.Unstructured
	for _, res := range r.Resources {
		natives = append(natives, existing(res, "5d2f3c8e-magnum", tpl.KubeTag))
	}
	return byResource(r), natives
}

func byResource(r *model.Rendering) map[string]map[string]any {
	out := map[string]map[string]any{}
	for _, res := range r.Resources {
		out[res.Name] = res.Object.Object
	}
	return out
}

// renderImported renders what Import read back as a request would: in env with the settings
// it read, its spec defaulted there, the natives observed. It checks that the spec is valid.
func renderImported(t *testing.T, imported *model.Imported, env *model.Environment, natives []*unstructured.Unstructured) map[string]map[string]any {
	t.Helper()
	env, err := model.WithSettings(env, imported.Settings)
	if err != nil {
		t.Fatal(err)
	}
	req := importRequest(imported.Spec, env, natives...)
	req.NativeName = imported.Name
	// Validate takes the defaulted spec, as a request does: spec.environment and purpose are
	// the defaults' to fill in.
	if errs := model.Validate(&req.Cluster.Spec, env, nil); len(errs) > 0 {
		t.Errorf("the imported spec is invalid: %v", errs.ToAggregate())
	}
	if errs := model.ValidateAccess(&req.Cluster.Spec, nil, env, true); len(errs) > 0 {
		t.Errorf("the imported access is invalid: %v", errs.ToAggregate())
	}
	r, err := renderOf(req)
	if err != nil {
		t.Fatalf("rendering the imported cluster: %v", err)
	}
	return byResource(r)
}

// settingPaths are the paths of the backend's settings for a minor.
func settingPaths(minor string) []string {
	var out []string
	for _, s := range model.SettingsOf(New()) {
		out = append(out, strings.ReplaceAll(s.Path, "{minor}", minor))
	}
	return out
}

// TestImportRoundTrip: a cluster read back from its natives, rendered in its environment as
// the platform team edited it since with the settings it read, gives back its natives.
func TestImportRoundTrip(t *testing.T) {
	cases := map[string]struct {
		spec func() kaasv1alpha1.ClusterSpec
		env  func(e *model.Environment) // the environment the cluster was built in
	}{
		"Full": {spec: fullSpec},
		"Minimal": {spec: func() kaasv1alpha1.ClusterSpec {
			return kaasv1alpha1.ClusterSpec{Kubernetes: kaasv1alpha1.KubernetesSpec{Version: "1.33"},
				NodePools: []kaasv1alpha1.NodePool{{Name: "default", MachineType: "SCS-2V-4", Count: ptrTo[int32](1)}}}
		}},
		"HighAvailabilityOff": {spec: func() kaasv1alpha1.ClusterSpec {
			s := spec()
			s.ControlPlane.HighAvailability = ptrTo(false)
			return s
		}},
		"AutoscaledFirstPool": {spec: func() kaasv1alpha1.ClusterSpec {
			s := spec()
			s.NodePools[0].Count, s.NodePools[0].Autoscaling = nil, &kaasv1alpha1.Autoscaling{Min: 2, Max: 5}
			s.NodePools[0].Zones = []string{"nova", "az2"}
			return s
		}},
		"SeveralPools": {spec: func() kaasv1alpha1.ClusterSpec {
			s := spec()
			s.NodePools = append(s.NodePools,
				kaasv1alpha1.NodePool{Name: "gpu", MachineType: "SCS-16V-64", Count: ptrTo[int32](4), Zones: []string{"az3", "nova", "az2"}, RootDiskGiB: ptrTo[int32](100)},
				kaasv1alpha1.NodePool{Name: "batch", MachineType: "SCS-8V-16", Autoscaling: &kaasv1alpha1.Autoscaling{Min: 0, Max: 4}, Zones: []string{"az2", "az3"}})
			return s
		}},
		"OIDCWithItsDefaults": {spec: func() kaasv1alpha1.ClusterSpec {
			s := spec()
			s.Access = &kaasv1alpha1.AccessSpec{OIDC: &kaasv1alpha1.OIDCSpec{OIDCClaims: kaasv1alpha1.OIDCClaims{
				IssuerURL: "https://login.example.com/realms/team", ClientID: "kubectl"}}}
			return s
		}},
		"RangesOfASingleNodeBehindTheEnvironmentsLoadBalancer": {
			spec: func() kaasv1alpha1.ClusterSpec {
				s := spec()
				s.ControlPlane.HighAvailability = ptrTo(false)
				s.Access = &kaasv1alpha1.AccessSpec{AllowedSourceRanges: []string{"198.51.100.0/24", "203.0.113.0/24"}}
				return s
			},
			env: func(e *model.Environment) { e.Magnum.MasterLBEnabled = true },
		},
		"OnlyAlwaysAllowedRanges": {spec: func() kaasv1alpha1.ClusterSpec {
			s := spec()
			s.Access = &kaasv1alpha1.AccessSpec{AllowedSourceRanges: []string{"192.0.2.10/32"}}
			return s
		}},
		"PinnedPatch": {spec: func() kaasv1alpha1.ClusterSpec {
			s := spec()
			s.Kubernetes.Version = "1.34.3"
			return s
		}},
		"CiliumTemplate": {
			spec: spec,
			env: func(e *model.Environment) {
				for i := range e.Magnum.Templates {
					e.Magnum.Templates[i].NetworkDriver = "cilium"
				}
			},
		},
		"Namespaced": {
			spec: fullSpec,
			env: func(e *model.Environment) {
				e.Magnum.Scope, e.Magnum.Namespace, e.Magnum.ProviderConfigKind = envv1alpha1.MagnumScopeNamespaced, "team1-openstack", "ClusterProviderConfig"
			},
		},
		"EnvironmentWithFloatingIPsAndNetworks": {
			spec: fullSpec,
			env: func(e *model.Environment) {
				e.Magnum.FloatingIPEnabled = ptrTo(false)
				e.Magnum.FixedNetwork, e.Magnum.FixedSubnet = "net-1", "subnet-1"
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			env := importEnvironment()
			if tc.env != nil {
				tc.env(env)
			}
			want, natives := built(t, tc.spec(), env)
			later := edited(env)
			imported, err := New().Import(natives, later)
			if err != nil {
				t.Fatal(err)
			}
			if len(imported.Unportable) > 0 {
				t.Errorf("unportable: %v", imported.Unportable)
			}
			paths := settingPaths(imported.Spec.Kubernetes.Version)
			for path := range imported.Settings {
				if !slices.Contains(paths, path) {
					t.Errorf("setting %s is none of the backend's %v", path, paths)
				}
			}
			if diff := cmp.Diff(want, renderImported(t, imported, later, natives)); diff != "" {
				t.Errorf("natives rendered from the imported cluster: -built, +rendered:\n%s", diff)
			}
		})
	}
}

// TestImportReadsTheFullCluster writes down what the full cluster reads back as, in its
// environment as edited since: every setting from the natives, the template as the cluster
// shows it since the environment no longer offers it.
func TestImportReadsTheFullCluster(t *testing.T) {
	_, natives := built(t, fullSpec(), importEnvironment())
	got, err := New().Import(natives, edited(importEnvironment()))
	if err != nil {
		t.Fatal(err)
	}
	want := &model.Imported{
		Name: "shop-4h7tw",
		Spec: kaasv1alpha1.ClusterSpec{
			Kubernetes:         kaasv1alpha1.KubernetesSpec{Version: "1.34"},
			ControlPlane:       kaasv1alpha1.ControlPlaneSpec{HighAvailability: ptrTo(true)},
			DeletionProtection: ptrTo(true),
			Network:            &kaasv1alpha1.NetworkSpec{PodCIDR: "10.100.0.0/16", ServiceCIDR: "10.254.0.0/16", CNI: kaasv1alpha1.CNICalico},
			NodePools: []kaasv1alpha1.NodePool{
				// Three nodes over the catalog's three zones, the ClusterV1's first.
				{Name: "default", MachineType: "SCS-4V-8", Count: ptrTo[int32](3), Zones: []string{"nova", "az2", "az3"}, RootDiskGiB: ptrTo[int32](50)},
				// 1 and 0 of the minimum, 3 and 3 of the maximum: nova first. The disk was the
				// environment's default.
				{Name: "workers", MachineType: "SCS-8V-32", Autoscaling: &kaasv1alpha1.Autoscaling{Min: 1, Max: 6}, Zones: []string{"nova", "az2"}, RootDiskGiB: ptrTo[int32](50)},
			},
			Access: &kaasv1alpha1.AccessSpec{
				OIDC: &kaasv1alpha1.OIDCSpec{OIDCClaims: kaasv1alpha1.OIDCClaims{IssuerURL: "https://login.example.com/realms/team", ClientID: "kubectl",
					UsernameClaim: "email", UsernamePrefix: ptrTo(""), GroupsClaim: "groups", GroupsPrefix: ptrTo("oidc:")}},
				// The environment's always-allowed 192.0.2.10/32 is its setting.
				AllowedSourceRanges: []string{"203.0.113.0/24"},
			},
		},
		Settings: map[string]string{
			"data.region":                                    "RegionOne",
			"data.magnum.scope":                              "",
			"data.magnum.namespace":                          "",
			"data.magnum.providerConfigName":                 "openstack",
			"data.magnum.providerConfigKind":                 "",
			"data.magnum.templates[kubernetesVersion=1.34]":  `{"kubernetesVersion":"1.34","id":"tpl-134","kubeTag":"v1.34.3","networkDriver":"calico"}`,
			"data.magnum.keypair":                            "ops",
			"data.magnum.masterFlavor":                       "SCS-2V-4",
			"data.magnum.floatingIPEnabled":                  "",
			"data.magnum.fixedNetwork":                       "",
			"data.magnum.fixedSubnet":                        "",
			"data.magnum.labels":                             `{"ingress_controller":"octavia"}`,
			"data.apiServerAccess.alwaysAllowedSourceRanges": `["192.0.2.10/32"]`,
			// data.magnum.masterLBEnabled is absent: a highly available control plane has a
			// load balancer whatever it says.
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("imported: -want, +got:\n%s", diff)
	}
}

// TestImportTakesTheTemplateTheEnvironmentStillOffers: the environment's description of the
// cluster's template (its patch, its network driver) wins over what the cluster shows, so
// that a cluster read back differs from its environment in nothing.
func TestImportTakesTheTemplateTheEnvironmentStillOffers(t *testing.T) {
	env := importEnvironment()
	env.Magnum.Templates[1].KubeTag = "v1.34.4" // Magnum reports v1.34.3 still
	_, natives := built(t, spec(), env)
	got, err := New().Import(natives, env)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"kubernetesVersion":"1.34","id":"tpl-134","kubeTag":"v1.34.4","networkDriver":"calico"}`
	if tpl := got.Settings["data.magnum.templates[kubernetesVersion=1.34]"]; tpl != want {
		t.Errorf("template setting = %s, want %s", tpl, want)
	}
}

// TestImportReadsTheClusterOverWhatWasAsked: while a cluster is adopted, its managed
// resources are composed observe-only from today's environment, so spec.forProvider is a
// guess; Import reads what provider-openstack reports, and nothing of deletion protection.
func TestImportReadsTheClusterOverWhatWasAsked(t *testing.T) {
	_, natives := built(t, fullSpec(), importEnvironment())
	plain, err := New().Import(natives, edited(importEnvironment()))
	if err != nil {
		t.Fatal(err)
	}
	var guessed []*unstructured.Unstructured
	for _, n := range natives {
		g := n.DeepCopy()
		fp := g.Object["spec"].(map[string]any)["forProvider"].(map[string]any)
		if g.GetKind() == kindCluster {
			fp["keypair"], fp["masterFlavor"], fp["clusterTemplateId"], fp["flavor"] = "other", "SCS-4V-16", "tpl-134-new", "SCS-2V-4"
			fp["masterCount"], fp["labels"] = int64(1), map[string]any{"auto_scaling_enabled": "true", "ingress_controller": "nginx"}
		} else {
			fp["flavorId"], fp["nodeCount"] = "SCS-2V-4", int64(9)
		}
		g.Object["spec"].(map[string]any)["managementPolicies"] = []any{"Observe"}
		unstructured.RemoveNestedField(g.Object, "spec", "deletionPolicy")
		guessed = append(guessed, g)
	}
	got, err := New().Import(guessed, edited(importEnvironment()))
	if err != nil {
		t.Fatal(err)
	}
	want := plain
	want.Spec.DeletionProtection = nil
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("imported from observe-only natives: -want, +got:\n%s", diff)
	}
}

// TestImportRefusesWhatItCannotManage: a cluster no spec renders back is refused, naming the
// native field and why.
func TestImportRefusesWhatItCannotManage(t *testing.T) {
	atProvider := func(field string, v any) func([]*unstructured.Unstructured) []*unstructured.Unstructured {
		return func(n []*unstructured.Unstructured) []*unstructured.Unstructured {
			_ = unstructured.SetNestedField(n[0].Object, v, "status", "atProvider", field)
			return n
		}
	}
	clusterLabel := func(k string, v any) func([]*unstructured.Unstructured) []*unstructured.Unstructured {
		return func(n []*unstructured.Unstructured) []*unstructured.Unstructured {
			labels := n[0].Object["status"].(map[string]any)["atProvider"].(map[string]any)["labels"].(map[string]any)
			if v == nil {
				delete(labels, k)
			} else {
				labels[k] = v
			}
			return n
		}
	}
	nodegroup := func(name, field string, v any) func([]*unstructured.Unstructured) []*unstructured.Unstructured {
		return func(n []*unstructured.Unstructured) []*unstructured.Unstructured {
			for _, u := range n {
				if u.GetName() == name {
					_ = unstructured.SetNestedField(u.Object, v, "status", "atProvider", field)
				}
			}
			return n
		}
	}
	cases := map[string]struct {
		change func([]*unstructured.Unstructured) []*unstructured.Unstructured
		env    func(e *model.Environment)
		want   string
	}{
		"ControlPlaneOfTwo": {change: atProvider("masterCount", int64(2)),
			want: "status.atProvider.masterCount is 2: the spec has one control plane node (highAvailability false) or three (true)"},
		"ThreeMastersWithoutLoadBalancer": {change: atProvider("masterLbEnabled", false),
			want: "status.atProvider.masterLbEnabled is not true with three control plane nodes"},
		"RangesOfASingleNodeWithoutLoadBalancer": {
			change: func(n []*unstructured.Unstructured) []*unstructured.Unstructured {
				return atProvider("masterLbEnabled", false)(atProvider("masterCount", int64(1))(n))
			},
			want: "status.atProvider.labels[master_lb_allowed_cidrs] restricts the API server, but its single control plane node has no load balancer"},
		"LabelsNotMerged":        {change: atProvider("mergeLabels", false), want: "status.atProvider.mergeLabels is not true"},
		"AutoscalerOff":          {change: clusterLabel("auto_scaling_enabled", "false"), want: `status.atProvider.labels[auto_scaling_enabled] is "false": this API always turns Magnum's autoscaler on`},
		"NoZone":                 {change: clusterLabel("availability_zone", nil), want: "status.atProvider.labels[availability_zone] is not set: every node pool names its zones"},
		"IssuerWithoutItsClient": {change: clusterLabel("oidc_client_id", nil), want: "status.atProvider.labels[oidc_client_id] is not set beside the other oidc_* labels"},
		"EmptyUsernamePrefix":    {change: clusterLabel("oidc_username_prefix", ""), want: "status.atProvider.labels[oidc_username_prefix] is empty"},
		"RangesOutOfOrder": {change: clusterLabel("master_lb_allowed_cidrs", "203.0.113.0/24,192.0.2.10/32"),
			want: `status.atProvider.labels[master_lb_allowed_cidrs] is "203.0.113.0/24,192.0.2.10/32": rendering writes the ranges sorted`},
		"ServiceRangeNotCanonical": {change: clusterLabel("service_cluster_ip_range", "10.254.1.0/16"),
			want: `status.atProvider.labels[service_cluster_ip_range] is "10.254.1.0/16", not a CIDR in canonical form`},
		"NotCreatedYet": {
			change: func(n []*unstructured.Unstructured) []*unstructured.Unstructured {
				n[0].SetAnnotations(map[string]string{AnnotationDefaultPool: "default"})
				unstructured.RemoveNestedField(n[0].Object, "status", "atProvider", "id")
				return n
			},
			want: "metadata.annotations[crossplane.io/external-name] is not set, nor status.atProvider.id: Magnum has not created the cluster yet"},
		"ClusterV1NamedOtherwise": {
			change: func(n []*unstructured.Unstructured) []*unstructured.Unstructured { n[0].SetName("prod"); return n },
			want:   "metadata.name is not shop-4h7tw-cluster"},
		"BeingDeleted": {
			change: func(n []*unstructured.Unstructured) []*unstructured.Unstructured {
				n[0].SetDeletionTimestamp(ptrTo(metav1.Date(2026, 3, 3, 0, 0, 0, 0, time.UTC)))
				return n
			},
			want: "metadata.deletionTimestamp is set: the cluster is being deleted"},
		"NodegroupOfAnotherCluster": {change: nodegroup("shop-4h7tw-workers-nova", "clusterId", "0a9e-other"),
			want: `NodegroupV1 shop-4h7tw-workers-nova: status.atProvider.clusterId is "0a9e-other": the node group belongs to another Magnum cluster`},
		"MasterNodegroup": {change: nodegroup("shop-4h7tw-workers-nova", "role", "master"),
			want: `NodegroupV1 shop-4h7tw-workers-nova: status.atProvider.role is "master"`},
		"FlavorsOfAPoolDiffer": {change: nodegroup("shop-4h7tw-workers-az2", "flavorId", "SCS-4V-8"),
			want: `NodegroupV1 shop-4h7tw-workers-nova: status.atProvider.flavorId is "SCS-8V-32", but NodegroupV1 shop-4h7tw-workers-az2 of the same pool workers runs "SCS-4V-8"`},
		"NodegroupsResizedByHand": {change: nodegroup("shop-4h7tw-default-az2", "nodeCount", int64(2)),
			want: "status.atProvider.nodeCount holds 1 in zone nova of the size 4 of pool default: the spec divides a pool evenly over its zones, the first ones taking the remainder (2 here)"},
		"AnotherKind": {
			change: func(n []*unstructured.Unstructured) []*unstructured.Unstructured {
				return append(n, &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Secret", "metadata": map[string]any{"name": "shop-4h7tw-magnum"}}})
			},
			want: "natives[5] is a v1 Secret: a Magnum cluster is provider-openstack's ClusterV1 and its NodegroupV1s"},
		"NoClusterV1": {
			change: func(n []*unstructured.Unstructured) []*unstructured.Unstructured { return n[1:] },
			want:   "natives hold no ClusterV1"},
		"TwoClusterV1s": {
			change: func(n []*unstructured.Unstructured) []*unstructured.Unstructured { return append(n, n[0]) },
			want:   "natives hold ClusterV1 shop-4h7tw-cluster and ClusterV1 shop-4h7tw-cluster: the natives of one Magnum cluster hold one ClusterV1"},
		"ADefaultTheClusterLacks": {
			env: func(e *model.Environment) {
				e.Defaults.Access = &envv1alpha1.AccessDefaults{AllowedSourceRanges: []string{"198.51.100.0/24"}}
			},
			change: clusterLabel("master_lb_allowed_cidrs", nil),
			want:   "status.atProvider.labels[master_lb_allowed_cidrs] is not set, and environment magnum fills spec.access.allowedSourceRanges in with 198.51.100.0/24 (data.defaults.access.allowedSourceRanges): the spec cannot say none"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, natives := built(t, fullSpec(), importEnvironment())
			env := importEnvironment()
			if tc.env != nil {
				tc.env(env)
			}
			_, err := New().Import(tc.change(natives), env)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error = %v\nwant one containing %q", err, tc.want)
			}
		})
	}
}

// TestImportListsWhatRenderingLeavesAlone: what the natives carry that the spec cannot say
// and rendering does not write is imported and listed, by the native's field.
func TestImportListsWhatRenderingLeavesAlone(t *testing.T) {
	clusterLabel := func(n []*unstructured.Unstructured) {
		_ = unstructured.SetNestedField(n[0].Object, "v1.34.3", "status", "atProvider", "labels", "kube_tag")
	}
	cases := map[string]struct {
		change func([]*unstructured.Unstructured)
		env    func(e *model.Environment)
		want   []model.Unsupported
		// leftOut is what rendering no longer writes of the natives as built.
		leftOut func(rendered map[string]map[string]any)
	}{
		"ALabelOfTheTemplate": {change: clusterLabel, want: []model.Unsupported{{
			Field:  "ClusterV1 shop-4h7tw-cluster: status.atProvider.labels[kube_tag]",
			Reason: "a Magnum label this API does not set (the cluster template's, or set by hand): rendering leaves it as it is"}}},
		"APlatformLabelTheEnvironmentDropped": {
			env: func(e *model.Environment) { e.Magnum.Labels = nil },
			want: []model.Unsupported{{
				Field:  "ClusterV1 shop-4h7tw-cluster: status.atProvider.labels[ingress_controller]",
				Reason: "a Magnum label this API does not set (the cluster template's, or set by hand): rendering leaves it as it is"}},
			leftOut: func(rendered map[string]map[string]any) {
				unstructured.RemoveNestedField(rendered[ResourceCluster], "spec", "forProvider", "labels", "ingress_controller")
			},
		},
		"ALabelOfANodegroup": {
			change: func(n []*unstructured.Unstructured) {
				_ = unstructured.SetNestedField(n[1].Object, "gpu", "status", "atProvider", "labels", "node_class")
			},
			want: []model.Unsupported{{
				Field:  "NodegroupV1 shop-4h7tw-default-az2: status.atProvider.labels[node_class]",
				Reason: "a Magnum label of the node group this API does not set: rendering leaves it as it is"}}},
		"AParameterRenderingNeverWrites": {
			change: func(n []*unstructured.Unstructured) {
				_ = unstructured.SetNestedField(n[0].Object, int64(90), "spec", "forProvider", "createTimeout")
			},
			want: []model.Unsupported{{
				Field:  "ClusterV1 shop-4h7tw-cluster: spec.forProvider.createTimeout",
				Reason: "a parameter this API does not set: rendering leaves it as it is"}}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			want, natives := built(t, fullSpec(), importEnvironment())
			if tc.change != nil {
				tc.change(natives)
			}
			if tc.leftOut != nil {
				tc.leftOut(want)
			}
			env := edited(importEnvironment())
			if tc.env != nil {
				tc.env(env)
			}
			imported, err := New().Import(natives, env)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, imported.Unportable); diff != "" {
				t.Errorf("unportable: -want, +got:\n%s", diff)
			}
			// Left as it is: what rendering writes is still what the cluster was built with.
			if diff := cmp.Diff(want, renderImported(t, imported, env, natives)); diff != "" {
				t.Errorf("natives rendered from the imported cluster: -built, +rendered:\n%s", diff)
			}
		})
	}
}
