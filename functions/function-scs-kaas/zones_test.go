package main

import (
	"fmt"
	"slices"
	"testing"

	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
	"github.com/google/go-cmp/cmp"
)

// TestSmallestClusterOnEveryExampleEnvironment: a pool that names no zones and has fewer
// nodes than the environment has zones runs in the first zones of the catalog, as many as it
// has nodes, on every example environment and so every backend. The smallest request a
// newcomer writes ({machineType, count: 1}) and the SCS compliance plugin's example
// configuration (nodes: 1 and nodes: 2) are rendered, not refused, and the zones the pool
// was given are recorded in status.defaulted, where they stay for the pool's life.
func TestSmallestClusterOnEveryExampleEnvironment(t *testing.T) {
	xrOf := map[string]string{"gardener": exampleXR, "clusterstack": exampleCAPIXR, "magnum": exampleMagnumXR}
	envs := readDir(t, exampleEnvironments)
	for _, env := range envs {
		name := env["metadata"].(map[string]any)["name"].(string)
		data := env["data"].(map[string]any)
		backend := data["backend"].(string)
		catalog := data["catalog"].(map[string]any)
		var offered []string
		for _, z := range catalog["zones"].([]any) {
			offered = append(offered, z.(string))
		}
		machineType := "SCS-4V-8" // an environment without a machine type catalog takes any
		if types, ok := catalog["machineTypes"].([]any); ok {
			machineType = types[0].(string)
		}
		for _, count := range []int{1, 2} {
			t.Run(fmt.Sprintf("%s/count-%d", name, count), func(t *testing.T) {
				xr := readObject(t, xrOf[backend])
				spec := xr["spec"].(map[string]any)
				spec["environment"] = name
				spec["purpose"] = "development"
				spec["nodePools"] = []any{map[string]any{"name": "default", "machineType": machineType, "count": count}}
				req := requestFor(t, xr, envs)
				if backend == "clusterstack" {
					req = withRequired(t, withRequired(t, req, "clusterstack-releases", readObjects(t, exampleCAPIReleases)), "clusterstack-kubeconfig", nil)
				}
				rsp, _ := runNew(t, req)
				for _, r := range rsp.GetResults() {
					if r.GetSeverity() == fnv1.Severity_SEVERITY_FATAL {
						t.Fatalf("the smallest cluster is refused: %s", r.GetMessage())
					}
				}
				want := offered[:min(count, len(offered))]
				status := rsp.GetDesired().GetComposite().GetResource().GetFields()["status"].GetStructValue().AsMap()
				recorded := status["defaulted"].(map[string]any)["nodePools"].([]any)[0].(map[string]any)["zones"]
				if diff := cmp.Diff(toAny(want), recorded); diff != "" {
					t.Errorf("status.defaulted.nodePools[0].zones: -want, +got:\n%s", diff)
				}
				var placed []string
				for _, r := range rsp.GetDesired().GetResources() {
					placed = append(placed, zonesIn(r.GetResource().AsMap())...)
				}
				slices.Sort(placed)
				if diff := cmp.Diff(want, slices.Compact(placed)); diff != "" {
					t.Errorf("zones the composed resources place nodes in: -want, +got:\n%s", diff)
				}
			})
		}
	}
}

// zonesIn collects the zones a composed resource places nodes in, whatever the backend
// calls them: a Shoot worker's zones, a MachineDeployment topology's failureDomain, a
// Magnum node group's availability_zone label.
func zonesIn(v any) []string {
	var out []string
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			switch k {
			case "zones":
				if l, ok := e.([]any); ok {
					for _, z := range l {
						out = append(out, fmt.Sprint(z))
					}
					continue
				}
			case "failureDomain", "availability_zone":
				if s, ok := e.(string); ok {
					out = append(out, s)
					continue
				}
			}
			out = append(out, zonesIn(e)...)
		}
	case []any:
		for _, e := range v {
			out = append(out, zonesIn(e)...)
		}
	}
	return out
}

func toAny(s []string) any {
	l := make([]any, len(s))
	for i, e := range s {
		l[i] = e
	}
	return l
}
