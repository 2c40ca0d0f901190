package clusterstack

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/intstr"

	envv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/environment/v1alpha1"
	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/model"
	"github.com/SovereignCloudStack/scs-kaas/model/input"
	"github.com/SovereignCloudStack/scs-kaas/model/providerkubernetes"
)

// TestImportRoundTrip: a Cluster the backend rendered, as it exists, imports into a spec and
// settings that render it again unchanged, through the model as a request renders, even
// after the environment's settings were edited: what was read came from the Cluster.
func TestImportRoundTrip(t *testing.T) {
	ha := func(on bool) func(*kaasv1alpha1.ClusterSpec) {
		return func(s *kaasv1alpha1.ClusterSpec) { s.ControlPlane.HighAvailability = ptrTo(on) }
	}
	cases := map[string]struct {
		spec kaasv1alpha1.ClusterSpec
		env  *model.Environment
	}{
		"FullSpec":                  {spec: spec(), env: environment("local")},
		"MinimalSpec":               {spec: minimalSpec(), env: environment("local")},
		"HighAvailabilityOff":       {spec: specWith(ha(false)), env: environment("local")},
		"HighAvailabilityOn":        {spec: with(minimalSpec(), ha(true)), env: environment("local")},
		"AutoscalingPool":           {spec: autoscalingSpec(), env: environment("local")},
		"PinnedPatch":               {spec: specWith(func(s *kaasv1alpha1.ClusterSpec) { s.Kubernetes.Version = "1.34.7" }), env: environment("local")},
		"PinnedStackVersion":        {spec: spec(), env: withStackVersion(environment("local"), "v2")},
		"RemoteManagementCluster":   {spec: spec(), env: environment("capi-mgmt")},
		"OIDC":                      {spec: specWith(withOIDC(kaasv1alpha1.OIDCClaims{UsernameClaim: "email", GroupsClaim: "groups"})), env: importAccessEnvironment()},
		"OIDCWithTheClaimsDefaults": {spec: specWith(withOIDC(kaasv1alpha1.OIDCClaims{})), env: importAccessEnvironment()},
		"OIDCWithoutUsernamePrefix": {spec: specWith(withOIDC(kaasv1alpha1.OIDCClaims{UsernameClaim: "email", UsernamePrefix: ptrTo("")})), env: importAccessEnvironment()},
		"AllowedSourceRanges":       {spec: specWith(withRanges("203.0.113.0/24", "198.51.100.0/24")), env: importAccessEnvironment()},
		// The team named a range the platform allows always, too: the Cluster holds it once.
		"AllowedSourceRangesWithAnAlwaysAllowedOne": {spec: specWith(withRanges("192.0.2.10/32")), env: importAccessEnvironment()},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			original := renderThroughModel(t, tc.spec, tc.env, "")
			edited := editedSettings(tc.env)
			imported, err := New().Import([]*unstructured.Unstructured{asExisting(original)}, edited)
			if err != nil {
				t.Fatalf("Import: %v", err)
			}
			if imported.Name != original.GetName() {
				t.Errorf("name = %q, want %q", imported.Name, original.GetName())
			}
			if len(imported.Unportable) > 0 {
				t.Errorf("unportable = %+v, want none of a Cluster the backend rendered", imported.Unportable)
			}
			checkSettingPaths(t, imported.Settings)
			env, err := model.WithSettings(edited, imported.Settings)
			if err != nil {
				t.Fatalf("WithSettings: %v", err)
			}
			// Validate checks a spec as a request defaults it (its environment's name, say).
			defaulted := model.Default(imported.Spec, env, nil)
			if errs := append(model.Validate(&defaulted, env, nil), model.ValidateAccess(&defaulted, nil, env, false)...); len(errs) > 0 {
				t.Errorf("the imported spec is invalid in its environment: %v", errs)
			}
			again := renderThroughModel(t, imported.Spec, env, imported.Name)
			if diff := cmp.Diff(original.Object, again.Object); diff != "" {
				t.Errorf("the imported spec renders another Cluster: -original, +rendered from the import:\n%s", diff)
			}
		})
	}
}

