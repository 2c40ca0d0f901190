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
					Zones: []string{"az1", "az2", "az3"}, RootDiskGiB: ptrTo[int32](50)}},
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
					Zones: []string{"az1", "az2", "az3"}, RootDiskGiB: ptrTo[int32](50)}},
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
