package model

import (
	"encoding/json"
	"reflect"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// LabelNodePool names the pool on its native objects (a NodegroupV1, a MachineDeployment).
const LabelNodePool = "kaas.scs.community/node-pool"

func stringMap(in map[string]string) map[string]any {
	out := make(map[string]any, len(in))
	for k, v := range in {
		out[k] = v
	}
	return out
}

// ObservedCondition is a condition of an observed object (status.conditions[]), as every
// program of this project reads them: through ConditionOf.
type ObservedCondition struct {
	Type, Status, Reason, Message string
	ObservedGeneration            int64
	Found                         bool
}

// String is "Status (Reason): Message", the parts that are set, or "not reported".
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

// ConditionOf reads the condition of type t from an observed object.
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
// with apimachinery's converter. Where it refuses, encoding/json's error is returned if
// that refuses too: it names the field and reads keys in order, so the message is stable.
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