// TestImportReadsTheClusterNotTheEnvironment writes down what the full spec's Cluster
// imports as, read with an environment whose settings were all edited since.
func TestImportReadsTheClusterNotTheEnvironment(t *testing.T) {
	original := renderThroughModel(t, spec(), environment("local"), "")
	got, err := New().Import([]*unstructured.Unstructured{asExisting(original)}, editedSettings(environment("local")))
	if err != nil {
		t.Fatal(err)
	}
	want := &model.Imported{
		Name: "shop-9q8rz-cab4zj",
		Spec: kaasv1alpha1.ClusterSpec{
			// The patch of the release it runs (v10, the newest when it was created); the
			// stack version below pins the release.
			Kubernetes:   kaasv1alpha1.KubernetesSpec{Version: "1.34.8"},
			ControlPlane: kaasv1alpha1.ControlPlaneSpec{HighAvailability: ptrTo(true)},
			Network:      &kaasv1alpha1.NetworkSpec{PodCIDR: "192.168.0.0/16", ServiceCIDR: "10.96.0.0/12", NodeCIDR: "10.8.0.0/20", CNI: kaasv1alpha1.CNICilium},
			NodePools: []kaasv1alpha1.NodePool{
				{
					Name: "system", MachineType: "SCS-4V-8", Count: ptrTo[int32](4), Zones: []string{"az1", "az2", "az3"},
					// As the nodes carry them: the spec's node.scs.community/pool was moved.
					Labels: map[string]string{"node-role.kubernetes.io/system": "", "node.cluster.x-k8s.io/pool": "system"},
					Taints: []kaasv1alpha1.Taint{{Key: "node.scs.community/system", Value: "true", Effect: "NoSchedule"}},
				},
				{
					Name: "general", MachineType: "SCS-8V-32", Autoscaling: &kaasv1alpha1.Autoscaling{Min: 1, Max: 5},
					Zones: []string{"az1", "az2"}, RootDiskGiB: ptrTo[int32](100),
				},
			},
		},
		Settings: map[string]string{
			"data.catalog.zones":                 `["az1","az2","az3"]`,
			"data.clusterStack.clusterLabels":    `{"managed-secret":"clouds-yaml"}`,
			"data.clusterStack.provider":         "openstack",
			"data.clusterStack.stack":            "scs2",
			"data.clusterStack.stackVersion":     "v10",
			"data.clusterStack.taintPropagation": "true",
			// The Cluster's network, not the edited one; identityRef, which the environment
			// still names, as the environment writes it; not the environment's new variable.
			"data.clusterStack.variables": `{"identityRef":{"name":"openstack","cloudName":"openstack"},"networkExternalID":"ebfe5546-f09f-4f42-ab54-094e457d42ec"}`,
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("imported: -want, +got:\n%s", diff)
	}
}

// TestImportReadsAccess writes down the access read back: every claim and prefix explicit,
// and the ranges split into the team's and the environment's always-allowed ones, which
// the Cluster holds as one list.
func TestImportReadsAccess(t *testing.T) {
	issuer := kaasv1alpha1.OIDCClaims{IssuerURL: "https://login.example.com/realms/team", ClientID: "kubectl"}
	cases := map[string]struct {
		access     func(*kaasv1alpha1.ClusterSpec)
		importWith func(*model.Environment) *model.Environment
		want       *kaasv1alpha1.AccessSpec
		// wantAlways is the always-allowed ranges' setting; nil: absent.
		wantAlways *string
	}{
		"ClaimsDefaultsMadeExplicit": {
			access: withOIDC(kaasv1alpha1.OIDCClaims{}),
			want: &kaasv1alpha1.AccessSpec{OIDC: &kaasv1alpha1.OIDCSpec{OIDCClaims: kaasv1alpha1.OIDCClaims{
				IssuerURL: issuer.IssuerURL, ClientID: issuer.ClientID, UsernameClaim: "sub", UsernamePrefix: ptrTo("oidc:")}}},
		},
		"NoUsernamePrefixAndGroups": {
			access: withOIDC(kaasv1alpha1.OIDCClaims{UsernameClaim: "email", UsernamePrefix: ptrTo(""), GroupsClaim: "groups"}),
			want: &kaasv1alpha1.AccessSpec{OIDC: &kaasv1alpha1.OIDCSpec{OIDCClaims: kaasv1alpha1.OIDCClaims{IssuerURL: issuer.IssuerURL, ClientID: issuer.ClientID,
				UsernameClaim: "email", UsernamePrefix: ptrTo(""), GroupsClaim: "groups", GroupsPrefix: ptrTo("oidc:")}}},
		},
		"RangesOfTheTeamAndOfThePlatform": {
			access:     withRanges("203.0.113.0/24"),
			want:       &kaasv1alpha1.AccessSpec{AllowedSourceRanges: []string{"203.0.113.0/24"}},
			wantAlways: ptrTo(`["192.0.2.10/32"]`),
		},
		// The environment no longer allows 192.0.2.10/32 always: the Cluster still does, and
		// so does the spec read back, which pins an empty always-allowed list.
		"ARangeThePlatformNoLongerAllows": {
			access:     withRanges("203.0.113.0/24"),
			importWith: editedSettings,
			want:       &kaasv1alpha1.AccessSpec{AllowedSourceRanges: []string{"192.0.2.10/32", "203.0.113.0/24"}},
			wantAlways: ptrTo(""),
		},
		// A spec without a range renders none: the team's range stays the spec's.
		"TheTeamNamedOnlyThePlatformsRange": {
			access:     withRanges("192.0.2.10/32"),
			want:       &kaasv1alpha1.AccessSpec{AllowedSourceRanges: []string{"192.0.2.10/32"}},
			wantAlways: ptrTo(`["192.0.2.10/32"]`),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			env := importAccessEnvironment()
			original := renderThroughModel(t, specWith(tc.access), env, "")
			if tc.importWith != nil {
				env = tc.importWith(env)
			}
			got, err := New().Import([]*unstructured.Unstructured{asExisting(original)}, env)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got.Spec.Access); diff != "" {
				t.Errorf("access: -want, +got:\n%s", diff)
			}
			var always *string
			if v, ok := got.Settings["data.apiServerAccess.alwaysAllowedSourceRanges"]; ok {
				always = &v
			}
			if diff := cmp.Diff(tc.wantAlways, always); diff != "" {
				t.Errorf("setting data.apiServerAccess.alwaysAllowedSourceRanges: -want, +got:\n%s", diff)
			}
		})
	}
}

