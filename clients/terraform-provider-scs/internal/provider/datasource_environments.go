package provider

import (
	"context"
	"fmt"
	"slices"
	"sort"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	dschema "github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
)

// Sources of an environment's description.
const (
	sourceEnvironmentConfig = "EnvironmentConfig"
	sourceOffered           = "status.offered"
)

// environmentsDataSource lists what a namespace may build clusters with: the environments
// whose EnvironmentConfig admits it (data.access), where the user may read
// EnvironmentConfigs, and otherwise what the namespace's existing clusters report their
// environment offers (status.offered): tenants usually cannot read EnvironmentConfigs.
type environmentsDataSource struct{ c *client }

var _ datasource.DataSourceWithConfigure = &environmentsDataSource{}

func newEnvironmentsDataSource() datasource.DataSource { return &environmentsDataSource{} }

var environmentAttrTypes = map[string]attr.Type{
	"name":                types.StringType,
	"backend":             types.StringType,
	"region":              types.StringType,
	"default":             types.BoolType,
	"kubernetes_versions": types.ListType{ElemType: types.StringType},
	"machine_types":       types.ListType{ElemType: types.StringType},
	"zones":               types.ListType{ElemType: types.StringType},
	"source":              types.StringType,
}

func (d *environmentsDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_environments"
}

func (d *environmentsDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	list := func(desc string) dschema.Attribute {
		return dschema.ListAttribute{Computed: true, ElementType: types.StringType, Description: desc}
	}
	resp.Schema = dschema.Schema{
		Description: "The environments a namespace may build clusters in, and what each offers. Read from the " +
			"EnvironmentConfigs that admit the namespace (data.access) where you may read them, else from what the " +
			"namespace's clusters report (status.offered).",
		Attributes: map[string]dschema.Attribute{
			"id": dschema.StringAttribute{Computed: true, Description: "The namespace."},
			"namespace": dschema.StringAttribute{Optional: true, Computed: true,
				Description: "The team's namespace. Omitted: the provider's namespace."},
			"environments": dschema.ListNestedAttribute{Computed: true, Description: "The environments, by name.",
				NestedObject: dschema.NestedAttributeObject{Attributes: map[string]dschema.Attribute{
					"name":                dschema.StringAttribute{Computed: true, Description: "The name to use in environment."},
					"backend":             dschema.StringAttribute{Computed: true, Description: "gardener, clusterstack or magnum."},
					"region":              dschema.StringAttribute{Computed: true, Description: "The cloud region."},
					"default":             dschema.BoolAttribute{Computed: true, Description: "Clusters that name no environment get this one (known from EnvironmentConfigs only)."},
					"kubernetes_versions": list("The Kubernetes minors offered."),
					"machine_types":       list("The machine types offered; empty: any the backend accepts."),
					"zones":               list("The failure zones offered."),
					"source":              dschema.StringAttribute{Computed: true, Description: "EnvironmentConfig or status.offered: where this came from."},
				}}},
		},
	}
}

func (d *environmentsDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	c, err := configuredClient(req.ProviderData)
	if err != nil {
		resp.Diagnostics.AddError("Provider misconfigured", err.Error())
		return
	}
	d.c = c
}

func (d *environmentsDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	if d.c == nil {
		resp.Diagnostics.AddError("Provider not configured", "The scs provider has no Kubernetes client.")
		return
	}
	namespace := getString(ctx, req.Config, "namespace", &resp.Diagnostics).ValueString()
	if resp.Diagnostics.HasError() {
		return
	}
	if namespace == "" {
		namespace = d.c.namespace
	}
	in := environmentInputs{Namespace: namespace}
	var failed []string
	if l, err := d.c.dyn.Resource(envConfigGVR).List(ctx, metav1.ListOptions{LabelSelector: labelEnvironment}); err == nil {
		in.Configs, in.ConfigsRead = l.Items, true
	} else {
		failed = append(failed, "EnvironmentConfigs: "+err.Error())
	}
	if ns, err := d.c.dyn.Resource(namespaceGVR).Get(ctx, namespace, metav1.GetOptions{}); err == nil {
		in.NamespaceLabels, in.NamespaceRead = ns.GetLabels(), true
	}
	if l, err := d.c.clusters(namespace).List(ctx, metav1.ListOptions{}); err == nil {
		in.Clusters = l.Items
	} else {
		failed = append(failed, "SCSClusters in "+namespace+": "+err.Error())
	}
	if len(failed) == 2 {
		resp.Diagnostics.AddError("Cannot read environments", fmt.Sprintf("Neither source is readable: %v", failed))
		return
	}
	envs, warnings := environmentsFor(in)
	for _, w := range warnings {
		resp.Diagnostics.AddWarning("Environment not listed", w)
	}
	var elems []attr.Value
	for _, e := range envs {
		strs := func(s []string) types.List {
			v := make([]attr.Value, 0, len(s))
			for _, x := range s {
				v = append(v, types.StringValue(x))
			}
			l, _ := types.ListValue(types.StringType, v)
			return l
		}
		o, diags := types.ObjectValue(environmentAttrTypes, map[string]attr.Value{
			"name": types.StringValue(e.Name), "backend": types.StringValue(e.Backend), "region": types.StringValue(e.Region),
			"default": types.BoolValue(e.Default), "kubernetes_versions": strs(e.KubernetesVersions),
			"machine_types": strs(e.MachineTypes), "zones": strs(e.Zones), "source": types.StringValue(e.Source),
		})
		resp.Diagnostics.Append(diags...)
		elems = append(elems, o)
	}
	list, diags := types.ListValue(types.ObjectType{AttrTypes: environmentAttrTypes}, append([]attr.Value{}, elems...))
	resp.Diagnostics.Append(diags...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("namespace"), namespace)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), namespace)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("environments"), list)...)
}

