// Package fields reads the fields of the objects kubectl-scs works with (SCSClusters,
// EnvironmentConfigs) in the one way both the commands (internal/cli) and the conformance
// kit (internal/conformance) read them. Conditions are read with model.ConditionOf.
package fields

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/model"
)

// String reads a field as a string; empty when it is missing.
func String(obj *unstructured.Unstructured, path ...string) string {
	v, found, _ := unstructured.NestedFieldNoCopy(obj.Object, path...)
	if !found || v == nil {
		return ""
	}
	if s, ok := v.(string); ok {
		return s
	}
	return fmt.Sprint(v)
}

// Strings reads a list of strings; nil when it is missing or empty.
func Strings(obj *unstructured.Unstructured, path ...string) []string {
	v, _, _ := unstructured.NestedFieldNoCopy(obj.Object, path...)
	list, _ := v.([]any)
	out := make([]string, 0, len(list))
	for _, item := range list {
		out = append(out, fmt.Sprint(item))
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// Stalled is an SCSCluster's Stalled condition when it says the cluster will not progress
// as its spec is now: True about the current generation, as the function sets it when it
// refuses the spec. A Stalled condition from before the last change of the spec (a lower
// observedGeneration) is stale, since the fix may be on its way: then ok is false.
func Stalled(obj *unstructured.Unstructured) (c model.ObservedCondition, ok bool) {
	c = model.ConditionOf(obj, kaasv1alpha1.ConditionStalled)
	if c.Status != string(model.ConditionTrue) || c.ObservedGeneration == 0 || c.ObservedGeneration != obj.GetGeneration() {
		return c, false
	}
	return c, true
}
