package cli

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/cli-runtime/pkg/genericclioptions"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/model"
	"github.com/SovereignCloudStack/scs-kaas/model/all"
	"github.com/SovereignCloudStack/scs-kaas/model/input"
)

// Annotations and defaults of Crossplane that render reproduces, so that its output reads
// like crossplane render's and can be fed back as --observed.
const (
	annotationResourceName = "crossplane.io/composition-resource-name"
	// crossplaneNamespace is where composed resources of a legacy composite write their
	// connection secrets, as the function's default.
	crossplaneNamespace = "crossplane-system"
)

type renderOptions struct {
	file         string
	environments []string
	observed     []string
	required     []string
	flavour      string
	namespace    string
	output       string
	validate     bool
	schemas      []string
}

func (a *App) newRenderCommand(flags *genericclioptions.ConfigFlags) *cobra.Command {
	o := &renderOptions{}
	cmd := &cobra.Command{
		Use:   "render -f CLUSTER.yaml --environment ENV.yaml [--observed DIR] [--validate]",
		Short: "Render an SCSCluster into its backend's native objects, offline",
		Long: `Render an SCSCluster offline, without a cluster, with the model library the composition
function runs: choose the environment from --environment (EnvironmentConfigs), default and
validate the spec, and print the native objects the backend would get (a Gardener Shoot in
a provider-kubernetes Object, a Cluster API Cluster, Magnum's ClusterV1 and NodegroupV1s).
Warnings (fields the backend cannot honour) and the status the function would report go to
standard error. A refusal exits 3 with the function's reason and message, which names the
field.

--observed takes the composed resources as they exist (files or directories, each object
with the annotation crossplane.io/composition-resource-name, as render prints them);
objects without that annotation, and those of --required, answer the backend's further
requirements (ClusterStackReleases, a kubeconfig Secret, the namespace).

The manifest may be an SCSCluster of either flavour or a legacy XSCSCluster. --flavour
says which one an SCSCluster is rendered as; a claim that Crossplane has bound
(spec.resourceRef) is legacy.

--validate checks the input, with the status the function would write, and every
rendered object as kubectl scs validate does: offline, against schemas built into the
binary, with the API servers' own code (apiextensions-apiserver for custom resources, CEL
rules included; Gardener's validation for Shoots). It says per object what was checked
against what. Exits 3 when an object is invalid.`,
		Example: `  kubectl scs render -f examples/claims/gardener-minimal.yaml --environment examples/environments
  kubectl scs render -f dev.yaml --environment env.yaml --observed observed/ --validate`,
		Args: args(0, 0, "no arguments; the SCSCluster comes with -f"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if flags.Namespace != nil {
				o.namespace = *flags.Namespace
			}
			return a.render(o)
		},
	}
	fs := cmd.Flags()
	fs.StringVarP(&o.file, "filename", "f", "", "The SCSCluster (or XSCSCluster) manifest, or - for stdin")
	fs.StringSliceVar(&o.environments, "environment", nil, "EnvironmentConfig files or directories (repeatable)")
	fs.StringSliceVar(&o.observed, "observed", nil, "Files or directories of the composed resources as they exist")
	fs.StringSliceVar(&o.required, "required", nil, "Files or directories of further resources the backend may require")
	fs.StringVar(&o.flavour, "flavour", "", "Render an SCSCluster as a namespaced composite or a legacy claim: namespaced|legacy (default: namespaced, legacy for a bound claim)")
	fs.BoolVar(&o.validate, "validate", false, "Check the input and the rendered objects offline, as the API servers would")
	fs.StringSliceVar(&o.schemas, "schemas", nil, "CRD or XRD files or directories of further kinds to validate against")
	addOutputFlag(cmd, &o.output, outputYAML, outputYAML, outputJSON, outputName)
	_ = cmd.MarkFlagFilename("filename", "yaml", "yml", "json")
	_ = cmd.MarkFlagFilename("environment", "yaml", "yml", "json")
	_ = cmd.RegisterFlagCompletionFunc("flavour", cobra.FixedCompletions([]string{string(flavourNamespaced), string(flavourLegacy)}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

// rendered is one render's result, for output and validation.
type rendered struct {
	input   *unstructured.Unstructured
	flavour flavour
	out     *model.Output
	// objects are printed: composed, with Secrets' values replaced by their SHA-256.
	objects []*unstructured.Unstructured
	// composed are the objects as the function composes them, for validation, which
	// names keys, never values.
	composed []*unstructured.Unstructured
	notes    []string
}

func (a *App) render(o *renderOptions) error {
	if o.file == "" {
		return usage("-f is required: the SCSCluster to render")
	}
	if len(o.environments) == 0 {
		return usage("--environment is required: the EnvironmentConfigs to choose from")
	}
	if err := checkOutput(o.output, outputYAML, outputJSON, outputName); err != nil {
		return err
	}
	switch flavour(o.flavour) {
	case flavourUnknown, flavourLegacy, flavourNamespaced:
	default:
		return usage("--flavour must be namespaced or legacy, not %q", o.flavour)
	}
	r, err := a.renderOffline(o)
	if err != nil {
		return err
	}
	a.printNotes(r.notes)
	switch o.output {
	case outputYAML:
		err = printYAMLStream(a.IO.Out, r.objects)
	default:
		err = printObjects(a.IO.Out, o.output, r.objects, true)
	}
	if err != nil {
		return err
	}
	summarise(a.IO.ErrOut, r)
	if o.validate {
		return a.validateRendered(r, o.schemas)
	}
	return nil
}

func (a *App) renderOffline(o *renderOptions) (*rendered, error) {
	inputs, err := readManifests(a.IO.In, o.file)
	if err != nil {
		return nil, err
	}
	if len(inputs) != 1 {
		return nil, usage("%s holds %d objects; render takes one SCSCluster", o.file, len(inputs))
	}
	r := &rendered{input: inputs[0]}
	in, err := r.compositeInput(flavour(o.flavour), o.namespace)
	if err != nil {
		return nil, err
	}
	// The function's clock decides whether an update of the cluster's own starts now (its
	// window, its wave) and what has expired: the CLI's clock stands in for it.
	in.Now = a.Now()
	observed, err := readManifests(a.IO.In, o.observed...)
	if err != nil {
		return nil, err
	}
	var pool []*unstructured.Unstructured
	if in.Observed, pool, err = a.offlineState(o, observed); err != nil {
		return nil, err
	}

	out, err := input.Resolve(all.Registry(), in, fetcher(pool, &r.notes))
	if err != nil {
		return nil, refused("refused (%s): %v", model.ReasonOf(err), err)
	}
	r.out = out
	for _, res := range out.Rendering.Resources {
		obj := res.Object.DeepCopy()
		annotations := obj.GetAnnotations()
		if annotations == nil {
			annotations = map[string]string{}
		}
		annotations[annotationResourceName] = res.Name
		obj.SetAnnotations(annotations)
		r.composed = append(r.composed, obj)
		if obj.GetAPIVersion() == "v1" && obj.GetKind() == "Secret" {
			printed := obj.DeepCopy()
			if redact(printed) {
				r.notes = append(r.notes, fmt.Sprintf("Secret %s: its values are shown as their SHA-256", obj.GetName()))
			}
			obj = printed
		}
		r.objects = append(r.objects, obj)
	}
	return r, nil
}

// offlineState is what Crossplane would see of a cluster, from files: the observed objects
// with a composition resource name are the composed resources, with the connection
// details of their Secrets at hand; the EnvironmentConfigs of --environment, the other
// observed objects and those of --required answer the backend's requirements (the pool).
func (a *App) offlineState(o *renderOptions, observed []*unstructured.Unstructured) (map[string]model.ObservedResource, []*unstructured.Unstructured, error) {
	envs, err := readManifests(a.IO.In, o.environments...)
	if err != nil {
		return nil, nil, err
	}
	required, err := readManifests(a.IO.In, o.required...)
	if err != nil {
		return nil, nil, err
	}
	var pool []*unstructured.Unstructured
	for _, e := range envs {
		if e.GetAPIVersion() != model.EnvironmentConfigAPIVersion || e.GetKind() != model.EnvironmentConfigKind {
			return nil, nil, usage("--environment takes %s %s objects; %s %q is not one", model.EnvironmentConfigAPIVersion, model.EnvironmentConfigKind, e.GetKind(), e.GetName())
		}
		pool = append(pool, e)
	}
	composed := map[string]model.ObservedResource{}
	for _, obj := range observed {
		name := obj.GetAnnotations()[annotationResourceName]
		if name == "" {
			pool = append(pool, obj)
			continue
		}
		composed[name] = model.ObservedResource{Object: obj}
	}
	pool = append(pool, required...)
	for name, res := range composed {
		if details := connectionDetails(res.Object, pool); details != nil {
			res.ConnectionDetails = details
			composed[name] = res
		}
	}
	return composed, pool, nil
}

// compositeInput turns the manifest into the composite resource the function would see:
// a namespaced SCSCluster as it is, a legacy claim as the XSCSCluster Crossplane makes of
// it, an XSCSCluster as it is; and that into the model's input as the function makes it.
func (r *rendered) compositeInput(want flavour, namespace string) (model.Input, error) {
	obj := r.input.DeepCopy()
	if obj.GetAPIVersion() != kaasv1alpha1.APIVersion || (obj.GetKind() != kaasv1alpha1.ClaimKind && obj.GetKind() != kaasv1alpha1.CompositeKind) {
		return model.Input{}, usage("%s %q is not an %s %s or %s", obj.GetKind(), obj.GetName(), kaasv1alpha1.APIVersion, kaasv1alpha1.ClaimKind, kaasv1alpha1.CompositeKind)
	}
	if obj.GetKind() == kaasv1alpha1.ClaimKind && obj.GetNamespace() == "" {
		if namespace == "" {
			namespace = "default"
		}
		obj.SetNamespace(namespace)
		r.input.SetNamespace(namespace)
	}
	switch {
	case obj.GetKind() == kaasv1alpha1.CompositeKind:
		r.flavour = flavourLegacy
	case want == flavourLegacy || (want == flavourUnknown && flavourOf(obj) == flavourLegacy):
		r.flavour = flavourLegacy
		obj = input.CompositeOfClaim(obj)
	default:
		r.flavour = flavourNamespaced
	}
	in, err := input.Decode(input.Snapshot{Composite: obj.Object}, model.Options{ConnectionSecretNamespace: crossplaneNamespace})
	if err != nil {
		return in, fmt.Errorf("%s %q: %w", r.input.GetKind(), r.input.GetName(), err)
	}
	return in, nil
}

// fetcher answers the model's requirements from the objects at hand, as Crossplane answers
// them from the cluster. A namespace nobody gave is assumed to carry only the label every
// namespace has.
func fetcher(pool []*unstructured.Unstructured, notes *[]string) input.Fetch {
	return func(name string, sel model.Selector) ([]*unstructured.Unstructured, error) {
		found := selectObjects(sel, pool)
		if name == model.NamespaceRequirement && len(found) == 0 {
			ns := sel.MatchLabels["kubernetes.io/metadata.name"]
			found = []*unstructured.Unstructured{{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace",
				"metadata": map[string]any{"name": ns, "labels": map[string]any{"kubernetes.io/metadata.name": ns}}}}}
			*notes = append(*notes, fmt.Sprintf("namespace %s was not given (--required): rendered as if it had no labels but kubernetes.io/metadata.name, which matters to environments that admit namespaces by label", ns))
		}
		return found, nil
	}
}

// connectionDetails are what Crossplane reads as a composed resource's connection details:
// the data of the Secret its spec.writeConnectionSecretToRef names (in the resource's own
// namespace when the reference has none), if that Secret is at hand.
func connectionDetails(obj *unstructured.Unstructured, pool []*unstructured.Unstructured) map[string][]byte {
	name, _, _ := unstructured.NestedString(obj.Object, "spec", "writeConnectionSecretToRef", "name")
	ns, _, _ := unstructured.NestedString(obj.Object, "spec", "writeConnectionSecretToRef", "namespace")
	if ns == "" {
		ns = obj.GetNamespace()
	}
	if name == "" {
		return nil
	}
	for _, s := range pool {
		if s.GetAPIVersion() != "v1" || s.GetKind() != "Secret" || s.GetName() != name || s.GetNamespace() != ns {
			continue
		}
		data, _, _ := unstructured.NestedStringMap(s.Object, "data")
		out := make(map[string][]byte, len(data))
		for k, v := range data {
			if raw, err := base64.StdEncoding.DecodeString(v); err == nil {
				out[k] = raw
			}
		}
		return out
	}
	return nil
}

// selectObjects picks the objects a requirement selects.
func selectObjects(sel model.Selector, pool []*unstructured.Unstructured) []*unstructured.Unstructured {
	var out []*unstructured.Unstructured
	for _, o := range pool {
		if o.GetAPIVersion() != sel.APIVersion || o.GetKind() != sel.Kind {
			continue
		}
		if sel.Namespace != "" && o.GetNamespace() != sel.Namespace {
			continue
		}
		if sel.MatchName != "" {
			if o.GetName() == sel.MatchName {
				out = append(out, o)
			}
			continue
		}
		labels := o.GetLabels()
		match := true
		for k, v := range sel.MatchLabels {
			if labels[k] != v {
				match = false
				break
			}
		}
		if match {
			out = append(out, o)
		}
	}
	return out
}

// redact replaces each value of a rendered Secret with its SHA-256, as the function's
// golden files hold them: a kubeconfig from --observed or --required stays out of the
// output, and a change still shows.
func redact(secret *unstructured.Unstructured) bool {
	data, _, _ := unstructured.NestedMap(secret.Object, "data")
	for k, v := range data {
		raw, err := base64.StdEncoding.DecodeString(fmt.Sprint(v))
		if err != nil {
			raw = []byte(fmt.Sprint(v))
		}
		sum := sha256.Sum256(raw)
		data[k] = "sha256:" + hex.EncodeToString(sum[:])
	}
	if len(data) == 0 {
		return false
	}
	_ = unstructured.SetNestedMap(secret.Object, data, "data")
	return true
}

// summarise says on standard error what was rendered for which backend, the status the
// function would report, and every warning.
func summarise(w io.Writer, r *rendered) {
	out := r.out
	id := r.input.GetName()
	if ns := r.input.GetNamespace(); ns != "" {
		id = ns + "/" + id
	}
	objects := "objects"
	if len(r.objects) == 1 {
		objects = "object"
	}
	fmt.Fprintf(w, "Rendered %s %s (%s flavour) for backend %s in environment %s: %d %s\n",
		r.input.GetKind(), id, r.flavour, out.Environment.Backend, out.Environment.Name, len(r.objects), objects)
	if out.Status.Backend != nil && out.Status.Backend.Name != "" {
		fmt.Fprintf(w, "  name in the backend: %s\n", out.Status.Backend.Name)
	}
	fmt.Fprintf(w, "  phase: %s\n", orDefault(string(out.Status.Phase), "not reported"))
	for _, c := range out.Observation.Conditions {
		cond := model.ObservedCondition{Type: c.Type, Status: string(c.Status), Reason: c.Reason, Message: c.Message, Found: true}
		fmt.Fprintf(w, "  %s: %s\n", c.Type, cond)
	}
	for _, u := range out.Rendering.Unsupported {
		fmt.Fprintf(w, "Warning: %s: %s\n", u.Field, u.Reason)
	}
}
