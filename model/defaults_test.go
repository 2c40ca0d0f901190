package model

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	envv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/environment/v1alpha1"
	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
)

func testEnvironment() *Environment {
	return &Environment{Name: "regionone", ConfigName: "cfg", Environment: envv1alpha1.Environment{
		Backend: "fake",
		Region:  "RegionOne",
		Catalog: envv1alpha1.Catalog{
			KubernetesVersions: []string{"1.33", "1.34", "1.35"},
			MachineTypes:       []string{"SCS-2V-4", "SCS-4V-8"},
			Zones:              []string{"az1", "az2", "az3"},
		},
		Defaults: envv1alpha1.Defaults{
			Network: kaasv1alpha1.NetworkSpec{NodeCIDR: "10.250.0.0/16", PodCIDR: "100.64.0.0/12", ServiceCIDR: "100.80.0.0/13"},
			Maintenance: kaasv1alpha1.MaintenanceSpec{
				Window:     &kaasv1alpha1.MaintenanceWindow{Begin: "220000+0000", End: "230000+0000"},
				AutoUpdate: &kaasv1alpha1.AutoUpdate{MachineImage: ptrTo(false)},
			},
			RootDiskGiB: ptrTo[int32](50),
		},
	}}
}

func TestDefault(t *testing.T) {
	env := testEnvironment()
	pool := kaasv1alpha1.NodePool{Name: "a", MachineType: "SCS-4V-8", Count: ptrTo[int32](1)}
	cases := map[string]struct {
		in   kaasv1alpha1.ClusterSpec
		want kaasv1alpha1.ClusterSpec
	}{
		"DevelopmentTakesEverythingFromTheEnvironment": {
			in: kaasv1alpha1.ClusterSpec{Kubernetes: kaasv1alpha1.KubernetesSpec{Version: "1.34"}, NodePools: []kaasv1alpha1.NodePool{pool}},
			want: kaasv1alpha1.ClusterSpec{
				Environment:        "regionone",
				Purpose:            kaasv1alpha1.PurposeDevelopment,
				Kubernetes:         kaasv1alpha1.KubernetesSpec{Version: "1.34"},
				ControlPlane:       kaasv1alpha1.ControlPlaneSpec{HighAvailability: ptrTo(false)},
				DeletionProtection: ptrTo(false),
				NodePools: []kaasv1alpha1.NodePool{{Name: "a", MachineType: "SCS-4V-8", Count: ptrTo[int32](1),
					Zones: []string{"az1"}, RootDiskGiB: ptrTo[int32](50)}},
				Network: &kaasv1alpha1.NetworkSpec{NodeCIDR: "10.250.0.0/16", PodCIDR: "100.64.0.0/12", ServiceCIDR: "100.80.0.0/13", CNI: kaasv1alpha1.CNICilium},
				Maintenance: &kaasv1alpha1.MaintenanceSpec{
					Window:     &kaasv1alpha1.MaintenanceWindow{Begin: "220000+0000", End: "230000+0000"},
					AutoUpdate: &kaasv1alpha1.AutoUpdate{KubernetesPatch: ptrTo(true), MachineImage: ptrTo(false)},
				},
			},
		},
		"ProductionTurnsOnHAAndProtection": {
			in: kaasv1alpha1.ClusterSpec{Purpose: kaasv1alpha1.PurposeProduction, Kubernetes: kaasv1alpha1.KubernetesSpec{Version: "1.34"}, NodePools: []kaasv1alpha1.NodePool{pool}},
			want: kaasv1alpha1.ClusterSpec{
				Environment:        "regionone",
				Purpose:            kaasv1alpha1.PurposeProduction,
				Kubernetes:         kaasv1alpha1.KubernetesSpec{Version: "1.34"},
				ControlPlane:       kaasv1alpha1.ControlPlaneSpec{HighAvailability: ptrTo(true)},
				DeletionProtection: ptrTo(true),
				NodePools: []kaasv1alpha1.NodePool{{Name: "a", MachineType: "SCS-4V-8", Count: ptrTo[int32](1),
					Zones: []string{"az1"}, RootDiskGiB: ptrTo[int32](50)}},
				Network: &kaasv1alpha1.NetworkSpec{NodeCIDR: "10.250.0.0/16", PodCIDR: "100.64.0.0/12", ServiceCIDR: "100.80.0.0/13", CNI: kaasv1alpha1.CNICilium},
				Maintenance: &kaasv1alpha1.MaintenanceSpec{
					Window:     &kaasv1alpha1.MaintenanceWindow{Begin: "220000+0000", End: "230000+0000"},
					AutoUpdate: &kaasv1alpha1.AutoUpdate{KubernetesPatch: ptrTo(true), MachineImage: ptrTo(false)},
				},
			},
		},
		"ExplicitValuesWinAndAPinnedPatchStopsPatchUpdates": {
			in: kaasv1alpha1.ClusterSpec{
				Environment: "regionone", Purpose: kaasv1alpha1.PurposeProduction,
				Kubernetes:         kaasv1alpha1.KubernetesSpec{Version: "1.34.2"},
				ControlPlane:       kaasv1alpha1.ControlPlaneSpec{HighAvailability: ptrTo(false)},
				DeletionProtection: ptrTo(false),
				NodePools:          []kaasv1alpha1.NodePool{{Name: "a", MachineType: "SCS-4V-8", Count: ptrTo[int32](1), Zones: []string{"az2"}, RootDiskGiB: ptrTo[int32](80)}},
				Network:            &kaasv1alpha1.NetworkSpec{PodCIDR: "172.16.0.0/16", CNI: kaasv1alpha1.CNICalico},
				Maintenance: &kaasv1alpha1.MaintenanceSpec{
					Window:     &kaasv1alpha1.MaintenanceWindow{Begin: "010000+0100", End: "030000+0100"},
					AutoUpdate: &kaasv1alpha1.AutoUpdate{KubernetesPatch: ptrTo(true), MachineImage: ptrTo(true)},
				},
			},
			want: kaasv1alpha1.ClusterSpec{
				Environment: "regionone", Purpose: kaasv1alpha1.PurposeProduction,
				Kubernetes:         kaasv1alpha1.KubernetesSpec{Version: "1.34.2"},
				ControlPlane:       kaasv1alpha1.ControlPlaneSpec{HighAvailability: ptrTo(false)},
				DeletionProtection: ptrTo(false),
				NodePools:          []kaasv1alpha1.NodePool{{Name: "a", MachineType: "SCS-4V-8", Count: ptrTo[int32](1), Zones: []string{"az2"}, RootDiskGiB: ptrTo[int32](80)}},
				Network:            &kaasv1alpha1.NetworkSpec{NodeCIDR: "10.250.0.0/16", PodCIDR: "172.16.0.0/16", ServiceCIDR: "100.80.0.0/13", CNI: kaasv1alpha1.CNICalico},
				Maintenance: &kaasv1alpha1.MaintenanceSpec{
					Window:     &kaasv1alpha1.MaintenanceWindow{Begin: "010000+0100", End: "030000+0100"},
					AutoUpdate: &kaasv1alpha1.AutoUpdate{KubernetesPatch: ptrTo(false), MachineImage: ptrTo(true)},
				},
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := Default(tc.in, env, nil)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Default(...): -want, +got:\n%s", diff)
			}
		})
	}
}

