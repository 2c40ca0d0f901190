package provider

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	rschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Default timeouts: Gardener and Cluster API create a cluster in 10 to 30 minutes.
const (
	defaultCreateTimeout = 60 * time.Minute
	defaultUpdateTimeout = 60 * time.Minute
	defaultDeleteTimeout = 30 * time.Minute
)

type clusterResource struct{ c *client }

var (
	_ resource.ResourceWithConfigure   = &clusterResource{}
	_ resource.ResourceWithImportState = &clusterResource{}
	_ resource.ResourceWithModifyPlan  = &clusterResource{}
)

func newClusterResource() resource.Resource { return &clusterResource{} }

func (r *clusterResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_cluster"
}

func (r *clusterResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	attrs := resourceSpecAttributes()
	attrs["id"] = rschema.StringAttribute{Computed: true, Description: "namespace/name, also the import ID.",
		PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}}
	attrs["namespace"] = rschema.StringAttribute{Optional: true, Computed: true,
		Description:   "Namespace of the SCSCluster. Omitted: the provider's namespace. Changing it replaces the cluster.",
		PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown(), stringplanmodifier.RequiresReplace()}}
	attrs["name"] = rschema.StringAttribute{Required: true,
		Description:   "Name of the SCSCluster. Changing it replaces the cluster.",
		PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()}}
	attrs["wait_for_ready"] = rschema.BoolAttribute{Optional: true, Computed: true, Default: booldefault.StaticBool(true),
		Description: "Create and update wait until the cluster is Ready (true, the default) or only until the SCS cluster API accepted the spec (false)."}
	attrs["status"] = statusResourceAttribute()
	attrs["kubeconfig"] = rschema.StringAttribute{Computed: true, Sensitive: true,
		Description:   "The cluster's admin kubeconfig, from the Secret named in write_connection_secret_to_ref (null without one). Kept in the state: protect the state accordingly.",
		PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}}
	attrs["timeouts"] = timeouts.Attributes(ctx, timeouts.Opts{Create: true, Update: true, Delete: true})
	resp.Schema = rschema.Schema{
		Description: "A Kubernetes cluster of the SCS cluster API: an SCSCluster (kaas.scs.community/v1alpha1), " +
			"a legacy claim or a namespaced composite, whichever the API server serves. Changes are applied in place " +
			"with server-side apply (field manager " + FieldManager + ").",
		Attributes: attrs,
	}
}

func (r *clusterResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	c, err := configuredClient(req.ProviderData)
	if err != nil {
		resp.Diagnostics.AddError("Provider misconfigured", err.Error())
		return
	}
	r.c = c
}

func (r *clusterResource) client(diags *diag.Diagnostics) *client {
	if r.c == nil {
		diags.AddError("Provider not configured", "The scs provider has no Kubernetes client: its configuration was not known or failed to load.")
	}
	return r.c
}

// poolNames are the node pool names of a spec, in order.
func poolNames(spec map[string]any) []string {
	var out []string
	pools, _ := spec["nodePools"].([]any)
	for _, p := range pools {
		m, _ := p.(map[string]any)
		n, _ := m["name"].(string)
		out = append(out, n)
	}
	return out
}

func what(namespace, name string) string { return fmt.Sprintf("SCSCluster %s/%s", namespace, name) }

// until is what create and update wait for.
func until(waitForReady bool) (string, func(observation) bool) {
	if waitForReady {
		return "the cluster is Ready", observation.ready
	}
	return "the SCS cluster API accepted the spec (Rendered)", observation.rendered
}

