package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	dschema "github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// clusterDataSource reads one SCSCluster that this configuration does not manage.
type clusterDataSource struct{ c *client }

var _ datasource.DataSourceWithConfigure = &clusterDataSource{}

func newClusterDataSource() datasource.DataSource { return &clusterDataSource{} }

func (d *clusterDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_cluster"
}

func (d *clusterDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	attrs := dataSourceSpecAttributes()
	attrs["id"] = dschema.StringAttribute{Computed: true, Description: "namespace/name."}
	attrs["namespace"] = dschema.StringAttribute{Optional: true, Computed: true,
		Description: "Namespace of the SCSCluster. Omitted: the provider's namespace."}
	attrs["name"] = dschema.StringAttribute{Required: true, Description: "Name of the SCSCluster."}
	attrs["status"] = statusDataSourceAttribute()
	attrs["kubeconfig"] = dschema.StringAttribute{Computed: true, Sensitive: true,
		Description: "The cluster's admin kubeconfig from its connection Secret, where the cluster names one and the Secret holds it."}
	resp.Schema = dschema.Schema{
		Description: "One SCSCluster: its spec, status and kubeconfig.",
		Attributes:  attrs,
	}
}

func (d *clusterDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	c, err := configuredClient(req.ProviderData)
	if err != nil {
		resp.Diagnostics.AddError("Provider misconfigured", err.Error())
		return
	}
	d.c = c
}

func (d *clusterDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	if d.c == nil {
		resp.Diagnostics.AddError("Provider not configured", "The scs provider has no Kubernetes client.")
		return
	}
	ns := getString(ctx, req.Config, "namespace", &resp.Diagnostics)
	name := getString(ctx, req.Config, "name", &resp.Diagnostics).ValueString()
	if resp.Diagnostics.HasError() {
		return
	}
	namespace := ns.ValueString()
	if namespace == "" {
		namespace = d.c.namespace
	}
	w := what(namespace, name)
	obj, err := d.c.get(ctx, namespace, name)
	if err != nil {
		resp.Diagnostics.Append(apiErrorDiagnostics(err, "reading "+w, nil)...)
		return
	}
	if obj == nil {
		resp.Diagnostics.AddError("SCSCluster not found", w+" does not exist (or you may not read it).")
		return
	}
	spec, _, _ := unstructured.NestedMap(obj.Object, "spec")
	values, err := specFromJSON(spec)
	if err != nil {
		resp.Diagnostics.AddError("Unexpected SCSCluster", fmt.Sprintf("%s: %v", w, err))
		return
	}
	for n, v := range values {
		resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root(n), v)...)
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("namespace"), namespace)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("name"), name)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), clusterID(namespace, name))...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("status"), statusValue(obj))...)
	kubeconfig := types.StringNull()
	kc, ok, err := d.c.kubeconfig(ctx, obj)
	switch {
	case err != nil:
		resp.Diagnostics.AddWarning("Kubeconfig not read", fmt.Sprintf("%s: %v", w, err))
	case ok:
		kubeconfig = types.StringValue(kc)
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("kubeconfig"), kubeconfig)...)
}
