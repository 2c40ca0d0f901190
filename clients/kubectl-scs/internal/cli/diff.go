package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/pmezard/go-difflib/difflib"
	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/yaml"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/model"
	"github.com/SovereignCloudStack/scs-kaas/model/all"
	"github.com/SovereignCloudStack/scs-kaas/model/input"
)

type diffOptions struct {
	renderOptions
	offline bool
}

func (a *App) newDiffCommand(flags *genericclioptions.ConfigFlags) *cobra.Command {
	o := &diffOptions{}
	cmd := &cobra.Command{
		Use:   "diff -f CLUSTER.yaml [--offline --environment ENV --observed DIR]",
		Short: "Preview what an edit of an SCSCluster would do on its backend",
		Long: `Preview an edited SCSCluster before applying it: what each changed field does on the
backend that runs the cluster (in place, rolls the nodes of a pool, rolls the control plane,
refused, not honoured), and the unified diff of every native object that changes. The
preview is rendered with the model library the composition function runs, from the
cluster's observed state: what it says is what the function would do.

Without --offline it reads the SCSCluster, its composed resources and its environment
from the control plane. With --offline it reads them from files, for CI: --observed holds
the SCSCluster as it is (kubectl get scscluster NAME -o yaml) and its composed resources,
--environment the EnvironmentConfigs, as for kubectl scs render.

Exit codes as kubectl diff: 0 nothing changes, 1 something changes, 2 an error, 3 the
function would refuse the edit (its message names the field).`,
		Example: `  kubectl scs diff -f dev.yaml
  kubectl scs diff -f dev.yaml --offline --environment envs/ --observed observed/ -o json`,
		Args: args(0, 0, "no arguments; the edited SCSCluster comes with -f"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if flags.Namespace != nil {
				o.namespace = *flags.Namespace
			}
			return diffExit(a.diff(cmd.Context(), flags, o))
		},
	}
	fs := cmd.Flags()
	fs.StringVarP(&o.file, "filename", "f", "", "The edited SCSCluster manifest, or - for stdin")
	fs.BoolVar(&o.offline, "offline", false, "Read the cluster as it is from --observed and --environment instead of the control plane")
	fs.StringSliceVar(&o.environments, "environment", nil, "With --offline: EnvironmentConfig files or directories")
	fs.StringSliceVar(&o.observed, "observed", nil, "With --offline: the SCSCluster as it is and its composed resources")
	fs.StringSliceVar(&o.required, "required", nil, "With --offline: further resources the backend may require")
	addOutputFlag(cmd, &o.output, outputTable, outputJSON, outputYAML)
	_ = cmd.MarkFlagFilename("filename", "yaml", "yml", "json")
	return cmd
}

// diffExit maps diff's outcome to kubectl diff's exit codes: a failure exits 2, not 1,
// which says "changes".
func diffExit(err error) error {
	if err == nil || exitCode(err) != ExitError {
		return err
	}
	var d differsError
	if errors.As(err, &d) {
		return err
	}
	return diffFailedError{err}
}

func (a *App) diff(ctx context.Context, flags *genericclioptions.ConfigFlags, o *diffOptions) error {
	if o.file == "" {
		return usage("-f is required: the edited SCSCluster")
	}
	if err := checkOutput(o.output, outputJSON, outputYAML); err != nil {
		return err
	}
	objs, err := readManifests(a.IO.In, o.file)
	if err != nil {
		return err
	}
	if len(objs) != 1 {
		return usage("%s holds %d objects; diff takes one SCSCluster", o.file, len(objs))
	}
	edited := objs[0]
	var src *previewSource
	if o.offline {
		src, err = a.offlineSource(o, edited)
	} else {
		if len(o.environments)+len(o.observed)+len(o.required) > 0 {
			return usage("--environment, --observed and --required go with --offline")
		}
		var c *Clients
		if c, err = a.Connect(flags); err == nil {
			src, err = liveSource(ctx, c, edited)
		}
	}
	if err != nil {
		return err
	}
	cur := &rendered{input: src.current}
	in, err := cur.compositeInput(flavourUnknown, o.namespace)
	if err != nil {
		return err
	}
	in.Observed = src.observed
	next := &rendered{input: edited}
	editedIn, err := next.compositeInput(cur.flavour, cur.input.GetNamespace())
	if err != nil {
		return err
	}
	p, err := input.Preview(all.Registry(), in, editedIn.Cluster, src.fetch)
	if err != nil {
		return err
	}
	// Both renders note the same things.
	slices.Sort(src.notes)
	a.printNotes(slices.Compact(src.notes))
	switch o.output {
	case outputJSON, outputYAML:
		if err := printPreviewData(a.IO.Out, o.output, p); err != nil {
			return err
		}
	default:
		printPreview(a.IO.Out, cur.input, p)
	}
	switch {
	case p.Refused != nil:
		return refused("refused (%s): %s", p.Refused.Reason, p.Refused.Message)
	case p.Changes():
		return differsError{}
	}
	return nil
}

