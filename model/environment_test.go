package model

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	envv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/environment/v1alpha1"
	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
)

func environmentConfig(name string, labels map[string]string, data map[string]any) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": EnvironmentConfigAPIVersion,
		"kind":       EnvironmentConfigKind,
		"metadata":   map[string]any{"name": name},
		"data":       data,
	}}
	u.SetLabels(labels)
	return u
}

func gardenerData() map[string]any {
	return map[string]any{
		"backend": "gardener",
		"region":  "RegionOne",
		"catalog": map[string]any{"kubernetesVersions": []any{"1.34"}},
	}
}

func TestSelectEnvironment(t *testing.T) {
	prod := environmentConfig("cfg-prod", map[string]string{"kaas.scs.community/environment": "prod", "kaas.scs.community/default": "true"}, gardenerData())
	dev := environmentConfig("cfg-dev", map[string]string{"kaas.scs.community/environment": "dev"}, gardenerData())
	dev2 := environmentConfig("cfg-dev-2", map[string]string{"kaas.scs.community/environment": "dev", "kaas.scs.community/default": "true"}, gardenerData())
	unrelated := environmentConfig("other-team-config", nil, map[string]any{"anything": "goes"})
	typo := environmentConfig("cfg-typo", map[string]string{"kaas.scs.community/environment": "typo"},
		map[string]any{"backend": "gardener", "region": "r", "catalog": map[string]any{"kubernetesVersion": []any{"1.34"}}})

	cases := map[string]struct {
		requested, pinned string
		configs           []*unstructured.Unstructured
		wantName          string
		wantErr           []string
	}{
		"NamedEnvironment":            {requested: "dev", configs: []*unstructured.Unstructured{prod, dev, unrelated}, wantName: "dev"},
		"DefaultEnvironment":          {configs: []*unstructured.Unstructured{prod, dev, unrelated}, wantName: "prod"},
		"PinnedWinsOverDefault":       {pinned: "dev", configs: []*unstructured.Unstructured{prod, dev}, wantName: "dev"},
		"RequestedEqualsPinned":       {requested: "dev", pinned: "dev", configs: []*unstructured.Unstructured{prod, dev}, wantName: "dev"},
		"RequestedDiffersFromPinned":  {requested: "prod", pinned: "dev", configs: []*unstructured.Unstructured{prod, dev}, wantErr: []string{`spec.environment is "prod" but the cluster was created in environment "dev"`}},
		"MissingNamesThoseThatExist":  {requested: "staging", configs: []*unstructured.Unstructured{prod, dev, unrelated}, wantErr: []string{`environment "staging" does not exist`, "environments that exist: dev, prod"}},
		"NoEnvironmentsAtAll":         {requested: "staging", configs: []*unstructured.Unstructured{unrelated}, wantErr: []string{`environment "staging" does not exist`, "no environments exist"}},
		"NoDefault":                   {configs: []*unstructured.Unstructured{dev}, wantErr: []string{"spec.environment is not set and no EnvironmentConfig is labelled kaas.scs.community/default=true", "environments that exist: dev"}},
		"AmbiguousDefault":            {configs: []*unstructured.Unstructured{prod, dev2}, wantErr: []string{"2 EnvironmentConfigs are labelled kaas.scs.community/default=true (cfg-dev-2, cfg-prod)"}},
		"AmbiguousName":               {requested: "dev", configs: []*unstructured.Unstructured{dev, dev2}, wantErr: []string{`environment "dev" is ambiguous: EnvironmentConfigs cfg-dev, cfg-dev-2`}},
		"UnknownFieldInData":          {requested: "typo", configs: []*unstructured.Unstructured{typo}, wantErr: []string{`environment "typo" (EnvironmentConfig cfg-typo)`, `unknown field "kubernetesVersion"`}},
		"UnlabelledConfigsAreIgnored": {requested: "other-team-config", configs: []*unstructured.Unstructured{unrelated}, wantErr: []string{"does not exist"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			env, err := SelectEnvironment(tc.requested, tc.pinned, tc.configs, Tenant{})
			if len(tc.wantErr) > 0 {
				if err == nil {
					t.Fatalf("want an error containing %q, got environment %q", tc.wantErr, env.Name)
				}
				for _, w := range tc.wantErr {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error %q should contain %q", err, w)
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if env.Name != tc.wantName {
				t.Errorf("selected %q, want %q", env.Name, tc.wantName)
			}
			if env.Region != "RegionOne" || env.Backend != "gardener" {
				t.Errorf("data not decoded: %+v", env.Environment)
			}
		})
	}
}

// TestSelectEnvironmentForATeam: a claim sees only the environments that admit its
// namespace, by name or by label; what it is told names no other team's environment.
func TestSelectEnvironmentForATeam(t *testing.T) {
	with := func(name string, labels map[string]string, access map[string]any) *unstructured.Unstructured {
		d := gardenerData()
		if access != nil {
			d["access"] = access
		}
		return environmentConfig("cfg-"+name, labels, d)
	}
	env := func(name string) map[string]string { return map[string]string{"kaas.scs.community/environment": name} }
	def := func(name string) map[string]string {
		return map[string]string{"kaas.scs.community/environment": name, "kaas.scs.community/default": "true"}
	}
	team1 := with("team1-prod", def("team1-prod"), map[string]any{"namespaces": []any{"team1"}})
	team2 := with("team2-prod", def("team2-prod"), map[string]any{"namespaces": []any{"team2"}})
	sandbox := with("sandbox", env("sandbox"), map[string]any{"namespaceSelector": map[string]any{"matchLabels": map[string]any{"kaas.scs.community/sandbox": "true"}}})
	closed := with("closed", env("closed"), nil)
	// A selector without labels would match every namespace: it admits none.
	everyone := with("everyone", env("everyone"), map[string]any{"namespaceSelector": map[string]any{}})
	all := []*unstructured.Unstructured{team1, team2, sandbox, closed, everyone}
	sandboxLabels := map[string]string{"kaas.scs.community/sandbox": "true"}

	cases := map[string]struct {
		requested, pinned string
		tenant            Tenant
		wantName          string
		wantErr           string
	}{
		"OwnDefault":            {tenant: Tenant{Namespace: "team2"}, wantName: "team2-prod"},
		"ByName":                {requested: "team1-prod", tenant: Tenant{Namespace: "team1"}, wantName: "team1-prod"},
		"ByLabel":               {requested: "sandbox", tenant: Tenant{Namespace: "lab", Labels: sandboxLabels}, wantName: "sandbox"},
		"AnotherTeamsByName":    {requested: "team2-prod", tenant: Tenant{Namespace: "team1"}, wantErr: `environment "team2-prod" is not offered to namespace team1; environments offered to namespace team1: team1-prod`},
		"OneThatDoesNotExist":   {requested: "nope", tenant: Tenant{Namespace: "team1"}, wantErr: `environment "nope" is not offered to namespace team1; environments offered to namespace team1: team1-prod`},
		"WithoutAccessNobody":   {requested: "closed", tenant: Tenant{Namespace: "team1"}, wantErr: `environment "closed" is not offered to namespace team1`},
		"EmptySelectorNobody":   {requested: "everyone", tenant: Tenant{Namespace: "lab", Labels: sandboxLabels}, wantErr: `environment "everyone" is not offered to namespace lab`},
		"NothingForTheTeam":     {tenant: Tenant{Namespace: "team3"}, wantErr: "spec.environment is not set and no EnvironmentConfig offered to namespace team3 is labelled kaas.scs.community/default=true; no environment is offered to namespace team3"},
		"AccessRevoked":         {pinned: "sandbox", tenant: Tenant{Namespace: "lab"}, wantErr: `environment "sandbox", where this cluster runs, no longer admits namespace lab`},
		"PlatformsOwnComposite": {requested: "closed", wantName: "closed"},
		"PinnedEnvironmentGone": {pinned: "gone", tenant: Tenant{Namespace: "team1"}, wantErr: `environment "gone", where this cluster runs, does not exist any more`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := SelectEnvironment(tc.requested, tc.pinned, all, tc.tenant)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error = %v, want one containing %q", err, tc.wantErr)
				}
				for _, other := range []string{"team2-prod", "cfg-team2", "sandbox"} {
					if tc.tenant.Namespace == "team1" && tc.requested != other && strings.Contains(err.Error(), other) {
						t.Errorf("the message shows %s to team1: %v", other, err)
					}
				}
				return
			}
			if err != nil || got.Name != tc.wantName {
				t.Fatalf("selected %v (%v), want %s", got, err, tc.wantName)
			}
		})
	}
}

