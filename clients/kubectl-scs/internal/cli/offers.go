package cli

import (
	"context"
	"fmt"
	"sort"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	envv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/environment/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/clients/kubectl-scs/internal/fields"
	"github.com/SovereignCloudStack/scs-kaas/model"
)

// offer is one environment as a team may see it: its name and catalog, nothing of the
// platform's settings or of who else it admits.
type offer struct {
	Name               string   `json:"name"`
	Default            bool     `json:"default,omitempty"`
	KubernetesVersions []string `json:"kubernetesVersions,omitempty"`
	MachineTypes       []string `json:"machineTypes,omitempty"`
	Zones              []string `json:"zones,omitempty"`
	// Source says where kubectl-scs learnt it: an EnvironmentConfig, or the status.offered
	// of a cluster in the namespace.
	Source string `json:"source"`
}

// offers is what a namespace may use, and what kubectl-scs could not read to find out.
type offers struct {
	Namespace    string
	Environments []offer
	// Clusters are the namespace's SCSClusters, for versions.
	Clusters []*unstructured.Unstructured
	// Notes say what was not readable, and so what the answer may miss.
	Notes []string
}

// collectOffers reads what a namespace may use from two sources, as far as the user may
// read them: the status.offered of the namespace's clusters (what the function last found
// in their environments), and the EnvironmentConfigs labelled
// kaas.scs.community/environment whose data.access admits the namespace, which are
// current but usually readable by platform teams only. Environments that do not admit the
// namespace are left out entirely, as the function leaves them out of its messages.
func collectOffers(ctx context.Context, c *Clients, namespace string) (*offers, error) {
	out := &offers{Namespace: namespace}
	byName := map[string]offer{}

	list, clusterErr := c.clusters(namespace).List(ctx, metav1.ListOptions{})
	if clusterErr == nil {
		sort.Slice(list.Items, func(i, j int) bool { return list.Items[i].GetName() < list.Items[j].GetName() })
		for i := range list.Items {
			obj := &list.Items[i]
			out.Clusters = append(out.Clusters, obj)
			env := str(obj, "status", "backend", "environment")
			if _, seen := byName[env]; env == "" || seen {
				continue
			}
			if _, found, _ := unstructured.NestedMap(obj.Object, "status", "offered"); !found {
				continue
			}
			byName[env] = offer{Name: env, Source: "status.offered of SCSCluster " + obj.GetName(),
				KubernetesVersions: fields.Strings(obj, "status", "offered", "kubernetesVersions"),
				MachineTypes:       fields.Strings(obj, "status", "offered", "machineTypes"),
				Zones:              fields.Strings(obj, "status", "offered", "zones")}
		}
	} else {
		out.Notes = append(out.Notes, fmt.Sprintf("the SCSClusters of namespace %s are not readable: %s", namespace, reasonOf(clusterErr)))
	}

	configs, configErr := c.Dynamic.Resource(envConfigGVR).List(ctx, metav1.ListOptions{LabelSelector: envv1alpha1.LabelEnvironment})
	switch {
	case configErr == nil:
		tenant, note := tenantOf(ctx, c, namespace, configs.Items)
		if note != "" {
			out.Notes = append(out.Notes, note)
		}
		sort.Slice(configs.Items, func(i, j int) bool { return configs.Items[i].GetName() < configs.Items[j].GetName() })
		fromConfigs := map[string]bool{}
		for i := range configs.Items {
			cfg := &configs.Items[i]
			name := cfg.GetLabels()[envv1alpha1.LabelEnvironment]
			if name == "" || fromConfigs[name] || !model.Admits(model.AccessOf(cfg), tenant) {
				continue
			}
			fromConfigs[name] = true
			byName[name] = offer{Name: name, Source: "EnvironmentConfig",
				Default:            cfg.GetLabels()[envv1alpha1.LabelDefault] == "true",
				KubernetesVersions: fields.Strings(cfg, "data", "catalog", "kubernetesVersions"),
				MachineTypes:       fields.Strings(cfg, "data", "catalog", "machineTypes"),
				Zones:              fields.Strings(cfg, "data", "catalog", "zones")}
		}
	case apierrors.IsForbidden(configErr) || apierrors.IsNotFound(configErr):
		out.Notes = append(out.Notes, fmt.Sprintf("EnvironmentConfigs are not readable (%s): shown is what the SCSClusters of namespace %s report in status.offered, so environments none of them uses are missing",
			reasonOf(configErr), namespace))
	default:
		out.Notes = append(out.Notes, fmt.Sprintf("EnvironmentConfigs are not readable: %v", configErr))
	}
	if clusterErr != nil && configErr != nil {
		return nil, fmt.Errorf("neither the SCSClusters of namespace %s nor EnvironmentConfigs are readable: %w", namespace, clusterErr)
	}
	for _, o := range byName {
		out.Environments = append(out.Environments, o)
	}
	sort.Slice(out.Environments, func(i, j int) bool { return out.Environments[i].Name < out.Environments[j].Name })
	return out, nil
}

// tenantOf is the namespace as the environments' access sees it: with its labels when an
// environment admits namespaces by label and the namespace is readable.
func tenantOf(ctx context.Context, c *Clients, namespace string, configs []unstructured.Unstructured) (model.Tenant, string) {
	tenant := model.Tenant{Namespace: namespace}
	bySelector := false
	for i := range configs {
		if a := model.AccessOf(&configs[i]); a != nil && a.NamespaceSelector != nil {
			bySelector = true
		}
	}
	if !bySelector {
		return tenant, ""
	}
	ns, err := c.Dynamic.Resource(namespaceGVR).Get(ctx, namespace, metav1.GetOptions{})
	if err != nil {
		return tenant, fmt.Sprintf("namespace %s is not readable (%s): environments that admit namespaces by label are left out", namespace, reasonOf(err))
	}
	tenant.Labels = ns.GetLabels()
	return tenant, ""
}
