package schemas

import (
	"context"
	"encoding/json"
	"fmt"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	structurallisttype "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/listtype"
	schemaobjectmeta "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
)

// crdChecker checks a custom resource as kube-apiserver's apiextensions does on create,
// with its code and in its order: unknown fields pruned (reported, since the API server
// drops them with a warning only), defaults applied, then the metadata, the OpenAPI
// schema, embedded objects' metadata, list sets and maps, and the CEL rules
// (x-kubernetes-validations; transition rules need an old object and do not apply), which
// the API server skips while a blocking error stands.
type crdChecker struct {
	source     string
	structural *structuralschema.Structural
	schema     apiservervalidation.SchemaValidator
	cel        *cel.Validator
	celRules   int
	// namespaced is the kind's scope; nil where it depends on the flavour (an
	// XSCSCluster is namespaced in Crossplane v2 and cluster-scoped in the legacy one).
	namespaced *bool
	// strip are fields of spec that Crossplane's generated CRD adds to an XRD's schema.
	strip []string
}

func newCRDChecker(openAPIV3Schema map[string]any, source string, namespaced *bool, strip []string) (*crdChecker, error) {
	data, err := json.Marshal(openAPIV3Schema)
	if err != nil {
		return nil, err
	}
	external := apiextensionsv1.JSONSchemaProps{}
	if err := json.Unmarshal(data, &external); err != nil {
		return nil, err
	}
	internal := apiextensions.JSONSchemaProps{}
	if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(&external, &internal, nil); err != nil {
		return nil, err
	}
	structural, err := structuralschema.NewStructural(&internal)
	if err != nil {
		return nil, fmt.Errorf("not a structural schema: %w", err)
	}
	validator, _, err := apiservervalidation.NewSchemaValidator(&internal)
	if err != nil {
		return nil, err
	}
	c := &crdChecker{source: source, structural: structural, schema: validator, namespaced: namespaced, strip: strip}
	if c.celRules = countRules(openAPIV3Schema); c.celRules > 0 {
		c.cel = cel.NewValidator(structural, true, celconfig.PerCallLimit)
	}
	return c, nil
}

func (c *crdChecker) describe() string {
	rules := "no CEL rules"
	switch {
	case c.celRules == 1:
		rules = "1 CEL rule"
	case c.celRules > 1:
		rules = fmt.Sprintf("%d CEL rules", c.celRules)
	}
	return fmt.Sprintf("%s: OpenAPI schema, %s, pruning, defaults, metadata, list keys", c.source, rules)
}

func (c *crdChecker) check(obj *unstructured.Unstructured) field.ErrorList {
	u := runtime.DeepCopyJSON(obj.Object)
	if spec, ok := u["spec"].(map[string]any); ok {
		for _, f := range c.strip {
			delete(spec, f)
		}
	}
	namespaced := obj.GetNamespace() != ""
	if c.namespaced != nil {
		namespaced = *c.namespaced
	}
	var errs field.ErrorList
	for _, p := range pruning.PruneWithOptions(u, c.structural, true, structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true}) {
		errs = append(errs, field.Forbidden(field.NewPath(p), "unknown field: the API server drops it"))
	}
	structuraldefaulting.Default(u, c.structural)
	errs = append(errs, apimachineryvalidation.ValidateObjectMetaAccessor(obj, namespaced, apimachineryvalidation.NameIsDNSSubdomain, field.NewPath("metadata"))...)
	errs = append(errs, apiservervalidation.ValidateCustomResource(nil, u, c.schema)...)
	errs = append(errs, schemaobjectmeta.Validate(nil, u, c.structural, false)...)
	errs = append(errs, structurallisttype.ValidateListSetsAndMaps(nil, c.structural, u)...)
	if c.cel != nil {
		if blocking(errs) {
			errs = append(errs, field.Forbidden(field.NewPath("x-kubernetes-validations"), "the CEL rules were not checked while the errors above stand, as the API server does"))
		} else {
			celErrs, _ := c.cel.Validate(context.Background(), nil, c.structural, u, nil, celconfig.RuntimeCELCostBudget)
			errs = append(errs, celErrs...)
		}
	}
	return errs
}

// blocking says whether the API server would skip the CEL rules: after errors of these
// types, rules could see values of the wrong type.
func blocking(errs field.ErrorList) bool {
	for _, err := range errs {
		switch err.Type {
		case field.ErrorTypeNotSupported, field.ErrorTypeRequired, field.ErrorTypeTooLong, field.ErrorTypeTooMany, field.ErrorTypeTypeInvalid:
			return true
		}
	}
	return false
}

// countRules counts the CEL rules of a schema, for reports.
func countRules(v any) int {
	n := 0
	switch val := v.(type) {
	case map[string]any:
		for k, sub := range val {
			if rules, ok := sub.([]any); ok && k == "x-kubernetes-validations" {
				n += len(rules)
				continue
			}
			n += countRules(sub)
		}
	case []any:
		for _, sub := range val {
			n += countRules(sub)
		}
	}
	return n
}
