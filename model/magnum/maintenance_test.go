package magnum

import "testing"

// TestTemplatePatch: only a template of the same minor and network driver with a newer
// kubeTag is a patch update a cluster takes on its own in its window; anything else the
// environment names is kept until adopted.
func TestTemplatePatch(t *testing.T) {
	tpl := func(minor, tag, driver string) string {
		return `{"kubernetesVersion":"` + minor + `","id":"x","kubeTag":"` + tag + `","networkDriver":"` + driver + `"}`
	}
	cases := map[string]struct {
		was, now string
		want     bool
	}{
		"ANewerPatch":          {was: tpl("1.34", "v1.34.3", "calico"), now: tpl("1.34", "v1.34.5", "calico"), want: true},
		"TheSamePatch":         {was: tpl("1.34", "v1.34.3", "calico"), now: tpl("1.34", "v1.34.3", "calico")},
		"AnOlderPatch":         {was: tpl("1.34", "v1.34.5", "calico"), now: tpl("1.34", "v1.34.3", "calico")},
		"AnotherNetworkDriver": {was: tpl("1.34", "v1.34.3", "calico"), now: tpl("1.34", "v1.34.5", "cilium")},
		"NoKubeTag":            {was: tpl("1.34", "", "calico"), now: tpl("1.34", "v1.34.5", "calico")},
		"NotATemplate":         {was: "nonsense", now: tpl("1.34", "v1.34.5", "calico")},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if _, _, got := templatePatch(tc.was, tc.now); got != tc.want {
				t.Errorf("templatePatch = %v, want %v", got, tc.want)
			}
		})
	}
}
