// Command xrdgen generates the CompositeResourceDefinition of the SCS cluster API from its
// Go types (apis/kaas/v1alpha1), so that the Go types stay the single source of truth: the
// schema, its descriptions and its CEL rules all come from the types and their markers.
//
// It lives in its own module so that controller-tools and the API server libraries used by
// its tests stay out of the product's dependency graph.
package main

import (
	"encoding/json"
	"fmt"
	"os"

	xpv1 "github.com/crossplane/crossplane/apis/v2/apiextensions/v1"
	xpv2 "github.com/crossplane/crossplane/apis/v2/apiextensions/v2"
	extv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-tools/pkg/crd"
	crdmarkers "sigs.k8s.io/controller-tools/pkg/crd/markers"
	"sigs.k8s.io/controller-tools/pkg/loader"
	"sigs.k8s.io/controller-tools/pkg/markers"
	"sigs.k8s.io/yaml"
)

// The names of the API. They are fixed here rather than derived, because renaming any of
// them breaks every cluster in use. Both flavours serve the kind SCSCluster in the same
// group and version, so that a team's manifests are the same in both: the claim of the
// legacy flavour, the namespaced composite of the Crossplane v2 flavour. So they cannot be
// installed in one cluster together.
const (
	group      = "kaas.scs.community"
	version    = "v1alpha1"
	kind       = "XSCSCluster"
	plural     = "xscsclusters"
	claimKind  = "SCSCluster"
	claimPlrl  = "scsclusters"
	category   = "kaas"
	apiPackage = "./apis/kaas/v1alpha1"
)

// Flavour is one of the two shapes of the API.
type Flavour string

// The flavours.
const (
	// Legacy is the Crossplane v1 shape: a cluster-scoped XSCSCluster (LegacyCluster) with
	// the namespaced claim SCSCluster and connection secrets.
	Legacy Flavour = "legacy"
	// Namespaced is the Crossplane v2 shape: a namespaced composite SCSCluster; the
	// function composes the kubeconfig Secret named in spec.writeConnectionSecretToRef.
	Namespaced Flavour = "namespaced"
)

// Files are where each flavour's XRD is committed, relative to the repository root.
var Files = map[Flavour]string{
	Legacy:     "apis/xrd/legacy/xscsclusters.kaas.scs.community.yaml",
	Namespaced: "apis/xrd/namespaced/scsclusters.kaas.scs.community.yaml",
}

// connectionSecretKeys are the keys every backend delivers where it can (docs/kubeconfig.md).
var connectionSecretKeys = []string{"kubeconfig", "endpoint", "ca.crt", "oidc-kubeconfig"}

// printerColumns are the same in both flavours.
var printerColumns = []extv1.CustomResourceColumnDefinition{
	{Name: "ENVIRONMENT", Type: "string", JSONPath: ".status.backend.environment"},
	{Name: "BACKEND", Type: "string", JSONPath: ".status.backend.type"},
	{Name: "VERSION", Type: "string", JSONPath: ".status.kubernetes.version"},
	{Name: "PHASE", Type: "string", JSONPath: ".status.phase"},
	{Name: "API-SERVER", Type: "string", JSONPath: ".status.apiServerURL", Priority: 1},
	{Name: "BACKEND-NAME", Type: "string", JSONPath: ".status.backend.name", Priority: 1},
}

// writeConnectionSecretToRef is the namespaced flavour's own field for the kubeconfig
// Secret: Crossplane v2 gives namespaced composites none, and this one keeps the claim's
// spelling so that manifests stay the same.
var writeConnectionSecretToRef = extv1.JSONSchemaProps{
	Type: "object",
	Description: "WriteConnectionSecretToRef names the Secret, in the composite's namespace, that the function " +
		"composes with the cluster's kubeconfig, endpoint and ca.crt (docs/kubeconfig.md). Omitted: none.",
	Required: []string{"name"},
	Properties: map[string]extv1.JSONSchemaProps{
		"name": {Type: "string", MinLength: ptr.To[int64](1), MaxLength: ptr.To[int64](253),
			Pattern:     `^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`,
			Description: "Name of the Secret."},
	},
}

