package cli

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// str reads a field as a string; empty when it is missing.
func str(obj *unstructured.Unstructured, path ...string) string {
	v, found, _ := unstructured.NestedFieldNoCopy(obj.Object, path...)
	if !found || v == nil {
		return ""
	}
	if s, ok := v.(string); ok {
		return s
	}
	return fmt.Sprint(v)
}

// stringList reads a list of strings; nil when it is missing.
func stringList(obj *unstructured.Unstructured, path ...string) []string {
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

// condition is one status condition.
type condition struct {
	Type, Status, Reason, Message string
	// ObservedGeneration is the generation the condition speaks of; 0 when not reported.
	ObservedGeneration int64
	LastTransitionTime string
}

// conditions lists an object's status conditions in their order.
func conditions(obj *unstructured.Unstructured) []condition {
	list, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	out := make([]condition, 0, len(list))
	for _, c := range list {
		m, ok := c.(map[string]any)
		if !ok {
			continue
		}
		s := func(k string) string { v, _ := m[k].(string); return v }
		cond := condition{Type: s("type"), Status: s("status"), Reason: s("reason"), Message: s("message"), LastTransitionTime: s("lastTransitionTime")}
		switch g := m["observedGeneration"].(type) {
		case int64:
			cond.ObservedGeneration = g
		case float64:
			cond.ObservedGeneration = int64(g)
		}
		out = append(out, cond)
	}
	return out
}

// conditionOf returns the condition of a type; Status is empty when there is none.
func conditionOf(obj *unstructured.Unstructured, typ string) condition {
	for _, c := range conditions(obj) {
		if c.Type == typ {
			return c
		}
	}
	return condition{Type: typ}
}

// String is "Status (Reason): Message", the parts that are set.
func (c condition) String() string {
	if c.Status == "" {
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