// environmentInputs is what the data source read.
type environmentInputs struct {
	Namespace string
	// NamespaceLabels, when NamespaceRead, for namespaceSelectors.
	NamespaceLabels map[string]string
	NamespaceRead   bool
	// Configs are the EnvironmentConfigs labelled kaas.scs.community/environment, when
	// ConfigsRead (tenants usually may not).
	Configs     []unstructured.Unstructured
	ConfigsRead bool
	// Clusters are the SCSClusters of the namespace.
	Clusters []unstructured.Unstructured
}

// environment is one entry of the data source.
type environment struct {
	Name, Backend, Region                   string
	Default                                 bool
	KubernetesVersions, MachineTypes, Zones []string
	Source                                  string
}

// environmentsFor lists the environments that admit the namespace, sorted by name, with
// warnings for those whose admission it cannot decide.
func environmentsFor(in environmentInputs) ([]environment, []string) {
	byName := map[string]environment{}
	var warnings []string
	for _, c := range in.Configs {
		name := c.GetLabels()[labelEnvironment]
		if name == "" {
			continue
		}
		admitted, known := admits(c, in.Namespace, in.NamespaceLabels, in.NamespaceRead)
		if !known {
			warnings = append(warnings, fmt.Sprintf(
				"environment %s admits namespaces by label, and the Namespace %s cannot be read to tell whether it is one of them", name, in.Namespace))
			continue
		}
		if !admitted {
			continue
		}
		s := func(p ...string) string {
			v, _, _ := unstructured.NestedString(c.Object, append([]string{"data"}, p...)...)
			return v
		}
		l := func(p ...string) []string {
			v, _, _ := unstructured.NestedStringSlice(c.Object, append([]string{"data", "catalog"}, p...)...)
			return nonNil(v)
		}
		byName[name] = environment{
			Name: name, Backend: s("backend"), Region: s("region"),
			Default:            c.GetLabels()[labelDefault] == "true",
			KubernetesVersions: l("kubernetesVersions"), MachineTypes: l("machineTypes"), Zones: l("zones"),
			Source: sourceEnvironmentConfig,
		}
	}
	clusters := slices.Clone(in.Clusters)
	sort.Slice(clusters, func(i, j int) bool { return clusters[i].GetName() < clusters[j].GetName() })
	for _, c := range clusters {
		name, _, _ := unstructured.NestedString(c.Object, "status", "backend", "environment")
		offered, ok, _ := unstructured.NestedMap(c.Object, "status", "offered")
		if name == "" || !ok {
			continue
		}
		if _, seen := byName[name]; seen {
			continue
		}
		if in.ConfigsRead {
			// The EnvironmentConfigs say it all; one that no longer admits the namespace
			// is kept by its clusters but not offered to new ones.
			continue
		}
		l := func(k string) []string {
			v, _, _ := unstructured.NestedStringSlice(offered, k)
			return nonNil(v)
		}
		s := func(p ...string) string {
			v, _, _ := unstructured.NestedString(c.Object, append([]string{"status", "backend"}, p...)...)
			return v
		}
		byName[name] = environment{
			Name: name, Backend: s("type"), Region: s("region"),
			KubernetesVersions: l("kubernetesVersions"), MachineTypes: l("machineTypes"), Zones: l("zones"),
			Source: sourceOffered,
		}
	}
	out := make([]environment, 0, len(byName))
	for _, e := range byName {
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, warnings
}

// admits says whether an EnvironmentConfig admits a namespace (docs/environments.md): by
// name in data.access.namespaces, or by labels with data.access.namespaceSelector (an empty
// selector admits nobody). known is false when a selector decides and the namespace's labels
// could not be read.
func admits(c unstructured.Unstructured, namespace string, nsLabels map[string]string, nsRead bool) (admitted, known bool) {
	names, _, _ := unstructured.NestedStringSlice(c.Object, "data", "access", "namespaces")
	if slices.Contains(names, namespace) {
		return true, true
	}
	raw, ok, _ := unstructured.NestedMap(c.Object, "data", "access", "namespaceSelector")
	if !ok || len(raw) == 0 {
		return false, true
	}
	var sel metav1.LabelSelector
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(raw, &sel); err != nil {
		return false, true
	}
	if len(sel.MatchLabels) == 0 && len(sel.MatchExpressions) == 0 {
		return false, true
	}
	s, err := metav1.LabelSelectorAsSelector(&sel)
	if err != nil {
		return false, true
	}
	if !nsRead {
		return false, false
	}
	return s.Matches(labels.Set(nsLabels)), true
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
