package cli

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/SovereignCloudStack/scs-kaas/clients/kubectl-scs/internal/fields"
	"github.com/SovereignCloudStack/scs-kaas/model"
)

// str reads a field as a string; empty when it is missing (fields.String).
func str(obj *unstructured.Unstructured, path ...string) string {
	return fields.String(obj, path...)
}

// conditions lists an object's status conditions in their order, each read with
// model.ConditionOf.
func conditions(obj *unstructured.Unstructured) []model.ObservedCondition {
	list, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	out := make([]model.ObservedCondition, 0, len(list))
	for _, c := range list {
		m, ok := c.(map[string]any)
		if !ok {
			continue
		}
		typ, _ := m["type"].(string)
		out = append(out, model.ConditionOf(obj, typ))
	}
	return out
}