func (r *clusterResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	c := r.client(&resp.Diagnostics)
	if c == nil {
		return
	}
	values, d := readSpecValues(ctx, req.Plan)
	resp.Diagnostics.Append(d...)
	ns := getString(ctx, req.Plan, "namespace", &resp.Diagnostics)
	name := getString(ctx, req.Plan, "name", &resp.Diagnostics).ValueString()
	var wait types.Bool
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("wait_for_ready"), &wait)...)
	var to timeouts.Value
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("timeouts"), &to)...)
	timeout, d := to.Create(ctx, defaultCreateTimeout)
	resp.Diagnostics.Append(d...)
	if resp.Diagnostics.HasError() {
		return
	}
	namespace := ns.ValueString()
	if ns.IsUnknown() || ns.IsNull() {
		namespace = c.namespace
	}
	w := what(namespace, name)
	spec, err := specToJSON(values)
	if err != nil {
		resp.Diagnostics.AddError("Invalid configuration", err.Error())
		return
	}
	existing, err := c.get(ctx, namespace, name)
	if err != nil {
		resp.Diagnostics.Append(apiErrorDiagnostics(err, "reading "+w, nil)...)
		return
	}
	if existing != nil {
		resp.Diagnostics.AddAttributeError(path.Root("name"), "SCSCluster already exists", fmt.Sprintf(
			"%s exists already and is not in this state. To manage it here, import it: tofu import <address> %s", w, clusterID(namespace, name)))
		return
	}
	if _, err := c.apply(ctx, newCluster(namespace, name, spec), false); err != nil {
		resp.Diagnostics.Append(apiErrorDiagnostics(err, "creating "+w, poolNames(spec))...)
		return
	}
	// The object exists from here on: whatever happens next, the state records it (a
	// failed create leaves it tainted), rather than losing track of a cluster. The state
	// starts null: it is the plan, completed with what only the API server knows.
	resp.State.Raw = req.Plan.Raw.Copy()
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("namespace"), namespace)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), clusterID(namespace, name))...)
	desc, done := until(wait.ValueBool())
	obj, werr := c.waitUntil(ctx, namespace, name, timeout, desc, done)
	r.finish(ctx, c, &resp.State, &resp.Diagnostics, obj, werr, types.StringUnknown(), w, poolNames(spec))
}

// finish fills the computed attributes after create or update from the last object read,
// and reports how the wait ended. kubeconfig is the planned value: kept when known.
func (r *clusterResource) finish(ctx context.Context, c *client, s *tfsdk.State, diags *diag.Diagnostics,
	obj *unstructured.Unstructured, werr error, kubeconfig types.String, w string, pools []string,
) {
	if obj == nil {
		obj = &unstructured.Unstructured{Object: map[string]any{}}
	}
	diags.Append(s.SetAttribute(ctx, path.Root("status"), statusValue(obj))...)
	if kubeconfig.IsUnknown() {
		kubeconfig = types.StringNull()
		if len(obj.Object) > 0 {
			kc, ok, err := c.kubeconfig(ctx, obj)
			switch {
			case err != nil:
				diags.AddWarning("Kubeconfig not read", fmt.Sprintf("%s: %v", w, err))
			case ok:
				kubeconfig = types.StringValue(kc)
			}
		}
	}
	diags.Append(s.SetAttribute(ctx, path.Root("kubeconfig"), kubeconfig)...)
	if werr == nil {
		return
	}
	var we *waitError
	switch {
	case errors.As(werr, &we) && we.Refused:
		diags.Append(refusalDiagnostics(we.Last.Rendered, w, pools)...)
	case errors.As(werr, &we) && we.Failed:
		diags.AddError("The backend gave up on the cluster", fmt.Sprintf("%s: %s", w, we.Last.summary()))
	case errors.As(werr, &we):
		diags.AddError("Timed out waiting for the cluster", fmt.Sprintf(
			"%s: %v\n\nThe cluster stays as it is. After a failed create it is tainted: the next apply replaces it, "+
				"unless you keep it with tofu untaint and apply again to go on waiting. Raise the wait with "+
				"timeouts = { create = \"90m\" }, or set wait_for_ready = false.", w, werr))
	default:
		diags.AddError("Waiting for the cluster failed", fmt.Sprintf("%s: %v", w, werr))
	}
}

