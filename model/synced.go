package model

import (
	"fmt"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
)

// The condition types of Crossplane's managed resources and provider-kubernetes' Objects
// (crossplane-runtime's, which the model layer does not import): read, never written.
const (
	ManagedConditionReady  = "Ready"
	ManagedConditionSynced = "Synced"
)

// errCreateFailed starts the message of a managed resource's Synced condition when its
// provider saw that the external object does not exist and could not create it
// (crossplane-runtime's managed reconciler).
const errCreateFailed = "create failed"

// createFailed says whether a managed resource's provider found its external object
// missing and failed to create it: then nothing exists behind it, whatever was applied.
func createFailed(u *unstructured.Unstructured) bool {
	s := ConditionOf(u, ManagedConditionSynced)
	return s.Found && s.Status == string(ConditionFalse) && strings.HasPrefix(s.Message, errCreateFailed)
}

// syncedCondition is the BackendSynced condition: whether the providers applied what the
// backend rendered, in their own words where they did not. Resources of other pipeline
// steps are not the backend's and not looked at. A composed resource without a Synced
// condition that is not a managed resource (a local Cluster API Cluster) was applied by
// Crossplane itself once it is observed; a refusal of it is Crossplane's to report, on the
// composite.
func syncedCondition(rendered []Resource, observed map[string]ObservedResource) Condition {
	var failed, pending []string
	for _, r := range rendered {
		o, ok := observed[r.Name]
		if !ok || o.Object == nil {
			pending = append(pending, r.Name)
			continue
		}
		s := ConditionOf(o.Object, ManagedConditionSynced)
		switch {
		case s.Found && s.Status == string(ConditionFalse):
			failed = append(failed, fmt.Sprintf("%s (%s %s): %s", r.Name, o.Object.GetKind(), o.Object.GetName(), s.Message))
		case !s.Found && isManaged(o.Object):
			pending = append(pending, r.Name)
		}
	}
	sort.Strings(failed)
	sort.Strings(pending)
	c := Condition{Type: kaasv1alpha1.ConditionBackendSynced}
	switch {
	case len(failed) > 0:
		c.Status, c.Reason = ConditionFalse, kaasv1alpha1.ReasonApplyFailed
		c.Message = Truncate("the backend did not take the rendered objects: " + strings.Join(failed, "; "))
	case len(pending) > 0:
		c.Status, c.Reason = ConditionUnknown, kaasv1alpha1.ReasonApplyPending
		c.Message = "waiting for " + strings.Join(pending, ", ") + " to be reported applied"
	default:
		c.Status, c.Reason, c.Message = ConditionTrue, kaasv1alpha1.ReasonSynced, "every native object is applied as rendered"
	}
	return c
}

// isManaged says whether a composed resource is a Crossplane managed resource, which its
// provider reports on with a Synced condition.
func isManaged(u *unstructured.Unstructured) bool {
	v, _, _ := unstructured.NestedFieldNoCopy(u.Object, "spec", "forProvider")
	_, ok := v.(map[string]any)
	return ok
}
