// Package input turns what a caller holds of one cluster into the model's Input, the same
// way for every caller: the composition function with what Crossplane sends it,
// `kubectl scs render` with the files a user gives it, and the tests that render. It decodes
// the composite resource of either flavour (a legacy claim too, turned into the composite
// Crossplane makes of it), and it plays Crossplane's part between the calls of a function
// for callers that have no Crossplane: the requirements loop.
//
// It imports only apimachinery, the API types and the model, like the model itself.
package input

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/model"
)

// Snapshot is what a caller holds of one cluster at one moment, as plain objects: what
// Crossplane sends a composition function about one composite resource.
type Snapshot struct {
	// Composite is the observed composite resource: a cluster-scoped XSCSCluster (the legacy
	// flavour, with claims) or a namespaced SCSCluster (the Crossplane v2 flavour).
	Composite map[string]any

	// ConnectionDetails are the observed composite's connection details: what Crossplane
	// last published to a legacy claim's Secret. Secret: never log them.
	ConnectionDetails map[string][]byte

	// Observed are the composed resources that exist, by composition resource name.
	Observed map[string]model.ObservedResource

	// Required are the resources fetched for the model's requirements, by requirement
	// name. A name that is absent was not fetched yet; one with no objects was fetched and
	// matched nothing.
	Required map[string][]*unstructured.Unstructured
}

// Decode turns a snapshot into the model's input. opts are the caller's settings; a legacy
// composite that names a namespace for its connection secret has composed resources write
// theirs there too, as Crossplane keeps the composite's there.
func Decode(req Snapshot, opts model.Options) (model.Input, error) {
	in := model.Input{Options: opts, Observed: req.Observed, Required: req.Required}
	xr := req.Composite
	if len(xr) == 0 {
		return in, fmt.Errorf("the request has no observed composite resource")
	}
	// encoding/json, not the unstructured converter: the composite's spec is what users
	// write, and encoding/json's error names the field and the type it wants.
	raw, err := json.Marshal(xr)
	if err != nil {
		return in, fmt.Errorf("cannot encode the observed composite resource: %w", err)
	}
	c := &kaasv1alpha1.XSCSCluster{}
	if err := json.Unmarshal(raw, c); err != nil {
		return in, fmt.Errorf("cannot decode the observed composite resource as %s: %w", kaasv1alpha1.CompositeKind, err)
	}
	in.Cluster = c
	// The API's types have no writeConnectionSecretToRef: Crossplane adds it to the XRD.
	ref := func(field string) string {
		s, _, _ := unstructured.NestedString(xr, "spec", "writeConnectionSecretToRef", field)
		return s
	}
	switch {
	case c.APIVersion == kaasv1alpha1.APIVersion && c.Kind == kaasv1alpha1.CompositeKind && c.Namespace == "":
		if ns := ref("namespace"); ns != "" {
			in.Options.ConnectionSecretNamespace = ns
		}
		in.ConnectionDetails = req.ConnectionDetails
		return in, nil
	case c.APIVersion == kaasv1alpha1.APIVersion && c.Kind == kaasv1alpha1.ClaimKind && c.Namespace != "":
		// Crossplane v2 gives namespaced composites no connection secret: the model
		// composes the kubeconfig Secret the spec names.
		in.KubeconfigSecret = ref("name")
		return in, nil
	}
	return in, fmt.Errorf("the composite resource is a %s %s; this function composes %s %s (cluster-scoped, with claims) and namespaced %s only",
		c.APIVersion, c.Kind, kaasv1alpha1.APIVersion, kaasv1alpha1.CompositeKind, kaasv1alpha1.ClaimKind)
}

// claimFields are the fields of a claim's spec that stay with the claim: Crossplane does not
// copy them to the composite.
var claimFields = []string{"writeConnectionSecretToRef", "resourceRef", "compositeDeletePolicy",
	"compositionRef", "compositionSelector", "compositionRevisionRef", "compositionUpdatePolicy"}

