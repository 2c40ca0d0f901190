package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/SovereignCloudStack/scs-kaas/model"
)

// scale-pool: the lower bound of the first Ready cluster's pool scalePool is raised from 1
// to 2; status.nodePools reports the new bounds from the backend and the cluster is Ready
// again; a refusal (Stalled) fails at once. Not the first pool: the standard lets a backend
// fix the first pool's size at creation (Magnum's default node group) and refuse to change
// it.
const (
	scalePoolID          = "scale-pool"
	scalePoolDescription = "a node pool's lower bound is raised from 1 to 2 nodes and the backend reports the new bounds (pool " + scalePool + ", not the first)"
)

// scalePoolInput is what scale-pool needs.
type scalePoolInput struct {
	// Cluster is the Ready cluster of the lowest tested minor (create-ready).
	Cluster string
}

// scalePool is scale-pool; skipped when no cluster became Ready.
func (r *run) scalePool(ctx context.Context) bool {
	in := scalePoolInput{Cluster: r.firstReady()}
	if in.Cluster == "" {
		r.skip(scalePoolID, scalePoolDescription, "no cluster became Ready")
		return true
	}
	r.step(ctx, scalePoolID, scalePoolDescription, func(ctx context.Context) (string, bool, error) { return r.scale(ctx, in) })
	return true
}

// scale raises the lower bound of scalePool from 1 to 2 and waits until the backend
// reports it. A refusal (Stalled) fails it at once, with the function's words.
func (r *run) scale(ctx context.Context, in scalePoolInput) (string, bool, error) {
	name := in.Cluster
	start := r.kit.Options.Now()
	c, err := r.clusters().Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return "", false, fmt.Errorf("reading %s: %s", name, reasonOf(err))
	}
	pools, _, _ := unstructured.NestedSlice(c.Object, "spec", "nodePools")
	index := slices.IndexFunc(pools, func(p any) bool { m, _ := p.(map[string]any); return m["name"] == scalePool })
	if index < 0 {
		return "", false, fmt.Errorf("%s has no node pool %s", name, scalePool)
	}
	upper := fmt.Sprint(pools[index].(map[string]any)["autoscaling"].(map[string]any)["max"])
	path := fmt.Sprintf("/spec/nodePools/%d", index)
	patch, _ := json.Marshal([]map[string]any{
		{"op": "test", "path": path + "/name", "value": scalePool},
		{"op": "replace", "path": path + "/autoscaling/min", "value": 2},
	})
	if _, err := r.clusters().Patch(ctx, name, types.JSONPatchType, patch, metav1.PatchOptions{FieldManager: fieldManager}); err != nil {
		return "", false, fmt.Errorf("scaling pool %s of %s: %s", scalePool, name, reasonOf(err))
	}
	want := "2-" + upper
	if _, err := r.waitCluster(ctx, name, "pool "+scalePool+" at "+want+" nodes and Ready", func(c *unstructured.Unstructured) error {
		if s := stalled(c); s != "" {
			return &refusal{fmt.Sprintf("the scaling of pool %s was refused: %s", scalePool, s)}
		}
		if got := poolBounds(c, scalePool); got != want {
			return fmt.Errorf("status.nodePools reports pool %s at %s nodes", scalePool, orNone(got))
		}
		if s := model.ConditionOf(c, model.ManagedConditionReady); s.Status != "True" {
			return fmt.Errorf("Ready is %s", shown(s))
		}
		return nil
	}); err != nil {
		return "", false, err
	}
	return fmt.Sprintf("pool %s of %s scaled from 1-%s to %s nodes; status.nodePools reports the new bounds and the cluster is Ready after %s",
		scalePool, name, upper, want, r.kit.Options.Now().Sub(start).Round(time.Second)), false, nil
}

// poolBounds is a pool's bounds as status.nodePools reports them from the backend: "min-max".
func poolBounds(c *unstructured.Unstructured, name string) string {
	pools, _, _ := unstructured.NestedSlice(c.Object, "status", "nodePools")
	for _, p := range pools {
		m, _ := p.(map[string]any)
		if m["name"] == name && m["min"] != nil && m["max"] != nil {
			return fmt.Sprintf("%v-%v", m["min"], m["max"])
		}
	}
	return ""
}
