package provider

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func envConfig(name string, isDefault bool, access map[string]any, backend string, versions ...any) unstructured.Unstructured {
	labels := map[string]any{labelEnvironment: name}
	if isDefault {
		labels[labelDefault] = "true"
	}
	data := map[string]any{
		"backend": backend, "region": "RegionOne",
		"catalog": map[string]any{"kubernetesVersions": versions, "zones": []any{"az1", "az2"}},
	}
	if access != nil {
		data["access"] = access
	}
	return unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiextensions.crossplane.io/v1beta1", "kind": "EnvironmentConfig",
		"metadata": map[string]any{"name": "ec-" + name, "labels": labels},
		"data":     data,
	}}
}

func clusterWithOffered(name, env string) unstructured.Unstructured {
	return unstructured.Unstructured{Object: map[string]any{
		"metadata": map[string]any{"name": name, "namespace": "team1"},
		"status": map[string]any{
			"backend": map[string]any{"type": "gardener", "environment": env, "region": "RegionOne"},
			"offered": map[string]any{"kubernetesVersions": []any{"1.34", "1.35"}, "machineTypes": []any{"SCS-4V-8"}, "zones": []any{"az1"}},
		},
	}}
}

// TestEnvironmentsFor: the environments a namespace may use come from the EnvironmentConfigs
// that admit it, by name or by label; where those cannot be read, from what its clusters
// report.
func TestEnvironmentsFor(t *testing.T) {
	byName := map[string]any{"namespaces": []any{"team1", "team2"}}
	byLabel := map[string]any{"namespaceSelector": map[string]any{"matchLabels": map[string]any{"lab": "true"}}}
	gardener := environment{Name: "gardener-regionone", Backend: "gardener", Region: "RegionOne", Default: true,
		KubernetesVersions: []string{"1.33", "1.34"}, MachineTypes: []string{}, Zones: []string{"az1", "az2"}, Source: sourceEnvironmentConfig}
	lab := environment{Name: "lab", Backend: "clusterstack", Region: "RegionOne",
		KubernetesVersions: []string{"1.34"}, MachineTypes: []string{}, Zones: []string{"az1", "az2"}, Source: sourceEnvironmentConfig}
	configs := []unstructured.Unstructured{
		envConfig("gardener-regionone", true, byName, "gardener", "1.33", "1.34"),
		envConfig("lab", false, byLabel, "clusterstack", "1.34"),
		envConfig("closed", false, nil, "magnum", "1.34"), // no access: nobody
		envConfig("empty-selector", false, map[string]any{"namespaceSelector": map[string]any{}}, "magnum", "1.34"),
	}
	for _, tc := range []struct {
		name         string
		in           environmentInputs
		want         []environment
		wantWarnings []string
	}{
		{
			name: "admitted by name",
			in:   environmentInputs{Namespace: "team1", NamespaceRead: true, Configs: configs, ConfigsRead: true},
			want: []environment{gardener},
		},
		{
			name: "admitted by name and by label",
			in: environmentInputs{Namespace: "team1", NamespaceRead: true, NamespaceLabels: map[string]string{"lab": "true"},
				Configs: configs, ConfigsRead: true},
			want: []environment{gardener, lab},
		},
		{
			name: "outsider",
			in:   environmentInputs{Namespace: "outsider", NamespaceRead: true, Configs: configs, ConfigsRead: true},
			want: []environment{},
		},
		{
			name: "namespace labels unreadable",
			in:   environmentInputs{Namespace: "team1", Configs: configs, ConfigsRead: true},
			want: []environment{gardener},
			wantWarnings: []string{
				"environment lab admits namespaces by label, and the Namespace team1 cannot be read to tell whether it is one of them",
			},
		},
		{
			name: "EnvironmentConfigs readable: clusters' status.offered not used",
			in: environmentInputs{Namespace: "team1", NamespaceRead: true, Configs: configs, ConfigsRead: true,
				Clusters: []unstructured.Unstructured{clusterWithOffered("old", "retired")}},
			want: []environment{gardener},
		},
		{
			name: "tenant without EnvironmentConfigs: from status.offered, first cluster by name",
			in: environmentInputs{Namespace: "team1", Clusters: []unstructured.Unstructured{
				clusterWithOffered("b", "gardener-regionone"), clusterWithOffered("a", "gardener-regionone"),
				{Object: map[string]any{"metadata": map[string]any{"name": "new"}}}, // not rendered yet
			}},
			want: []environment{{Name: "gardener-regionone", Backend: "gardener", Region: "RegionOne",
				KubernetesVersions: []string{"1.34", "1.35"}, MachineTypes: []string{"SCS-4V-8"}, Zones: []string{"az1"}, Source: sourceOffered}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, warnings := environmentsFor(tc.in)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("environments (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantWarnings, warnings); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
		})
	}
}
