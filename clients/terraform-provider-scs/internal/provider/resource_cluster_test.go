package provider

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	k8stesting "k8s.io/client-go/testing"
)

// testKubeconfig stands for the kubeconfig in the connection Secret.
const testKubeconfig = "kubeconfig of team1/dev"

// fakeCrossplane is an API server that takes server-side applies of SCSClusters and answers
// as Crossplane and a healthy backend would at once: the applied spec, a new generation,
// Synced, Rendered and Ready for it, and the kubeconfig Secret.
func fakeCrossplane(t *testing.T) *client {
	t.Helper()
	secret := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "Secret",
		"metadata": map[string]any{"namespace": "team1", "name": "dev-kubeconfig"},
		"data":     map[string]any{"kubeconfig": base64.StdEncoding.EncodeToString([]byte(testKubeconfig))},
	}}
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{clusterGVR: "SCSClusterList", secretGVR: "SecretList"}, secret)
	dyn.PrependReactor("patch", "scsclusters", func(a k8stesting.Action) (bool, runtime.Object, error) {
		p := a.(k8stesting.PatchAction)
		var applied unstructured.Unstructured
		if err := json.Unmarshal(p.GetPatch(), &applied.Object); err != nil {
			return true, nil, err
		}
		if dryRun := p.(k8stesting.PatchActionImpl).PatchOptions.DryRun; len(dryRun) > 0 {
			return true, &applied, nil
		}
		obj := applied.DeepCopy()
		gen := int64(1)
		old, err := dyn.Tracker().Get(clusterGVR, p.GetNamespace(), p.GetName())
		if err == nil {
			gen = old.(*unstructured.Unstructured).GetGeneration() + 1
		}
		obj.SetGeneration(gen)
		cond := func(typ string) any {
			return map[string]any{"type": typ, "status": "True", "reason": "Available", "observedGeneration": gen}
		}
		_ = unstructured.SetNestedField(obj.Object, map[string]any{
			"phase":      "Ready",
			"conditions": []any{cond("Synced"), cond("Ready"), cond("Rendered")},
			"backend":    map[string]any{"type": "gardener", "name": "team1--dev"},
		}, "status")
		// A namespaced composite: the provider reads no composite resource.
		_ = unstructured.SetNestedField(obj.Object, map[string]any{}, "spec", "crossplane")
		if err == nil {
			err = dyn.Tracker().Update(clusterGVR, obj, p.GetNamespace())
		} else {
			err = dyn.Tracker().Create(clusterGVR, obj, p.GetNamespace())
		}
		return true, obj, err
	})
	return &client{dyn: dyn, namespace: "team1", dryRunOnPlan: true, poll: time.Millisecond}
}

func clusterSchema(t *testing.T) resource.SchemaResponse {
	t.Helper()
	var resp resource.SchemaResponse
	(&clusterResource{}).Schema(context.Background(), resource.SchemaRequest{}, &resp)
	if resp.Diagnostics.HasError() {
		t.Fatal(resp.Diagnostics)
	}
	return resp
}

// plannedCluster is the plan tofu sends for a create of a small cluster after ModifyPlan:
// configuration and defaults known, status and kubeconfig unknown.
func plannedCluster(t *testing.T, count int64) tfsdk.Plan {
	t.Helper()
	ctx := context.Background()
	s := clusterSchema(t).Schema
	plan := tfsdk.Plan{Schema: s, Raw: tftypes.NewValue(s.Type().TerraformType(ctx), nil)}
	pools, _ := specField("node_pools")
	pool := map[string]attr.Value{}
	for _, f := range pools.Fields {
		pool[f.Name] = f.null()
	}
	pool["name"], pool["machine_type"], pool["count"] = types.StringValue("default"), types.StringValue("SCS-4V-8"), types.Int64Value(count)
	pool["labels"] = types.MapValueMust(types.StringType, map[string]attr.Value{})
	poolList := types.ListValueMust(pools.objectType(), []attr.Value{types.ObjectValueMust(pools.objectType().AttrTypes, pool)})
	set := map[string]any{
		"id": "team1/dev", "namespace": "team1", "name": "dev", "purpose": "development", "wait_for_ready": true,
		"kubernetes":                     types.ObjectValueMust(map[string]attr.Type{"version": types.StringType}, map[string]attr.Value{"version": types.StringValue("1.34")}),
		"node_pools":                     poolList,
		"write_connection_secret_to_ref": types.ObjectValueMust(map[string]attr.Type{"name": types.StringType}, map[string]attr.Value{"name": types.StringValue("dev-kubeconfig")}),
		"status":                         types.ObjectUnknown(statusAttrTypes),
		"kubeconfig":                     types.StringUnknown(),
	}
	for k, v := range set {
		if d := plan.SetAttribute(ctx, path.Root(k), v); d.HasError() {
			t.Fatalf("%s: %v", k, d)
		}
	}
	return plan
}