// previewSource is the cluster as it is: the SCSCluster with its status, its composed
// resources and what answers the backend's requirements.
type previewSource struct {
	current  *unstructured.Unstructured
	observed map[string]model.ObservedResource
	fetch    input.Fetch
	notes    []string
}

// offlineSource finds the cluster as it is among --observed, as render reads it.
func (a *App) offlineSource(o *diffOptions, edited *unstructured.Unstructured) (*previewSource, error) {
	if len(o.environments) == 0 {
		return nil, usage("--environment is required with --offline: the EnvironmentConfigs to choose from")
	}
	observed, err := readManifests(a.IO.In, o.observed...)
	if err != nil {
		return nil, err
	}
	src := &previewSource{}
	var rest []*unstructured.Unstructured
	for _, obj := range observed {
		if obj.GetAPIVersion() == kaasv1alpha1.APIVersion && obj.GetName() == edited.GetName() &&
			(obj.GetKind() == kaasv1alpha1.ClaimKind || obj.GetKind() == kaasv1alpha1.CompositeKind) {
			src.current = obj
			continue
		}
		rest = append(rest, obj)
	}
	if src.current == nil {
		return nil, usage("--observed has no %s %q as it is: add it (kubectl get scscluster %s -o yaml)", kaasv1alpha1.ClaimKind, edited.GetName(), edited.GetName())
	}
	var pool []*unstructured.Unstructured
	if src.observed, pool, err = a.offlineState(&o.renderOptions, rest); err != nil {
		return nil, err
	}
	src.fetch = fetcher(pool, &src.notes)
	return src, nil
}

// liveSource reads the cluster as it is from the control plane: the SCSCluster (for a
// claim, the composite Crossplane made of it, whose status and composed resources the
// function sees), the composed resources it lists, and the requirements as Crossplane
// fetches them.
func liveSource(ctx context.Context, c *Clients, edited *unstructured.Unstructured) (*previewSource, error) {
	ns := edited.GetNamespace()
	if ns == "" {
		ns = c.Namespace
	}
	claim, err := c.getCluster(ctx, ns, edited.GetName())
	if err != nil {
		return nil, err
	}
	src := &previewSource{current: claim, observed: map[string]model.ObservedResource{}}
	holder, refsPath := claim, []string{"spec", "crossplane", "resourceRefs"}
	if xr := str(claim, "spec", "resourceRef", "name"); xr != "" {
		composite, err := c.Dynamic.Resource(compositeGVR).Get(ctx, xr, metav1.GetOptions{})
		if err != nil {
			return nil, fmt.Errorf("reading the composite %s of %s %s/%s: %w", xr, kaasv1alpha1.ClaimKind, ns, claim.GetName(), err)
		}
		holder, refsPath = composite, []string{"spec", "resourceRefs"}
		// The function sees the composite's status; the claim's spec is the user's.
		claim = claim.DeepCopy()
		claim.Object["status"] = composite.Object["status"]
		src.current = claim
	}
	refs, _, _ := unstructured.NestedSlice(holder.Object, refsPath...)
	for _, r := range refs {
		ref, ok := r.(map[string]any)
		if !ok {
			continue
		}
		apiVersion, kind := fmt.Sprint(ref["apiVersion"]), fmt.Sprint(ref["kind"])
		name, _ := ref["name"].(string)
		refNS, _ := ref["namespace"].(string)
		if refNS == "" && holder.GetNamespace() != "" {
			refNS = holder.GetNamespace()
		}
		res, err := c.resourceFor(apiVersion, kind)
		if err != nil {
			return nil, err
		}
		obj, err := res.in(refNS).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return nil, fmt.Errorf("reading the composed %s %s: %w", kind, name, err)
		}
		key := obj.GetAnnotations()[annotationResourceName]
		if key == "" {
			continue
		}
		src.observed[key] = model.ObservedResource{Object: obj}
	}
	src.fetch = func(_ string, sel model.Selector) ([]*unstructured.Unstructured, error) {
		res, err := c.resourceFor(sel.APIVersion, sel.Kind)
		if err != nil {
			return nil, err
		}
		opts := metav1.ListOptions{}
		if len(sel.MatchLabels) > 0 {
			opts.LabelSelector = metav1.FormatLabelSelector(&metav1.LabelSelector{MatchLabels: sel.MatchLabels})
		}
		if sel.MatchName != "" {
			opts.FieldSelector = "metadata.name=" + sel.MatchName
		}
		list, err := res.in(sel.Namespace).List(ctx, opts)
		if err != nil {
			return nil, fmt.Errorf("listing %s %s: %w", sel.APIVersion, sel.Kind, err)
		}
		out := make([]*unstructured.Unstructured, 0, len(list.Items))
		for i := range list.Items {
			out = append(out, &list.Items[i])
		}
		return out, nil
	}
	return src, nil
}

