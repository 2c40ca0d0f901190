package cli

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/cli-runtime/pkg/genericclioptions"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
)

type writeOptions struct {
	files          []string
	output         string
	dryRun         string
	forceConflicts bool
}

func (o *writeOptions) addFlags(cmd *cobra.Command) {
	cmd.Flags().StringSliceVarP(&o.files, "filename", "f", nil, "Files or directories of SCSCluster manifests, or - for stdin")
	_ = cmd.MarkFlagFilename("filename", "yaml", "yml", "json")
	addOutputFlag(cmd, &o.output, "", outputYAML, outputJSON, outputName)
	addDryRunFlag(cmd, &o.dryRun)
}

func (a *App) newCreateCommand(flags *genericclioptions.ConfigFlags) *cobra.Command {
	o := &writeOptions{}
	cmd := &cobra.Command{
		Use:   "create -f FILE",
		Short: "Create SCSClusters from manifests",
		Long: `Create SCSClusters from manifests; one that exists already is an error (use apply). The API
server checks the spec against the API's schema and rules, refusing unknown fields; a
refusal exits 3 with its words.`,
		Example: "  kubectl scs create -f dev.yaml -n team1",
		Args:    args(0, 0, "no arguments; the manifests come with -f"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.write(cmd.Context(), flags, o, false)
		},
	}
	o.addFlags(cmd)
	return cmd
}

func (a *App) newApplyCommand(flags *genericclioptions.ConfigFlags) *cobra.Command {
	o := &writeOptions{}
	cmd := &cobra.Command{
		Use:   "apply -f FILE",
		Short: "Create or update SCSClusters from manifests (server-side apply)",
		Long: `Create or update SCSClusters with server-side apply, as field manager kubectl-scs: the
fields the manifest sets become kubectl-scs's, fields others own stay theirs. A field
another manager owns (a GitOps controller, kubectl) is a conflict, refused unless
--force-conflicts. A refusal by the API server exits 3 with its words.`,
		Example: "  kubectl scs apply -f dev.yaml\n  kubectl scs apply -f clusters/ --dry-run=server",
		Args:    args(0, 0, "no arguments; the manifests come with -f"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.write(cmd.Context(), flags, o, true)
		},
	}
	o.addFlags(cmd)
	cmd.Flags().BoolVar(&o.forceConflicts, "force-conflicts", false, "Take over fields another field manager owns")
	return cmd
}

// write creates or applies every SCSCluster of the manifests.
func (a *App) write(ctx context.Context, flags *genericclioptions.ConfigFlags, o *writeOptions, apply bool) error {
	if len(o.files) == 0 {
		return usage("-f is required: the SCSCluster manifests to send")
	}
	if err := checkOutput(o.output, outputYAML, outputJSON, outputName); err != nil {
		return err
	}
	if err := checkDryRun(o.dryRun); err != nil {
		return err
	}
	objs, err := readManifests(a.IO.In, o.files...)
	if err != nil {
		return err
	}
	if len(objs) == 0 {
		return usage("no objects in %v", o.files)
	}
	c, err := a.Connect(flags)
	if err != nil {
		return err
	}
	for _, obj := range objs {
		if err := checkManifest(obj, c); err != nil {
			return err
		}
	}
	var results []*unstructured.Unstructured
	for _, obj := range objs {
		res, verb, err := a.writeOne(ctx, c, obj, o, apply)
		if err != nil {
			return err
		}
		if o.output == outputTable {
			fmt.Fprintf(a.IO.Out, "%s %s%s\n", resourceName(obj.GetName()), verb, dryRunSuffix(o.dryRun))
		}
		results = append(results, res)
	}
	if o.output != outputTable {
		return printObjects(a.IO.Out, o.output, results, false)
	}
	return nil
}

// checkManifest accepts SCSClusters only, in the namespace of -n when -n is given, and
// puts them into the current namespace when they name none, as kubectl does.
func checkManifest(obj *unstructured.Unstructured, c *Clients) error {
	if obj.GetAPIVersion() != kaasv1alpha1.APIVersion || obj.GetKind() != kaasv1alpha1.ClaimKind {
		hint := ""
		if obj.GetKind() == kaasv1alpha1.CompositeKind {
			hint = fmt.Sprintf(": %s is the platform's cluster-scoped composite; teams write %s", kaasv1alpha1.CompositeKind, kaasv1alpha1.ClaimKind)
		}
		return usage("%s %q is not an %s %s%s", obj.GetKind(), obj.GetName(), kaasv1alpha1.APIVersion, kaasv1alpha1.ClaimKind, hint)
	}
	switch ns := obj.GetNamespace(); {
	case ns == "":
		obj.SetNamespace(c.Namespace)
	case c.NamespaceExplicit && ns != c.Namespace:
		return usage("the namespace of %s %q is %q, not %q as -n says", obj.GetKind(), obj.GetName(), ns, c.Namespace)
	}
	return nil
}

func (a *App) writeOne(ctx context.Context, c *Clients, obj *unstructured.Unstructured, o *writeOptions, apply bool) (*unstructured.Unstructured, string, error) {
	ri := c.clusters(obj.GetNamespace())
	what := fmt.Sprintf("%s %s/%s", kaasv1alpha1.ClaimKind, obj.GetNamespace(), obj.GetName())
	if o.dryRun == dryRunClient {
		if apply {
			return obj, "serverside-applied", nil
		}
		return obj, "created", nil
	}
	// Strict: a misspelt field is refused rather than dropped, as kubectl does by default.
	if !apply {
		res, err := ri.Create(ctx, obj, metav1.CreateOptions{FieldManager: FieldManager, FieldValidation: metav1.FieldValidationStrict, DryRun: serverDryRun(o.dryRun)})
		if apierrors.IsAlreadyExists(err) {
			return nil, "", fmt.Errorf("%s already exists: apply changes it", what)
		}
		if err != nil {
			return nil, "", fromAPI("creating "+what, err)
		}
		return res, "created", nil
	}
	data, err := json.Marshal(obj.Object)
	if err != nil {
		return nil, "", err
	}
	res, err := ri.Patch(ctx, obj.GetName(), types.ApplyPatchType, data, metav1.PatchOptions{
		FieldManager: FieldManager, Force: &o.forceConflicts, FieldValidation: metav1.FieldValidationStrict, DryRun: serverDryRun(o.dryRun),
	})
	if apierrors.IsConflict(err) {
		return nil, "", fmt.Errorf("applying %s: %w\nAnother field manager owns these fields; apply from where it does, or take them over with --force-conflicts", what, err)
	}
	if err != nil {
		return nil, "", fromAPI("applying "+what, err)
	}
	return res, "serverside-applied", nil
}