// TestImportRefusesWhatThisAPICannotManage: a Cluster that no portable spec renders is
// refused, naming its field, before anything would change it.
func TestImportRefusesWhatThisAPICannotManage(t *testing.T) {
	cases := map[string]struct {
		change  func(m map[string]any)
		env     func(e *model.Environment)
		wantErr []string
	}{
		"NoTopology": {
			change:  func(m map[string]any) { unstructured.RemoveNestedField(m, "spec", "topology") },
			wantErr: []string{"spec.topology: Required value: the Cluster has no managed topology"},
		},
		"ForeignClass": {
			change:  func(m map[string]any) { set(m, "my-own-class", "spec", "topology", "classRef", "name") },
			wantErr: []string{`spec.topology.classRef.name: Invalid value: "my-own-class": is not the ClusterClass of a Cluster Stack release`},
		},
		"ClassOfAnotherNamespace": {
			change:  func(m map[string]any) { set(m, "kaas-team2", "spec", "topology", "classRef", "namespace") },
			wantErr: []string{`spec.topology.classRef.namespace: Invalid value: "kaas-team2": environment capi renders ClusterClasses of namespace kaas-team1`},
		},
		"VersionOfAnotherMinor": {
			change:  func(m map[string]any) { set(m, "v1.33.9", "spec", "topology", "version") },
			wantErr: []string{`spec.topology.version: Invalid value: "v1.33.9": must be the Kubernetes version of ClusterClass openstack-scs2-1-34-v10: a patch of 1.34`},
		},
		"FiveControlPlaneMachines": {
			change:  func(m map[string]any) { set(m, int64(5), "spec", "topology", "controlPlane", "replicas") },
			wantErr: []string{`spec.topology.controlPlane.replicas: Unsupported value: 5: supported values: "1", "3"`},
		},
		"DualStack": {
			change: func(m map[string]any) {
				set(m, []any{"192.168.0.0/16", "fd00::/48"}, "spec", "clusterNetwork", "pods", "cidrBlocks")
			},
			wantErr: []string{"spec.clusterNetwork.pods.cidrBlocks: Too many: 2: must have at most 1 item"},
		},
		"PoolWithoutZone": {
			change:  func(m map[string]any) { delete(machineDeployment(m, "general-az2"), "failureDomain") },
			wantErr: []string{"spec.topology.workers.machineDeployments[general-az2].failureDomain: Required value"},
		},
		"MachineDeploymentNamedOtherwise": {
			change:  func(m map[string]any) { machineDeployment(m, "general-az2")["name"] = "md-0" },
			wantErr: []string{`spec.topology.workers.machineDeployments[md-0].name: Invalid value: "md-0": the API names the MachineDeployment of a pool in zone az2 <pool>-<zone>`},
		},
		"ClassDefaultFlavor": {
			change: func(m map[string]any) { delete(machineDeployment(m, "system-az1"), "variables") },
			wantErr: []string{"spec.topology.workers.machineDeployments[system-az1].variables.overrides[workerFlavor]: Required value: " +
				"the pool runs the ClusterClass's default flavor"},
		},
		"NoFlavorVariable": {
			env:     func(e *model.Environment) { delete(e.ClusterStack.VariableNames, "workerFlavor") },
			wantErr: []string{"spec.topology.workers.machineDeployments[system-az1].variables.overrides: Forbidden: environment capi maps no variable to the machine type"},
		},
		// 2+3+1 is not how the render spreads a count of 6 over three zones (2+2+2).
		"ReplicasSpreadOtherwise": {
			change: func(m map[string]any) { machineDeployment(m, "system-az2")["replicas"] = int64(3) },
			wantErr: []string{
				"spec.topology.workers.machineDeployments[system-az2].replicas: Forbidden: the Cluster has 3, but rendering the imported spec in environment capi sets 2",
				"spec.topology.workers.machineDeployments[system-az3].replicas: Forbidden: the Cluster has 1, but rendering the imported spec in environment capi sets 2",
			},
		},
		"ZonesOfAPoolWithOtherFlavors": {
			change: func(m map[string]any) {
				set(machineDeployment(m, "system-az3"), []any{map[string]any{"name": "workerFlavor", "value": "SCS-16V-64"}}, "variables", "overrides")
			},
			wantErr: []string{`spec.topology.workers.machineDeployments[system-az3].variables.overrides[workerFlavor].value: Forbidden: the Cluster has "SCS-16V-64", but rendering the imported spec in environment capi sets "SCS-4V-8"`},
		},
		"TaintsOnlyAtCreation": {
			change: func(m map[string]any) {
				for _, md := range []string{"system-az1", "system-az2", "system-az3"} {
					machineDeployment(m, md)["taints"].([]any)[0].(map[string]any)["propagation"] = "OnInitialization"
				}
			},
			wantErr: []string{"spec.topology.workers.machineDeployments[system-az1].taints: Forbidden: the Cluster has [{" +
				`"effect":"NoSchedule","key":"node.scs.community/system","propagation":"OnInitialization","value":"true"}]`},
		},
		"UsernameClaimLeftToKubeAPIServer": {
			change: func(m map[string]any) {
				appendVariable(m, "oidcConfig", map[string]any{"issuerURL": "https://login.example.com/realms/team", "clientID": "kubectl",
					"usernameClaim": "", "usernamePrefix": "-", "groupsClaim": "", "groupsPrefix": ""})
			},
			env:     func(e *model.Environment) { e.ClusterStack.VariableNames["oidcConfig"] = "oidcConfig" },
			wantErr: []string{`spec.topology.variables[oidcConfig].value.usernameClaim: Forbidden: the Cluster has "", but rendering the imported spec in environment capi sets "sub"`},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			existing := asExisting(renderThroughModel(t, spec(), environment("local"), ""))
			if tc.change != nil {
				tc.change(existing.Object)
			}
			env := environment("local")
			if tc.env != nil {
				tc.env(env)
			}
			got, err := New().Import([]*unstructured.Unstructured{existing}, env)
			if err == nil {
				t.Fatalf("imported %+v, want a refusal", got)
			}
			for _, want := range tc.wantErr {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error = %v\nwant it to say %q", err, want)
				}
			}
		})
	}
}