// TestDefaultZones covers the zones of a pool that names none: as many of the environment's
// zones, in the catalog's order, as the pool can have nodes, and what the pool was given at
// creation once it exists, whatever its size and the catalog say now.
func TestDefaultZones(t *testing.T) {
	all := []string{"az1", "az2", "az3"}
	kept := func(zones ...string) *kaasv1alpha1.DefaultedValues {
		return &kaasv1alpha1.DefaultedValues{NodePools: []kaasv1alpha1.DefaultedNodePool{{Name: "a", Zones: zones}}}
	}
	cases := map[string]struct {
		pool    kaasv1alpha1.NodePool
		catalog []string
		kept    *kaasv1alpha1.DefaultedValues
		want    []string
	}{
		"OneNodeTakesTheFirstZone":            {pool: kaasv1alpha1.NodePool{Count: ptrTo[int32](1)}, catalog: all, want: []string{"az1"}},
		"TwoNodesTakeTheFirstTwoZones":        {pool: kaasv1alpha1.NodePool{Count: ptrTo[int32](2)}, catalog: all, want: []string{"az1", "az2"}},
		"AsManyNodesAsZonesTakeAll":           {pool: kaasv1alpha1.NodePool{Count: ptrTo[int32](3)}, catalog: all, want: all},
		"MoreNodesThanZonesTakeAll":           {pool: kaasv1alpha1.NodePool{Count: ptrTo[int32](7)}, catalog: all, want: all},
		"AutoscalingMaximumDecides":           {pool: kaasv1alpha1.NodePool{Autoscaling: &kaasv1alpha1.Autoscaling{Min: 1, Max: 2}}, catalog: all, want: []string{"az1", "az2"}},
		"AutoscalingUpToTheZonesTakesAll":     {pool: kaasv1alpha1.NodePool{Autoscaling: &kaasv1alpha1.Autoscaling{Min: 1, Max: 3}}, catalog: all, want: all},
		"CatalogOrderNotAlphabetical":         {pool: kaasv1alpha1.NodePool{Count: ptrTo[int32](2)}, catalog: []string{"nova", "beta", "alpha"}, want: []string{"nova", "beta"}},
		"EmptyPoolSpreadsOverAllForLater":     {pool: kaasv1alpha1.NodePool{Count: ptrTo[int32](0)}, catalog: all, want: all},
		"PoolWithoutSizeGetsAllAndIsRefused":  {pool: kaasv1alpha1.NodePool{}, catalog: all, want: all},
		"EnvironmentWithoutZonesGivesNone":    {pool: kaasv1alpha1.NodePool{Count: ptrTo[int32](1)}, catalog: nil, want: nil},
		"NamedZonesAreTheUsers":               {pool: kaasv1alpha1.NodePool{Count: ptrTo[int32](1), Zones: []string{"az3", "az2"}}, catalog: all, want: []string{"az3", "az2"}},
		"ExistingPoolKeepsWhatItWasGiven":     {pool: kaasv1alpha1.NodePool{Count: ptrTo[int32](1)}, catalog: all, kept: kept("az1", "az2", "az3"), want: all},
		"ExistingPoolThatGrewStaysInItsZones": {pool: kaasv1alpha1.NodePool{Count: ptrTo[int32](5)}, catalog: all, kept: kept("az1"), want: []string{"az1"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			env := testEnvironment()
			env.Catalog.Zones = tc.catalog
			tc.pool.Name, tc.pool.MachineType = "a", "SCS-4V-8"
			got := Default(kaasv1alpha1.ClusterSpec{Kubernetes: kaasv1alpha1.KubernetesSpec{Version: "1.34"}, NodePools: []kaasv1alpha1.NodePool{tc.pool}}, env, tc.kept)
			if diff := cmp.Diff(tc.want, got.NodePools[0].Zones); diff != "" {
				t.Errorf("Default(...).NodePools[0].Zones: -want, +got:\n%s", diff)
			}
			if rec := Defaulted(&kaasv1alpha1.ClusterSpec{NodePools: []kaasv1alpha1.NodePool{tc.pool}}, &got); len(tc.pool.Zones) == 0 {
				if diff := cmp.Diff(tc.want, rec.NodePools[0].Zones); diff != "" {
					t.Errorf("Defaulted(...) records other zones than it gave: -gave, +recorded:\n%s", diff)
				}
			}
		})
	}
}

// TestDefaultDoesNotModifyItsInput guards the observed composite resource: defaulting must
// never write into it, or the function would report defaults as the user's own values.
func TestDefaultDoesNotModifyItsInput(t *testing.T) {
	in := kaasv1alpha1.ClusterSpec{
		Kubernetes:  kaasv1alpha1.KubernetesSpec{Version: "1.34"},
		NodePools:   []kaasv1alpha1.NodePool{{Name: "a", MachineType: "SCS-4V-8", Count: ptrTo[int32](1)}},
		Network:     &kaasv1alpha1.NetworkSpec{PodCIDR: "172.16.0.0/16"},
		Maintenance: &kaasv1alpha1.MaintenanceSpec{AutoUpdate: &kaasv1alpha1.AutoUpdate{}},
	}
	before := cloneSpec(t, in)
	_ = Default(in, testEnvironment(), nil)
	if diff := cmp.Diff(before, in); diff != "" {
		t.Errorf("Default modified its input: -before, +after:\n%s", diff)
	}
}
