package cli

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/cli-runtime/pkg/genericclioptions"

	envv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/environment/v1alpha1"
	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/model"
	"github.com/SovereignCloudStack/scs-kaas/model/all"
	"github.com/SovereignCloudStack/scs-kaas/model/input"
)

// envTarget is one cluster of an edited environment: the cluster as listed, and what the
// preview reads of it, or why it could not be read.
type envTarget struct {
	cluster *unstructured.Unstructured
	src     *previewSource
	err     error
}

// envResult is the preview of an environment's edit for one cluster.
type envResult struct {
	cluster *unstructured.Unstructured
	preview *input.EnvironmentPreview
	err     error
}

// diffEnvironment previews an edited EnvironmentConfig for every cluster of its
// environment: what the edit changes now, and what adopting it would do.
func (a *App) diffEnvironment(ctx context.Context, flags *genericclioptions.ConfigFlags, o *diffOptions, edited *unstructured.Unstructured) error {
	env := edited.GetLabels()[envv1alpha1.LabelEnvironment]
	if env == "" {
		return usage("%s %s carries no label %s: it is no environment, and no cluster uses it", model.EnvironmentConfigKind, edited.GetName(), envv1alpha1.LabelEnvironment)
	}
	var targets []envTarget
	var notes []string
	var err error
	if o.offline {
		targets, err = a.offlineEnvironmentTargets(o, env)
	} else {
		if len(o.environments)+len(o.observed)+len(o.required) > 0 {
			return usage("--environment, --observed and --required go with --offline")
		}
		var c *Clients
		if c, err = a.Connect(flags); err == nil {
			targets, notes, err = liveEnvironmentTargets(ctx, c, env, a.Now())
		}
	}
	if err != nil {
		return err
	}
	results := make([]envResult, 0, len(targets))
	for _, t := range targets {
		r := envResult{cluster: t.cluster, err: t.err}
		if r.err == nil {
			r.preview, r.err = previewEnvironment(t.src, edited, o.namespace)
			notes = append(notes, t.src.notes...)
		}
		results = append(results, r)
	}
	slices.Sort(notes)
	a.printNotes(slices.Compact(notes))

	var failed, refusedNow, changedNow []string
	for _, r := range results {
		id := clusterID(r.cluster)
		switch {
		case r.err != nil:
			failed = append(failed, id)
		case r.preview.Now.Refused != nil:
			refusedNow = append(refusedNow, id)
		case r.preview.Now.Changes():
			changedNow = append(changedNow, id)
		}
	}
	switch o.output {
	case outputJSON, outputYAML:
		if err := printEnvironmentData(a.IO.Out, o.output, env, results, len(changedNow) > 0); err != nil {
			return err
		}
	default:
		if len(results) == 0 {
			fmt.Fprintf(a.IO.Out, "no cluster of environment %s: the edit changes none\n", env)
		}
		for i, r := range results {
			if i > 0 {
				fmt.Fprintln(a.IO.Out)
			}
			printEnvironmentPreview(a.IO.Out, r)
		}
	}
	switch {
	case len(failed) > 0:
		return fmt.Errorf("%s could not be previewed: %s", clustersWord(len(failed)), strings.Join(failed, ", "))
	case len(refusedNow) > 0:
		return refused("refused: the function would refuse %s with the edited environment %s: %s", clustersWord(len(refusedNow)), env, strings.Join(refusedNow, ", "))
	case len(changedNow) > 0:
		return differsError{}
	}
	return nil
}

func clustersWord(n int) string {
	if n == 1 {
		return "1 cluster"
	}
	return fmt.Sprintf("%d clusters", n)
}

// previewEnvironment previews the edited EnvironmentConfig for the cluster src holds.
func previewEnvironment(src *previewSource, edited *unstructured.Unstructured, namespace string) (*input.EnvironmentPreview, error) {
	cur := &rendered{input: src.current}
	in, err := cur.compositeInput(flavourUnknown, namespace)
	if err != nil {
		return nil, err
	}
	in.Observed, in.Now = src.observed, src.now
	return input.PreviewEnvironment(all.Registry(), in, edited, src.fetch)
}