// TestImportRefusesNativesWithoutAClusterToRead: without a v1beta2 Cluster, or an
// environment of the backend to read it with, there is nothing to describe.
func TestImportRefusesNativesWithoutAClusterToRead(t *testing.T) {
	v1beta1 := asExisting(renderThroughModel(t, spec(), environment("local"), ""))
	v1beta1.SetAPIVersion("cluster.x-k8s.io/v1beta1")
	withoutStack := environment("local")
	withoutStack.ClusterStack = nil
	cases := map[string]struct {
		natives []*unstructured.Unstructured
		env     *model.Environment
		wantErr string
	}{
		"None":           {wantErr: "no Cluster API Cluster (cluster.x-k8s.io/v1beta2) among the 0 native objects"},
		"AnotherVersion": {natives: []*unstructured.Unstructured{v1beta1}, wantErr: "got Cluster kaas-team1/shop-9q8rz-cab4zj as cluster.x-k8s.io/v1beta1; read it as cluster.x-k8s.io/v1beta2"},
		"NoClusterStackEnvironment": {natives: []*unstructured.Unstructured{asExisting(renderThroughModel(t, spec(), environment("local"), ""))},
			env: withoutStack, wantErr: "environment capi has no clusterStack section to read Cluster kaas-team1/shop-9q8rz-cab4zj with"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			env := tc.env
			if env == nil {
				env = environment("local")
			}
			_, err := New().Import(tc.natives, env)
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("error = %v, want %q", err, tc.wantErr)
			}
		})
	}
}

