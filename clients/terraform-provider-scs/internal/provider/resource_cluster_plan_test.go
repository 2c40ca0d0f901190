package provider

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	k8stesting "k8s.io/client-go/testing"
)

// TestClusterModifyPlan drives the plan step of scs_cluster (ModifyPlan) as tofu plan does:
// an update warns of what it does on the backend that runs the cluster (from the state's
// status.backend_type) and fails on what that backend refuses, before asking the API
// server; a change without an effect, and a create, plan without diagnostics. Issue 43:
// planEffects had a unit test, but dropping its call from ModifyPlan failed only the e2e.
func TestClusterModifyPlan(t *testing.T) {
	ctx := context.Background()
	s := clusterSchema(t).Schema
	nullState := tfsdk.State{Schema: s, Raw: tftypes.NewValue(s.Type().TerraformType(ctx), nil)}

	// set returns a copy of plan with the top-level attributes set.
	set := func(plan tfsdk.Plan, values map[string]attr.Value) tfsdk.Plan {
		t.Helper()
		out := tfsdk.Plan{Schema: plan.Schema, Raw: plan.Raw.Copy()}
		for name, v := range values {
			if d := out.SetAttribute(ctx, path.Root(name), v); d.HasError() {
				t.Fatalf("%s: %v", name, d)
			}
		}
		return out
	}
	// running is the state of team1/dev after a create on backend: one pool default of
	// one SCS-4V-8, Ready, with its kubeconfig.
	running := func(backend string) tfsdk.State {
		obj := &unstructured.Unstructured{Object: map[string]any{"status": map[string]any{
			"phase": "Ready", "backend": map[string]any{"type": backend, "name": "team1--dev"},
		}}}
		return tfsdk.State(set(plannedCluster(t, 1), map[string]attr.Value{
			"status": statusValue(obj), "kubeconfig": types.StringValue(testKubeconfig),
		}))
	}
	// planned is plannedCluster with pool default of count machineType nodes.
	planned := func(machineType string, count int64) tfsdk.Plan {
		t.Helper()
		plan := plannedCluster(t, count)
		at := path.Root("node_pools").AtListIndex(0).AtName("machine_type")
		if d := plan.SetAttribute(ctx, at, types.StringValue(machineType)); d.HasError() {
			t.Fatal(d)
		}
		return plan
	}
	// update is the plan tofu sends for an update of team1/dev: the configuration, the
	// kubeconfig kept from the state (UseStateForUnknown), the status unknown.
	update := func(machineType string, count int64) tfsdk.Plan {
		return set(planned(machineType, count), map[string]attr.Value{"kubeconfig": types.StringValue(testKubeconfig)})
	}

	type args struct {
		state tfsdk.State
		// config: zero for an update, where ModifyPlan does not read it (it does for a
		// namespace the plan does not know yet).
		config tfsdk.Config
		plan   tfsdk.Plan
	}
	type result struct {
		// Plan holds every value of the plan ModifyPlan leaves, unknown ones included.
		Plan        map[string]string
		Diagnostics []diagnostic
		// DryRun: the plan step asked the API server with a server-side dry run.
		DryRun bool
	}
	type want struct {
		plan        tfsdk.Plan
		diagnostics []diagnostic
		dryRun      bool
	}
	machineType := update("SCS-8V-32", 1)
	count := update("SCS-4V-8", 3)
	// tofu plans no change as the state itself.
	unchanged := tfsdk.Plan(running("gardener"))
	// tofu plans a create with what the provider computes unknown: ModifyPlan fills in the
	// namespace (the configuration names none) and the id. The machine type is the one
	// that rolls nodes in an update.
	created := planned("SCS-8V-32", 1)
	create := set(created, map[string]attr.Value{"id": types.StringUnknown(), "namespace": types.StringUnknown()})
	createConfig := tfsdk.Config(set(created, map[string]attr.Value{
		"id": types.StringNull(), "namespace": types.StringNull(), "status": types.ObjectNull(statusAttrTypes), "kubeconfig": types.StringNull(),
	}))

	cases := map[string]struct {
		reason string
		args   args
		want   want
	}{
		"MachineTypeRollsNodesOnGardener": {
			reason: "On Gardener a new machine type replaces every node of the pool: tofu plan warns at the attribute, and the dry run still runs.",
			args:   args{state: running("gardener"), plan: machineType},
			want: want{
				plan: machineType,
				diagnostics: []diagnostic{{
					Severity:  "Warning",
					Attribute: "node_pools[0].machine_type",
					Summary:   "Rolling change: rolls the nodes of pool default: spec.nodePools[default].machineType SCS-4V-8 -> SCS-8V-32",
					Detail:    "On Gardener (Shoot): `machine.type` changes the worker's hash: every node of the pool is replaced.",
				}},
				dryRun: true,
			},
		},
		"MachineTypeRefusedOnMagnum": {
			reason: "On Magnum the flavor is ForceNew: tofu plan fails at the attribute, without asking the API server.",
			args:   args{state: running("magnum"), plan: machineType},
			want: want{
				plan: machineType,
				diagnostics: []diagnostic{{
					Severity:  "Error",
					Attribute: "node_pools[0].machine_type",
					Summary:   "Refused by the backend: spec.nodePools[default].machineType cannot change",
					Detail:    "On Magnum (provider-openstack): `flavor` / `flavorId` are ForceNew. The cluster would keep running as it is, and the apply would fail.",
				}},
			},
		},
		"CountChangesInPlaceOnGardener": {
			reason: "A node count changes in place on Gardener: no diagnostics, the dry run runs.",
			args:   args{state: running("gardener"), plan: count},
			want:   want{plan: count, dryRun: true},
		},
		"NothingToApply": {
			reason: "A plan whose spec is the state's has no effects and asks nothing.",
			args:   args{state: running("gardener"), plan: unchanged},
			want:   want{plan: unchanged},
		},
		"Create": {
			reason: "A create has no state, so no backend and no effects (not even of the machine type that rolls nodes in an update): no diagnostics; the namespace and id are filled in and the dry run runs.",
			args:   args{state: nullState, config: createConfig, plan: create},
			want:   want{plan: created, dryRun: true},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := fakeCrossplane(t)
			r := &clusterResource{c: c}
			req := resource.ModifyPlanRequest{State: tc.args.state, Config: tc.args.config, Plan: tc.args.plan}
			resp := resource.ModifyPlanResponse{Plan: tc.args.plan}
			r.ModifyPlan(ctx, req, &resp)

			got := result{Plan: planValues(t, resp.Plan.Raw), Diagnostics: flatten(resp.Diagnostics), DryRun: dryRunSent(c)}
			want := result{Plan: planValues(t, tc.want.plan.Raw), Diagnostics: tc.want.diagnostics, DryRun: tc.want.dryRun}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s\nModifyPlan: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// planValues lists every value of a plan by path, the unknown and null ones included
// (unlike known), so that a value ModifyPlan fills in or leaves unknown shows.
func planValues(t *testing.T, raw tftypes.Value) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := tftypes.Walk(raw, func(p *tftypes.AttributePath, v tftypes.Value) (bool, error) {
		primitive := v.Type().Is(tftypes.String) || v.Type().Is(tftypes.Number) || v.Type().Is(tftypes.Bool)
		if primitive || !v.IsKnown() || v.IsNull() {
			out[p.String()] = v.String()
		}
		return true, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// dryRunSent says whether the client sent a server-side dry run of an SCSCluster.
func dryRunSent(c *client) bool {
	for _, a := range c.dyn.(*dynamicfake.FakeDynamicClient).Actions() {
		if p, ok := a.(k8stesting.PatchActionImpl); ok && p.GetResource().Resource == "scsclusters" && len(p.PatchOptions.DryRun) > 0 {
			return true
		}
	}
	return false
}
