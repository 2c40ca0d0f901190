package model

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
)

// TestDefaultKeepsWhatTheEnvironmentDefaulted: once a cluster has a record of its defaults,
// an environment edit reaches only what is new (a pool added later); a range the record
// leaves empty stays empty although the environment defaults one now.
func TestDefaultKeepsWhatTheEnvironmentDefaulted(t *testing.T) {
	created := testEnvironment()
	created.Defaults.Network.NodeCIDR = ""
	given := kaasv1alpha1.ClusterSpec{Kubernetes: kaasv1alpha1.KubernetesSpec{Version: "1.34"}, NodePools: []kaasv1alpha1.NodePool{
		{Name: "a", MachineType: "SCS-4V-8", Count: ptrTo[int32](3)},
	}}
	first := Default(given, created, nil)
	kept := Defaulted(&given, &first)

	edited := testEnvironment()
	edited.Catalog.Zones = []string{"az1", "az4"}
	edited.Defaults.RootDiskGiB = ptrTo[int32](80)
	edited.Defaults.Network.PodCIDR = "100.96.0.0/11"
	later := given
	later.NodePools = append(later.NodePools, kaasv1alpha1.NodePool{Name: "b", MachineType: "SCS-4V-8", Count: ptrTo[int32](1)})
	got := Default(later, edited, kept)

	wantNetwork := &kaasv1alpha1.NetworkSpec{PodCIDR: "100.64.0.0/12", ServiceCIDR: "100.80.0.0/13", CNI: kaasv1alpha1.CNICilium}
	if diff := cmp.Diff(wantNetwork, got.Network); diff != "" {
		t.Errorf("network: -want (as created, no node range), +got:\n%s", diff)
	}
	if diff := cmp.Diff([]string{"az1", "az2", "az3"}, got.NodePools[0].Zones); diff != "" {
		t.Errorf("pool a zones: -want (as created), +got:\n%s", diff)
	}
	if *got.NodePools[0].RootDiskGiB != 50 || *got.NodePools[1].RootDiskGiB != 80 {
		t.Errorf("root disks = %d, %d; want 50 kept and 80 for the new pool", *got.NodePools[0].RootDiskGiB, *got.NodePools[1].RootDiskGiB)
	}
	if diff := cmp.Diff([]string{"az1"}, got.NodePools[1].Zones); diff != "" {
		t.Errorf("new pool b zones: -want (the first of the environment's now, one node), +got:\n%s", diff)
	}

	changes := strings.Join(EnvironmentChanges(&got, edited, Defaulted(&later, &got)), "\n")
	for _, want := range []string{
		"spec.network.podCIDR: keeps 100.64.0.0/12 from the cluster's creation; the environment now defaults to 100.96.0.0/11 (data.defaults.network.podCIDR)",
		"spec.nodePools[0].zones: pool a keeps az1, az2, az3 from its creation; a new pool of its size would get az1, az4 (data.catalog.zones)",
		"spec.nodePools[0].rootDiskGiB: pool a keeps 50 from its creation; the environment now defaults to 80 (data.defaults.rootDiskGiB)",
	} {
		if !strings.Contains(changes, want) {
			t.Errorf("environment changes\n%s\nshould contain\n%s", changes, want)
		}
	}
	if strings.Contains(changes, "pools[1]") {
		t.Errorf("a pool created with the environment's values now is up to date:\n%s", changes)
	}
}

func TestDefaultedRecordsOnlyWhatTheUserLeftOut(t *testing.T) {
	given := kaasv1alpha1.ClusterSpec{
		Kubernetes: kaasv1alpha1.KubernetesSpec{Version: "1.34"},
		Network:    &kaasv1alpha1.NetworkSpec{PodCIDR: "172.16.0.0/16"},
		NodePools: []kaasv1alpha1.NodePool{
			{Name: "explicit", MachineType: "SCS-4V-8", Count: ptrTo[int32](1), Zones: []string{"az1"}, RootDiskGiB: ptrTo[int32](20)},
			{Name: "zones", MachineType: "SCS-4V-8", Count: ptrTo[int32](2), RootDiskGiB: ptrTo[int32](20)},
		},
	}
	spec := Default(given, testEnvironment(), nil)
	want := &kaasv1alpha1.DefaultedValues{
		Network:   &kaasv1alpha1.DefaultedNetwork{ServiceCIDR: "100.80.0.0/13", NodeCIDR: "10.250.0.0/16", CNI: kaasv1alpha1.CNICilium},
		NodePools: []kaasv1alpha1.DefaultedNodePool{{Name: "zones", Zones: []string{"az1", "az2"}}},
	}
	if diff := cmp.Diff(want, Defaulted(&given, &spec)); diff != "" {
		t.Errorf("Defaulted: -want, +got:\n%s", diff)
	}
}