// TestImportListsWhatIsUnportable: what the Cluster carries beyond what the render sets is
// listed by its path, and the imported spec still renders the Cluster's own part unchanged.
func TestImportListsWhatIsUnportable(t *testing.T) {
	original := renderThroughModel(t, spec(), environment("local"), "")
	existing := asExisting(original)
	// scs2's default for its load balancer, which Cluster API's webhook writes into the Cluster.
	appendVariable(existing.Object, "apiServerLoadBalancer", "octavia-ovn")
	set(machineDeployment(existing.Object, "system-az1"), int64(30), "minReadySeconds")
	overrides := machineDeployment(existing.Object, "general-az1")["variables"].(map[string]any)
	overrides["overrides"] = append(overrides["overrides"].([]any), map[string]any{"name": "workerAdditionalBlockDevices", "value": []any{}})
	labels := existing.GetLabels()
	labels["team"] = "blue"
	existing.SetLabels(labels)

	got, err := New().Import([]*unstructured.Unstructured{existing}, environment("local"))
	if err != nil {
		t.Fatal(err)
	}
	const rest = ": the portable spec cannot express it and rendering leaves it as it is, unmanaged"
	want := []model.Unsupported{
		{Field: "metadata.labels[team]", Reason: "metadata the render does not set" + rest},
		{Field: "spec.topology.variables[apiServerLoadBalancer]", Reason: "a variable the render does not set (a ClusterClass default, or set outside this API)" + rest},
		{Field: "spec.topology.workers.machineDeployments[general-az1].variables.overrides[workerAdditionalBlockDevices]",
			Reason: "a variable the render does not set (a ClusterClass default, or set outside this API)" + rest},
		{Field: "spec.topology.workers.machineDeployments[system-az1].minReadySeconds", Reason: "a field the render does not set" + rest},
	}
	if diff := cmp.Diff(want, got.Unportable); diff != "" {
		t.Errorf("unportable: -want, +got:\n%s", diff)
	}
	env, err := model.WithSettings(environment("local"), got.Settings)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(original.Object, renderThroughModel(t, got.Spec, env, got.Name).Object); diff != "" {
		t.Errorf("the imported spec renders another Cluster: -original, +rendered from the import:\n%s", diff)
	}
}

// TestImportAdoptsMachineDeploymentsMadeOutsideTheAPI: MachineDeployments named <pool>-<zone>
// without the pool label (made by hand, the way the API names them) are read by their names,
// as those of the API by their labels.
func TestImportAdoptsMachineDeploymentsMadeOutsideTheAPI(t *testing.T) {
	labelled := asExisting(renderThroughModel(t, spec(), environment("local"), ""))
	want, err := New().Import([]*unstructured.Unstructured{labelled}, environment("local"))
	if err != nil {
		t.Fatal(err)
	}
	existing := labelled.DeepCopy()
	mds, _, _ := unstructured.NestedSlice(existing.Object, "spec", "topology", "workers", "machineDeployments")
	for _, md := range mds {
		unstructured.RemoveNestedField(md.(map[string]any), "metadata", "labels", model.LabelNodePool)
	}
	set(existing.Object, mds, "spec", "topology", "workers", "machineDeployments")
	got, err := New().Import([]*unstructured.Unstructured{existing}, environment("local"))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("imported without pool labels: -with them, +without:\n%s", diff)
	}
}