// environmentOf is the environment a cluster uses: the one its status pins, else, before
// the function has seen it, the one its spec names.
func environmentOf(obj *unstructured.Unstructured) string {
	if env := str(obj, "status", "backend", "environment"); env != "" {
		return env
	}
	return str(obj, "spec", "environment")
}

// isCluster says whether obj is an SCSCluster or a legacy XSCSCluster.
func isCluster(obj *unstructured.Unstructured) bool {
	return obj.GetAPIVersion() == kaasv1alpha1.APIVersion && (obj.GetKind() == kaasv1alpha1.ClaimKind || obj.GetKind() == kaasv1alpha1.CompositeKind)
}

// offlineEnvironmentTargets finds the clusters of env among --observed, each with its
// composed resources: those its resource references name, else those labelled with its
// composite's name (crossplane.io/composite) or its identity (kaas.scs.community/identity);
// with one cluster in --observed, every composed resource is its, as for a cluster's diff.
func (a *App) offlineEnvironmentTargets(o *diffOptions, env string) ([]envTarget, error) {
	if len(o.environments) == 0 {
		return nil, usage("--environment is required with --offline: the EnvironmentConfigs as they are")
	}
	observed, err := readManifests(a.IO.In, o.observed...)
	if err != nil {
		return nil, err
	}
	var clusters, composed, others []*unstructured.Unstructured
	for _, obj := range observed {
		switch {
		case isCluster(obj):
			clusters = append(clusters, obj)
		case obj.GetAnnotations()[annotationResourceName] != "":
			composed = append(composed, obj)
		default:
			others = append(others, obj)
		}
	}
	if len(clusters) == 0 {
		return nil, usage("--observed holds no %s: add the clusters as they are (kubectl get %s -A -o yaml) and their composed resources", kaasv1alpha1.ClaimKind, strings.ToLower(kaasv1alpha1.ClaimKind))
	}
	// One clock for every cluster, as one run of the function has.
	now := a.Now()
	var targets []envTarget
	for _, cluster := range clusters {
		if environmentOf(cluster) != env {
			continue
		}
		t := envTarget{cluster: cluster}
		owner, err := ownerOf(cluster, o.namespace)
		if err != nil {
			t.err = err
			targets = append(targets, t)
			continue
		}
		mine := slices.Clone(others)
		for _, obj := range composed {
			if len(clusters) == 1 || owner.owns(obj) {
				mine = append(mine, obj)
			}
		}
		src := &previewSource{current: cluster, now: now}
		var pool []*unstructured.Unstructured
		if src.observed, pool, err = a.offlineState(&o.renderOptions, mine); err != nil {
			return nil, err
		}
		src.fetch = fetcher(pool, &src.notes)
		t.src = src
		targets = append(targets, t)
	}
	sortTargets(targets)
	return targets, nil
}

// clusterOwner is what tells a cluster's composed resources from another's.
type clusterOwner struct {
	refs      []any
	composite string
	namespace string
	identity  string
}

func ownerOf(cluster *unstructured.Unstructured, namespace string) (clusterOwner, error) {
	r := &rendered{input: cluster}
	in, err := r.compositeInput(flavourUnknown, namespace)
	if err != nil {
		return clusterOwner{}, err
	}
	o := clusterOwner{composite: cluster.GetName(), namespace: cluster.GetNamespace(), identity: model.IdentityOf(in.Cluster).Hash()}
	if xr := str(cluster, "spec", "resourceRef", "name"); xr != "" {
		o.composite, o.namespace = xr, ""
	}
	o.refs, _, _ = unstructured.NestedSlice(cluster.Object, "spec", "resourceRefs")
	if crossplane, _, _ := unstructured.NestedSlice(cluster.Object, "spec", "crossplane", "resourceRefs"); len(crossplane) > 0 {
		o.refs = crossplane
	}
	return o, nil
}

