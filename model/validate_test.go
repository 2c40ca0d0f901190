package model

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/intstr"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
)

func cloneSpec(t *testing.T, s kaasv1alpha1.ClusterSpec) kaasv1alpha1.ClusterSpec {
	t.Helper()
	raw, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var out kaasv1alpha1.ClusterSpec
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// validSpec is a defaulted spec that passes Validate against testEnvironment.
func validSpec() kaasv1alpha1.ClusterSpec {
	return Default(kaasv1alpha1.ClusterSpec{
		Kubernetes: kaasv1alpha1.KubernetesSpec{Version: "1.34"},
		NodePools: []kaasv1alpha1.NodePool{
			{Name: "system", MachineType: "SCS-4V-8", Count: ptrTo[int32](3),
				Labels: map[string]string{"node.scs.community/pool": "system"},
				Taints: []kaasv1alpha1.Taint{{Key: "node.scs.community/system", Value: "true", Effect: "NoSchedule"}}},
			{Name: "general", MachineType: "SCS-2V-4", Autoscaling: &kaasv1alpha1.Autoscaling{Min: 0, Max: 6},
				MaxSurge: ptrTo(intstr.FromString("25%")), MaxUnavailable: ptrTo(intstr.FromInt32(0))},
		},
		Hibernation: &kaasv1alpha1.HibernationSpec{Schedules: []kaasv1alpha1.HibernationSchedule{
			{Start: "0 20 * * MON-FRI", End: "30 6 * * 1-5", Location: "Europe/Berlin"},
		}},
	}, testEnvironment(), nil)
}

func TestValidateAcceptsAValidSpec(t *testing.T) {
	spec := validSpec()
	if errs := Validate(&spec, testEnvironment(), nil); len(errs) > 0 {
		t.Fatalf("Validate: %v", errs.ToAggregate())
	}
}

// TestValidate has a failing case for every rule, each checked for its field path and
// the allowed values where there is a list of them.
func TestValidate(t *testing.T) {
	cases := map[string]struct {
		edit func(s *kaasv1alpha1.ClusterSpec)
		want []string
	}{
		"VersionNotOffered": {
			edit: func(s *kaasv1alpha1.ClusterSpec) { s.Kubernetes.Version = "1.31" },
			want: []string{`spec.kubernetes.version: Unsupported value: "1.31": supported values: "1.33", "1.34", "1.35"`},
		},
		"VersionMalformed": {
			edit: func(s *kaasv1alpha1.ClusterSpec) { s.Kubernetes.Version = "latest" },
			want: []string{`spec.kubernetes.version: Invalid value: "latest": must be a Kubernetes minor such as 1.34`},
		},
		"PatchOfAnOfferedMinor": {
			edit: func(s *kaasv1alpha1.ClusterSpec) { s.Kubernetes.Version = "1.35.1" },
		},
		"BadPurpose": {
			edit: func(s *kaasv1alpha1.ClusterSpec) { s.Purpose = "fun" },
			want: []string{`spec.purpose: Unsupported value: "fun": supported values: "evaluation", "development", "production"`},
		},
		"NoPools": {
			edit: func(s *kaasv1alpha1.ClusterSpec) { s.NodePools = nil },
			want: []string{"spec.nodePools: Required value: a cluster needs at least one node pool"},
		},
		"DuplicatePoolName": {
			edit: func(s *kaasv1alpha1.ClusterSpec) { s.NodePools[1].Name = "system" },
			want: []string{`spec.nodePools[1].name: Duplicate value: "system"`},
		},
		"PoolNameTooLong": {
			edit: func(s *kaasv1alpha1.ClusterSpec) { s.NodePools[0].Name = "a-very-long-pool-name" },
			want: []string{"spec.nodePools[0].name: Too long: may not be more than 15 bytes"},
		},
		"PoolNameNotADNSLabel": {
			edit: func(s *kaasv1alpha1.ClusterSpec) { s.NodePools[0].Name = "Sys_tem" },
			want: []string{`spec.nodePools[0].name: Invalid value: "Sys_tem"`},
		},
		"MachineTypeNotOffered": {
			edit: func(s *kaasv1alpha1.ClusterSpec) { s.NodePools[0].MachineType = "m1.large" },
			want: []string{`spec.nodePools[0].machineType: Unsupported value: "m1.large": supported values: "SCS-2V-4", "SCS-4V-8"`},
		},
		"CountAndAutoscaling": {
			edit: func(s *kaasv1alpha1.ClusterSpec) {
				s.NodePools[0].Autoscaling = &kaasv1alpha1.Autoscaling{Min: 1, Max: 2}
			},
			want: []string{"spec.nodePools[0].autoscaling: Forbidden: set exactly one of count (a fixed size) or autoscaling (min and max)"},
		},
		"NeitherCountNorAutoscaling": {
			edit: func(s *kaasv1alpha1.ClusterSpec) { s.NodePools[0].Count = nil },
			want: []string{"spec.nodePools[0]: Required value: set exactly one of count (a fixed size) or autoscaling (min and max)"},
		},
		"MinGreaterThanMax": {
			edit: func(s *kaasv1alpha1.ClusterSpec) {
				s.NodePools[1].Autoscaling = &kaasv1alpha1.Autoscaling{Min: 7, Max: 6}
			},
			want: []string{"spec.nodePools[1].autoscaling.min: Invalid value: 7: must not be greater than autoscaling.max (6)"},
		},
		"MaxZero": {
			edit: func(s *kaasv1alpha1.ClusterSpec) {
				s.NodePools[1].Autoscaling = &kaasv1alpha1.Autoscaling{Min: 0, Max: 0}
			},
			want: []string{"spec.nodePools[1].autoscaling.max: Invalid value: 0: must be between 1 and 1000"},
		},
		"CountTooLarge": {
			edit: func(s *kaasv1alpha1.ClusterSpec) { s.NodePools[0].Count = ptrTo[int32](1001) },
			want: []string{"spec.nodePools[0].count: Invalid value: 1001: must be between 0 and 1000"},
		},
		"ZoneNotOffered": {
			edit: func(s *kaasv1alpha1.ClusterSpec) { s.NodePools[0].Zones = []string{"az1", "az9"} },
			want: []string{`spec.nodePools[0].zones[1]: Unsupported value: "az9": supported values: "az1", "az2", "az3"`},
		},
		"DuplicateZone": {
			edit: func(s *kaasv1alpha1.ClusterSpec) { s.NodePools[0].Zones = []string{"az1", "az1"} },
			want: []string{`spec.nodePools[0].zones[1]: Duplicate value: "az1"`},
		},
		"BadLabel": {
			edit: func(s *kaasv1alpha1.ClusterSpec) { s.NodePools[0].Labels = map[string]string{"bad key!": "x"} },
			want: []string{`spec.nodePools[0].labels: Invalid value: "bad key!"`},
		},
		"BadTaint": {
			edit: func(s *kaasv1alpha1.ClusterSpec) {
				s.NodePools[0].Taints = []kaasv1alpha1.Taint{{Key: "-bad", Effect: "Sometimes"}}
			},
			want: []string{
				`spec.nodePools[0].taints[0].key: Invalid value: "-bad"`,
				`spec.nodePools[0].taints[0].effect: Unsupported value: "Sometimes": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"`,
			},
		},
		"RootDiskTooSmall": {
			edit: func(s *kaasv1alpha1.ClusterSpec) { s.NodePools[0].RootDiskGiB = ptrTo[int32](5) },
			want: []string{"spec.nodePools[0].rootDiskGiB: Invalid value: 5: must be between 10 and 16384"},
		},
		"SurgeNotAPercentage": {
			edit: func(s *kaasv1alpha1.ClusterSpec) { s.NodePools[1].MaxSurge = ptrTo(intstr.FromString("lots")) },
			want: []string{`spec.nodePools[1].maxSurge: Invalid value: "lots": must be a number of nodes or a percentage such as 25%`},
		},
		"SurgeAndUnavailableZero": {
			edit: func(s *kaasv1alpha1.ClusterSpec) { s.NodePools[1].MaxSurge = ptrTo(intstr.FromString("0%")) },
			want: []string{"spec.nodePools[1].maxUnavailable: Invalid value: \"0\": must not be 0 when maxSurge is 0 too"},
		},
		"BadCIDR": {
			edit: func(s *kaasv1alpha1.ClusterSpec) { s.Network.PodCIDR = "100.64.0.0/33" },
			want: []string{`spec.network.podCIDR: Invalid value: "100.64.0.0/33": must be a CIDR such as 10.250.0.0/16`},
		},
		"NonCanonicalCIDR": {
			edit: func(s *kaasv1alpha1.ClusterSpec) { s.Network.NodeCIDR = "10.250.1.0/16" },
			want: []string{`spec.network.nodeCIDR: Invalid value: "10.250.1.0/16": must be a CIDR in canonical form: 10.250.0.0/16`},
		},
		"OverlappingCIDRs": {
			edit: func(s *kaasv1alpha1.ClusterSpec) { s.Network.ServiceCIDR = "100.64.0.0/16" },
			want: []string{`spec.network.serviceCIDR: Invalid value: "100.64.0.0/16": must not overlap spec.network.podCIDR (100.64.0.0/12)`},
		},
		"BadCNI": {
			edit: func(s *kaasv1alpha1.ClusterSpec) { s.Network.CNI = "flannel" },
			want: []string{`spec.network.cni: Unsupported value: "flannel": supported values: "calico", "cilium"`},
		},
		"WindowTooShort": {
			edit: func(s *kaasv1alpha1.ClusterSpec) {
				s.Maintenance.Window = &kaasv1alpha1.MaintenanceWindow{Begin: "220000+0000", End: "221000+0000"}
			},
			want: []string{"spec.maintenance.window: Invalid value: \"220000+0000-221000+0000\": the window is 10m0s long; it must last between 30m and 6h"},
		},
		"WindowOverMidnightWithOffset": {
			edit: func(s *kaasv1alpha1.ClusterSpec) {
				s.Maintenance.Window = &kaasv1alpha1.MaintenanceWindow{Begin: "230000+0100", End: "030000+0100"}
			},
		},
		"WindowBadTime": {
			edit: func(s *kaasv1alpha1.ClusterSpec) {
				s.Maintenance.Window = &kaasv1alpha1.MaintenanceWindow{Begin: "25:00", End: "230000+0000"}
			},
			want: []string{`spec.maintenance.window.begin: Invalid value: "25:00": must be a time of day written as HHMMSS+ZZZZ`},
		},
		"BadCron": {
			edit: func(s *kaasv1alpha1.ClusterSpec) { s.Hibernation.Schedules[0].Start = "0 25 * * *" },
			want: []string{`spec.hibernation.schedules[0].start: Invalid value: "0 25 * * *": field 2 (hour) has "25"; values must be between 0 and 23`},
		},
		"CronWithFourFields": {
			edit: func(s *kaasv1alpha1.ClusterSpec) { s.Hibernation.Schedules[0].End = "0 7 * *" },
			want: []string{`spec.hibernation.schedules[0].end: Invalid value: "0 7 * *": must be a cron expression with five fields`},
		},
		"BadTimeZone": {
			edit: func(s *kaasv1alpha1.ClusterSpec) { s.Hibernation.Schedules[0].Location = "Mars/Olympus" },
			want: []string{`spec.hibernation.schedules[0].location: Invalid value: "Mars/Olympus": must be an IANA time zone`},
		},
		"EmptySchedule": {
			edit: func(s *kaasv1alpha1.ClusterSpec) { s.Hibernation.Schedules[0] = kaasv1alpha1.HibernationSchedule{} },
			want: []string{"spec.hibernation.schedules[0]: Required value: a hibernation schedule needs start, end, or both"},
		},
		"EveryErrorAtOnce": {
			edit: func(s *kaasv1alpha1.ClusterSpec) {
				s.Kubernetes.Version = "1.31"
				s.NodePools[0].MachineType = "m1.large"
				s.Network.PodCIDR = "nope"
			},
			want: []string{"spec.kubernetes.version", "spec.nodePools[0].machineType", "spec.network.podCIDR"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			spec := validSpec()
			tc.edit(&spec)
			errs := Validate(&spec, testEnvironment(), nil)
			if len(tc.want) == 0 {
				if len(errs) > 0 {
					t.Fatalf("want no error, got %v", errs.ToAggregate())
				}
				return
			}
			if len(errs) != len(tc.want) {
				t.Errorf("want %d errors, got %d: %v", len(tc.want), len(errs), errs.ToAggregate())
			}
			got := errs.ToAggregate().Error()
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("errors\n  %s\nshould contain\n  %s", got, w)
				}
			}
		})
	}
}

