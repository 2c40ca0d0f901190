package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

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
		Use:   "diff -f CLUSTER.yaml|ENVIRONMENT.yaml [--offline --environment ENV --observed DIR]",
		Short: "Preview what an edit of an SCSCluster, or of an EnvironmentConfig, would do on the backend",
		Long: `Preview an edited SCSCluster before applying it: what each changed field does on the
backend that runs the cluster (in place, rolls the nodes of a pool, rolls the control plane,
refused, not honoured), and the unified diff of every native object that changes. The
preview is rendered with the model library the composition function runs, from the
cluster's observed state: what it says is what the function would do. With the annotation
kaas.scs.community/adopt-environment set to a new value, it previews adopting the
environment's values, each with its effect.

Without --offline it reads the SCSCluster, its composed resources and its environment
from the control plane. With --offline it reads them from files, for CI: --observed holds
the SCSCluster as it is (kubectl get scscluster NAME -o yaml) and its composed resources,
--environment the EnvironmentConfigs, as for kubectl scs render.

When -f holds an EnvironmentConfig (apiextensions.crossplane.io/v1beta1), diff previews
the edit for every cluster of that environment (kaas.scs.community/environment) the user
can read: the settings of its backend the edit changes, each with what it does ("kept until
adopted", "kept for good", or the effect of one that follows the environment), what
changes now (nothing, but for the settings that follow) and what adopting the edit would
do, each with the unified diff of the native objects. Without --offline it lists the
SCSClusters of every namespace (of -n, when given) and, in the legacy flavour, the
composites that no claim made; with --offline, --observed holds the clusters as they are
and their composed resources (told apart by the clusters' resource references, the label
crossplane.io/composite or kaas.scs.community/identity), --environment the
EnvironmentConfigs as they are.

Exit codes as kubectl diff: 0 nothing changes, 1 something changes, 2 an error, 3 the
function would refuse the edit (its message names the field). For an EnvironmentConfig
they say what the edit does now: a change that only adopting would make exits 0, since
no cluster adopts it until its owner asks (kubectl scs upgrade NAME --environment).`,
		Example: `  kubectl scs diff -f dev.yaml
  kubectl scs diff -f dev.yaml --offline --environment envs/ --observed observed/ -o json
  kubectl scs diff -f envs/gardener-regionone.yaml
  kubectl scs diff -f gardener-regionone.yaml --offline --environment envs/ --observed clusters/`,
		Args: args(0, 0, "no arguments; the edited SCSCluster comes with -f"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if flags.Namespace != nil {
				o.namespace = *flags.Namespace
			}
			return diffExit(a.diff(cmd.Context(), flags, o))
		},
	}
	fs := cmd.Flags()
	fs.StringVarP(&o.file, "filename", "f", "", "The edited SCSCluster or EnvironmentConfig manifest, or - for stdin")
	fs.BoolVar(&o.offline, "offline", false, "Read the cluster as it is from --observed and --environment instead of the control plane")
	fs.StringSliceVar(&o.environments, "environment", nil, "With --offline: EnvironmentConfig files or directories")
	fs.StringSliceVar(&o.observed, "observed", nil, "With --offline: the SCSClusters as they are and their composed resources")
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
		return usage("-f is required: the edited SCSCluster or EnvironmentConfig")
	}
	if err := checkOutput(o.output, outputJSON, outputYAML); err != nil {
		return err
	}
	objs, err := readManifests(a.IO.In, o.file)
	if err != nil {
		return err
	}
	if len(objs) != 1 {
		return usage("%s holds %d objects; diff takes one SCSCluster or EnvironmentConfig", o.file, len(objs))
	}
	edited := objs[0]
	if edited.GetAPIVersion() == model.EnvironmentConfigAPIVersion && edited.GetKind() == model.EnvironmentConfigKind {
		return a.diffEnvironment(ctx, flags, o, edited)
	}
	var src *previewSource
	if o.offline {
		src, err = a.offlineSource(o, edited)
	} else {
		if len(o.environments)+len(o.observed)+len(o.required) > 0 {
			return usage("--environment, --observed and --required go with --offline")
		}
		var c *Clients
		if c, err = a.Connect(flags); err == nil {
			src, err = liveSource(ctx, c, edited, a.Now())
		}
	}
	if err != nil {
		return err
	}
	p, cur, err := previewFrom(src, edited, o.namespace)
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
		printPreview(a.IO.Out, cur.input, p, "edited")
	}
	switch {
	case p.Refused != nil:
		return refused("refused (%s): %s", p.Refused.Reason, p.Refused.Message)
	case p.Changes():
		return differsError{}
	}
	return nil
}

