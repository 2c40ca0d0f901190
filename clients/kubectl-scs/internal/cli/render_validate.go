package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/SovereignCloudStack/scs-kaas/clients/kubectl-scs/internal/schemas"
)

// validation checks objects offline against what is built in and --schemas, and says
// object by object what was checked against what.
type validation struct {
	w       io.Writer
	set     *schemas.Set
	invalid int
	// unknown counts the objects of kinds without a checker.
	unknown int
}

func newValidation(w io.Writer, paths []string) (*validation, error) {
	set := schemas.NewSet()
	sources := []string{"the schemas built into kubectl-scs"}
	for _, p := range paths {
		n, err := set.AddPath(p)
		if err != nil {
			return nil, fmt.Errorf("reading schemas: %w", err)
		}
		sources = append(sources, fmt.Sprintf("%s (%d kinds)", p, n))
	}
	fmt.Fprintf(w, "Validation, offline, as the API servers would on create, with %s:\n", strings.Join(sources, ", "))
	return &validation{w: w, set: set}, nil
}

// check checks one object, and the native object inside it when it is a
// provider-kubernetes Object.
func (v *validation) check(label string, obj *unstructured.Unstructured) {
	checked, problems, found := v.set.Check(obj)
	switch {
	case !found:
		v.unknown++
		fmt.Fprintf(v.w, "  not checked  %s: kubectl-scs has no schema of %s %s\n", label, obj.GetAPIVersion(), obj.GetKind())
	case len(problems) == 0:
		fmt.Fprintf(v.w, "  valid        %s: %s\n", label, checked)
	default:
		v.invalid++
		fmt.Fprintf(v.w, "  INVALID      %s: %s:\n", label, checked)
		for _, p := range problems {
			fmt.Fprintf(v.w, "                 %s\n", p.Error())
		}
	}
	if m := wrappedManifest(obj); m != nil {
		v.check(fmt.Sprintf("%s %s inside %s", m.GetKind(), describeID(m), label), m)
	}
}

// result is a refusal when an object was invalid, or, with strict, when one had no
// checker.
func (v *validation) result(strict bool) error {
	switch {
	case v.invalid == 1:
		return refused("1 object is invalid; the API server would refuse it or drop fields")
	case v.invalid > 1:
		return refused("%d objects are invalid; the API servers would refuse them or drop fields", v.invalid)
	case strict && v.unknown > 0:
		return refused("%d objects could not be checked (--strict)", v.unknown)
	}
	return nil
}

// validateRendered checks the input, with the status the function would write, and every
// rendered object.
func (a *App) validateRendered(r *rendered, paths []string) error {
	v, err := newValidation(a.IO.ErrOut, paths)
	if err != nil {
		return err
	}
	input, err := inputWithStatus(r)
	if err != nil {
		return err
	}
	v.check(fmt.Sprintf("%s %s (the input, with the status the function would write)", input.GetKind(), describeID(input)), input)
	for _, obj := range r.composed {
		v.check(fmt.Sprintf("%s %s", obj.GetKind(), describeID(obj)), obj)
	}
	return v.result(false)
}

func describeID(o *unstructured.Unstructured) string {
	if o.GetNamespace() != "" {
		return o.GetNamespace() + "/" + o.GetName()
	}
	return o.GetName()
}

// inputWithStatus is the input with the status the function would write.
func inputWithStatus(r *rendered) (*unstructured.Unstructured, error) {
	obj := r.input.DeepCopy()
	data, err := json.Marshal(r.out.Status)
	if err != nil {
		return nil, err
	}
	status := map[string]any{}
	if err := json.Unmarshal(data, &status); err != nil {
		return nil, err
	}
	obj.Object["status"] = status
	return obj, nil
}

// wrappedManifest is the native object inside a provider-kubernetes Object
// (spec.forProvider.manifest), which lives in another cluster and has its own schema.
func wrappedManifest(obj *unstructured.Unstructured) *unstructured.Unstructured {
	g := obj.GroupVersionKind().Group
	if obj.GetKind() != "Object" || (g != "kubernetes.crossplane.io" && g != "kubernetes.m.crossplane.io") {
		return nil
	}
	m, found, _ := unstructured.NestedMap(obj.Object, "spec", "forProvider", "manifest")
	if !found || len(m) == 0 {
		return nil
	}
	return &unstructured.Unstructured{Object: m}
}
