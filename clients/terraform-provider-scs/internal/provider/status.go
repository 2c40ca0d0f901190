package provider

// What the provider reads from an SCSCluster's status: the computed status attribute, and
// the observation that create, update and delete wait on.

import (
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/model"
)

// Crossplane's own condition types, reasons and annotations.
const (
	conditionReady  = "Ready"
	conditionSynced = "Synced"
	// conditionResponsive is False with reasonWatchCircuitOpen while Crossplane's circuit
	// breaker drops the composite resource's watch events.
	conditionResponsive    = "Responsive"
	reasonWatchCircuitOpen = "WatchCircuitOpen"
	// annotationReconcileRequestedAt asks Crossplane to reconcile the resource now.
	annotationReconcileRequestedAt = "crossplane.io/reconcile-requested-at"
)

// circuitOpen says whether Crossplane's circuit breaker drops obj's watch events.
func circuitOpen(obj *unstructured.Unstructured) bool {
	c := model.ConditionOf(obj, conditionResponsive)
	return c.Status == "False" && c.Reason == reasonWatchCircuitOpen
}

var conditionAttrTypes = map[string]attr.Type{
	"type": types.StringType, "status": types.StringType, "reason": types.StringType, "message": types.StringType,
}

var addonAttrTypes = map[string]attr.Type{
	"name": types.StringType, "ready": types.BoolType, "revision": types.StringType, "message": types.StringType, "retained": types.BoolType,
}

// plannedUpdateAttrTypes and updateInProgressAttrTypes are the attributes of
// status.planned_update and status.update_in_progress: status.maintenance.planned and
// .inProgress of the API (kaasv1alpha1.PlannedUpdate), with the time each one needs.
var (
	plannedUpdateAttrTypes = map[string]attr.Type{
		"kind": types.StringType, "from": types.StringType, "to": types.StringType, "not_before": types.StringType, "message": types.StringType,
	}
	updateInProgressAttrTypes = map[string]attr.Type{
		"kind": types.StringType, "from": types.StringType, "to": types.StringType, "started": types.StringType, "message": types.StringType,
	}
)

// updateDescriptions document the attributes of plannedUpdateAttrTypes and
// updateInProgressAttrTypes.
var updateDescriptions = map[string]string{
	"kind":       "KubernetesPatch (a newer release of the running minor) or EndOfLifeUpgrade (the next minor, the running one having expired).",
	"from":       "The version the cluster runs, such as v1.34.7.",
	"to":         "The version it moves to, such as v1.34.8, or a minor such as 1.35.",
	"not_before": "When it may start (RFC 3339): the cluster's next maintenance window, or the current one, and for a later wave not before its delay has passed.",
	"started":    "When it started (RFC 3339).",
	"message":    "The update in words, such as \"v1.34.7 -> v1.34.8 in the window 02:00-03:00 UTC, from Sat, 05 Dec 2026 02:00 UTC\".",
}

// statusAttrTypes are the attributes of the computed status attribute.
var statusAttrTypes = map[string]attr.Type{
	"phase":               types.StringType,
	"ready":               types.BoolType,
	"kubernetes_version":  types.StringType,
	"api_server_url":      types.StringType,
	"backend_type":        types.StringType,
	"backend_name":        types.StringType,
	"backend_environment": types.StringType,
	"backend_region":      types.StringType,
	"next_minor":          types.StringType,
	"planned_update":      types.ObjectType{AttrTypes: plannedUpdateAttrTypes},
	"update_in_progress":  types.ObjectType{AttrTypes: updateInProgressAttrTypes},
	"upgraded_minor":      types.StringType,
	"conditions":          types.ListType{ElemType: types.ObjectType{AttrTypes: conditionAttrTypes}},
	"addons":              types.ListType{ElemType: types.ObjectType{AttrTypes: addonAttrTypes}},
}

// statusDescriptions document statusAttrTypes.
var statusDescriptions = map[string]string{
	"phase":               "Provisioning, Ready, Updating, Degraded, Hibernated, Deleting or Failed.",
	"ready":               "Whether the Ready condition is True: the cluster is healthy and its kubeconfig delivered.",
	"kubernetes_version":  "The Kubernetes version the cluster runs.",
	"api_server_url":      "The URL of the cluster's API server.",
	"backend_type":        "The backend that builds the cluster: gardener, clusterstack or magnum.",
	"backend_name":        "The cluster's name in the backend (the Shoot, Cluster API Cluster or Magnum cluster).",
	"backend_environment": "The environment the cluster was created in.",
	"backend_region":      "The cloud region of the cluster.",
	"next_minor":          "The Kubernetes minor the cluster may be upgraded to next, when its environment offers one.",
	"planned_update":      "The next update the cluster makes on its own (a newer patch of its minor, or the upgrade of an expired minor) and when it may start; null when none is planned.",
	"update_in_progress":  "The update the cluster started on its own in its maintenance window and has not finished yet; null when none rolls. It is never cut off when the window ends.",
	"upgraded_minor":      "The minor an end-of-life upgrade moved the cluster to, past the older minor kubernetes.version still names; set kubernetes.version to it (or a newer minor) to make the configuration say what runs. Null when there is none.",
	"conditions":          "The conditions of the SCSCluster: Ready, Synced, Rendered, BackendReady, KubeconfigReady, AddonsReady and others.",
	"addons":              "The add-ons on the cluster as Flux reports them: name, ready, revision (the source revision applied), message (Flux's, with its reason), retained (the catalog dropped it; it stays until disabled).",
}

