package controlplane

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TestExampleEnvironmentsFitTheLandscape checks that every example Gardener environment
// offers only what the local garden's CloudProfile has: otherwise a claim the environment
// accepts would be refused by gardener-apiserver's admission in the e2e and in make demo.
// Each offered minor needs a supported patch (Gardener picks it for a Shoot that names only
// the minor); machine types and zones must be in the profile, in the environment's region.
func TestExampleEnvironmentsFitTheLandscape(t *testing.T) {
	root, err := FindRepoRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	objs, err := landscape()
	if err != nil {
		t.Fatal(err)
	}
	var profile *unstructured.Unstructured
	for _, o := range objs {
		if o.GetKind() == "CloudProfile" {
			profile = o
		}
	}
	if profile == nil {
		t.Fatal("the landscape has no CloudProfile")
	}
	supportedMinors := map[string]bool{}
	versions, _, _ := unstructured.NestedSlice(profile.Object, "spec", "kubernetes", "versions")
	for _, v := range versions {
		m := v.(map[string]any)
		if m["classification"] == "supported" {
			parts := strings.Split(m["version"].(string), ".")
			supportedMinors[parts[0]+"."+parts[1]] = true
		}
	}
	var machineTypes []string
	types, _, _ := unstructured.NestedSlice(profile.Object, "spec", "machineTypes")
	for _, mt := range types {
		machineTypes = append(machineTypes, mt.(map[string]any)["name"].(string))
	}
	zonesOf := map[string][]string{}
	regions, _, _ := unstructured.NestedSlice(profile.Object, "spec", "regions")
	for _, r := range regions {
		rm := r.(map[string]any)
		zones, _, _ := unstructured.NestedSlice(rm, "zones")
		for _, z := range zones {
			zonesOf[rm["name"].(string)] = append(zonesOf[rm["name"].(string)], z.(map[string]any)["name"].(string))
		}
	}

	files, err := filepath.Glob(filepath.Join(root, "examples", "environments", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, f := range files {
		envs, err := ReadManifests(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range envs {
			if backend, _, _ := unstructured.NestedString(e.Object, "data", "backend"); backend != "gardener" {
				continue
			}
			checked++
			name := filepath.Base(f)
			if p, _, _ := unstructured.NestedString(e.Object, "data", "gardener", "cloudProfile"); p != profile.GetName() {
				t.Errorf("%s: cloudProfile %q, the landscape has %q", name, p, profile.GetName())
			}
			if b, _, _ := unstructured.NestedString(e.Object, "data", "gardener", "credentialsBindingName"); b != GardenCredentials {
				t.Errorf("%s: credentialsBindingName %q, projects have %q", name, b, GardenCredentials)
			}
			region, _, _ := unstructured.NestedString(e.Object, "data", "region")
			zones, ok := zonesOf[region]
			if !ok {
				t.Errorf("%s: region %q is not in the CloudProfile", name, region)
			}
			offered, _, _ := unstructured.NestedStringSlice(e.Object, "data", "catalog", "kubernetesVersions")
			for _, v := range offered {
				if !supportedMinors[v] {
					t.Errorf("%s: Kubernetes %s is offered, the CloudProfile has no supported %s patch", name, v, v)
				}
			}
			offered, _, _ = unstructured.NestedStringSlice(e.Object, "data", "catalog", "machineTypes")
			for _, mt := range offered {
				if !slices.Contains(machineTypes, mt) {
					t.Errorf("%s: machine type %s is offered, the CloudProfile lacks it", name, mt)
				}
			}
			offered, _, _ = unstructured.NestedStringSlice(e.Object, "data", "catalog", "zones")
			for _, z := range offered {
				if !slices.Contains(zones, z) {
					t.Errorf("%s: zone %s is offered, region %s of the CloudProfile lacks it", name, z, region)
				}
			}
		}
	}
	if checked == 0 {
		t.Fatal("no Gardener environment among examples/environments")
	}
}