func TestValidateEnvironment(t *testing.T) {
	env := &Environment{Name: "e"}
	env.Backend = "openshift"
	env.Catalog.KubernetesVersions = []string{"1.34.2"}
	env.Catalog.KubernetesVersionLifecycle = map[string]kaasv1alpha1.VersionLifecycle{"1.34": {Deprecated: true}, "v1.33.1": {Deprecated: true}}
	errs := ValidateEnvironment(env, NewRegistry(fakeBackend{}))
	got := errs.ToAggregate().Error()
	for _, w := range []string{
		"data.region: Required value",
		`data.catalog.kubernetesVersions[0]: Invalid value: "1.34.2": must be a Kubernetes minor such as 1.34`,
		`data.catalog.kubernetesVersionLifecycle[v1.33.1]: Invalid value: "v1.33.1": the keys must be Kubernetes minors such as 1.34`,
		`data.backend: Unsupported value: "openshift": supported values: "fake"`,
	} {
		if !strings.Contains(got, w) {
			t.Errorf("errors %q should contain %q", got, w)
		}
	}
}

// TestValidateEnvironmentRefusesAnEmptySelector: a namespace selector without labels
// would admit every namespace; the environment is refused, saying so.
func TestValidateEnvironmentRefusesAnEmptySelector(t *testing.T) {
	env := &Environment{Name: "e"}
	env.Backend = "fake"
	env.Region = "r"
	env.Access = &envv1alpha1.Access{NamespaceSelector: &metav1.LabelSelector{}}
	got := ValidateEnvironment(env, NewRegistry(fakeBackend{})).ToAggregate()
	if want := `data.access.namespaceSelector: Invalid value: "{}": an empty selector would admit every namespace`; got == nil || !strings.Contains(got.Error(), want) {
		t.Errorf("errors = %v, want one containing %q", got, want)
	}
}

// TestValidateEnvironmentNamesTheFirstBadSelectorLabel: of several bad labels in a
// namespace selector, the message names the first by key on every call.
func TestValidateEnvironmentNamesTheFirstBadSelectorLabel(t *testing.T) {
	env := &Environment{Name: "e"}
	env.Backend = "fake"
	env.Region = "r"
	env.Access = &envv1alpha1.Access{NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{
		"team": "a b", "c bad!": "x", "b bad!": "x", "a bad!": "x",
	}}}
	for range 20 {
		got := ValidateEnvironment(env, NewRegistry(fakeBackend{})).ToAggregate()
		if got == nil || !strings.Contains(got.Error(), `key: Invalid value: "a bad!"`) {
			t.Fatalf("errors = %v, want the one of label a bad!", got)
		}
	}
}