// known lists the known attribute values of a plan or state by path, so that two can be
// compared: tofu refuses a provider whose new state differs from a known planned value.
func known(t *testing.T, raw tftypes.Value) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := tftypes.Walk(raw, func(p *tftypes.AttributePath, v tftypes.Value) (bool, error) {
		if v.IsKnown() && (v.Type().Is(tftypes.String) || v.Type().Is(tftypes.Number) || v.Type().Is(tftypes.Bool)) {
			out[p.String()] = v.String()
		}
		return true, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestClusterCreateReadUpdate: the state after create and update is the plan, every known
// planned value kept, completed with status and kubeconfig (tofu refuses anything else as
// an inconsistent result); a read and an import give the same state again.
func TestClusterCreateReadUpdate(t *testing.T) {
	ctx := context.Background()
	c := fakeCrossplane(t)
	r := &clusterResource{c: c}
	s := clusterSchema(t).Schema
	nullState := func() tfsdk.State {
		return tfsdk.State{Schema: s, Raw: tftypes.NewValue(s.Type().TerraformType(ctx), nil)}
	}

	plan := plannedCluster(t, 1)
	create := resource.CreateResponse{State: nullState()}
	r.Create(ctx, resource.CreateRequest{Plan: plan}, &create)
	if create.Diagnostics.HasError() {
		t.Fatalf("Create: %v", create.Diagnostics)
	}
	checkState(t, "create", plan, create.State, "1")

	read := resource.ReadResponse{State: create.State}
	r.Read(ctx, resource.ReadRequest{State: create.State}, &read)
	if read.Diagnostics.HasError() {
		t.Fatalf("Read: %v", read.Diagnostics)
	}
	if diff := cmp.Diff(known(t, create.State.Raw), known(t, read.State.Raw)); diff != "" {
		t.Errorf("Read changed the state (-create +read):\n%s", diff)
	}

	imported := resource.ImportStateResponse{State: nullState()}
	r.ImportState(ctx, resource.ImportStateRequest{ID: "team1/dev"}, &imported)
	readImported := resource.ReadResponse{State: imported.State}
	r.Read(ctx, resource.ReadRequest{State: imported.State}, &readImported)
	if readImported.Diagnostics.HasError() {
		t.Fatalf("Read after import: %v", readImported.Diagnostics)
	}
	// An import has only the object to go by: so that the next plan finds nothing to do,
	// it must read back the state the create left.
	if diff := cmp.Diff(known(t, create.State.Raw), known(t, readImported.State.Raw)); diff != "" {
		t.Errorf("import and read differ from the created state (-create +import):\n%s", diff)
	}

	update := plannedCluster(t, 3)
	_ = update.SetAttribute(ctx, path.Root("status"), types.ObjectUnknown(statusAttrTypes))
	_ = update.SetAttribute(ctx, path.Root("kubeconfig"), types.StringValue(testKubeconfig))
	updated := resource.UpdateResponse{State: nullState()}
	r.Update(ctx, resource.UpdateRequest{Plan: update, State: read.State}, &updated)
	if updated.Diagnostics.HasError() {
		t.Fatalf("Update: %v", updated.Diagnostics)
	}
	checkState(t, "update", update, updated.State, "3")
	obj, err := c.get(ctx, "team1", "dev")
	if err != nil {
		t.Fatal(err)
	}
	if pools, _, _ := unstructured.NestedSlice(obj.Object, "spec", "nodePools"); len(pools) != 1 || fmt.Sprint(pools[0].(map[string]any)["count"]) != "3" {
		t.Errorf("the update applied nodePools %v, want count 3", pools)
	}
}

// checkState: every known planned value is in the state, status and kubeconfig are known.
func checkState(t *testing.T, what string, plan tfsdk.Plan, state tfsdk.State, count string) {
	t.Helper()
	got := known(t, state.Raw)
	for p, v := range known(t, plan.Raw) {
		if got[p] != v {
			t.Errorf("%s: state %s = %s, planned %s", what, p, got[p], v)
		}
	}
	for p, want := range map[string]string{
		`AttributeName("status").AttributeName("phase")`:                                             `tftypes.String<"Ready">`,
		`AttributeName("status").AttributeName("ready")`:                                             `tftypes.Bool<"true">`,
		`AttributeName("kubeconfig")`:                                                                `tftypes.String<"` + testKubeconfig + `">`,
		`AttributeName("node_pools").ElementKeyInt(0).AttributeName("count")`:                        `tftypes.Number<"` + count + `">`,
		`AttributeName("write_connection_secret_to_ref").AttributeName("name")`:                      `tftypes.String<"dev-kubeconfig">`,
		`AttributeName("status").AttributeName("backend_name")`:                                      `tftypes.String<"team1--dev">`,
		`AttributeName("id")`:                                                                        `tftypes.String<"team1/dev">`,
		`AttributeName("node_pools").ElementKeyInt(0).AttributeName("machine_type")`:                 `tftypes.String<"SCS-4V-8">`,
		`AttributeName("status").AttributeName("conditions").ElementKeyInt(1).AttributeName("type")`: `tftypes.String<"Ready">`,
	} {
		if got[p] != want {
			t.Errorf("%s: state %s = %s, want %s", what, p, got[p], want)
		}
	}
}

// TestRereadKubeconfig: an update plans a new kubeconfig when the Secret changes or the
// state has none yet, and a plan without changes stays without changes.
func TestRereadKubeconfig(t *testing.T) {
	ctx := context.Background()
	ref := func(name string) types.Object {
		if name == "" {
			return types.ObjectNull(map[string]attr.Type{"name": types.StringType})
		}
		return types.ObjectValueMust(map[string]attr.Type{"name": types.StringType}, map[string]attr.Value{"name": types.StringValue(name)})
	}
	kubeconfig := func(kc string) types.String {
		if kc == "" {
			return types.StringNull()
		}
		return types.StringValue(kc)
	}
	for _, tc := range []struct {
		name                 string
		priorRef, plannedRef string // empty: none
		priorKubeconfig      string // empty: null
		count                int64  // the planned node count; the prior is 1
		want                 bool
	}{
		{"no change", "dev-kubeconfig", "dev-kubeconfig", testKubeconfig, 1, false},
		{"no change, no kubeconfig yet", "dev-kubeconfig", "dev-kubeconfig", "", 1, false},
		{"update keeps the kubeconfig", "dev-kubeconfig", "dev-kubeconfig", testKubeconfig, 2, false},
		{"update after a create that timed out", "dev-kubeconfig", "dev-kubeconfig", "", 2, true},
		{"another Secret", "dev-kubeconfig", "other", testKubeconfig, 1, true},
		{"Secret removed", "dev-kubeconfig", "", testKubeconfig, 1, true},
		{"no Secret", "", "", "", 2, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			prior := plannedCluster(t, 1)
			_ = prior.SetAttribute(ctx, path.Root("write_connection_secret_to_ref"), ref(tc.priorRef))
			_ = prior.SetAttribute(ctx, path.Root("kubeconfig"), kubeconfig(tc.priorKubeconfig))
			_ = prior.SetAttribute(ctx, path.Root("status"), statusValue(&unstructured.Unstructured{Object: map[string]any{}}))
			plan := plannedCluster(t, tc.count)
			_ = plan.SetAttribute(ctx, path.Root("write_connection_secret_to_ref"), ref(tc.plannedRef))
			_ = plan.SetAttribute(ctx, path.Root("kubeconfig"), kubeconfig(tc.priorKubeconfig))
			_ = plan.SetAttribute(ctx, path.Root("status"), statusValue(&unstructured.Unstructured{Object: map[string]any{}}))
			req := resource.ModifyPlanRequest{State: tfsdk.State(prior), Plan: plan}
			var diags diag.Diagnostics
			if got := rereadKubeconfig(ctx, req, &diags); got != tc.want || diags.HasError() {
				t.Errorf("rereadKubeconfig = %v (%v), want %v", got, diags, tc.want)
			}
		})
	}
}
