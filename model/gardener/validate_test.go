package gardener

import (
	"strings"
	"testing"

	gardencorev1beta1 "github.com/gardener/gardener/pkg/apis/core/v1beta1"

	envv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/environment/v1alpha1"
	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/model"
)

func TestValidate(t *testing.T) {
	cases := map[string]struct {
		name     string
		spec     func(s *kaasv1alpha1.ClusterSpec)
		env      func(e *model.Environment)
		observed func(s *gardencorev1beta1.Shoot) // nil: no Shoot yet
		want     []string
	}{
		"Valid": {},
		"ValidUpdate": {
			spec:     func(s *kaasv1alpha1.ClusterSpec) { s.NodePools[1].Autoscaling.Max = 12 },
			observed: func(*gardencorev1beta1.Shoot) {},
		},
		"NameTooLongForTheProject": {
			name: "a-rather-long-name",
			want: []string{`metadata.name: Invalid value: "a-rather-long-name": Gardener allows 21 characters for project and Shoot name together; project "team1" has 5, and the cluster's Shoot name "a-rather-long-name" has 18`},
		},
		"DoubleDashInName": {
			name: "shop--x",
			want: []string{"Gardener does not allow '--' in Shoot names"},
		},
		"NoNodeCIDR": {
			spec: func(s *kaasv1alpha1.ClusterSpec) { s.Network.NodeCIDR = "" },
			env:  func(e *model.Environment) { e.Defaults.Network.NodeCIDR = "" },
			want: []string{"spec.network.nodeCIDR: Required value: Gardener on OpenStack needs the node network"},
		},
		"FewerNodesThanZones": {
			spec: func(s *kaasv1alpha1.ClusterSpec) {
				s.NodePools[0].Count = ptrTo[int32](2)
				s.NodePools[1].Zones = []string{"az1", "az2", "az3"}
				s.NodePools[1].Autoscaling.Max = 2
			},
			want: []string{"spec.nodePools[0].count: Invalid value: 2: Gardener needs at least one node per zone in pools that run system components; the pool spreads over 3 zones (az1,az2,az3)"},
		},
		"OnePoolPerZoneSetSuffices": {
			spec: func(s *kaasv1alpha1.ClusterSpec) {
				s.NodePools[1].Zones = []string{"az3", "az2", "az1"}
				s.NodePools[1].Autoscaling.Max = 2
			},
		},
		"NoPoolCanHaveNodes": {
			spec: func(s *kaasv1alpha1.ClusterSpec) {
				s.NodePools[0].Count = ptrTo[int32](0)
				s.NodePools[1].Autoscaling = nil
				s.NodePools[1].Count = ptrTo[int32](0)
			},
			want: []string{"spec.nodePools: Invalid value: 2: Gardener needs at least one node pool that can have nodes"},
		},
		"TurningOffHA": {
			spec:     func(s *kaasv1alpha1.ClusterSpec) { s.ControlPlane.HighAvailability = ptrTo(false) },
			observed: func(*gardencorev1beta1.Shoot) {},
			want:     []string{"spec.controlPlane.highAvailability: Forbidden: Gardener cannot turn off a highly available control plane"},
		},
		"TurningOnHA": {
			observed: func(s *gardencorev1beta1.Shoot) { s.Spec.ControlPlane = nil },
		},
		"ChangingCNI": {
			spec:     func(s *kaasv1alpha1.ClusterSpec) { s.Network.CNI = kaasv1alpha1.CNICalico },
			observed: func(*gardencorev1beta1.Shoot) {},
			want:     []string{"spec.network.cni: Forbidden: Gardener cannot change this on an existing cluster (it is cilium, the spec asks for calico)"},
		},
		"ChangingPodCIDR": {
			spec:     func(s *kaasv1alpha1.ClusterSpec) { s.Network.PodCIDR = "100.96.0.0/12" },
			observed: func(*gardencorev1beta1.Shoot) {},
			want:     []string{"spec.network.podCIDR: Forbidden: Gardener cannot change this on an existing cluster (it is 100.64.0.0/12, the spec asks for 100.96.0.0/12)"},
		},
		"GardenerDefaultedServiceCIDR": {
			spec:     func(s *kaasv1alpha1.ClusterSpec) { s.Network.ServiceCIDR = "" },
			observed: func(*gardencorev1beta1.Shoot) {},
		},
		"ChangingZonesOfAPool": {
			spec:     func(s *kaasv1alpha1.ClusterSpec) { s.NodePools[1].Zones = []string{"az1", "az2"} },
			observed: func(*gardencorev1beta1.Shoot) {},
			want:     []string{"spec.nodePools[1].zones: Forbidden: the zones of an existing node pool cannot change (pool general runs in az1; the spec asks for az1, az2)"},
		},
		"NewPoolInOtherZones": {
			spec: func(s *kaasv1alpha1.ClusterSpec) {
				s.NodePools = append(s.NodePools, kaasv1alpha1.NodePool{Name: "new", MachineType: "SCS-4V-8", Count: ptrTo[int32](2), Zones: []string{"az2", "az3"}})
			},
			observed: func(*gardencorev1beta1.Shoot) {},
		},
		"RegionChanged": {
			env:      func(e *model.Environment) { e.Region = "RegionTwo" },
			observed: func(*gardencorev1beta1.Shoot) {},
			want:     []string{"data.region: Forbidden: the Shoot runs in region RegionOne but environment regionone (EnvironmentConfig gardener-regionone) now names region RegionTwo"},
		},
		"ProjectChanged": {
			env:      func(e *model.Environment) { e.Gardener.Project = "team2" },
			observed: func(*gardencorev1beta1.Shoot) {},
			want:     []string{"data.gardener.project: Forbidden: the Shoot lives in garden namespace garden-team1 but environment regionone (EnvironmentConfig gardener-regionone) now names namespace garden-team2"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			spec := fullSpec()
			if tc.spec != nil {
				tc.spec(&spec)
			}
			env := environment()
			if tc.env != nil {
				tc.env(env)
			}
			var shoot *gardencorev1beta1.Shoot
			if tc.observed != nil {
				shoot = existingShoot()
				tc.observed(shoot)
			}
			req := request(spec, env, shoot)
			if tc.name != "" {
				req.Cluster.Name, req.NativeName = tc.name, tc.name
			}
			errs := invalidOf(req)
			if len(tc.want) == 0 {
				if len(errs) > 0 {
					t.Fatalf("want no error, got %v", errs.ToAggregate())
				}
				return
			}
			if len(errs) != len(tc.want) {
				t.Errorf("want %d errors, got %v", len(tc.want), errs.ToAggregate())
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

func TestValidateEnvironment(t *testing.T) {
	env := environment()
	env.Gardener.CredentialsBindingName = ""
	env.Gardener.CloudProfileKind = "Profile"
	env.Gardener.AdminKubeconfig = &envv1alpha1.GardenerAdminKubeconfig{RenewBefore: "a day", ExpirationSeconds: ptrTo[int64](60)}
	got := New().ValidateEnvironment(env).ToAggregate().Error()
	for _, w := range []string{
		`data.gardener.adminKubeconfig.renewBefore: Invalid value: "a day": must be a positive duration such as 8h or 30m`,
		"data.gardener.adminKubeconfig.expirationSeconds: Invalid value: 60: Gardener issues admin kubeconfigs for 600 seconds at least",
		"data.gardener.credentialsBindingName: Required value",
		`data.gardener.cloudProfileKind: Unsupported value: "Profile": supported values: "CloudProfile", "NamespacedCloudProfile"`,
	} {
		if !strings.Contains(got, w) {
			t.Errorf("errors %q should contain %q", got, w)
		}
	}
	env.Gardener = nil
	if errs := New().ValidateEnvironment(env); len(errs) != 1 || !strings.Contains(errs[0].Error(), "data.gardener: Required value") {
		t.Errorf("a missing gardener section: got %v", errs)
	}
}