// TestImportThroughTheModelsAdoption: the model reads a Cluster that exists but that the
// cluster does not remember back with Import (model's readBack), and from the next reconcile
// on renders it unchanged, although the environment's settings were edited since.
func TestImportThroughTheModelsAdoption(t *testing.T) {
	original := renderThroughModel(t, spec(), environment("local"), "")
	// Not the provider, the stack, or a stack version without the minor: the model renders
	// once before it reads back, and that rendering must not be refused.
	env := editedSettings(environment("local"))
	env.ClusterStack.Provider, env.ClusterStack.Stack, env.ClusterStack.StackVersion = "openstack", "scs2", "v2"
	required := request(spec(), env, standardReleases(), nil).Required
	required[model.EnvironmentsRequirement] = []*unstructured.Unstructured{environmentConfig(t, env)}
	required[RequirementKubeconfig] = []*unstructured.Unstructured{}
	required[model.LookupRequirementPrefix+ResourceCluster] = []*unstructured.Unstructured{asExisting(original)}
	xr := &kaasv1alpha1.XSCSCluster{Spec: spec()}
	xr.Name = "shop-9q8rz"
	reg := model.NewRegistry(New())
	out, err := reg.Reconcile(model.Input{Cluster: xr, Required: required})
	if err != nil {
		t.Fatalf("adopting: %v", err)
	}
	if got := out.Status.Backend.Pinned["data.clusterStack.stackVersion"]; got != "v10" {
		t.Errorf("pinned stack version = %q, want the Cluster's v10", got)
	}
	xr.Status = out.Status
	out, err = reg.Reconcile(model.Input{Cluster: xr, Required: required})
	if err != nil {
		t.Fatalf("managing: %v", err)
	}
	for _, r := range out.Rendering.Resources {
		if r.Name != ResourceCluster {
			continue
		}
		if diff := cmp.Diff(original.Object, r.Object.Object); diff != "" {
			t.Errorf("the adopted cluster renders another Cluster: -original, +rendered:\n%s", diff)
		}
		return
	}
	t.Errorf("no %s rendered once adopted: %+v", ResourceCluster, out.Rendering.Resources)
}

// minimalSpec is what a team writes at the least: the environment fills in the rest.
func minimalSpec() kaasv1alpha1.ClusterSpec {
	return kaasv1alpha1.ClusterSpec{
		Kubernetes: kaasv1alpha1.KubernetesSpec{Version: "1.33"},
		NodePools:  []kaasv1alpha1.NodePool{{Name: "workers", MachineType: "SCS-2V-4", Count: ptrTo[int32](1)}},
	}
}

// autoscalingSpec has one autoscaled pool over three zones with its own rollout.
func autoscalingSpec() kaasv1alpha1.ClusterSpec {
	s := minimalSpec()
	s.NodePools = []kaasv1alpha1.NodePool{{
		Name: "batch", MachineType: "SCS-16V-64", Autoscaling: &kaasv1alpha1.Autoscaling{Min: 2, Max: 7}, RootDiskGiB: ptrTo[int32](200),
		Zones: []string{"az1", "az2", "az3"}, MaxSurge: ptrTo(intstr.FromString("25%")), MaxUnavailable: ptrTo(intstr.FromInt32(0)),
		Labels: map[string]string{"node-role.kubernetes.io/batch": ""},
	}}
	return s
}

func with(s kaasv1alpha1.ClusterSpec, change func(*kaasv1alpha1.ClusterSpec)) kaasv1alpha1.ClusterSpec {
	change(&s)
	return s
}

func specWith(change func(*kaasv1alpha1.ClusterSpec)) kaasv1alpha1.ClusterSpec {
	return with(spec(), change)
}

func withAccess(a *kaasv1alpha1.AccessSpec) func(*kaasv1alpha1.ClusterSpec) {
	return func(s *kaasv1alpha1.ClusterSpec) { s.Access = a }
}