// previewFrom previews the edit of the cluster src holds to edited (its spec and
// annotations), with the model library the function runs. namespace is where an
// SCSCluster without one lives. It returns the cluster as it is, as the preview names it.
func previewFrom(src *previewSource, edited *unstructured.Unstructured, namespace string) (*model.Preview, *rendered, error) {
	cur := &rendered{input: src.current}
	in, err := cur.compositeInput(flavourUnknown, namespace)
	if err != nil {
		return nil, nil, err
	}
	in.Observed, in.Now = src.observed, src.now
	next := &rendered{input: edited}
	editedIn, err := next.compositeInput(cur.flavour, cur.input.GetNamespace())
	if err != nil {
		return nil, nil, err
	}
	p, err := input.Preview(all.Registry(), in, editedIn.Cluster, src.fetch)
	if err != nil {
		return nil, nil, err
	}
	return p, cur, nil
}

// previewSource is the cluster as it is: the SCSCluster with its status, its composed
// resources and what answers the backend's requirements, and the time it is read at.
type previewSource struct {
	current  *unstructured.Unstructured
	observed map[string]model.ObservedResource
	fetch    input.Fetch
	notes    []string
	// now is the CLI's clock: the model judges maintenance windows, waves and expiries by
	// it as the function does by its own (zero: every update of its own would start).
	now time.Time
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
	src := &previewSource{now: a.Now()}
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

// liveSource reads the cluster as it is from the control plane: the SCSCluster of the
// edited one's namespace and name, as liveSourceOf.
func liveSource(ctx context.Context, c *Clients, edited *unstructured.Unstructured, now time.Time) (*previewSource, error) {
	ns := edited.GetNamespace()
	if ns == "" {
		ns = c.Namespace
	}
	claim, err := c.getCluster(ctx, ns, edited.GetName())
	if err != nil {
		return nil, err
	}
	return liveSourceOf(ctx, c, claim, c.liveFetch(ctx), now)
}

// liveSourceOf reads the rest of a cluster as it is from the control plane, for an
// SCSCluster or a legacy XSCSCluster read from there: for a claim, the composite Crossplane
// made of it, whose status and composed resources the function sees; the composed
// resources the composite lists; and fetch answers the requirements. now is the time it is
// read at.
func liveSourceOf(ctx context.Context, c *Clients, obj *unstructured.Unstructured, fetch input.Fetch, now time.Time) (*previewSource, error) {
	src := &previewSource{current: obj, observed: map[string]model.ObservedResource{}, fetch: fetch, now: now}
	holder, refsPath := obj, []string{"spec", "crossplane", "resourceRefs"}
	switch {
	case obj.GetKind() == kaasv1alpha1.CompositeKind:
		refsPath = []string{"spec", "resourceRefs"}
	case str(obj, "spec", "resourceRef", "name") != "":
		xr := str(obj, "spec", "resourceRef", "name")
		composite, err := c.Dynamic.Resource(compositeGVR).Get(ctx, xr, metav1.GetOptions{})
		if err != nil {
			return nil, fmt.Errorf("reading the composite %s of %s %s/%s: %w", xr, kaasv1alpha1.ClaimKind, obj.GetNamespace(), obj.GetName(), err)
		}
		holder, refsPath = composite, []string{"spec", "resourceRefs"}
		// The function sees the composite's status; the claim's spec is the user's.
		claim := obj.DeepCopy()
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
		composed, err := res.in(refNS).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return nil, fmt.Errorf("reading the composed %s %s: %w", kind, name, err)
		}
		key := composed.GetAnnotations()[annotationResourceName]
		if key == "" {
			continue
		}
		src.observed[key] = model.ObservedResource{Object: composed}
	}
	return src, nil
}

