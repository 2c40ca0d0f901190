package model

import (
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
)

// offered is what the environment offers, and the next minor above what runs (or the spec's).
func offered(env *Environment, spec *kaasv1alpha1.ClusterSpec, running *kaasv1alpha1.KubernetesStatus) *kaasv1alpha1.OfferedStatus {
	o := &kaasv1alpha1.OfferedStatus{
		KubernetesVersions: slices.Clone(env.Catalog.KubernetesVersions),
		MachineTypes:       slices.Clone(env.Catalog.MachineTypes),
		Zones:              slices.Clone(env.Catalog.Zones),
	}
	current := spec.Kubernetes.Version
	if running != nil && running.Version != "" {
		current = running.Version
	}
	if v, err := ParseVersion(current); err == nil {
		next := Version{Major: v.Major, Minor: v.Minor + 1, Patch: -1}.MinorString()
		if slices.Contains(env.Catalog.KubernetesVersions, next) {
			o.NextMinor = next
		}
	}
	return o
}

// deletionPolicy is what deleting the composite would do to the native cluster: Orphan only
// when every resource that holds it leaves it in place. The deletion protection policy
// trusts it, so it is read from the composed objects, not the request.
func deletionPolicy(resources []Resource) kaasv1alpha1.DeletionPolicy {
	for _, r := range resources {
		if !r.Disposable && !orphans(r.Object) {
			return kaasv1alpha1.DeletionDelete
		}
	}
	return kaasv1alpha1.DeletionOrphan
}

// orphans says whether deleting a composed resource leaves what it manages (no Delete
// management policy, or deletion policy Orphan); a plain object is itself what goes.
func orphans(o *unstructured.Unstructured) bool {
	spec, _ := o.Object["spec"].(map[string]any)
	if policies, ok := spec["managementPolicies"].([]any); ok {
		if !slices.ContainsFunc(policies, func(p any) bool { return p == "Delete" || p == "*" }) {
			return true
		}
	}
	return fmt.Sprint(spec["deletionPolicy"]) == string(kaasv1alpha1.DeletionOrphan)
}