// CompositeOfClaim returns the XSCSCluster Crossplane composes for a legacy SCSCluster
// claim: named as the claim's spec.resourceRef says once it is bound (else after the
// claim), labelled with the claim's namespace and name, from which the cluster's identity
// and its names in the backend derive, with the claim's spec but for the claim's own fields,
// and its status. The claim must have a namespace; it is not changed.
func CompositeOfClaim(claim *unstructured.Unstructured) *unstructured.Unstructured {
	c := claim.DeepCopy()
	labels := c.GetLabels()
	if labels == nil {
		labels = map[string]string{}
	}
	labels[model.LabelClaimNamespace], labels[model.LabelClaimName] = c.GetNamespace(), c.GetName()
	name := c.GetName()
	if ref, _, _ := unstructured.NestedString(c.Object, "spec", "resourceRef", "name"); ref != "" {
		name = ref
	}
	spec, _ := c.Object["spec"].(map[string]any)
	for _, f := range claimFields {
		delete(spec, f)
	}
	xr := &unstructured.Unstructured{Object: map[string]any{"spec": spec}}
	if status, ok := c.Object["status"]; ok {
		xr.Object["status"] = status
	}
	xr.SetAPIVersion(kaasv1alpha1.APIVersion)
	xr.SetKind(kaasv1alpha1.CompositeKind)
	xr.SetName(name)
	xr.SetLabels(labels)
	xr.SetAnnotations(c.GetAnnotations())
	return xr
}

// MaxRounds is how often Crossplane calls a function in one reconcile while it asks for
// more resources: the requirements settle after a round or two, more rounds than this mean
// a bug.
const MaxRounds = 5

// Fetch answers one requirement of the model: the objects sel selects, as Crossplane
// fetches a required resource.
type Fetch func(name string, sel model.Selector) ([]*unstructured.Unstructured, error)

// Resolve runs the model until it has every resource it requires, answering each
// requirement through fetch as Crossplane does between the calls of a composition
// function. in.Required holds what was fetched already, if anything; a requirement is
// fetched again only when its selector changed.
func Resolve(reg *model.Registry, in model.Input, fetch Fetch) (*model.Output, error) {
	required := make(map[string][]*unstructured.Unstructured, len(in.Required))
	for name, objs := range in.Required {
		required[name] = objs
	}
	in.Required = required
	fetched := map[string]model.Selector{}
	for range MaxRounds {
		out, err := reg.Reconcile(in)
		if err != nil {
			return nil, err
		}
		if out.Complete {
			return out, nil
		}
		for _, name := range sortedKeys(out.Requirements) {
			sel := out.Requirements[name]
			if _, given := in.Required[name]; given {
				if last, ok := fetched[name]; !ok || sameSelector(last, sel) {
					continue
				}
			}
			objs, err := fetch(name, sel)
			if err != nil {
				return nil, fmt.Errorf("cannot fetch the resources of requirement %s: %w", name, err)
			}
			if objs == nil {
				// Fetched, and nothing matched: not the same as not fetched.
				objs = []*unstructured.Unstructured{}
			}
			in.Required[name] = objs
			fetched[name] = sel
		}
	}
	return nil, fmt.Errorf("the model still requires more resources after %d rounds; this is a bug of the model library, please report it", MaxRounds)
}

func sameSelector(a, b model.Selector) bool {
	return a.APIVersion == b.APIVersion && a.Kind == b.Kind && a.Namespace == b.Namespace &&
		a.MatchName == b.MatchName && maps.Equal(a.MatchLabels, b.MatchLabels)
}

func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}

