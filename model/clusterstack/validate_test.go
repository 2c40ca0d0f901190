package clusterstack

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/model"
)

// TestValidate covers the Cluster Stack operator's rules as the backend enforces them
// before anything is applied.
func TestValidate(t *testing.T) {
	cases := map[string]struct {
		spec     func(s *kaasv1alpha1.ClusterSpec)
		env      func(e *model.Environment)
		observed func(c *clusterv1.Cluster) // nil: no Cluster yet
		want     []string
	}{
		"Valid": {},
		"ValidUpdate": {
			observed: func(*clusterv1.Cluster) {},
		},
		"MinorNotOffered": {
			spec: func(s *kaasv1alpha1.ClusterSpec) { s.Kubernetes.Version = "1.35" },
			want: []string{`spec.kubernetes.version: Invalid value: "1.35": Kubernetes 1.35 is not offered by Cluster Stack openstack/scs2 in namespace kaas-team1; releases there:`},
		},
		"StackChanged": {
			env:      func(e *model.Environment) { e.ClusterStack.Stack = "scs" },
			observed: func(*clusterv1.Cluster) {},
			want: []string{
				"data.clusterStack.stack: Forbidden: the Cluster runs ClusterClass openstack-scs2-1-34-v2, but environment capi (EnvironmentConfig clusterstack-regionone) now names Cluster Stack openstack/scs; the Cluster Stack operator forbids changing the provider or stack",
				// The scs stack offers 1.34 only as openstack-scs-1-34-v1.
			},
		},
		"NamespaceChanged": {
			env:      func(e *model.Environment) { e.ClusterStack.Namespace = "kaas-other" },
			observed: func(c *clusterv1.Cluster) {},
			want: []string{
				"data.clusterStack.namespace: Forbidden: the Cluster lives in namespace kaas-team1, but environment capi (EnvironmentConfig clusterstack-regionone) now names kaas-other",
			},
		},
		"PodCIDRChanged": {
			spec:     func(s *kaasv1alpha1.ClusterSpec) { s.Network.PodCIDR = "172.16.0.0/16" },
			observed: func(*clusterv1.Cluster) {},
			want:     []string{"spec.network.podCIDR: Forbidden: the Cluster's network is 192.168.0.0/16; Cluster API cannot change it"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := spec()
			if tc.spec != nil {
				tc.spec(&s)
			}
			env := environment("local")
			if tc.env != nil {
				tc.env(env)
			}
			var c *clusterv1.Cluster
			if tc.observed != nil {
				c = existingCluster()
				tc.observed(c)
			}
			errs := invalidOf(request(s, env, standardReleases(), c))
			if len(tc.want) == 0 {
				if len(errs) > 0 {
					t.Fatalf("want no error, got %v", errs.ToAggregate())
				}
				return
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
	env := environment("local")
	env.ClusterStack.Provider = ""
	env.ClusterStack.Stack = "scs-2"
	env.ClusterStack.VariableNames["workerImage"] = "imageName"
	got := New().ValidateEnvironment(env).ToAggregate().Error()
	for _, w := range []string{
		"data.clusterStack.provider: Required value",
		`data.clusterStack.stack: Invalid value: "scs-2": must be a lower-case name without dashes`,
		`data.clusterStack.variableNames[workerImage]: Unsupported value: "workerImage": supported values: "workerFlavor", "workerRootDisk", "nodeCIDR", "controlPlaneAvailabilityZones"`,
	} {
		if !strings.Contains(got, w) {
			t.Errorf("errors %q should contain %q", got, w)
		}
	}
}

// TestValidateEnvironmentUnknownVariablesInOrder: the same environment gives the same
// message on every call, its unknown variable names in the order of their keys.
func TestValidateEnvironmentUnknownVariablesInOrder(t *testing.T) {
	env := environment("local")
	for _, k := range []string{"zeta", "alpha", "mu"} {
		env.ClusterStack.VariableNames[k] = k
	}
	for range 20 {
		var got []any
		for _, e := range New().ValidateEnvironment(env) {
			got = append(got, e.BadValue)
		}
		if diff := cmp.Diff([]any{"alpha", "mu", "zeta"}, got); diff != "" {
			t.Fatalf("refused variable names: -want, +got:\n%s", diff)
		}
	}
}