// owns says whether obj is one of the cluster's composed resources.
func (o clusterOwner) owns(obj *unstructured.Unstructured) bool {
	for _, r := range o.refs {
		ref, _ := r.(map[string]any)
		if ref["apiVersion"] == obj.GetAPIVersion() && ref["kind"] == obj.GetKind() && ref["name"] == obj.GetName() {
			return true
		}
	}
	if len(o.refs) > 0 {
		return false
	}
	if obj.GetNamespace() != "" && o.namespace != "" && obj.GetNamespace() != o.namespace {
		return false
	}
	labels := obj.GetLabels()
	return labels["crossplane.io/composite"] == o.composite || labels[model.LabelIdentity] == o.identity
}

// liveEnvironmentTargets lists the clusters of env the user can read: the SCSClusters of
// every namespace (of -n only, when given), and in the legacy flavour the composites that
// no claim made. now is the time they are read at.
func liveEnvironmentTargets(ctx context.Context, c *Clients, env string, now time.Time) ([]envTarget, []string, error) {
	var notes []string
	ns := ""
	if c.NamespaceExplicit {
		ns = c.Namespace
	}
	list, err := c.clusters(ns).List(ctx, metav1.ListOptions{})
	if ns == "" && apierrors.IsForbidden(err) {
		notes = append(notes, fmt.Sprintf("%ss of every namespace are not readable: previewing those of namespace %s", kaasv1alpha1.ClaimKind, c.Namespace))
		list, err = c.clusters(c.Namespace).List(ctx, metav1.ListOptions{})
	}
	if err != nil {
		return nil, nil, fmt.Errorf("listing %ss: %w", kaasv1alpha1.ClaimKind, err)
	}
	var clusters []*unstructured.Unstructured
	for i := range list.Items {
		if environmentOf(&list.Items[i]) == env {
			clusters = append(clusters, &list.Items[i])
		}
	}
	if f, _ := servedFlavour(c.Discovery); f == flavourLegacy && ns == "" {
		composites, err := c.Dynamic.Resource(compositeGVR).List(ctx, metav1.ListOptions{})
		switch {
		case apierrors.IsForbidden(err):
			notes = append(notes, fmt.Sprintf("%ss are not readable: composites that no claim made are not previewed", kaasv1alpha1.CompositeKind))
		case err != nil:
			return nil, nil, fmt.Errorf("listing %ss: %w", kaasv1alpha1.CompositeKind, err)
		default:
			for i := range composites.Items {
				xr := &composites.Items[i]
				if xr.GetLabels()[model.LabelClaimName] == "" && environmentOf(xr) == env {
					clusters = append(clusters, xr)
				}
			}
		}
	}
	// Every cluster of the environment asks for the same environments and much else.
	fetch := cachedFetch(c.liveFetch(ctx))
	targets := make([]envTarget, 0, len(clusters))
	for _, cluster := range clusters {
		src, err := liveSourceOf(ctx, c, cluster, fetch, now)
		targets = append(targets, envTarget{cluster: cluster, src: src, err: err})
	}
	sortTargets(targets)
	return targets, notes, nil
}

func sortTargets(targets []envTarget) {
	slices.SortFunc(targets, func(a, b envTarget) int { return strings.Compare(clusterID(a.cluster), clusterID(b.cluster)) })
}

