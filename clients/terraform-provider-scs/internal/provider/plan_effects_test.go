package provider

import (
	"maps"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/terraform-plugin-framework/diag"
)

// TestPlanEffects: tofu plan says what an update does on the cluster's backend: rolling
// changes and changes not honoured warn at the attribute, a refused change of a set value
// fails the plan at the attribute.
func TestPlanEffects(t *testing.T) {
	spec := func(machineType string, zones []any, labels map[string]any, version string) map[string]any {
		pool := map[string]any{"name": "default", "machineType": machineType, "count": 3}
		if zones != nil {
			pool["zones"] = zones
		}
		if labels != nil {
			pool["labels"] = labels
		}
		return map[string]any{"kubernetes": map[string]any{"version": version}, "nodePools": []any{pool}}
	}
	base := spec("SCS-4V-8", []any{"az1", "az2"}, nil, "1.34")
	withAccess := func(s map[string]any, access map[string]any) map[string]any {
		out := maps.Clone(s)
		out["access"] = access
		return out
	}
	type d struct{ Severity, Summary, Path string }
	for _, tc := range []struct {
		name    string
		backend string
		planned map[string]any
		want    []d
	}{
		{"a machine type rolls the pool's nodes on Gardener", "gardener", spec("SCS-8V-32", []any{"az1", "az2"}, nil, "1.34"), []d{
			{"Warning", "Rolling change: rolls the nodes of pool default: spec.nodePools[default].machineType SCS-4V-8 -> SCS-8V-32", "node_pools[0].machine_type"}}},
		{"a machine type is refused on Magnum", "magnum", spec("SCS-8V-32", []any{"az1", "az2"}, nil, "1.34"), []d{
			{"Error", "Refused by the backend: spec.nodePools[default].machineType cannot change", "node_pools[0].machine_type"}}},
		{"the next minor rolls the control plane on Cluster Stacks", "clusterstack", spec("SCS-4V-8", []any{"az1", "az2"}, nil, "1.35"), []d{
			{"Warning", "Rolling change: control plane rolls: spec.kubernetes.version 1.34 -> 1.35 (the topology controller rolls the KubeadmControlPlane's machines first, then every MachineDeployment's)", "kubernetes.version"}}},
		{"labels change in place on Gardener", "gardener", spec("SCS-4V-8", []any{"az1", "az2"}, map[string]any{"team": "a"}, "1.34"), nil},
		{"labels are not honoured on Magnum", "magnum", spec("SCS-4V-8", []any{"az1", "az2"}, map[string]any{"team": "a"}, "1.34"), []d{
			{"Warning", "Not honoured: spec.nodePools[default].labels.team", "node_pools[0].labels"}}},
		{"zones changed are refused", "gardener", spec("SCS-4V-8", []any{"az1"}, nil, "1.34"), []d{
			{"Error", "Refused by the backend: spec.nodePools[default].zones cannot change", "node_pools[0].zones"}}},
		{"an OIDC issuer rolls the control plane on Gardener", "gardener", withAccess(base, map[string]any{"oidc": map[string]any{"issuerURL": "https://login.example.com", "clientID": "kubectl"}}), []d{
			{"Warning", "Rolling change: control plane rolls: spec.access.oidc.clientID (unset) -> kubectl (Gardener rolls the kube-apiserver with the new authentication configuration)", "access.oidc.client_id"},
			{"Warning", "Rolling change: control plane rolls: spec.access.oidc.issuerURL (unset) -> https://login.example.com (Gardener rolls the kube-apiserver with the new authentication configuration)", "access.oidc.issuer_url"}}},
		{"source ranges are refused on Magnum", "magnum", withAccess(base, map[string]any{"allowedSourceRanges": []any{"203.0.113.0/24"}}), []d{
			{"Warning", "May be refused: spec.access.allowedSourceRanges", "access.allowed_source_ranges"}}},
		{"the backend not known yet says nothing", "", spec("SCS-8V-32", []any{"az1"}, nil, "1.34"), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []d
			for _, x := range planEffects(tc.backend, base, tc.planned) {
				p := ""
				if wp, ok := x.(diag.DiagnosticWithPath); ok {
					p = wp.Path().String()
				}
				got = append(got, d{x.Severity().String(), x.Summary(), p})
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("diagnostics (-want +got):\n%s", diff)
			}
		})
	}
}
