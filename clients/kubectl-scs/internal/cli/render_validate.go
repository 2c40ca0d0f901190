package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/clients/kubectl-scs/internal/schemas"
)

// crossplaneSpecFields are the fields Crossplane adds to the spec of a claim or composite
// (its CRDs declare them, the XRD does not); the input is checked without them.
var crossplaneSpecFields = []string{"crossplane", "compositionRef", "compositionSelector", "compositionRevisionRef",
	"compositionRevisionSelector", "compositionUpdatePolicy", "compositeDeletePolicy", "resourceRef", "resourceRefs",
	"claimRef", "publishConnectionDetailsTo", "environmentConfigRefs"}

// validateRendered checks the input and every rendered object against the schemas at
// hand and says, object by object, against what; objects of kinds without a schema are
// named as not checked. Invalid objects make it a refusal.
func (a *App) validateRendered(r *rendered, paths []string) error {
	w := a.IO.ErrOut
	set := schemas.NewSet()
	sources := []string{schemas.XRDSource}
	if len(paths) == 0 {
		paths = projectSchemaPaths()
	}
	for _, p := range paths {
		n, err := set.AddPath(p)
		if err != nil {
			return fmt.Errorf("reading schemas: %w", err)
		}
		sources = append(sources, fmt.Sprintf("%s (%d kinds)", p, n))
	}
	fmt.Fprintf(w, "Validation against OpenAPI schemas: %s\n", strings.Join(sources, ", "))
	fmt.Fprintln(w, "  (CEL rules, x-kubernetes-validations, are not evaluated offline; the model checked the API's own rules)")

	invalid := 0
	check := func(label string, obj *unstructured.Unstructured) {
		sch := set.Lookup(obj.GroupVersionKind())
		if sch == nil {
			fmt.Fprintf(w, "  not checked  %s: no schema of %s %s at hand\n", label, obj.GetAPIVersion(), obj.GetKind())
			return
		}
		problems := sch.Validate(obj.Object)
		if len(problems) == 0 {
			fmt.Fprintf(w, "  valid        %s: %s\n", label, sch.Source)
			return
		}
		invalid++
		fmt.Fprintf(w, "  INVALID      %s: %s:\n", label, sch.Source)
		for _, p := range problems {
			fmt.Fprintf(w, "                 %s\n", p)
		}
	}

	input, err := inputWithStatus(r)
	if err != nil {
		return err
	}
	check(fmt.Sprintf("%s %s (the input, with the status the function would write)", input.GetKind(), describeID(input)), input)
	for _, obj := range r.objects {
		label := fmt.Sprintf("%s %s", obj.GetKind(), describeID(obj))
		check(label, obj)
		if m := wrappedManifest(obj); m != nil {
			check(fmt.Sprintf("%s %s inside %s", m.GetKind(), describeID(m), label), m)
		}
	}
	if invalid > 0 {
		if invalid == 1 {
			return refused("1 object does not match its schema; the API server would refuse it or drop fields")
		}
		return refused("%d objects do not match their schemas; the API server would refuse them or drop fields", invalid)
	}
	return nil
}

func describeID(o *unstructured.Unstructured) string {
	if o.GetNamespace() != "" {
		return o.GetNamespace() + "/" + o.GetName()
	}
	return o.GetName()
}

// inputWithStatus is the input as the API server would store it, without Crossplane's own
// spec fields, with the status the function would write.
func inputWithStatus(r *rendered) (*unstructured.Unstructured, error) {
	obj := r.input.DeepCopy()
	if spec, ok := obj.Object["spec"].(map[string]any); ok {
		for _, f := range crossplaneSpecFields {
			delete(spec, f)
		}
		if obj.GetKind() == kaasv1alpha1.CompositeKind {
			// A legacy composite's connection secret reference is Crossplane's.
			delete(spec, "writeConnectionSecretToRef")
		}
	}
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

// projectSchemaPaths are the schema directories of a checkout of the project, when
// kubectl-scs runs inside one: the Shoot CRD the e2e garden serves, the kubeconfig
// provider's CRDs, and the upstream CRDs of ../shared/crds where present.
func projectSchemaPaths() []string {
	dir, err := os.Getwd()
	if err != nil {
		return nil
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "apis", "xrd", "namespaced")); err == nil {
			var out []string
			for _, p := range []string{
				filepath.Join(dir, "hack", "shootcrd", "crds"),
				filepath.Join(dir, "providers", "provider-gardener-kubeconfig", "package", "crds"),
				filepath.Join(dir, "..", "shared", "crds"),
			} {
				if _, err := os.Stat(p); err == nil {
					if rel, err := filepath.Rel(mustGetwd(), p); err == nil {
						p = rel
					}
					out = append(out, p)
				}
			}
			return out
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return nil
		}
		dir = parent
	}
}

func mustGetwd() string {
	wd, _ := os.Getwd()
	return wd
}
