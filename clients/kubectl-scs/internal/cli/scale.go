package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/cli-runtime/pkg/genericclioptions"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
)

// Bounds of a pool's size, as the API's schema has them (apis/kaas/v1alpha1 NodePool).
const (
	maxNodes            = 1000
	leastAutoscalingMax = 1
)

type scaleOptions struct {
	count, min, max int32
	dryRun          string
}

func (a *App) newScaleCommand(flags *genericclioptions.ConfigFlags) *cobra.Command {
	o := &scaleOptions{}
	cmd := &cobra.Command{
		Use:   "scale NAME POOL (--count N | --min A --max B)",
		Short: "Resize a node pool: a fixed count, or autoscaling bounds",
		Long: `Resize a node pool of an SCSCluster: --count sets a fixed size, --min and --max let the
cluster autoscaler size it between them. The one replaces the other, as the API takes
exactly one of count and autoscaling per pool.`,
		Example: `  kubectl scs scale dev default --min 2 --max 5
  kubectl scs scale dev ingress --count 3`,
		Args:              args(2, 2, "NAME and POOL"),
		ValidArgsFunction: a.completeScaleArgs(flags),
		RunE: func(cmd *cobra.Command, args []string) error {
			fs := cmd.Flags()
			byCount := flagSet(fs, "count")
			byBounds := flagSet(fs, "min") || flagSet(fs, "max")
			switch {
			case byCount == byBounds:
				return usage("give either --count, or --min and --max")
			case byBounds && !(flagSet(fs, "min") && flagSet(fs, "max")):
				return usage("--min and --max go together")
			case byCount && (o.count < 0 || o.count > maxNodes):
				return usage("--count must be between 0 and %d", maxNodes)
			case byBounds && (o.min < 0 || o.min > maxNodes || o.max < leastAutoscalingMax || o.max > maxNodes):
				return usage("--min must be between 0 and %d, --max between %d and %d", maxNodes, leastAutoscalingMax, maxNodes)
			case byBounds && o.min > o.max:
				return usage("--min %d is greater than --max %d", o.min, o.max)
			}
			if err := checkDryRun(o.dryRun); err != nil {
				return err
			}
			c, err := a.Connect(flags)
			if err != nil {
				return err
			}
			return a.scale(cmd.Context(), c, args[0], args[1], byCount, o)
		},
	}
	cmd.Flags().Int32Var(&o.count, "count", 0, "A fixed number of nodes")
	cmd.Flags().Int32Var(&o.min, "min", 0, "The least number of nodes the autoscaler keeps")
	cmd.Flags().Int32Var(&o.max, "max", 0, "The most nodes the autoscaler adds")
	addDryRunFlag(cmd, &o.dryRun)
	return cmd
}

func (a *App) scale(ctx context.Context, c *Clients, name, pool string, byCount bool, o *scaleOptions) error {
	obj, err := c.getCluster(ctx, c.Namespace, name)
	if err != nil {
		return err
	}
	pools, _, _ := unstructured.NestedSlice(obj.Object, "spec", "nodePools")
	index, current := -1, map[string]any(nil)
	var names []string
	for i, p := range pools {
		m, _ := p.(map[string]any)
		names = append(names, fmt.Sprint(m["name"]))
		if m["name"] == pool {
			index, current = i, m
		}
	}
	if index < 0 {
		return fmt.Errorf("%s %s/%s has no node pool %q; its pools: %s", kaasv1alpha1.ClaimKind, c.Namespace, name, pool, strings.Join(names, ", "))
	}
	before := sizeOf(current)
	p := fmt.Sprintf("/spec/nodePools/%d", index)
	// The test operation makes the change conditional on the pool still being at this
	// index: a pool added or removed meanwhile fails the patch instead of resizing another.
	ops := []map[string]any{{"op": "test", "path": p + "/name", "value": pool}}
	var after string
	if byCount {
		ops = append(ops, map[string]any{"op": "add", "path": p + "/count", "value": o.count})
		if _, ok := current["autoscaling"]; ok {
			ops = append(ops, map[string]any{"op": "remove", "path": p + "/autoscaling"})
		}
		after = fmt.Sprintf("count %d", o.count)
	} else {
		ops = append(ops, map[string]any{"op": "add", "path": p + "/autoscaling", "value": map[string]any{"min": o.min, "max": o.max}})
		if _, ok := current["count"]; ok {
			ops = append(ops, map[string]any{"op": "remove", "path": p + "/count"})
		}
		after = fmt.Sprintf("autoscaling %d-%d", o.min, o.max)
	}
	if before == after {
		fmt.Fprintf(a.IO.Out, "%s pool %s is already %s; nothing to do\n", resourceName(name), pool, after)
		return nil
	}
	if o.dryRun != dryRunClient {
		patch, _ := json.Marshal(ops)
		_, err := c.clusters(c.Namespace).Patch(ctx, name, types.JSONPatchType, patch, metav1.PatchOptions{FieldManager: FieldManager, DryRun: serverDryRun(o.dryRun)})
		if err != nil {
			return fromAPI(fmt.Sprintf("scaling pool %s of %s %s/%s", pool, kaasv1alpha1.ClaimKind, c.Namespace, name), err)
		}
	}
	fmt.Fprintf(a.IO.Out, "%s scaled: pool %s %s -> %s%s\n", resourceName(name), pool, before, after, dryRunSuffix(o.dryRun))
	return nil
}

// sizeOf says how a pool is sized: "count 3" or "autoscaling 1-3".
func sizeOf(pool map[string]any) string {
	if n, ok := pool["count"]; ok {
		return fmt.Sprintf("count %v", n)
	}
	if as, ok := pool["autoscaling"].(map[string]any); ok {
		return fmt.Sprintf("autoscaling %v-%v", as["min"], as["max"])
	}
	return "unsized"
}

// completeScaleArgs completes NAME, then POOL from the cluster's spec.
func (a *App) completeScaleArgs(flags *genericclioptions.ConfigFlags) cobra.CompletionFunc {
	names := a.completeClusterNames(flags)
	pools := a.completeFromCluster(flags, func(c *Clients, name string, cmd *cobra.Command) []string {
		obj, err := c.getCluster(cmd.Context(), c.Namespace, name)
		if err != nil {
			return nil
		}
		list, _, _ := unstructured.NestedSlice(obj.Object, "spec", "nodePools")
		var out []string
		for _, p := range list {
			if m, ok := p.(map[string]any); ok {
				out = append(out, fmt.Sprint(m["name"]))
			}
		}
		return out
	})
	return func(cmd *cobra.Command, args []string, prefix string) ([]cobra.Completion, cobra.ShellCompDirective) {
		switch len(args) {
		case 0:
			return names(cmd, args, prefix)
		case 1:
			return pools(cmd, args, prefix)
		}
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
}
