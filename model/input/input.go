// Package input turns what a caller holds of one cluster into the model's Input, the same
// way for the function, `kubectl scs render` and the tests: the composite of either flavour
// (or a legacy claim), and Crossplane's requirements loop for callers without Crossplane.
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

// Snapshot is what Crossplane sends a composition function about one composite resource.
type Snapshot struct {
	// Composite is a cluster-scoped XSCSCluster (legacy) or a namespaced SCSCluster.
	Composite map[string]any
	// ConnectionDetails are the observed composite's. Secret: never log them.
	ConnectionDetails map[string][]byte
	Observed          map[string]model.ObservedResource
	// Required are the resources fetched, by requirement: absent, not fetched; empty, none.
	Required map[string][]*unstructured.Unstructured
}

// Decode turns a snapshot into the model's input. A legacy composite's connection secret
// namespace is where composed resources write theirs too, as Crossplane keeps it there.
func Decode(req Snapshot, opts model.Options) (model.Input, error) {
	in := model.Input{Options: opts, Observed: req.Observed, Required: req.Required}
	xr := req.Composite
	if len(xr) == 0 {
		return in, fmt.Errorf("the request has no observed composite resource")
	}
	// encoding/json, whose error names the field and the type users must write.
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
			in.ConnectionSecret = ref("name")
		}
		in.ConnectionDetails = req.ConnectionDetails
		return in, nil
	case c.APIVersion == kaasv1alpha1.APIVersion && c.Kind == kaasv1alpha1.ClaimKind && c.Namespace != "":
		// Crossplane v2 gives these no connection secret: the model composes it.
		in.KubeconfigSecret = ref("name")
		return in, nil
	}
	return in, fmt.Errorf("the composite resource is a %s %s; this function composes %s %s (cluster-scoped, with claims) and namespaced %s only",
		c.APIVersion, c.Kind, kaasv1alpha1.APIVersion, kaasv1alpha1.CompositeKind, kaasv1alpha1.ClaimKind)
}

// claimFields stay with the claim: Crossplane does not copy them to the composite.
var claimFields = []string{"writeConnectionSecretToRef", "resourceRef", "compositeDeletePolicy",
	"compositionRef", "compositionSelector", "compositionRevisionRef", "compositionUpdatePolicy"}

// CompositeOfClaim returns the XSCSCluster Crossplane composes for a legacy claim: named by
// spec.resourceRef (else after the claim), with the claim labels the cluster's identity
// derives from, the spec but the claim's own fields, and the status. claim is not changed.
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

// MaxRounds is how often Crossplane calls a function in one reconcile while it asks for more
// resources; the requirements settle after one or two.
const MaxRounds = 5

// Fetch answers one requirement of the model, as Crossplane fetches a required resource.
type Fetch func(name string, sel model.Selector) ([]*unstructured.Unstructured, error)

// Resolve runs the model until it has every resource it requires, fetching as Crossplane
// does. What in.Required holds is fetched again only when its selector changed.
func Resolve(reg *model.Registry, in model.Input, fetch Fetch) (*model.Output, error) {
	required := make(map[string][]*unstructured.Unstructured, len(in.Required))
	maps.Copy(required, in.Required)
	in.Required = required
	fetched := map[string]model.Selector{}
	answered := false
	for round := 0; round < MaxRounds; round++ {
		out, err := reg.Reconcile(in)
		if err != nil {
			return nil, err
		}
		if out.Complete && len(out.LookingFor) == 0 {
			return out, nil
		}
		if out.Complete && !answered {
			// What its lookout observes is nowhere in what the caller gave: a new cluster.
			// Crossplane would call again once the providers report: not a round of its loop.
			in.Observed, answered = lookedOutNowhere(in.Observed, out), true
			round--
			continue
		}
		if out.Complete {
			return out, nil
		}
		for _, name := range slices.Sorted(maps.Keys(out.Requirements)) {
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

// Preview renders a cluster as it is and as edited (spec and annotations) with the same
// observed state, and says what the edit would do. A refusal of the edit is the preview's
// Refused; an error means there is no preview.
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
	// Settings are the settings whose value the edit changes.
	Settings []model.SettingEdit `json:"settings,omitempty"`
	// Now is what the edit does at once: only settings that follow change native objects.
	Now *model.Preview `json:"now"`
	// Adopting is what adopting the edited environment's values then would do; nil while
	// nothing of the cluster exists.
	Adopting *model.Preview `json:"adopting,omitempty"`
}

// PreviewEnvironment renders a cluster as it is, with edited in place of the
// EnvironmentConfig of its name, and with that edit adopted, all with the same observed state.
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
	if fetchErr != nil {
		return nil, fetchErr
	}
	if original == nil {
		return nil, fmt.Errorf("the cluster's environment is not EnvironmentConfig %s", edited.GetName())
	}
	p := &EnvironmentPreview{Now: model.PreviewEdit(current, now, nowErr)}
	if !current.Created {
		// Before it exists, a cluster has nothing to adopt: it takes the environment as it
		// is, each setting listed once, in Settings.
		p.Now.Settings = nil
	} else {
		adopt := map[string]string{}
		maps.Copy(adopt, in.Cluster.Annotations)
		adopt[kaasv1alpha1.AnnotationAdoptEnvironment] = current.Status.Backend.Adopted + "+preview"
		adopted, adoptErr := render(adopt)
		if fetchErr != nil {
			return nil, fetchErr
		}
		p.Adopting = model.PreviewEdit(current, adopted, adoptErr)
	}
	before, errB := model.DecodeEnvironment(current.Environment.Name, original)
	after, errA := model.DecodeEnvironment(current.Environment.Name, edited)
	if errB == nil && errA == nil {
		if p.Settings, err = model.EnvironmentEdits(current, before, after); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// lookedOutNowhere is observed with each pending lookout reported as finding nothing.
func lookedOutNowhere(observed map[string]model.ObservedResource, out *model.Output) map[string]model.ObservedResource {
	o := make(map[string]model.ObservedResource, len(observed)+len(out.LookingFor))
	maps.Copy(o, observed)
	for _, res := range out.Rendering.Resources {
		if slices.Contains(out.LookingFor, res.Name) {
			o[res.Name] = model.ObservedResource{Object: model.ReportedNotThere(res.Object)}
		}
	}
	return o
}
