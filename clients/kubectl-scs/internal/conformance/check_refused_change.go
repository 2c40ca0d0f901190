package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/SovereignCloudStack/scs-kaas/clients/kubectl-scs/internal/fields"
	"github.com/SovereignCloudStack/scs-kaas/model"
)

// refused-change: a downgrade of spec.kubernetes.version by one minor is refused by the API
// server (422 Invalid) with a message naming spec.kubernetes.version, and the cluster's
// generation and spec stay as they were.
const (
	refusedChangeID          = "refused-change"
	refusedChangeDescription = "a downgrade of spec.kubernetes.version is refused with the field named, and nothing changes"
)

// refusedChangeInput is what refused-change needs.
type refusedChangeInput struct {
	// Cluster is the Ready cluster of the lowest tested minor (create-ready).
	Cluster string
}

// refusedChange is refused-change; skipped when no cluster became Ready.
func (r *run) refusedChange(ctx context.Context) bool {
	in := refusedChangeInput{Cluster: r.firstReady()}
	if in.Cluster == "" {
		r.skip(refusedChangeID, refusedChangeDescription, "no cluster became Ready")
		return true
	}
	r.step(ctx, refusedChangeID, refusedChangeDescription, func(ctx context.Context) (string, bool, error) { return r.downgrade(ctx, in) })
	return true
}

// downgrade asks for a downgrade by one minor, which the API must refuse naming
// spec.kubernetes.version, and checks that the cluster's spec did not change.
func (r *run) downgrade(ctx context.Context, in refusedChangeInput) (string, bool, error) {
	name := in.Cluster
	before, err := r.clusters().Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return "", false, fmt.Errorf("reading %s: %s", name, reasonOf(err))
	}
	from := fields.String(before, "spec", "kubernetes", "version")
	v, err := model.ParseVersion(from)
	if err != nil || v.Minor == 0 {
		return "", false, fmt.Errorf("%s asks for Kubernetes %q, which cannot be downgraded", name, from)
	}
	to := model.Version{Major: v.Major, Minor: v.Minor - 1, Patch: -1}.MinorString()
	patch, _ := json.Marshal([]map[string]any{
		{"op": "test", "path": "/spec/kubernetes/version", "value": from},
		{"op": "replace", "path": "/spec/kubernetes/version", "value": to},
	})
	_, err = r.clusters().Patch(ctx, name, types.JSONPatchType, patch, metav1.PatchOptions{FieldManager: fieldManager})
	if err == nil {
		// Put it back before anything acts on it, then fail.
		back, _ := json.Marshal([]map[string]any{{"op": "replace", "path": "/spec/kubernetes/version", "value": from}})
		_, _ = r.clusters().Patch(ctx, name, types.JSONPatchType, back, metav1.PatchOptions{FieldManager: fieldManager})
		return "", false, fmt.Errorf("the downgrade of %s from %s to %s was accepted", name, from, to)
	}
	if !apierrors.IsInvalid(err) {
		return "", false, fmt.Errorf("the downgrade of %s from %s to %s failed, but not as a refusal by the API's rules: %s", name, from, to, reasonOf(err))
	}
	msg := statusMessage(err)
	if !strings.Contains(msg, "spec.kubernetes.version") {
		return "", false, fmt.Errorf("the downgrade of %s was refused without naming spec.kubernetes.version: %s", name, msg)
	}
	after, err := r.clusters().Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return "", false, fmt.Errorf("reading %s: %s", name, reasonOf(err))
	}
	if now := fields.String(after, "spec", "kubernetes", "version"); after.GetGeneration() != before.GetGeneration() || now != from {
		return "", false, fmt.Errorf("the refused downgrade changed %s: generation %d -> %d, spec.kubernetes.version %s", name, before.GetGeneration(), after.GetGeneration(), now)
	}
	return fmt.Sprintf("the downgrade of %s from %s to %s was refused: %s", name, from, to, msg), false, nil
}
