package conformance

import (
	"context"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/model"
)

// addons-<minor>: the environment's add-ons reach the Ready cluster: AddonsReady turns True,
// and every add-on in status.addons is ready with the revision Flux applied to the cluster
// through its delivered kubeconfig. Skipped when the environment offers no add-ons (its
// clusters have no AddonsReady) or only optional ones (the cluster has none).
const (
	addonsID          = "addons"
	addonsDescription = "the environment's add-ons are applied to the cluster and healthy"
)

// addonsInput is what addons needs.
type addonsInput struct {
	// Cluster is the Ready cluster (create-ready-<minor>).
	Cluster string
}

// addons is addons-<minor>.
func (r *run) addons(ctx context.Context, minor string) bool {
	in := addonsInput{Cluster: r.ready[minor]}
	r.step(ctx, addonsID+"-"+minor, addonsDescription, func(ctx context.Context) (string, bool, error) {
		return r.addonsApplied(ctx, in)
	})
	return true
}

// addonsApplied waits until the cluster's add-ons are applied and healthy.
func (r *run) addonsApplied(ctx context.Context, in addonsInput) (string, bool, error) {
	offered := true
	c, err := r.waitCluster(ctx, in.Cluster, "AddonsReady", func(c *unstructured.Unstructured) error {
		cond := model.ConditionOf(c, kaasv1alpha1.ConditionAddonsReady)
		switch {
		case cond.Status == "":
			offered = false
			return nil
		case cond.Status != "True":
			return fmt.Errorf("AddonsReady is %s", shown(cond))
		}
		return nil
	})
	if err != nil {
		return "", false, err
	}
	if !offered {
		return "the environment offers no add-ons: the cluster has no AddonsReady condition", true, nil
	}
	list, _, _ := unstructured.NestedSlice(c.Object, "status", "addons")
	if len(list) == 0 {
		return "the environment's add-ons are all optional: none is enforced or on by default, so the cluster has none", true, nil
	}
	applied := make([]string, 0, len(list))
	var bad []string
	for _, a := range list {
		m, _ := a.(map[string]any)
		name, _ := m["name"].(string)
		revision, _ := m["revision"].(string)
		if ready, _ := m["ready"].(bool); !ready || revision == "" {
			bad = append(bad, fmt.Sprintf("%s (ready %v, revision %q)", name, m["ready"], revision))
			continue
		}
		applied = append(applied, name+" at "+revision)
	}
	if len(bad) > 0 {
		return "", false, fmt.Errorf("AddonsReady is True, but status.addons of %s has add-ons not applied: %s", in.Cluster, strings.Join(bad, ", "))
	}
	noun := "add-ons"
	if len(applied) == 1 {
		noun = "add-on"
	}
	return fmt.Sprintf("%d %s applied to %s and healthy: %s", len(applied), noun, in.Cluster, strings.Join(applied, ", ")), false, nil
}