// cachedFetch answers each requirement once: the clusters of an environment ask for the
// same objects. Each answer is a copy, which the model may keep.
func cachedFetch(fetch input.Fetch) input.Fetch {
	cache := map[string][]*unstructured.Unstructured{}
	return func(name string, sel model.Selector) ([]*unstructured.Unstructured, error) {
		key := fmt.Sprintf("%s|%s|%s|%s|%s|%v", name, sel.APIVersion, sel.Kind, sel.Namespace, sel.MatchName, sel.MatchLabels)
		objs, ok := cache[key]
		if !ok {
			var err error
			if objs, err = fetch(name, sel); err != nil {
				return nil, err
			}
			cache[key] = objs
		}
		out := make([]*unstructured.Unstructured, 0, len(objs))
		for _, o := range objs {
			out = append(out, o.DeepCopy())
		}
		return out, nil
	}
}

// printEnvironmentPreview writes what an environment's edit means for one cluster: the
// settings of its backend that change, each with what it does, then what changes now and
// what adopting the edit would do, each with the unified diff of the native objects.
func printEnvironmentPreview(w io.Writer, r envResult) {
	kind, id := r.cluster.GetKind(), clusterID(r.cluster)
	if r.err != nil {
		fmt.Fprintf(w, "%s %s: cannot be previewed: %v\n", kind, id, r.err)
		return
	}
	p := r.preview
	fmt.Fprintf(w, "%s %s on %s:\n", kind, id, p.Now.Backend)
	if len(p.Settings) == 0 {
		fmt.Fprintln(w, "  no setting of its backend changes")
	}
	for _, s := range p.Settings {
		fmt.Fprintf(w, "  %s\n", s.Summary())
	}
	gap := false
	section := func(name string, p *model.Preview, to string) {
		if gap {
			fmt.Fprintln(w)
		}
		switch {
		case p.Refused != nil:
			fmt.Fprintf(w, "%s: refused: %s\n", name, p.Refused.Message)
		case !p.Changes():
			fmt.Fprintf(w, "%s: nothing changes\n", name)
		default:
			fmt.Fprintf(w, "%s: %s\n", name, objectsChange(len(p.Objects)))
			printPreviewBody(w, p, "  ", to)
		}
		gap = p.Refused == nil && len(p.Objects) > 0
	}
	section("now", p.Now, "environment edited")
	if p.Adopting == nil {
		fmt.Fprintln(w, "adopting: nothing to adopt: nothing of the cluster exists yet, so it is created with the environment as it is")
		return
	}
	section("adopting", p.Adopting, "adopted")
}

// objectsChange says how many native objects change.
func objectsChange(n int) string {
	switch n {
	case 0:
		return "no native object changes"
	case 1:
		return "1 native object changes"
	}
	return fmt.Sprintf("%d native objects change", n)
}

// envClusterData is the preview of an environment's edit for one cluster, for tools.
type envClusterData struct {
	Kind      string        `json:"kind"`
	Namespace string        `json:"namespace,omitempty"`
	Name      string        `json:"name"`
	Settings  []settingData `json:"settings"`
	Now       *previewData  `json:"now,omitempty"`
	Adopting  *previewData  `json:"adopting,omitempty"`
	Error     string        `json:"error,omitempty"`
}

func printEnvironmentData(w io.Writer, format, env string, results []envResult, changes bool) error {
	clusters := make([]envClusterData, 0, len(results))
	for _, r := range results {
		d := envClusterData{Kind: r.cluster.GetKind(), Namespace: r.cluster.GetNamespace(), Name: r.cluster.GetName(), Settings: []settingData{}}
		if r.err != nil {
			d.Error = r.err.Error()
		} else {
			now := previewDataOf(r.preview.Now)
			d.Now = &now
			if r.preview.Adopting != nil {
				adopting := previewDataOf(r.preview.Adopting)
				d.Adopting = &adopting
			}
			if s := settingsData(r.preview.Settings); s != nil {
				d.Settings = s
			}
		}
		clusters = append(clusters, d)
	}
	return printData(w, format, struct {
		Environment string           `json:"environment"`
		Changes     bool             `json:"changes"`
		Clusters    []envClusterData `json:"clusters"`
	}{env, changes, clusters})
}
