// Package provider is the Terraform / OpenTofu provider of the SCS cluster API: the
// resource scs_cluster, the data sources scs_cluster and scs_environments. It talks to the
// Kubernetes API server that serves SCSClusters (Crossplane's cluster) with client-go's
// dynamic client and works with both flavours of the API: legacy claims and Crossplane v2
// namespaced composites.
package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// New returns the provider; version is the provider's release.
func New(version string) func() provider.Provider {
	return func() provider.Provider { return &scsProvider{version: version} }
}

type scsProvider struct{ version string }

type providerModel struct {
	KubeconfigPath    types.String `tfsdk:"kubeconfig_path"`
	KubeconfigContext types.String `tfsdk:"kubeconfig_context"`
	Namespace         types.String `tfsdk:"namespace"`
	DryRunOnPlan      types.Bool   `tfsdk:"dry_run_on_plan"`
}

func (p *scsProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "scs"
	resp.Version = p.version
}

func (p *scsProvider) Schema(_ context.Context, _ provider.SchemaRequest, resp *provider.SchemaResponse) {
	resp.Schema = schema.Schema{
		Description: "Kubernetes clusters of Sovereign Cloud Stack KaaS providers through the SCS cluster API " +
			"(SCSCluster, kaas.scs.community/v1alpha1), on the Kubernetes API server that serves it.",
		Attributes: map[string]schema.Attribute{
			"kubeconfig_path": schema.StringAttribute{Optional: true,
				Description: "Path of the kubeconfig for the API server that serves SCSClusters. Omitted: KUBECONFIG (one or more paths), else ~/.kube/config."},
			"kubeconfig_context": schema.StringAttribute{Optional: true,
				Description: "Context of the kubeconfig to use. Omitted: its current context."},
			"namespace": schema.StringAttribute{Optional: true,
				Description: "Namespace of clusters that do not set one. Omitted: the context's namespace, else default."},
			"dry_run_on_plan": schema.BoolAttribute{Optional: true,
				Description: "Check creates and changes with a server-side dry run while planning, so that the API server's refusals show in plan (default true). Needs the same permissions as the apply; a plan without them skips the check."},
		},
	}
}

func (p *scsProvider) Configure(ctx context.Context, req provider.ConfigureRequest, resp *provider.ConfigureResponse) {
	var m providerModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if m.KubeconfigPath.IsUnknown() || m.KubeconfigContext.IsUnknown() || m.Namespace.IsUnknown() {
		// Known only after another resource is applied: resources wait for it.
		return
	}
	cfg, ns, err := loadKubeconfig(m.KubeconfigPath.ValueString(), m.KubeconfigContext.ValueString())
	if err != nil {
		resp.Diagnostics.AddError("Cannot load the kubeconfig", err.Error())
		return
	}
	cfg.UserAgent = "terraform-provider-scs/" + p.version
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		resp.Diagnostics.AddError("Cannot create the Kubernetes client", err.Error())
		return
	}
	if n := m.Namespace.ValueString(); n != "" {
		ns = n
	}
	c := &client{dyn: dyn, namespace: ns, dryRunOnPlan: m.DryRunOnPlan.IsNull() || m.DryRunOnPlan.ValueBool()}
	resp.ResourceData = c
	resp.DataSourceData = c
}

// loadKubeconfig loads a kubeconfig as kubectl does: path, else KUBECONFIG, else
// ~/.kube/config; context, else the current one. It returns the context's namespace
// ("default" when it names none).
func loadKubeconfig(path, context string) (*rest.Config, string, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	if path != "" {
		rules.ExplicitPath = path
	}
	overrides := &clientcmd.ConfigOverrides{CurrentContext: context}
	cc := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, overrides)
	cfg, err := cc.ClientConfig()
	if err != nil {
		return nil, "", err
	}
	ns, _, err := cc.Namespace()
	if err != nil {
		return nil, "", err
	}
	return cfg, ns, nil
}

func (p *scsProvider) Resources(context.Context) []func() resource.Resource {
	return []func() resource.Resource{newClusterResource}
}

func (p *scsProvider) DataSources(context.Context) []func() datasource.DataSource {
	return []func() datasource.DataSource{newClusterDataSource, newEnvironmentsDataSource}
}

// configuredClient takes the client from ProviderData (nil before Configure, and when the
// provider's configuration was not known yet).
func configuredClient(data any) (*client, error) {
	if data == nil {
		return nil, nil
	}
	c, ok := data.(*client)
	if !ok {
		return nil, fmt.Errorf("unexpected provider data %T", data)
	}
	return c, nil
}