// Generate loads the API package (a path relative to the working directory, which must be
// inside the root module) and returns the XRD of a flavour as YAML.
func Generate(pkgPath string, f Flavour) ([]byte, error) {
	generated, err := schemas(pkgPath)
	if err != nil {
		return nil, err
	}
	// Crossplane adds metadata and its own spec and status fields; the XRD carries only the
	// API's spec and status, and the rules that span both (Crossplane copies them into the
	// composite's and the claim's CRDs).
	spec := generated.Properties["spec"]
	description := "XSCSCluster is a Kubernetes cluster offered by a Sovereign Cloud Stack KaaS provider. The platform's EnvironmentConfig decides which backend builds it; the spec is the same for all of them."
	if f == Namespaced {
		description = "SCSCluster is a Kubernetes cluster offered by a Sovereign Cloud Stack KaaS provider. The platform's EnvironmentConfig decides which backend builds it; the spec is the same for all of them."
		spec = *spec.DeepCopy()
		spec.Properties["writeConnectionSecretToRef"] = writeConnectionSecretToRef
	}
	root := extv1.JSONSchemaProps{
		Type:         "object",
		Description:  description,
		Required:     []string{"spec"},
		Properties:   map[string]extv1.JSONSchemaProps{"spec": spec, "status": generated.Properties["status"]},
		XValidations: generated.XValidations,
	}
	reflowDescriptions(&root)
	rawSchema, err := json.Marshal(root)
	if err != nil {
		return nil, err
	}

	var xrd any
	switch f {
	case Legacy:
		xrd = &xpv1.CompositeResourceDefinition{
			TypeMeta:   metav1.TypeMeta{APIVersion: xpv1.SchemeGroupVersion.String(), Kind: xpv1.CompositeResourceDefinitionKind},
			ObjectMeta: metav1.ObjectMeta{Name: plural + "." + group},
			Spec: xpv1.CompositeResourceDefinitionSpec{
				Group: group,
				Names: extv1.CustomResourceDefinitionNames{
					Kind: kind, ListKind: kind + "List", Plural: plural, Singular: "xscscluster",
					Categories: []string{category}, ShortNames: []string{"xscsc"},
				},
				ClaimNames: &extv1.CustomResourceDefinitionNames{
					Kind: claimKind, ListKind: claimKind + "List", Plural: claimPlrl, Singular: "scscluster",
					Categories: []string{category}, ShortNames: []string{"scsc"},
				},
				// Claims exist only for LegacyCluster composite resources in Crossplane v2.
				Scope:                 ptr.To(xpv1.CompositeResourceScopeLegacyCluster),
				ConnectionSecretKeys:  connectionSecretKeys,
				DefaultCompositionRef: &xpv1.CompositionReference{Name: plural + "." + group},
				Versions: []xpv1.CompositeResourceDefinitionVersion{{
					Name: version, Served: true, Referenceable: true,
					Schema:                   &xpv1.CompositeResourceValidation{OpenAPIV3Schema: runtime.RawExtension{Raw: rawSchema}},
					AdditionalPrinterColumns: printerColumns,
				}},
			},
		}
	case Namespaced:
		xrd = &xpv2.CompositeResourceDefinition{
			TypeMeta:   metav1.TypeMeta{APIVersion: xpv2.SchemeGroupVersion.String(), Kind: xpv2.CompositeResourceDefinitionKind},
			ObjectMeta: metav1.ObjectMeta{Name: claimPlrl + "." + group},
			Spec: xpv2.CompositeResourceDefinitionSpec{
				Group: group,
				Names: extv1.CustomResourceDefinitionNames{
					Kind: claimKind, ListKind: claimKind + "List", Plural: claimPlrl, Singular: "scscluster",
					Categories: []string{category}, ShortNames: []string{"scsc"},
				},
				Scope:                 xpv2.CompositeResourceScopeNamespaced,
				DefaultCompositionRef: &xpv2.CompositionReference{Name: claimPlrl + "." + group},
				Versions: []xpv2.CompositeResourceDefinitionVersion{{
					Name: version, Served: true, Referenceable: true,
					Schema:                   &xpv2.CompositeResourceValidation{OpenAPIV3Schema: runtime.RawExtension{Raw: rawSchema}},
					AdditionalPrinterColumns: printerColumns,
				}},
			},
		}
	default:
		return nil, fmt.Errorf("unknown flavour %q", f)
	}
	obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(xrd)
	if err != nil {
		return nil, err
	}
	// Crossplane writes the status of an XRD; the API server sets creationTimestamp.
	delete(obj, "status")
	delete(obj["metadata"].(map[string]any), "creationTimestamp")
	out, err := yaml.Marshal(obj)
	if err != nil {
		return nil, err
	}
	header := fmt.Sprintf("# Code generated by hack/xrdgen from apis/kaas/v1alpha1 (make generate), flavour %s. DO NOT EDIT.\n", f)
	return append([]byte(header), out...), nil
}

// schemas returns the OpenAPI schema of the API type, with its markers applied.
func schemas(pkgPath string) (*extv1.JSONSchemaProps, error) {
	pkgs, err := loader.LoadRoots(pkgPath)
	if err != nil {
		return nil, fmt.Errorf("cannot load %s: %w", pkgPath, err)
	}
	reg := &markers.Registry{}
	if err := crdmarkers.Register(reg); err != nil {
		return nil, err
	}
	parser := &crd.Parser{Collector: &markers.Collector{Registry: reg}, Checker: &loader.TypeChecker{}}
	crd.AddKnownTypes(parser)
	for _, p := range pkgs {
		parser.NeedPackage(p)
	}
	gk := schema.GroupKind{Group: group, Kind: kind}
	parser.NeedCRDFor(gk, nil)
	for _, p := range pkgs {
		if len(p.Errors) > 0 {
			return nil, fmt.Errorf("cannot generate the schema of %s: %v", pkgPath, p.Errors)
		}
	}
	c, ok := parser.CustomResourceDefinitions[gk]
	if !ok || len(c.Spec.Versions) != 1 {
		return nil, fmt.Errorf("found no single version of %s in %s", kind, pkgPath)
	}
	return c.Spec.Versions[0].Schema.OpenAPIV3Schema, nil
}

func main() {
	if len(os.Args) != 1 {
		fmt.Fprintln(os.Stderr, "usage: xrdgen   (run from the repository root; writes every flavour's XRD)")
		os.Exit(2)
	}
	for _, f := range []Flavour{Legacy, Namespaced} {
		out, err := Generate(apiPackage, f)
		if err == nil {
			err = os.WriteFile(Files[f], out, 0o644)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "xrdgen:", err)
			os.Exit(1)
		}
	}
}