func TestValidateZonesKept(t *testing.T) {
	spec := validSpec()
	status := &kaasv1alpha1.ClusterStatus{NodePools: []kaasv1alpha1.NodePoolStatus{{Name: "system", Zones: []string{"az1", "az2"}}, {Name: "general", Zones: []string{"az3", "az2", "az1"}}}}
	kept := &kaasv1alpha1.DefaultedValues{NodePools: []kaasv1alpha1.DefaultedNodePool{{Name: "system", Zones: []string{"az1", "az2", "az3"}}}}
	errs := ValidateZonesKept(&spec, kept, status)
	if len(errs) != 1 {
		t.Fatalf("want one error (pool system; general is the same set in another order), got %v", errs)
	}
	for _, want := range []string{
		"spec.nodePools[0].zones: Forbidden: the zones of an existing node pool cannot change (pool system runs in az1, az2; the spec asks for az1, az2, az3)",
		"they came from the environment's data.catalog.zones, which changed: set the pool's zones to az1, az2 to keep them",
	} {
		if !strings.Contains(errs[0].Error(), want) {
			t.Errorf("error\n%s\nshould contain\n%s", errs[0], want)
		}
	}
	if errs := ValidateZonesKept(&spec, nil, nil); len(errs) > 0 {
		t.Errorf("a new cluster has no zones to keep: %v", errs)
	}
}

// TestValidateAcceptsWhatTheClusterHas: values the catalog dropped since the cluster got
// them stay accepted; new ones are checked.
func TestValidateAcceptsWhatTheClusterHas(t *testing.T) {
	env := testEnvironment()
	env.Catalog.KubernetesVersions = []string{"1.35"}
	env.Catalog.MachineTypes = []string{"SCS-2V-4"}
	env.Catalog.Zones = []string{"az1"}
	spec := validSpec()
	status := &kaasv1alpha1.ClusterStatus{Kubernetes: &kaasv1alpha1.KubernetesStatus{Version: "1.34.3"},
		NodePools: []kaasv1alpha1.NodePoolStatus{
			{Name: "system", MachineType: "SCS-4V-8", Zones: []string{"az1", "az2", "az3"}},
			{Name: "general", MachineType: "SCS-2V-4", Zones: []string{"az1", "az2", "az3"}},
		}}
	if errs := Validate(&spec, env, status); len(errs) > 0 {
		t.Errorf("want what the cluster has accepted, got %v", errs.ToAggregate())
	}
	spec.NodePools[1].MachineType = "SCS-4V-8"
	spec.NodePools = append(spec.NodePools, kaasv1alpha1.NodePool{Name: "new", MachineType: "SCS-2V-4", Count: ptrTo[int32](1), Zones: []string{"az2"}})
	errs := Validate(&spec, env, status)
	want := `[spec.nodePools[1].machineType: Unsupported value: "SCS-4V-8": supported values: "SCS-2V-4", spec.nodePools[2].zones[0]: Unsupported value: "az2": supported values: "az1"]`
	if errs.ToAggregate().Error() != want {
		t.Errorf("a machine type pool general never had, and a zone for a new pool, are checked:\ngot  %v\nwant %s", errs.ToAggregate(), want)
	}
}

func TestValidateNodeGroupNameCollisions(t *testing.T) {
	env := testEnvironment()
	env.Catalog.Zones = nil
	cases := map[string]struct {
		pools []kaasv1alpha1.NodePool
		want  string
	}{
		"PoolAndZoneAcrossTheDash": {
			pools: []kaasv1alpha1.NodePool{
				{Name: "a", MachineType: "SCS-4V-8", Count: ptrTo[int32](1), Zones: []string{"b-c"}},
				{Name: "a-b", MachineType: "SCS-4V-8", Count: ptrTo[int32](1), Zones: []string{"c"}},
			},
			want: `spec.nodePools[1].name: Invalid value: "a-b": pool a in zone b-c and pool a-b in zone c would both be named a-b-c in the backend; rename one of the pools`,
		},
		"ZonesThatDifferInCaseOnly": {
			pools: []kaasv1alpha1.NodePool{{Name: "a", MachineType: "SCS-4V-8", Count: ptrTo[int32](2), Zones: []string{"AZ1", "az1"}}},
			want:  `spec.nodePools[0].zones[1]: Invalid value: "az1": zones AZ1 and az1 of pool a would both be named a-az1 in the backend; name each zone once`,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			spec := validSpec()
			spec.NodePools = tc.pools
			errs := Validate(&spec, env, nil)
			if len(errs) != 1 || errs[0].Error() != tc.want {
				t.Errorf("errors = %v\nwant exactly\n%s", errs.ToAggregate(), tc.want)
			}
		})
	}
}