// statusValue is the status attribute of an object.
func statusValue(obj *unstructured.Unstructured) types.Object {
	s := func(p ...string) types.String {
		v, ok, _ := unstructured.NestedString(obj.Object, append([]string{"status"}, p...)...)
		if !ok {
			return types.StringNull()
		}
		return types.StringValue(v)
	}
	var conds []attr.Value
	for _, c := range conditions(obj) {
		o, _ := types.ObjectValue(conditionAttrTypes, map[string]attr.Value{
			"type": types.StringValue(c.Type), "status": types.StringValue(c.Status),
			"reason": types.StringValue(c.Reason), "message": types.StringValue(c.Message),
		})
		conds = append(conds, o)
	}
	condList, _ := types.ListValue(types.ObjectType{AttrTypes: conditionAttrTypes}, conds)
	if conds == nil {
		condList, _ = types.ListValue(types.ObjectType{AttrTypes: conditionAttrTypes}, []attr.Value{})
	}
	addons := []attr.Value{}
	list, _, _ := unstructured.NestedSlice(obj.Object, "status", "addons")
	for _, a := range list {
		m, ok := a.(map[string]any)
		if !ok {
			continue
		}
		str := func(k string) types.String { s, _ := m[k].(string); return types.StringValue(s) }
		o, _ := types.ObjectValue(addonAttrTypes, map[string]attr.Value{
			"name": str("name"), "ready": types.BoolValue(m["ready"] == true), "revision": str("revision"),
			"message": str("message"), "retained": types.BoolValue(m["retained"] == true),
		})
		addons = append(addons, o)
	}
	addonList, _ := types.ListValue(types.ObjectType{AttrTypes: addonAttrTypes}, addons)
	v, _ := types.ObjectValue(statusAttrTypes, map[string]attr.Value{
		"phase":               s("phase"),
		"ready":               types.BoolValue(model.ConditionOf(obj, conditionReady).Status == "True"),
		"kubernetes_version":  s("kubernetes", "version"),
		"api_server_url":      s("apiServerURL"),
		"backend_type":        s("backend", "type"),
		"backend_name":        s("backend", "name"),
		"backend_environment": s("backend", "environment"),
		"backend_region":      s("backend", "region"),
		"next_minor":          s("offered", "nextMinor"),
		"planned_update":      updateValue(obj, "planned", plannedUpdateAttrTypes, "not_before", "notBefore"),
		"update_in_progress":  updateValue(obj, "inProgress", updateInProgressAttrTypes, "started", "started"),
		"upgraded_minor":      s("maintenance", "upgradedMinor"),
		"conditions":          condList,
		"addons":              addonList,
	})
	return v
}

// updateValue is status.maintenance.<field> of obj (a kaasv1alpha1.PlannedUpdate) as an
// object of attribute types t, whose time attribute timeAttr is the update's timeField (an
// RFC 3339 string, null when not set); null when the status has no such update.
func updateValue(obj *unstructured.Unstructured, field string, t map[string]attr.Type, timeAttr, timeField string) types.Object {
	m, ok, _ := unstructured.NestedMap(obj.Object, "status", "maintenance", field)
	if !ok || m == nil {
		return types.ObjectNull(t)
	}
	str := func(k string) types.String { s, _ := m[k].(string); return types.StringValue(s) }
	when := types.StringNull()
	if s, ok := m[timeField].(string); ok && s != "" {
		when = types.StringValue(s)
	}
	v, _ := types.ObjectValue(t, map[string]attr.Value{
		"kind": str("kind"), "from": str("from"), "to": str("to"), timeAttr: when, "message": str("message"),
	})
	return v
}

// reported says whether an object reports condition c: it has one, with a status.
func reported(c model.ObservedCondition) bool { return c.Found && c.Status != "" }

// describe is a condition as the provider prints it (timeouts, refusals): "Type Status
// (Reason): Message", the parts that are set, or "Type not reported yet".
func describe(c model.ObservedCondition) string {
	if !reported(c) {
		return c.Type + " not reported yet"
	}
	return c.Type + " " + c.String()
}

// conditions lists every condition of obj, in order, for the status attribute; one
// condition is read with model.ConditionOf.
func conditions(obj *unstructured.Unstructured) []model.ObservedCondition {
	if obj == nil {
		return nil
	}
	raw, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	var out []model.ObservedCondition
	for _, r := range raw {
		m, ok := r.(map[string]any)
		if !ok {
			continue
		}
		str := func(k string) string { s, _ := m[k].(string); return s }
		out = append(out, model.ObservedCondition{Type: str("type"), Status: str("status"), Reason: str("reason"), Message: str("message"), Found: true})
	}
	return out
}

