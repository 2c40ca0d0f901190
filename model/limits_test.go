package model

import (
	"os"
	"testing"

	"sigs.k8s.io/yaml"
)

// TestLimitsMatchTheXRD ties the model's limits to the schema the API server enforces, so
// that what the API server admits the model does not refuse, and the other way round.
func TestLimitsMatchTheXRD(t *testing.T) {
	raw, err := os.ReadFile("../apis/xrd/legacy/xscsclusters.kaas.scs.community.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var xrd map[string]any
	if err := yaml.Unmarshal(raw, &xrd); err != nil {
		t.Fatal(err)
	}
	at := func(path ...string) map[string]any {
		v := any(xrd["spec"].(map[string]any)["versions"].([]any)[0].(map[string]any)["schema"].(map[string]any)["openAPIV3Schema"])
		for _, p := range path {
			m, ok := v.(map[string]any)
			if !ok {
				t.Fatalf("the XRD has no %v", path)
			}
			if p == "[]" {
				v = m["items"]
			} else {
				v = m["properties"].(map[string]any)[p]
			}
		}
		return v.(map[string]any)
	}
	pool := []string{"spec", "nodePools", "[]"}
	for _, c := range []struct {
		path    []string
		keyword string
		want    int
	}{
		{[]string{"spec", "nodePools"}, "maxItems", MaxNodePools},
		{append(pool, "name"), "maxLength", MaxNodePoolName},
		{append(pool, "count"), "maximum", MaxPoolSize},
		{append(pool, "autoscaling", "min"), "maximum", MaxPoolSize},
		{append(pool, "autoscaling", "max"), "maximum", MaxPoolSize},
		{append(pool, "zones"), "maxItems", MaxZonesPerPool},
		{append(pool, "labels"), "maxProperties", MaxLabelsPerPool},
		{append(pool, "taints"), "maxItems", MaxTaintsPerPool},
		{append(pool, "rootDiskGiB"), "minimum", MinRootDiskGiB},
		{append(pool, "rootDiskGiB"), "maximum", MaxRootDiskGiB},
	} {
		got, ok := at(c.path...)[c.keyword].(float64)
		if !ok || int(got) != c.want {
			t.Errorf("XRD %v %s = %v, the model's limit is %d", c.path, c.keyword, at(c.path...)[c.keyword], c.want)
		}
	}
}