// liveFetch answers the model's requirements from the control plane, as Crossplane
// fetches required resources.
func (c *Clients) liveFetch(ctx context.Context) input.Fetch {
	return func(_ string, sel model.Selector) ([]*unstructured.Unstructured, error) {
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
// native object that changes; to names the new state in the diffs' headers ("edited").
func printPreview(w io.Writer, cluster *unstructured.Unstructured, p *model.Preview, to string) {
	id := clusterID(cluster)
	if p.Refused != nil {
		fmt.Fprintf(w, "%s %s on %s: refused: %s\n", cluster.GetKind(), id, p.Backend, p.Refused.Message)
		return
	}
	if !p.Changes() {
		fmt.Fprintf(w, "%s %s on %s: nothing changes\n", cluster.GetKind(), id, p.Backend)
		return
	}
	fmt.Fprintf(w, "%s %s on %s:\n", cluster.GetKind(), id, p.Backend)
	printPreviewBody(w, p, "  ", to)
}

// printPreviewBody writes a preview's edits, each with its effect, the environment values
// it takes, and the unified diff of every native object that changes.
func printPreviewBody(w io.Writer, p *model.Preview, indent, to string) {
	printPreviewLines(w, p, indent)
	printObjectDiffs(w, p, to)
}

// printPreviewLines writes a preview's edits and the environment values it takes, one line
// each with its effect, then how the edit moves the update the cluster plans on its own: a
// moved window may start it at once, with nothing else of the edit touching a native object.
func printPreviewLines(w io.Writer, p *model.Preview, indent string) {
	for _, e := range p.Edits {
		fmt.Fprintf(w, "%s%s\n", indent, e.Summary())
	}
	for _, s := range p.Settings {
		fmt.Fprintf(w, "%s%s\n", indent, s.Summary())
	}
	for _, a := range p.Addons {
		fmt.Fprintf(w, "%s%s\n", indent, a.Summary())
	}
	if p.Maintenance != nil {
		fmt.Fprintf(w, "%s%s\n", indent, p.Maintenance.Summary())
	}
}

// printObjectDiffs writes the unified diff of every native object that changes; to names
// the new state in the headers ("edited").
func printObjectDiffs(w io.Writer, p *model.Preview, to string) {
	for _, o := range p.Objects {
		fmt.Fprintf(w, "\n%s %s (%s): %s\n", o.Kind, o.Name, o.Resource, o.Action)
		diff, _ := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
			A: difflib.SplitLines(yamlOf(o.Before)), B: difflib.SplitLines(yamlOf(o.After)),
			FromFile: o.Kind + " " + o.Name + " (now)", ToFile: o.Kind + " " + o.Name + " (" + to + ")", Context: 3,
		})
		fmt.Fprint(w, diff)
	}
}

// clusterID is namespace/name, or the name of a cluster-scoped composite.
func clusterID(cluster *unstructured.Unstructured) string {
	if ns := cluster.GetNamespace(); ns != "" {
		return ns + "/" + cluster.GetName()
	}
	return cluster.GetName()
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

// previewData is a preview for tools: each edit and environment value with its summary.
type previewData struct {
	Backend  kaasv1alpha1.BackendType `json:"backend"`
	Changes  bool                     `json:"changes"`
	Refused  *model.Refusal           `json:"refused,omitempty"`
	Edits    []editData               `json:"edits"`
	Settings []settingData            `json:"settings,omitempty"`
	Addons   []addonData              `json:"addons,omitempty"`
	Objects  []model.ObjectDiff       `json:"objects"`
	// Maintenance is as model.Preview has it (before, after), with its summary.
	Maintenance *maintenanceData `json:"maintenance,omitempty"`
}

type maintenanceData struct {
	model.MaintenanceMove
	Summary string `json:"summary"`
}

type addonData struct {
	model.AddonChange
	Summary string `json:"summary"`
}

type editData struct {
	model.Edit
	Summary string `json:"summary"`
}

type settingData struct {
	model.SettingEdit
	Summary string `json:"summary"`
}

func previewDataOf(p *model.Preview) previewData {
	out := previewData{Backend: p.Backend, Changes: p.Changes(), Refused: p.Refused, Edits: []editData{}, Objects: p.Objects,
		Settings: settingsData(p.Settings)}
	for _, e := range p.Edits {
		out.Edits = append(out.Edits, editData{Edit: e, Summary: e.Summary()})
	}
	for _, a := range p.Addons {
		out.Addons = append(out.Addons, addonData{AddonChange: a, Summary: a.Summary()})
	}
	if out.Objects == nil {
		out.Objects = []model.ObjectDiff{}
	}
	if m := p.Maintenance; m != nil {
		out.Maintenance = &maintenanceData{MaintenanceMove: *m, Summary: m.Summary()}
	}
	return out
}

func settingsData(settings []model.SettingEdit) []settingData {
	var out []settingData
	for _, s := range settings {
		out = append(out, settingData{SettingEdit: s, Summary: s.Summary()})
	}
	return out
}

// printPreviewData writes the preview for tools.
func printPreviewData(w io.Writer, format string, p *model.Preview) error {
	return printData(w, format, previewDataOf(p))
}

// printData writes a value as JSON indented by two ("->" as it is, not escaped for HTML),
// or as YAML.
func printData(w io.Writer, format string, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	if format == outputYAML {
		raw, err := yaml.JSONToYAML(buf.Bytes())
		if err != nil {
			return err
		}
		_, err = w.Write(raw)
		return err
	}
	_, err := w.Write(buf.Bytes())
	return err
}
