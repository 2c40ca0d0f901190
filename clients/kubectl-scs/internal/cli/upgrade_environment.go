package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/model"
)

// adoptEnvironment has a cluster adopt its environment's current values: it previews what
// that does, then sets the annotation kaas.scs.community/adopt-environment to the time, a
// new request each time as kubectl rollout restart's.
func (a *App) adoptEnvironment(ctx context.Context, c *Clients, name string, o *upgradeOptions) error {
	obj, err := c.getCluster(ctx, c.Namespace, name)
	if err != nil {
		return err
	}
	env := orDefault(str(obj, "status", "backend", "environment"), "its environment")
	stamp := a.Now().UTC().Format(time.RFC3339)
	edited := obj.DeepCopy()
	annotations := edited.GetAnnotations()
	if annotations == nil {
		annotations = map[string]string{}
	}
	annotations[kaasv1alpha1.AnnotationAdoptEnvironment] = stamp
	edited.SetAnnotations(annotations)

	// The preview needs what the function reads: the composite, the composed resources and
	// the EnvironmentConfigs, which a team may not read. The condition then says what
	// differs, if not what changes in the backend.
	var p *model.Preview
	status := obj
	src, err := liveSourceOf(ctx, c, obj, c.liveFetch(ctx), a.Now())
	if err == nil {
		status = src.current // for a claim, with its composite's status
		p, _, err = previewFrom(src, edited, c.Namespace)
	}
	if err != nil {
		fmt.Fprintf(a.IO.ErrOut, "Warning: cannot preview what adopting does in the backend (%v); what the cluster's %s condition says instead:\n",
			err, kaasv1alpha1.ConditionEnvironmentUpToDate)
	}
	drift := environmentDrift(status)
	var forGood []string
	// takes says whether adopting changes anything: the preview's word, else the
	// condition's, which names what differs and what its backend can take.
	takes := p != nil && p.Changes()
	for _, d := range drift {
		switch {
		case d.ForGood:
			forGood = append(forGood, d.Path)
		case p == nil && !d.Gone:
			takes = true
		}
	}
	upToDate := model.ConditionOf(status, kaasv1alpha1.ConditionEnvironmentUpToDate).Status == string(model.ConditionTrue)
	id := c.Namespace + "/" + name
	header := fmt.Sprintf("%s %s on %s, adopting environment %s", kaasv1alpha1.ClaimKind, id, orDefault(str(status, "status", "backend", "type"), "its backend"), env)
	switch {
	case p != nil && p.Refused != nil:
		fmt.Fprintf(a.IO.Out, "%s: refused: %s\n", header, p.Refused.Message)
		return refused("refused (%s): %s", p.Refused.Reason, p.Refused.Message)
	case !takes && len(forGood) > 0:
		fmt.Fprintf(a.IO.Out, "%s:\n", header)
		printKeptForGood(a, drift)
		return refused("refused: %s %s can adopt nothing: it keeps %s for good, which its backend cannot change without replacing the cluster",
			kaasv1alpha1.ClaimKind, id, strings.Join(forGood, ", "))
	case !takes && (p != nil || upToDate):
		fmt.Fprintf(a.IO.Out, "%s has nothing to adopt: it uses what environment %s offers and defaults\n", resourceName(name), env)
		return nil
	}
	fmt.Fprintf(a.IO.Out, "%s:\n", header)
	if p != nil {
		printPreviewLines(a.IO.Out, p, "  ")
		printKeptForGood(a, drift)
		printObjectDiffs(a.IO.Out, p, "adopted")
		if len(p.Objects) > 0 {
			fmt.Fprintln(a.IO.Out)
		}
	} else {
		for _, d := range drift {
			fmt.Fprintf(a.IO.Out, "  %s\n", d.Summary())
		}
		if len(drift) == 0 {
			fmt.Fprintf(a.IO.Out, "  the cluster does not report what differs (no %s condition)\n", kaasv1alpha1.ConditionEnvironmentUpToDate)
		}
	}

	if o.dryRun != dryRunClient {
		patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]string{kaasv1alpha1.AnnotationAdoptEnvironment: stamp}}})
		_, err := c.clusters(c.Namespace).Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{FieldManager: FieldManager, DryRun: serverDryRun(o.dryRun)})
		if err != nil {
			return fromAPI(fmt.Sprintf("annotating %s %s to adopt its environment", kaasv1alpha1.ClaimKind, id), err)
		}
	}
	fmt.Fprintf(a.IO.Out, "%s adopting environment %s: %s=%s%s\n", resourceName(name), env, kaasv1alpha1.AnnotationAdoptEnvironment, stamp, dryRunSuffix(o.dryRun))
	if o.dryRun == dryRunNone {
		fmt.Fprintf(a.IO.ErrOut, "Follow it with: kubectl scs wait %s -n %s --for=ready\n", name, c.Namespace)
	}
	return nil
}

// printKeptForGood lists the values adopting does not take.
func printKeptForGood(a *App, drift []driftItem) {
	for _, d := range drift {
		if d.ForGood {
			fmt.Fprintf(a.IO.Out, "  %s\n", d.Summary())
		}
	}
}