// apiResource is a resource found in discovery.
type apiResource struct {
	c          *Clients
	gvr        schema.GroupVersionResource
	namespaced bool
}

// in is the resource in a namespace, or cluster-wide for a cluster-scoped one.
func (r apiResource) in(ns string) dynamic.ResourceInterface {
	if r.namespaced && ns != "" {
		return r.c.Dynamic.Resource(r.gvr).Namespace(ns)
	}
	return r.c.Dynamic.Resource(r.gvr)
}

// resourceFor finds the resource of a kind through discovery.
func (c *Clients) resourceFor(apiVersion, kind string) (apiResource, error) {
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return apiResource{}, err
	}
	list, err := c.Discovery.ServerResourcesForGroupVersion(apiVersion)
	if err != nil {
		return apiResource{}, fmt.Errorf("the API server does not serve %s: %w", apiVersion, err)
	}
	for _, r := range list.APIResources {
		if r.Kind == kind && !strings.Contains(r.Name, "/") {
			return apiResource{c: c, gvr: gv.WithResource(r.Name), namespaced: r.Namespaced}, nil
		}
	}
	return apiResource{}, fmt.Errorf("the API server does not serve %s %s", apiVersion, kind)
}

// printPreview writes the summary a person reads first, then the unified diff of every
// native object that changes.
func printPreview(w io.Writer, cluster *unstructured.Unstructured, p *model.Preview) {
	id := cluster.GetName()
	if ns := cluster.GetNamespace(); ns != "" {
		id = ns + "/" + id
	}
	if p.Refused != nil {
		fmt.Fprintf(w, "%s %s on %s: refused: %s\n", cluster.GetKind(), id, p.Backend, p.Refused.Message)
		return
	}
	if !p.Changes() {
		fmt.Fprintf(w, "%s %s on %s: nothing changes\n", cluster.GetKind(), id, p.Backend)
		return
	}
	fmt.Fprintf(w, "%s %s on %s:\n", cluster.GetKind(), id, p.Backend)
	for _, e := range p.Edits {
		fmt.Fprintf(w, "  %s\n", e.Summary())
	}
	for _, o := range p.Objects {
		fmt.Fprintf(w, "\n%s %s (%s): %s\n", o.Kind, o.Name, o.Resource, o.Action)
		diff, _ := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
			A: difflib.SplitLines(yamlOf(o.Before)), B: difflib.SplitLines(yamlOf(o.After)),
			FromFile: o.Kind + " " + o.Name + " (now)", ToFile: o.Kind + " " + o.Name + " (edited)", Context: 3,
		})
		fmt.Fprint(w, diff)
	}
}

func yamlOf(o *unstructured.Unstructured) string {
	if o == nil {
		return ""
	}
	raw, err := yaml.Marshal(o.Object)
	if err != nil {
		return fmt.Sprintf("# cannot print: %v\n", err)
	}
	return string(raw)
}

// printPreviewData writes the preview for tools.
func printPreviewData(w io.Writer, format string, p *model.Preview) error {
	type edit struct {
		model.Edit
		Summary string `json:"summary"`
	}
	out := struct {
		Backend kaasv1alpha1.BackendType `json:"backend"`
		Changes bool                     `json:"changes"`
		Refused *model.Refusal           `json:"refused,omitempty"`
		Edits   []edit                   `json:"edits"`
		Objects []model.ObjectDiff       `json:"objects"`
	}{Backend: p.Backend, Changes: p.Changes(), Refused: p.Refused, Edits: []edit{}, Objects: p.Objects}
	for _, e := range p.Edits {
		out.Edits = append(out.Edits, edit{Edit: e, Summary: e.Summary()})
	}
	if out.Objects == nil {
		out.Objects = []model.ObjectDiff{}
	}
	raw, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return err
	}
	if format == outputYAML {
		if raw, err = yaml.JSONToYAML(raw); err != nil {
			return err
		}
		_, err = w.Write(raw)
		return err
	}
	_, err = fmt.Fprintln(w, string(raw))
	return err
}
