package provider

// Planning scs_cluster: the namespace and id known before apply, and the API server's
// refusals shown by tofu plan rather than by tofu apply.

import (
	"context"
	"errors"
	"reflect"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// ModifyPlan fills what is known before apply (namespace, id), plans a new kubeconfig when
// the Secret it comes from changes, and asks the API server with a server-side dry run
// whether it would take the change: its CEL rules (one minor at a time, immutable fields)
// then fail tofu plan, at the attribute, instead of a later tofu apply.
func (r *clusterResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || r.c == nil {
		return // destroy, or no client yet
	}
	ns := getString(ctx, req.Plan, "namespace", &resp.Diagnostics)
	name := getString(ctx, req.Plan, "name", &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	if ns.IsUnknown() && req.Config.Raw.IsKnown() {
		var cfgNS types.String
		resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("namespace"), &cfgNS)...)
		if cfgNS.IsNull() {
			ns = types.StringValue(r.c.namespace)
			resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("namespace"), ns)...)
		}
	}
	if ns.IsUnknown() || name.IsUnknown() {
		return
	}
	if req.State.Raw.IsNull() {
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("id"), clusterID(ns.ValueString(), name.ValueString()))...)
	} else if rereadKubeconfig(ctx, req, &resp.Diagnostics) {
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("kubeconfig"), types.StringUnknown())...)
	}
	values, d := readSpecValues(ctx, req.Plan)
	resp.Diagnostics.Append(d...)
	if resp.Diagnostics.HasError() {
		return
	}
	spec, err := specToJSON(values)
	if err != nil {
		if !errors.Is(err, errUnknown) {
			resp.Diagnostics.AddError("Invalid configuration", err.Error())
		}
		return
	}
	if req.State.Raw.IsNull() {
		// A create. When the object exists already (a tainted one about to be replaced,
		// or one this configuration does not own) the dry run would be an update of it;
		// Create decides at apply time.
		if !r.c.dryRunOnPlan {
			return
		}
		if obj, err := r.c.get(ctx, ns.ValueString(), name.ValueString()); err != nil || obj != nil {
			return
		}
	} else {
		prior, d := readSpecValues(ctx, req.State)
		if d.HasError() {
			return
		}
		priorSpec, err := specToJSON(prior)
		if err == nil && reflect.DeepEqual(priorSpec, spec) {
			return // nothing to apply
		}
		if err == nil {
			var backend types.String
			resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("status").AtName("backend_type"), &backend)...)
			resp.Diagnostics.Append(planEffects(backend.ValueString(), priorSpec, spec)...)
		}
	}
	if !r.c.dryRunOnPlan || resp.Diagnostics.HasError() {
		return
	}
	_, err = r.c.apply(ctx, newCluster(ns.ValueString(), name.ValueString(), spec), true)
	if err != nil && apierrors.IsInvalid(err) {
		resp.Diagnostics.Append(apiErrorDiagnostics(err, what(ns.ValueString(), name.ValueString())+" (server-side dry run)", poolNames(spec))...)
	}
	// Anything else (no permission to dry-run, the namespace created in this apply, the
	// API server unreachable) is for the apply to report.
}

// rereadKubeconfig says whether an update must read the kubeconfig again rather than keep
// the one in the state (UseStateForUnknown planned that): when the update names another
// connection Secret, or the state has none yet (a create that timed out before the Secret
// was written, then untainted). Only for a planned update: a plan with nothing to do stays
// empty, even for a cluster that never gets a kubeconfig.
func rereadKubeconfig(ctx context.Context, req resource.ModifyPlanRequest, diags *diag.Diagnostics) bool {
	if req.Plan.Raw.Equal(req.State.Raw) {
		return false
	}
	var prior types.String
	diags.Append(req.State.GetAttribute(ctx, path.Root("kubeconfig"), &prior)...)
	var priorRef, plannedRef types.Object
	p := path.Root("write_connection_secret_to_ref")
	diags.Append(req.State.GetAttribute(ctx, p, &priorRef)...)
	diags.Append(req.Plan.GetAttribute(ctx, p, &plannedRef)...)
	return !priorRef.Equal(plannedRef) || (!plannedRef.IsNull() && prior.IsNull())
}
