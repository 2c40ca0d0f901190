package model

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	envv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/environment/v1alpha1"
)

// TestSettings reads and writes settings by their path in the contract: strings as they
// are, other values as JSON, unset as "", and list elements selected by a field.
func TestSettings(t *testing.T) {
	env := func() *Environment {
		return &Environment{Environment: envv1alpha1.Environment{Region: "RegionOne", Magnum: &envv1alpha1.Magnum{
			FloatingIPEnabled: ptrTo(false), Labels: map[string]string{"b": "2", "a": "1"},
			Templates: []envv1alpha1.MagnumTemplate{{KubernetesVersion: "1.33", ID: "t33"}, {KubernetesVersion: "1.34", ID: "t34"}}}}}
	}
	cases := map[string]struct {
		path, want, set string
		after           *Environment
	}{
		"String": {path: "data.region", want: "RegionOne", set: "RegionTwo",
			after: func() *Environment { e := env(); e.Region = "RegionTwo"; return e }()},
		"Bool": {path: "data.magnum.floatingIPEnabled", want: "false", set: "true",
			after: func() *Environment { e := env(); e.Magnum.FloatingIPEnabled = ptrTo(true); return e }()},
		"Map": {path: "data.magnum.labels", want: `{"a":"1","b":"2"}`, set: "",
			after: func() *Environment { e := env(); e.Magnum.Labels = nil; return e }()},
		"UnsetThroughANilStruct": {path: "data.gardener.adminKubeconfig.providerConfigName", want: "", set: "pc",
			after: func() *Environment {
				e := env()
				e.Gardener = &envv1alpha1.Gardener{AdminKubeconfig: &envv1alpha1.GardenerAdminKubeconfig{ProviderConfigName: "pc"}}
				return e
			}()},
		"ListElement": {path: "data.magnum.templates[kubernetesVersion=1.34]", want: `{"kubernetesVersion":"1.34","id":"t34"}`,
			set:   `{"kubernetesVersion":"1.34","id":"old"}`,
			after: func() *Environment { e := env(); e.Magnum.Templates[1].ID = "old"; return e }()},
		"MissingListElement": {path: "data.magnum.templates[kubernetesVersion=1.32]", want: "", set: `{"kubernetesVersion":"1.32","id":"t32"}`,
			after: func() *Environment {
				e := env()
				e.Magnum.Templates = append(e.Magnum.Templates, envv1alpha1.MagnumTemplate{KubernetesVersion: "1.32", ID: "t32"})
				return e
			}()},
		"RemovedListElement": {path: "data.magnum.templates[kubernetesVersion=1.33]", want: `{"kubernetesVersion":"1.33","id":"t33"}`, set: "",
			after: func() *Environment { e := env(); e.Magnum.Templates = e.Magnum.Templates[1:]; return e }()},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			e := env()
			got, err := getSetting(e, tc.path)
			if err != nil || got != tc.want {
				t.Errorf("get = %q, %v; want %q", got, err, tc.want)
			}
			if diff := cmp.Diff(env(), e); diff != "" {
				t.Errorf("reading changed the environment: %s", diff)
			}
			if err := setSetting(e, tc.path, tc.set); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.after, e); diff != "" {
				t.Errorf("after set: -want, +got:\n%s", diff)
			}
		})
	}
	for _, bad := range []string{"region", "data.nothing", "data.region.more", "data.magnum.labels[a=b]", "data.magnum.templates[nothing=1]"} {
		if _, err := getSetting(env(), bad); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
	if err := setSetting(env(), "data.magnum.floatingIPEnabled", "maybe"); err == nil {
		t.Error("a value that is not the setting's type is taken")
	}
}
