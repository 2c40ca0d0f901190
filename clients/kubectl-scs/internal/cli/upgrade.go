package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/cli-runtime/pkg/genericclioptions"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/clients/kubectl-scs/internal/fields"
	"github.com/SovereignCloudStack/scs-kaas/model"
)

// versionPattern is the API's pattern of spec.kubernetes.version.
var versionPattern = regexp.MustCompile(`^1\.(0|[1-9][0-9]*)(\.(0|[1-9][0-9]*))?$`)

type upgradeOptions struct {
	to          string
	dryRun      string
	environment bool
}

func (a *App) newUpgradeCommand(flags *genericclioptions.ConfigFlags) *cobra.Command {
	o := &upgradeOptions{}
	cmd := &cobra.Command{
		Use:   "upgrade NAME --to VERSION | --environment",
		Short: "Move an SCSCluster to another Kubernetes version, or to its environment's current values",
		Long: `Set spec.kubernetes.version of an SCSCluster, after checking the rules the API server and
the function would apply, so that a refusal comes with its reason before anything is sent:
one minor at a time (1.34 to 1.35, not to 1.36), no downgrade below what the cluster runs,
and only a minor its environment offers (status.offered.kubernetesVersions). A minor
("1.35") lets the backend apply patch releases; a patch ("1.35.2") pins one.

--environment has the cluster adopt the values its environment names now, in place of
those it keeps from its creation (its EnvironmentUpToDate condition lists them): it first
previews what adopting does, as kubectl scs diff does (each value with its effect, and the
unified diff of every native object that changes), and lists as "kept for good" each value
the backend cannot change without replacing the cluster, which the cluster keeps; then it
sets the annotation kaas.scs.community/adopt-environment to the current time, as kubectl
rollout restart does. Where the preview cannot be read (a team that may not read
EnvironmentConfigs or composites), it says what the condition names instead.

Exits 3 when a rule refuses the version, when the function would refuse the adoption, or
when the cluster can adopt nothing but values kept for good. Follow the upgrade with kubectl
scs wait.`,
		Example: `  kubectl scs upgrade dev --to 1.35 && kubectl scs wait dev --for=ready --timeout=30m
  kubectl scs upgrade dev --environment --dry-run=client   # only the preview
  kubectl scs upgrade dev --environment`,
		Args:              args(1, 1, "exactly one NAME"),
		ValidArgsFunction: a.completeClusterNames(flags),
		RunE: func(cmd *cobra.Command, args []string) error {
			switch {
			case o.to != "" && o.environment:
				return usage("--to and --environment are two requests: upgrade the version, wait until the cluster runs it, then adopt the environment")
			case o.to == "" && !o.environment:
				return usage("--to is required: the Kubernetes version to move to, such as 1.35 (or --environment, to adopt the environment's current values)")
			}
			if err := checkDryRun(o.dryRun); err != nil {
				return err
			}
			c, err := a.Connect(flags)
			if err != nil {
				return err
			}
			if o.environment {
				return a.adoptEnvironment(cmd.Context(), c, args[0], o)
			}
			return a.upgrade(cmd.Context(), c, args[0], o)
		},
	}
	cmd.Flags().StringVar(&o.to, "to", "", "The Kubernetes version to move to: a minor such as 1.35, or a patch such as 1.35.2")
	cmd.Flags().BoolVar(&o.environment, "environment", false, "Adopt the values the cluster's environment names now, after previewing what that does")
	addDryRunFlag(cmd, &o.dryRun)
	_ = cmd.RegisterFlagCompletionFunc("to", a.completeFromCluster(flags, func(c *Clients, name string, cmd *cobra.Command) []string {
		obj, err := c.getCluster(cmd.Context(), c.Namespace, name)
		if err != nil {
			return nil
		}
		if next := str(obj, "status", "offered", "nextMinor"); next != "" {
			return []string{next}
		}
		return fields.Strings(obj, "status", "offered", "kubernetesVersions")
	}))
	return cmd
}

