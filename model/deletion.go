package model

import (
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
)

// KeepOnDelete says whether deleting the composite must leave the native cluster in place:
// while deletion protection is on (so that nothing behind the admission policy deletes a
// protected cluster), and while the composite's kaas.scs.community/deletion-policy
// annotation asks for Orphan. Placement.Compose and Request.Managed compose accordingly.
func (r *Request) KeepOnDelete() bool {
	return r.Protected() || r.Cluster.GetAnnotations()[kaasv1alpha1.AnnotationDeletionPolicy] == string(kaasv1alpha1.DeletionOrphan)
}

// validateDeletionPolicyAnnotation refuses an annotation value the API does not know:
// guessing would either delete a cluster its owner meant to keep or keep one they meant to
// delete.
func validateDeletionPolicyAnnotation(xr *kaasv1alpha1.XSCSCluster) error {
	v, ok := xr.GetAnnotations()[kaasv1alpha1.AnnotationDeletionPolicy]
	if !ok || slices.Contains(kaasv1alpha1.DeletionPolicies(), kaasv1alpha1.DeletionPolicy(v)) {
		return nil
	}
	return errorf(kaasv1alpha1.ReasonInvalidSpec, "annotation %s: %q is not a deletion policy; allowed: %v",
		kaasv1alpha1.AnnotationDeletionPolicy, v, kaasv1alpha1.DeletionPolicies())
}

// deletionPolicy is what deleting the composite would do to the native cluster, read from
// the resources as they are composed (including those kept as last applied): Orphan only
// when every resource that holds the cluster leaves it in place. It is what the status
// reports and what the deletion protection policy trusts, so it is read from the objects
// rather than from the request.
func deletionPolicy(resources []Resource) kaasv1alpha1.DeletionPolicy {
	for _, r := range resources {
		if !r.Disposable && !orphans(r.Object) {
			return kaasv1alpha1.DeletionDelete
		}
	}
	return kaasv1alpha1.DeletionOrphan
}

// orphans says whether deleting a composed resource leaves what it manages: a managed
// resource whose management policies lack Delete, or whose deletion policy is Orphan. A
// plain Kubernetes object (a local Cluster API Cluster) is itself what deleting removes.
func orphans(o *unstructured.Unstructured) bool {
	spec, _ := o.Object["spec"].(map[string]any)
	if policies, ok := spec["managementPolicies"].([]any); ok {
		if !slices.ContainsFunc(policies, func(p any) bool { return p == "Delete" || p == "*" }) {
			return true
		}
	}
	return fmt.Sprint(spec["deletionPolicy"]) == string(kaasv1alpha1.DeletionOrphan)
}