// observation is what the controllers have made of an SCSCluster so far.
type observation struct {
	// Current: Crossplane has reconciled the latest spec, so the conditions are about it.
	Current bool
	// Why is what Current waits for, when it is false.
	Why string

	Phase                                                      string
	Ready, Synced, Rendered, BackendReady, BackendSynced, Kube model.ObservedCondition
}

// observe reads an SCSCluster and, for a legacy claim, its composite resource (nil when
// it cannot be read: not bound yet, or the user may not read composites).
//
// Crossplane stamps the generation it reconciled onto the Synced condition of the object it
// reconciles. A namespaced SCSCluster is the composite itself: its Synced condition says
// everything. A claim is reconciled in two steps: the claim controller copies the spec to
// the composite (the claim's Synced), then the composite controller runs the function (the
// composite's Synced); the claim's other conditions are copies of the composite's and may be
// older than the claim's Synced. So for a claim both generations must match, the composite
// read after the claim.
func observe(obj, xr *unstructured.Unstructured) observation {
	o := observation{
		Ready:         model.ConditionOf(obj, conditionReady),
		Synced:        model.ConditionOf(obj, conditionSynced),
		Rendered:      model.ConditionOf(obj, kaasv1alpha1.ConditionRendered),
		BackendReady:  model.ConditionOf(obj, kaasv1alpha1.ConditionBackendReady),
		BackendSynced: model.ConditionOf(obj, kaasv1alpha1.ConditionBackendSynced),
		Kube:          model.ConditionOf(obj, kaasv1alpha1.ConditionKubeconfigReady),
	}
	o.Phase, _, _ = unstructured.NestedString(obj.Object, "status", "phase")
	current := func(x *unstructured.Unstructured, what string) bool {
		s := model.ConditionOf(x, conditionSynced)
		switch {
		case !reported(s):
			o.Why = what + " not reconciled yet"
			return false
		case s.ObservedGeneration != 0 && s.ObservedGeneration < x.GetGeneration():
			o.Why = fmt.Sprintf("%s generation %d not reconciled yet (Synced is for %d)", what, x.GetGeneration(), s.ObservedGeneration)
			return false
		}
		return true
	}
	if !current(obj, "SCSCluster") {
		return o
	}
	if isClaim(obj) {
		if o.Synced.Status == "False" {
			// Crossplane could not copy the claim's spec to its composite: whatever the
			// composite says is about an older spec.
			o.Why = "claim not synced to its composite resource: " + o.Synced.Message
			return o
		}
		ref, _, _ := unstructured.NestedString(obj.Object, "spec", "resourceRef", "name")
		if ref == "" {
			o.Why = "claim not bound to a composite resource yet"
			return o
		}
		if xr != nil {
			if !current(xr, "composite resource "+xr.GetName()) {
				return o
			}
			// The composite's own conditions are as new as its Synced; the claim's copies
			// may lag behind.
			o.Rendered = model.ConditionOf(xr, kaasv1alpha1.ConditionRendered)
			o.BackendReady = model.ConditionOf(xr, kaasv1alpha1.ConditionBackendReady)
			o.BackendSynced = model.ConditionOf(xr, kaasv1alpha1.ConditionBackendSynced)
			if p, ok, _ := unstructured.NestedString(xr.Object, "status", "phase"); ok {
				o.Phase = p
			}
		}
	}
	if !reported(o.Rendered) {
		o.Why = "the composition function has not reported yet"
		return o
	}
	o.Current = true
	return o
}

// isClaim tells a legacy claim from a namespaced composite: Crossplane v2 composites carry
// spec.crossplane, claims spec.resourceRef (once bound) and neither of those.
func isClaim(obj *unstructured.Unstructured) bool {
	_, v2, _ := unstructured.NestedMap(obj.Object, "spec", "crossplane")
	return !v2
}

// refused says whether the function refuses the current spec.
func (o observation) refused() bool { return o.Current && o.Rendered.Status == "False" }

// failed says whether the backend gave up on the cluster.
func (o observation) failed() bool {
	return o.Current && o.Phase == string(kaasv1alpha1.PhaseFailed)
}

// ready says whether the current spec is rendered and the cluster Ready.
func (o observation) ready() bool {
	return o.Current && o.Rendered.Status == "True" && o.Ready.Status == "True"
}

// rendered says whether the function rendered the current spec.
func (o observation) rendered() bool { return o.Current && o.Rendered.Status == "True" }

// summary says where a cluster stands, for timeouts.
func (o observation) summary() string {
	var parts []string
	if !o.Current {
		parts = append(parts, o.Why)
	}
	if o.Phase != "" {
		parts = append(parts, "phase "+o.Phase)
	}
	for _, c := range []model.ObservedCondition{o.Ready, o.Synced, o.Rendered, o.BackendReady, o.BackendSynced, o.Kube} {
		// BackendSynced matters when False: the backend's API refused what was rendered.
		if reported(c) && (c.Type != kaasv1alpha1.ConditionBackendSynced || c.Status == "False") {
			parts = append(parts, describe(c))
		}
	}
	if len(parts) == 0 {
		return "no status reported yet"
	}
	return strings.Join(parts, "; ")
}
