package model

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	envv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/environment/v1alpha1"
	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
)

// FuzzDefaultAndValidate feeds any spec through Default and Validate. Properties: neither
// panics; Default leaves its input alone; defaulting again with the record of what the
// environment filled in gives the same spec (so a cluster's shape survives every
// reconcile); and a spec that Validate accepts names every node group differently in every
// backend. The environment offers add-ons, so that spec.addons is fuzzed too. make fuzz
// runs it for a bounded time.
func FuzzDefaultAndValidate(f *testing.F) {
	for _, s := range []kaasv1alpha1.ClusterSpec{validSpec(), {Kubernetes: kaasv1alpha1.KubernetesSpec{Version: "1.34"}, NodePools: []kaasv1alpha1.NodePool{
		{Name: "a", MachineType: "SCS-4V-8", Count: ptrTo[int32](1), Zones: []string{"b-c"}},
		{Name: "a-b", MachineType: "SCS-4V-8", Autoscaling: &kaasv1alpha1.Autoscaling{Max: 2}, Zones: []string{"c", "C"}},
	}}, withAddonChoice(validSpec()), withOwnAccess(validSpec())} {
		raw, err := json.Marshal(s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(raw)
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		var given kaasv1alpha1.ClusterSpec
		if json.Unmarshal(raw, &given) != nil {
			t.Skip("not a spec")
		}
		env := testEnvironment()
		env.Catalog.Zones = append(env.Catalog.Zones, "b-c", "c", "C")
		env.Addons = []envv1alpha1.Addon{{Name: "base", Enforced: true}, {Name: "monitoring", Default: true}, {Name: "extra"}}
		// The environment's issuer and ranges, so that spec.access is defaulted too.
		env.Defaults.Access = &envv1alpha1.AccessDefaults{AllowedSourceRanges: []string{"198.51.100.0/24"},
			OIDC: &kaasv1alpha1.OIDCIssuer{OIDCClaims: kaasv1alpha1.OIDCClaims{IssuerURL: "https://login.example.com", ClientID: "kubectl"}}}
		env.APIServerAccess = &envv1alpha1.APIServerAccess{RestrictSourceRanges: true, SourceRangesWithin: []string{"198.51.100.0/22", "203.0.113.0/24"}}
		before, _ := json.Marshal(given)
		spec := Default(given, env, nil)
		if after, _ := json.Marshal(given); string(after) != string(before) {
			t.Fatalf("Default changed its input:\n%s\n%s", before, after)
		}
		// The record as recall makes it.
		rec := Defaulted(&given, &spec)
		rec.Access = accessRecord(given.Access, accessDefaults(env, nil))
		again := Default(given, env, rec)
		if diff := cmp.Diff(spec, again); diff != "" {
			t.Fatalf("defaulting with the record of the defaults changed the spec: -first, +again:\n%s", diff)
		}
		if len(Validate(&spec, env, nil)) > 0 || len(ValidateAccess(&spec, rec.Access, env, false)) > 0 {
			return
		}
		seen := map[string]bool{}
		for _, p := range spec.NodePools {
			for _, z := range p.Zones {
				n := PoolZoneName(p.Name, z)
				if seen[n] {
					t.Fatalf("a valid spec has two node groups named %s", n)
				}
				seen[n] = true
			}
		}
	})
}

// withAddonChoice is a spec that opts into an optional add-on and out of a default one.
func withAddonChoice(s kaasv1alpha1.ClusterSpec) kaasv1alpha1.ClusterSpec {
	s.Addons = &kaasv1alpha1.AddonsSpec{Enable: []string{"extra"}, Disable: []string{"monitoring"}}
	return s
}

// withOwnAccess is a spec with its own issuer and a range within the fuzzed environment's bounds.
func withOwnAccess(s kaasv1alpha1.ClusterSpec) kaasv1alpha1.ClusterSpec {
	s.Access = &kaasv1alpha1.AccessSpec{AllowedSourceRanges: []string{"203.0.113.0/25"},
		OIDC: &kaasv1alpha1.OIDCSpec{OIDCClaims: kaasv1alpha1.OIDCClaims{IssuerURL: "https://id.example.org/team", ClientID: "team", GroupsClaim: "groups"}}}
	return s
}