// withOIDC signs people in through the team's issuer with the claims given.
func withOIDC(claims kaasv1alpha1.OIDCClaims) func(*kaasv1alpha1.ClusterSpec) {
	claims.IssuerURL, claims.ClientID = "https://login.example.com/realms/team", "kubectl"
	return withAccess(&kaasv1alpha1.AccessSpec{OIDC: &kaasv1alpha1.OIDCSpec{OIDCClaims: claims}})
}

func withRanges(ranges ...string) func(*kaasv1alpha1.ClusterSpec) {
	return withAccess(&kaasv1alpha1.AccessSpec{AllowedSourceRanges: ranges})
}

func withStackVersion(env *model.Environment, v string) *model.Environment {
	env.ClusterStack.StackVersion = v
	return env
}

// importAccessEnvironment maps both access variables, may restrict the API server's
// sources and always allows the platform's own range.
func importAccessEnvironment() *model.Environment {
	env := accessEnvironment()
	env.APIServerAccess = &envv1alpha1.APIServerAccess{RestrictSourceRanges: true, AlwaysAllowedSourceRanges: []string{"192.0.2.10/32"}}
	return env
}

// editedSettings is env after the platform team changed every setting but where clusters
// live (placement) and what the stack's variables are named, which no Cluster says.
func editedSettings(env *model.Environment) *model.Environment {
	out := &model.Environment{Name: env.Name, ConfigName: env.ConfigName, Environment: *env.DeepCopy()}
	out.Region = "RegionTwo"
	// Another order too: a pool whose zones were defaulted would now get others.
	out.Catalog.Zones = []string{"az4", "az3", "az2", "az1"}
	cs := out.ClusterStack
	cs.Provider, cs.Stack, cs.StackVersion = "gcp", "scs3", "v3"
	cs.Variables["networkExternalID"] = json.RawMessage(`"0c5e4c8a-5d0f-4a53-9d1c-1a2b3c4d5e6f"`)
	cs.Variables["dnsNameservers"] = json.RawMessage(`["9.9.9.9"]`)
	cs.ClusterLabels = map[string]string{"managed-secret": "cloud-config", "team": "blue"}
	cs.TaintPropagation = false
	if a := out.APIServerAccess; a != nil {
		a.AlwaysAllowedSourceRanges = []string{"198.51.100.7/32"}
	}
	return out
}

// checkSettingPaths: every setting Import reports is one of the backend's.
func checkSettingPaths(t *testing.T, settings map[string]string) {
	t.Helper()
	var paths []string
	for _, s := range model.SettingsOf(New()) {
		paths = append(paths, s.Path)
	}
	for _, p := range slices.Sorted(maps.Keys(settings)) {
		if !slices.Contains(paths, p) {
			t.Errorf("setting %s is not a setting of the backend (%v)", p, paths)
		}
	}
}

// renderThroughModel renders spec in env as a request does: through the model's Reconcile,
// with the standard releases and env as the only EnvironmentConfig, and returns the Cluster
// (unwrapped from its Object). nativeName, when set, is the name an import found.
func renderThroughModel(t *testing.T, s kaasv1alpha1.ClusterSpec, env *model.Environment, nativeName string) *unstructured.Unstructured {
	t.Helper()
	xr := &kaasv1alpha1.XSCSCluster{Spec: s}
	xr.Name = "shop-9q8rz"
	if nativeName != "" {
		// The name is recorded as once the import is adopted: an annotation alone would
		// be refused where, as offline, nothing of that name is found.
		xr.Status.Backend = &kaasv1alpha1.BackendStatus{Name: nativeName}
	}
	required := request(s, env, standardReleases(), nil).Required
	required[model.EnvironmentsRequirement] = []*unstructured.Unstructured{environmentConfig(t, env)}
	required[RequirementKubeconfig] = []*unstructured.Unstructured{}
	required[model.LookupRequirementPrefix+ResourceCluster] = []*unstructured.Unstructured{}
	// Resolved as an offline render is: the lookout finds nothing, a new cluster.
	out, err := input.Resolve(model.NewRegistry(New()), model.Input{Cluster: xr, Required: required, Options: model.Options{ConnectionSecretNamespace: "crossplane-system"}},
		func(string, model.Selector) ([]*unstructured.Unstructured, error) { return nil, nil })
	if err != nil {
		t.Fatalf("Reconcile: %v", err)
	}
	if !out.Complete {
		t.Fatalf("Reconcile wants more than the test gives: %+v", out.Requirements)
	}
	for _, r := range out.Rendering.Resources {
		if r.Name != ResourceCluster {
			continue
		}
		if providerkubernetes.IsObject(r.Object) {
			m, _, _ := unstructured.NestedMap(r.Object.Object, "spec", "forProvider", "manifest")
			return &unstructured.Unstructured{Object: m}
		}
		return r.Object
	}
	t.Fatalf("no %s rendered", ResourceCluster)
	return nil
}

