package main

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
)

var claimGVR = schema.GroupVersionResource{Group: "kaas.scs.community", Version: "v1alpha1", Resource: "scsclusters"}

// nativeRef is where a claim's native object lives, from its status.backend.nativeRef.
type nativeRef struct{ APIVersion, Kind, Namespace, Name string }

func (r nativeRef) isShoot() bool { return r.Kind == "Shoot" }

// path is namespace/name, or the name of a cluster-scoped object.
func (r nativeRef) path() string {
	if r.Namespace == "" {
		return r.Name
	}
	return r.Namespace + "/" + r.Name
}

// claimStatus reads what the demo and simulate look at on a claim.
type claimStatus struct {
	claim  *unstructured.Unstructured
	native nativeRef
}

func getClaim(ctx context.Context, dyn dynamic.Interface, namespace, name string) (*claimStatus, error) {
	c, err := dyn.Resource(claimGVR).Namespace(namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	ref, _, _ := unstructured.NestedStringMap(c.Object, "status", "backend", "nativeRef")
	return &claimStatus{claim: c, native: nativeRef{APIVersion: ref["apiVersion"], Kind: ref["kind"], Namespace: ref["namespace"], Name: ref["name"]}}, nil
}

// condition returns status, reason and message of condition typ.
func (c *claimStatus) condition(typ string) (status, reason, message string) {
	conds, _, _ := unstructured.NestedSlice(c.claim.Object, "status", "conditions")
	for _, x := range conds {
		m, ok := x.(map[string]any)
		if !ok || m["type"] != typ {
			continue
		}
		s := func(k string) string { v, _ := m[k].(string); return v }
		return s("status"), s("reason"), s("message")
	}
	return "", "", ""
}

// describe is one line about a claim's state for progress output.
func (c *claimStatus) describe() string {
	out := ""
	for _, t := range []string{"Synced", "Ready", "Rendered", "BackendReady"} {
		st, reason, _ := c.condition(t)
		out += fmt.Sprintf(" %s=%s", t, st)
		if reason != "" {
			out += "(" + reason + ")"
		}
	}
	return out
}