func TestParseVersion(t *testing.T) {
	cases := map[string]struct {
		in      string
		want    Version
		wantErr bool
	}{
		"Minor":         {in: "1.34", want: Version{Major: 1, Minor: 34, Patch: -1}},
		"Patch":         {in: "1.34.2", want: Version{Major: 1, Minor: 34, Patch: 2}},
		"ClusterAPI":    {in: "v1.34.7", want: Version{Major: 1, Minor: 34, Patch: 7}},
		"Major":         {in: "1", wantErr: true},
		"Four":          {in: "1.2.3.4", wantErr: true},
		"LeadingZero":   {in: "1.034", wantErr: true},
		"NotANumber":    {in: "1.x", wantErr: true},
		"NegativePatch": {in: "1.34.-1", wantErr: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := ParseVersion(tc.in)
			if (err != nil) != tc.wantErr {
				t.Fatalf("ParseVersion(%q) error = %v, want error %v", tc.in, err, tc.wantErr)
			}
			if !tc.wantErr && got != tc.want {
				t.Errorf("ParseVersion(%q) = %+v, want %+v", tc.in, got, tc.want)
			}
		})
	}
}

func TestPoolZoneName(t *testing.T) {
	cases := map[string]struct{ pool, zone, want string }{
		"PoolAndZone": {"general", "az1", "general-az1"},
		"UpperCase":   {"general", "AZ-1", "general-az-1"},
		"NoZone":      {"general", "", "general"},
		// printf eu_de_1a | sha256sum begins with these eight hex digits.
		"NotADNSLabel": {"general", "eu_de_1a", "general-z6418408e"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := PoolZoneName(tc.pool, tc.zone); got != tc.want {
				t.Errorf("PoolZoneName(%q, %q) = %q, want %q", tc.pool, tc.zone, got, tc.want)
			}
		})
	}
}