// environmentConfig is env as the default EnvironmentConfig it decodes from.
func environmentConfig(t *testing.T, env *model.Environment) *unstructured.Unstructured {
	t.Helper()
	raw, err := json.Marshal(env.Environment)
	if err != nil {
		t.Fatal(err)
	}
	var data map[string]any
	if err := json.Unmarshal(raw, &data); err != nil {
		t.Fatal(err)
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": model.EnvironmentConfigAPIVersion, "kind": model.EnvironmentConfigKind,
		"metadata": map[string]any{"name": env.ConfigName, "labels": map[string]any{envv1alpha1.LabelEnvironment: env.Name, envv1alpha1.LabelDefault: "true"}},
		"data":     data,
	}}
}

// asExisting is a rendered Cluster as the management cluster returns it: with the metadata
// the API server sets, what Cluster API fills in (endpoint, references) and a status.
func asExisting(rendered *unstructured.Unstructured) *unstructured.Unstructured {
	u := rendered.DeepCopy()
	u.SetUID("6f1d2c5e-8a4b-4c3d-9e2f-0a1b2c3d4e5f")
	u.SetResourceVersion("482113")
	u.SetGeneration(3)
	u.SetCreationTimestamp(metav1.NewTime(time.Date(2026, 3, 2, 9, 30, 0, 0, time.UTC)))
	u.SetFinalizers([]string{"cluster.cluster.x-k8s.io"})
	u.SetAnnotations(map[string]string{"kubectl.kubernetes.io/last-applied-configuration": "{}"})
	u.SetManagedFields([]metav1.ManagedFieldsEntry{{Manager: "apiextensions.crossplane.io/composed", Operation: metav1.ManagedFieldsOperationApply, APIVersion: clusterAPIVersion}})
	set(u.Object, map[string]any{"host": "203.0.113.10", "port": int64(6443)}, "spec", "controlPlaneEndpoint")
	set(u.Object, map[string]any{"apiGroup": "infrastructure.cluster.x-k8s.io", "kind": "OpenStackCluster", "name": u.GetName() + "-x7k2p"}, "spec", "infrastructureRef")
	set(u.Object, map[string]any{"apiGroup": "controlplane.cluster.x-k8s.io", "kind": "KubeadmControlPlane", "name": u.GetName() + "-q4v9m"}, "spec", "controlPlaneRef")
	u.Object["status"] = map[string]any{
		"phase": "Provisioned", "observedGeneration": int64(3),
		"initialization": map[string]any{"infrastructureProvisioned": true, "controlPlaneInitialized": true},
		"conditions": []any{map[string]any{"type": "Available", "status": "True", "reason": "Available",
			"lastTransitionTime": "2026-03-02T09:41:00Z", "observedGeneration": int64(3)}},
		"controlPlane": map[string]any{"replicas": int64(3), "readyReplicas": int64(3), "upToDateReplicas": int64(3)},
	}
	return u
}

// set sets a field of an object the test builds, which cannot fail.
func set(m map[string]any, v any, path ...string) {
	if err := unstructured.SetNestedField(m, v, path...); err != nil {
		panic(err)
	}
}

// machineDeployment is the MachineDeployment of the topology named name.
func machineDeployment(m map[string]any, name string) map[string]any {
	mds, _, _ := unstructured.NestedFieldNoCopy(m, "spec", "topology", "workers", "machineDeployments")
	for _, md := range mds.([]any) {
		if md.(map[string]any)["name"] == name {
			return md.(map[string]any)
		}
	}
	panic("no MachineDeployment " + name)
}

// appendVariable adds a topology variable to the Cluster.
func appendVariable(m map[string]any, name string, value any) {
	vars, _, _ := unstructured.NestedFieldNoCopy(m, "spec", "topology", "variables")
	set(m, append(vars.([]any), map[string]any{"name": name, "value": value}), "spec", "topology", "variables")
}