// TestRefusalsSayWhereADefaultCameFrom: a refused value the spec does not set names the
// environment setting that filled it in; one the user wrote does not.
func TestRefusalsSayWhereADefaultCameFrom(t *testing.T) {
	env := testEnvironment()
	given := kaasv1alpha1.ClusterSpec{Kubernetes: kaasv1alpha1.KubernetesSpec{Version: "1.34"},
		Network:   &kaasv1alpha1.NetworkSpec{ServiceCIDR: "10.96.0.0/12"},
		NodePools: []kaasv1alpha1.NodePool{{Name: "a", MachineType: "SCS-4V-8", Count: ptrTo[int32](1)}}}
	spec := Default(given, env, nil)
	errs := explainDefaults(field.ErrorList{
		field.Forbidden(field.NewPath("spec", "network", "podCIDR"), "cannot change"),
		field.Forbidden(field.NewPath("spec", "network", "serviceCIDR"), "cannot change"),
		field.Forbidden(field.NewPath("spec", "nodePools").Index(0).Child("rootDiskGiB"), "ForceNew"),
	}, &given, Defaulted(&given, &spec), env)
	want := []string{
		"spec.network.podCIDR: Forbidden: cannot change (the spec does not set spec.network.podCIDR: environment regionone filled it in from data.defaults.network.podCIDR)",
		"spec.network.serviceCIDR: Forbidden: cannot change",
		"spec.nodePools[0].rootDiskGiB: Forbidden: ForceNew (the spec does not set spec.nodePools[0].rootDiskGiB: environment regionone filled it in from data.defaults.rootDiskGiB)",
	}
	for i, w := range want {
		if errs[i].Error() != w {
			t.Errorf("error %d = %q, want %q", i, errs[i].Error(), w)
		}
	}
}

// TestMaintenanceDefaultsAreKept: the maintenance window and automatic updates the
// environment gave a cluster stay when the environment's defaults change, the condition
// names the difference, and a cluster recorded before these defaults were kept takes the
// environment's.
func TestMaintenanceDefaultsAreKept(t *testing.T) {
	created := testEnvironment()
	created.Defaults.Maintenance = kaasv1alpha1.MaintenanceSpec{Window: &kaasv1alpha1.MaintenanceWindow{Begin: "220000+0000", End: "230000+0000"},
		AutoUpdate: &kaasv1alpha1.AutoUpdate{MachineImage: ptrTo(true)}}
	given := kaasv1alpha1.ClusterSpec{Kubernetes: kaasv1alpha1.KubernetesSpec{Version: "1.34"}, NodePools: []kaasv1alpha1.NodePool{
		{Name: "a", MachineType: "SCS-4V-8", Count: ptrTo[int32](3)}}}
	kept := &kaasv1alpha1.DefaultedValues{Maintenance: maintenanceRecord(given.Maintenance, maintenanceDefaults(created, nil))}

	edited := testEnvironment()
	edited.Defaults.Maintenance = kaasv1alpha1.MaintenanceSpec{Window: &kaasv1alpha1.MaintenanceWindow{Begin: "010000+0000", End: "020000+0000"},
		AutoUpdate: &kaasv1alpha1.AutoUpdate{MachineImage: ptrTo(false)}}
	got := Default(given, edited, kept)
	want := &kaasv1alpha1.MaintenanceSpec{Window: &kaasv1alpha1.MaintenanceWindow{Begin: "220000+0000", End: "230000+0000"},
		AutoUpdate: &kaasv1alpha1.AutoUpdate{KubernetesPatch: ptrTo(true), MachineImage: ptrTo(true)}}
	if diff := cmp.Diff(want, got.Maintenance); diff != "" {
		t.Errorf("maintenance: -want (as created), +got:\n%s", diff)
	}
	changes := strings.Join(EnvironmentChanges(&got, edited, kept), "\n")
	for _, want := range []string{
		`spec.maintenance.autoUpdate: keeps {"machineImage":true} from the cluster's creation; the environment now defaults to {"machineImage":false} (data.defaults.maintenance.autoUpdate)`,
		`spec.maintenance.window: keeps {"begin":"220000+0000","end":"230000+0000"} from the cluster's creation; the environment now defaults to {"begin":"010000+0000","end":"020000+0000"} (data.defaults.maintenance.window)`,
	} {
		if !strings.Contains(changes, want) {
			t.Errorf("environment changes\n%s\nshould contain\n%s", changes, want)
		}
	}
	// Recorded before maintenance defaults were: the environment's now.
	if got := Default(given, edited, &kaasv1alpha1.DefaultedValues{}); got.Maintenance.Window.Begin != "010000+0000" {
		t.Errorf("a record without maintenance keeps %v; want the environment's window", got.Maintenance.Window)
	}
}