// Preview renders a cluster as it is and as edited (its spec and annotations), both with
// the same observed state and each resolving its requirements through fetch, and says what
// the edit would do (model.PreviewEdit). An error means the preview could not be made (the
// cluster as it is is refused, a fetch failed); the function's refusal of the edit is the
// preview's Refused.
func Preview(reg *model.Registry, in model.Input, edited *kaasv1alpha1.XSCSCluster, fetch Fetch) (*model.Preview, error) {
	current, err := Resolve(reg, in, fetch)
	if err != nil {
		return nil, fmt.Errorf("the cluster as it is cannot be rendered, so no edit of it can be previewed: %w", err)
	}
	e := in
	e.Cluster = in.Cluster.DeepCopy()
	e.Cluster.Spec = *edited.Spec.DeepCopy()
	e.Cluster.Annotations = maps.Clone(edited.Annotations)
	var fetchErr error
	next, err := Resolve(reg, e, func(name string, sel model.Selector) ([]*unstructured.Unstructured, error) {
		objs, err := fetch(name, sel)
		fetchErr = err
		return objs, err
	})
	if fetchErr != nil {
		return nil, err
	}
	return model.PreviewEdit(current, next, err), nil
}

// EnvironmentPreview is what an edit of an EnvironmentConfig means for one cluster of it.
type EnvironmentPreview struct {
	// Settings are the settings of the cluster's backend whose value the edit changes;
	// Kept ones the cluster keeps until it adopts them.
	Settings []model.SettingEdit `json:"settings,omitempty"`
	// Now is what the edit does to the cluster at once: only the settings that follow the
	// environment change its native objects.
	Now *model.Preview `json:"now"`
	// Adopting is what adopting the edited environment's values then would do.
	Adopting *model.Preview `json:"adopting"`
}

// PreviewEnvironment renders a cluster as it is, with an edited EnvironmentConfig in place
// of the one of the same name (edited), and with that edit adopted, all with the same
// observed state, and says what the edit would do to the cluster now and what adopting it
// would do (model.PreviewEdit). fetch answers the requirements as for Preview.
func PreviewEnvironment(reg *model.Registry, in model.Input, edited *unstructured.Unstructured, fetch Fetch) (*EnvironmentPreview, error) {
	current, err := Resolve(reg, in, fetch)
	if err != nil {
		return nil, fmt.Errorf("the cluster as it is cannot be rendered, so no edit of its environment can be previewed: %w", err)
	}
	var fetchErr error
	var original *unstructured.Unstructured
	withEdit := func(name string, sel model.Selector) ([]*unstructured.Unstructured, error) {
		objs, err := fetch(name, sel)
		if err != nil {
			fetchErr = err
			return nil, err
		}
		if name != model.EnvironmentsRequirement {
			return objs, nil
		}
		out := make([]*unstructured.Unstructured, 0, len(objs))
		for _, o := range objs {
			if o.GetName() == edited.GetName() {
				original, o = o, edited
			}
			out = append(out, o)
		}
		return out, nil
	}
	render := func(annotations map[string]string) (*model.Output, error) {
		e := in
		e.Required = nil // fetched again, with the edit
		e.Cluster = in.Cluster.DeepCopy()
		e.Cluster.Annotations = annotations
		return Resolve(reg, e, withEdit)
	}
	now, nowErr := render(in.Cluster.Annotations)
	adopt := maps.Clone(in.Cluster.Annotations)
	if adopt == nil {
		adopt = map[string]string{}
	}
	adopt[kaasv1alpha1.AnnotationAdoptEnvironment] = current.Status.Backend.Adopted + "+preview"
	adopted, adoptErr := render(adopt)
	if fetchErr != nil {
		return nil, fetchErr
	}
	if original == nil {
		return nil, fmt.Errorf("the cluster's environment is not EnvironmentConfig %s", edited.GetName())
	}
	p := &EnvironmentPreview{Now: model.PreviewEdit(current, now, nowErr), Adopting: model.PreviewEdit(current, adopted, adoptErr)}
	before, errB := model.DecodeEnvironment(current.Environment.Name, original)
	after, errA := model.DecodeEnvironment(current.Environment.Name, edited)
	if errB == nil && errA == nil {
		if p.Settings, err = model.EnvironmentEdits(current.Backend, before, after, current.Spec.Kubernetes.Version); err != nil {
			return nil, err
		}
	}
	return p, nil
}