func (r *clusterResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	c := r.client(&resp.Diagnostics)
	if c == nil {
		return
	}
	ns := getString(ctx, req.State, "namespace", &resp.Diagnostics)
	name := getString(ctx, req.State, "name", &resp.Diagnostics)
	prior, d := readSpecValues(ctx, req.State)
	resp.Diagnostics.Append(d...)
	if resp.Diagnostics.HasError() {
		return
	}
	namespace := ns.ValueString()
	if namespace == "" {
		namespace = c.namespace
	}
	w := what(namespace, name.ValueString())
	obj, err := c.get(ctx, namespace, name.ValueString())
	if err != nil {
		resp.Diagnostics.Append(apiErrorDiagnostics(err, "reading "+w, nil)...)
		return
	}
	if obj == nil {
		resp.State.RemoveResource(ctx)
		return
	}
	spec, _, _ := unstructured.NestedMap(obj.Object, "spec")
	values, err := specFromJSON(spec)
	if err != nil {
		resp.Diagnostics.AddError("Unexpected SCSCluster", fmt.Sprintf("%s: %v", w, err))
		return
	}
	for _, f := range specFields {
		values[f.Name] = f.keepEmpty(prior[f.Name], values[f.Name])
	}
	if values["purpose"].IsNull() {
		values["purpose"] = types.StringValue(defaultPurpose)
	}
	resp.Diagnostics.Append(setSpecValues(ctx, &resp.State, values)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("namespace"), namespace)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("name"), obj.GetName())...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), clusterID(namespace, obj.GetName()))...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("status"), statusValue(obj))...)

	var wait types.Bool
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("wait_for_ready"), &wait)...)
	if wait.IsNull() { // imported
		resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("wait_for_ready"), true)...)
	}

	kc, ok, err := c.kubeconfig(ctx, obj)
	switch {
	case err != nil:
		resp.Diagnostics.AddWarning("Kubeconfig not read", fmt.Sprintf("%s: %v; the state keeps the one read before", w, err))
	case ok:
		resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("kubeconfig"), kc)...)
	default:
		resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("kubeconfig"), types.StringNull())...)
	}

	// A spec the function refuses stays refused until it changes: say so on every plan.
	if o := observe(obj, c.composite(ctx, obj)); o.refused() {
		for _, e := range refusalDiagnostics(o.Rendered, w, poolNames(spec)) {
			if a, ok := e.(diag.DiagnosticWithPath); ok {
				resp.Diagnostics.AddAttributeWarning(a.Path(), e.Summary(), e.Detail())
				continue
			}
			resp.Diagnostics.AddWarning(e.Summary(), e.Detail())
		}
	}
}

func (r *clusterResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	c := r.client(&resp.Diagnostics)
	if c == nil {
		return
	}
	values, d := readSpecValues(ctx, req.Plan)
	resp.Diagnostics.Append(d...)
	namespace := getString(ctx, req.State, "namespace", &resp.Diagnostics).ValueString()
	name := getString(ctx, req.State, "name", &resp.Diagnostics).ValueString()
	kubeconfig := getString(ctx, req.Plan, "kubeconfig", &resp.Diagnostics)
	var wait types.Bool
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("wait_for_ready"), &wait)...)
	var to timeouts.Value
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("timeouts"), &to)...)
	timeout, d := to.Update(ctx, defaultUpdateTimeout)
	resp.Diagnostics.Append(d...)
	if resp.Diagnostics.HasError() {
		return
	}
	w := what(namespace, name)
	spec, err := specToJSON(values)
	if err != nil {
		resp.Diagnostics.AddError("Invalid configuration", err.Error())
		return
	}
	if _, err := c.apply(ctx, newCluster(namespace, name, spec), false); err != nil {
		resp.Diagnostics.Append(apiErrorDiagnostics(err, "updating "+w, poolNames(spec))...)
		resp.State.Raw = req.State.Raw.Copy() // nothing changed
		return
	}
	// The object holds the planned spec now, whether or not the cluster gets there: the
	// state says so (starting null, it is the plan completed by finish).
	resp.State.Raw = req.Plan.Raw.Copy()
	desc, done := until(wait.ValueBool())
	obj, werr := c.waitUntil(ctx, namespace, name, timeout, desc, done)
	r.finish(ctx, c, &resp.State, &resp.Diagnostics, obj, werr, kubeconfig, w, poolNames(spec))
}

func (r *clusterResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	c := r.client(&resp.Diagnostics)
	if c == nil {
		return
	}
	namespace := getString(ctx, req.State, "namespace", &resp.Diagnostics).ValueString()
	name := getString(ctx, req.State, "name", &resp.Diagnostics).ValueString()
	var to timeouts.Value
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("timeouts"), &to)...)
	timeout, d := to.Delete(ctx, defaultDeleteTimeout)
	resp.Diagnostics.Append(d...)
	if resp.Diagnostics.HasError() {
		return
	}
	w := what(namespace, name)
	err := c.clusters(namespace).Delete(ctx, name, metav1.DeleteOptions{})
	if apierrors.IsNotFound(err) {
		return
	}
	if err != nil {
		// The deletion protection policy says why and what to do; it is not worked around.
		resp.Diagnostics.Append(deletionDiagnostics(err, "deleting "+w)...)
		return
	}
	if err := c.waitGone(ctx, namespace, name, timeout); err != nil {
		resp.Diagnostics.AddError("Timed out waiting for the deletion", err.Error())
	}
}

func (r *clusterResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	namespace, name, err := parseImportID(req.ID)
	if err != nil {
		resp.Diagnostics.AddError("Invalid import ID", err.Error())
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("namespace"), namespace)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("name"), name)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), clusterID(namespace, name))...)
}