func TestZoneShare(t *testing.T) {
	cases := map[string]struct {
		n     int32
		zones int
		want  []int32
	}{
		"Even":      {n: 6, zones: 3, want: []int32{2, 2, 2}},
		"Remainder": {n: 4, zones: 3, want: []int32{2, 1, 1}},
		"Fewer":     {n: 1, zones: 3, want: []int32{1, 0, 0}},
		"OneZone":   {n: 5, zones: 1, want: []int32{5}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var sum int32
			for i, w := range tc.want {
				got := ZoneShare(tc.n, tc.zones, i)
				sum += got
				if got != w {
					t.Errorf("zone %d gets %d, want %d", i, got, w)
				}
			}
			if sum != tc.n {
				t.Errorf("the shares add up to %d, not %d", sum, tc.n)
			}
		})
	}
}

// TestValidateBadLabelsInTheOrderOfTheirKeys: a pool's labels are a map; the same spec
// must give the same message on every call, so the errors follow the keys.
func TestValidateBadLabelsInTheOrderOfTheirKeys(t *testing.T) {
	spec := validSpec()
	spec.NodePools[0].Labels = map[string]string{"z bad!": "x", "a bad!": "y", "m bad!": "", "fine": "ok"}
	for range 20 {
		var got []any
		for _, e := range Validate(&spec, testEnvironment(), nil) {
			got = append(got, e.BadValue)
		}
		if diff := cmp.Diff([]any{"a bad!", "m bad!", "z bad!"}, got); diff != "" {
			t.Fatalf("refused labels: -want, +got:\n%s", diff)
		}
	}
}