func (a *App) upgrade(ctx context.Context, c *Clients, name string, o *upgradeOptions) error {
	obj, err := c.getCluster(ctx, c.Namespace, name)
	if err != nil {
		return err
	}
	from := str(obj, "spec", "kubernetes", "version")
	if from == o.to {
		fmt.Fprintf(a.IO.Out, "%s already asks for Kubernetes %s; nothing to do\n", resourceName(name), o.to)
		return nil
	}
	if err := checkUpgrade(obj, o.to); err != nil {
		return err
	}
	if len(fields.Strings(obj, "status", "offered", "kubernetesVersions")) == 0 {
		fmt.Fprintf(a.IO.ErrOut, "Warning: %s/%s reports no offered versions yet (status.offered); the function checks %s against its environment after the change\n", c.Namespace, name, o.to)
	}
	running := str(obj, "status", "kubernetes", "version")
	if o.dryRun != dryRunClient {
		// The test operation makes the change conditional on the version read: nobody
		// changed it since the checks above.
		patch, _ := json.Marshal([]map[string]any{
			{"op": "test", "path": "/spec/kubernetes/version", "value": from},
			{"op": "replace", "path": "/spec/kubernetes/version", "value": o.to},
		})
		_, err := c.clusters(c.Namespace).Patch(ctx, name, types.JSONPatchType, patch, metav1.PatchOptions{FieldManager: FieldManager, DryRun: serverDryRun(o.dryRun)})
		if err != nil {
			return fromAPI(fmt.Sprintf("upgrading %s %s/%s to %s", kaasv1alpha1.ClaimKind, c.Namespace, name, o.to), err)
		}
	}
	runs := ""
	if running != "" {
		runs = fmt.Sprintf(" (the cluster runs %s)", running)
	}
	fmt.Fprintf(a.IO.Out, "%s upgrading: spec.kubernetes.version %s -> %s%s%s\n", resourceName(name), from, o.to, runs, dryRunSuffix(o.dryRun))
	if o.dryRun == dryRunNone {
		fmt.Fprintf(a.IO.ErrOut, "Follow it with: kubectl scs wait %s -n %s --for=ready\n", name, c.Namespace)
	}
	return nil
}

// checkUpgrade applies the version rules of the API to a change of spec.kubernetes.version
// to "to": the CEL rules of the XRD against the current spec (one minor at a time, no
// downgrade but back to the minor that runs), the model's rule against the running version
// (model.ValidateUpgrade), and the environment's offer as the cluster's status reports it.
func checkUpgrade(obj *unstructured.Unstructured, to string) error {
	if !versionPattern.MatchString(to) {
		return usage("%q is not a Kubernetes version such as 1.35 or 1.35.2", to)
	}
	want, _ := model.ParseVersion(to)
	from := str(obj, "spec", "kubernetes", "version")
	have, err := model.ParseVersion(from)
	if err != nil {
		return fmt.Errorf("spec.kubernetes.version %q of %s/%s cannot be read: %w", from, obj.GetNamespace(), obj.GetName(), err)
	}
	runningVersion := str(obj, "status", "kubernetes", "version")
	running, runErr := model.ParseVersion(runningVersion)
	runs := ""
	if runErr == nil {
		runs = ", and the cluster runs " + runningVersion
	}
	switch {
	case want.Minor > have.Minor+1:
		next := model.Version{Major: have.Major, Minor: have.Minor + 1, Patch: -1}.MinorString()
		return refused("refused: spec.kubernetes.version can move one minor at a time: it is %s%s, so the next is %s, not %s; upgrade to %s, wait until the cluster runs it (kubectl scs wait), then go on",
			from, runs, next, to, next)
	case want.Minor < have.Minor && (runErr != nil || want.Minor < running.Minor):
		return refused("refused: spec.kubernetes.version cannot be downgraded from %s to %s%s", from, to, runs)
	case want.SameMinor(have) && want.HasPatch() && have.HasPatch() && want.Patch < have.Patch:
		return refused("refused: spec.kubernetes.version cannot be downgraded from %s to %s", from, to)
	}
	spec := kaasv1alpha1.ClusterSpec{Kubernetes: kaasv1alpha1.KubernetesSpec{Version: to}}
	if errs := model.ValidateUpgrade(&spec, &kaasv1alpha1.KubernetesStatus{Version: runningVersion}); len(errs) > 0 {
		msgs := make([]string, 0, len(errs))
		for _, e := range errs {
			msgs = append(msgs, e.Error())
		}
		return refused("refused: %s", strings.Join(msgs, "; "))
	}
	offered := fields.Strings(obj, "status", "offered", "kubernetesVersions")
	if len(offered) > 0 && !slices.Contains(offered, want.MinorString()) {
		env := orDefault(str(obj, "status", "backend", "environment"), "its environment")
		return refused("refused: Kubernetes %s is not offered to this cluster: environment %s offers %s (status.offered.kubernetesVersions)",
			want.MinorString(), env, strings.Join(offered, ", "))
	}
	return nil
}
