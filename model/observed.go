package model

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/model/providerkubernetes"
)

// LabelNodePool names, on native objects that belong to one node pool (a Magnum
// NodegroupV1, a Cluster API MachineDeployment), the pool they belong to.
const LabelNodePool = "kaas.scs.community/node-pool"

// Unobserved lists, sorted, the observed composed resources that manage a remote native
// object which their provider has not reported yet: a provider-kubernetes Object without
// status.atProvider.manifest (just created, a provider that has not synced, a restore from
// backup). Such an object exists; only its state is unknown. It must neither be rendered as
// new (that would drop what the backend chose for it and skip every check of an update)
// nor left out (Crossplane would delete it), so Reconcile keeps it as it was last applied
// until its state is known. Observe-only Objects are not listed: they change nothing. Nor
// is an Object whose provider found its remote object missing and could not create it (an
// admission plugin refused it): nothing exists behind it, and rendering it anew is how a
// corrected spec gets there.
func Unobserved(observed map[string]ObservedResource) []string {
	var out []string
	for name, o := range observed {
		u := o.Object
		if u == nil || !providerkubernetes.IsObject(u) || providerkubernetes.IsObserveOnly(u) || createFailed(u) {
			continue
		}
		if remote, err := providerkubernetes.Observed(u); err == nil && remote == nil {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// LastApplied is the desired form of an observed composed resource: what was applied last
// (spec, or a Secret's data and type), without what the API server and the controllers
// added (status, uid, resourceVersion, managed fields).
func LastApplied(observed *unstructured.Unstructured) *unstructured.Unstructured {
	meta := map[string]any{"name": observed.GetName()}
	if ns := observed.GetNamespace(); ns != "" {
		meta["namespace"] = ns
	}
	if l := observed.GetLabels(); len(l) > 0 {
		meta["labels"] = stringMap(l)
	}
	if a := observed.GetAnnotations(); len(a) > 0 {
		meta["annotations"] = stringMap(a)
	}
	out := map[string]any{"apiVersion": observed.GetAPIVersion(), "kind": observed.GetKind(), "metadata": meta}
	for k, v := range observed.Object {
		if _, set := out[k]; !set && k != "status" {
			out[k] = runtime.DeepCopyJSONValue(v)
		}
	}
	return &unstructured.Unstructured{Object: out}
}

// keepUnobserved makes every unobserved resource desired exactly as it was last applied,
// whatever the backend rendered for it.
func keepUnobserved(r *Rendering, observed map[string]ObservedResource, unobserved []string) {
	for _, name := range unobserved {
		kept := Resource{Name: name, Object: LastApplied(observed[name].Object)}
		if i := slices.IndexFunc(r.Resources, func(res Resource) bool { return res.Name == name }); i >= 0 {
			kept.Disposable = r.Resources[i].Disposable
			r.Resources[i] = kept
			continue
		}
		r.Resources = append(r.Resources, kept)
	}
}

// checkNothingDropped refuses a rendering that leaves out a composed resource of the
// backend that exists: Crossplane would delete it, and with it a cluster or its nodes. The
// one exception is a resource of a node pool the spec no longer has (labelled LabelNodePool):
// removing a pool removes its node groups. Resources of earlier or later pipeline steps are
// not the backend's and not checked.
func checkNothingDropped(backend kaasv1alpha1.BackendType, r *Rendering, observed map[string]ObservedResource, spec *kaasv1alpha1.ClusterSpec) error {
	desired := make(map[string]bool, len(r.Resources))
	for _, res := range r.Resources {
		desired[res.Name] = true
	}
	var dropped []string
	for _, name := range backendResources(backend, observed) {
		o := observed[name]
		if desired[name] {
			continue
		}
		pool := o.Object.GetLabels()[LabelNodePool]
		if pool != "" && !slices.ContainsFunc(spec.NodePools, func(p kaasv1alpha1.NodePool) bool { return p.Name == pool }) {
			continue
		}
		why := "it is not labelled " + LabelNodePool + " as the node group of a pool the spec removed"
		if pool != "" {
			why = fmt.Sprintf("it belongs to node pool %s, which the spec still has", pool)
		}
		dropped = append(dropped, fmt.Sprintf("%s (%s %s; %s)", name, o.Object.GetKind(), o.Object.GetName(), why))
	}
	if len(dropped) == 0 {
		return nil
	}
	return errorf(kaasv1alpha1.ReasonDeletionRefused, "composed resources exist that the %s backend would no longer compose, so Crossplane would delete them: %s; nothing was changed: restore what removed them (a zone, the environment setting, the observed state)",
		backend, strings.Join(dropped, ", "))
}

func stringMap(in map[string]string) map[string]any {
	out := make(map[string]any, len(in))
	for k, v := range in {
		out[k] = v
	}
	return out
}

// ObservedCondition is a condition of an observed object in the Crossplane and Kubernetes
// shape (status.conditions[] with type, status, reason, message), as managed resources,
// provider-kubernetes Objects and the composites of this API report them. It is the one
// reader of conditions: the function, the CLI, the conformance kit, the Terraform provider
// and the tests all read them through ConditionOf.
type ObservedCondition struct {
	Type, Status, Reason, Message string
	// ObservedGeneration is the generation the condition is about, where it says.
	ObservedGeneration int64
	Found              bool
}

// String is "Status (Reason): Message", the parts that are set; "not reported" when the
// object has no such condition.
func (c ObservedCondition) String() string {
	if !c.Found || c.Status == "" {
		return "not reported"
	}
	s := c.Status
	if c.Reason != "" {
		s += " (" + c.Reason + ")"
	}
	if c.Message != "" {
		s += ": " + c.Message
	}
	return s
}

// ConditionOf reads the condition of type t from an observed object; Found is false, and
// only Type is set, when it has none.
func ConditionOf(u *unstructured.Unstructured, t string) ObservedCondition {
	if u == nil {
		return ObservedCondition{Type: t}
	}
	// Read in place: NestedSlice would deep-copy every condition to look at one.
	raw, _, _ := unstructured.NestedFieldNoCopy(u.Object, "status", "conditions")
	conds, _ := raw.([]any)
	for _, c := range conds {
		c, ok := c.(map[string]any)
		if !ok || c["type"] != t {
			continue
		}
		out := ObservedCondition{Type: t, Found: true}
		out.Status, _ = c["status"].(string)
		out.Reason, _ = c["reason"].(string)
		out.Message, _ = c["message"].(string)
		switch g := c["observedGeneration"].(type) {
		case int64:
			out.ObservedGeneration = g
		case float64:
			out.ObservedGeneration = int64(g)
		}
		return out
	}
	return ObservedCondition{Type: t}
}

// DecodeObserved decodes an observed native object into obj, a pointer to its typed form,
// with apimachinery's converter. The converter's error names no field, and of several bad
// values in a map it reports whichever it meets first in map order, so the same object
// would be refused in other words on the next call; where it refuses, encoding/json's
// error is returned if encoding/json refuses too, as it reads keys in sorted order and
// names the field.
func DecodeObserved(u map[string]any, obj any) error {
	err := runtime.DefaultUnstructuredConverter.FromUnstructured(u, obj)
	if err == nil {
		return nil
	}
	if raw, merr := json.Marshal(u); merr == nil {
		if jerr := json.Unmarshal(raw, reflect.New(reflect.TypeOf(obj).Elem()).Interface()); jerr != nil {
			return jerr
		}
	}
	return err
}
