// Package schemas checks objects offline as the API servers that serve them would on create:
// against the API's XRD and the CRDs of every kind the function renders or reads (built
// in), Gardener's validation for Shoots, and whatever CRDs or XRDs the user points it at.
package schemas

import (
	_ "embed"
	"fmt"

	"sigs.k8s.io/yaml"
)

// The namespaced flavour's XRD, built in (builtin.go). The namespaced one because its
// schema is the superset a team writes in either flavour: the legacy claim adds only
// Crossplane's own fields, which Crossplane validates.
//
//go:embed builtin/scsclusters.kaas.scs.community.yaml
var xrdYAML []byte

// Column is a printer column of the API, as kubectl get shows it.
type Column struct {
	Name     string `json:"name"`
	Type     string `json:"type"`
	JSONPath string `json:"jsonPath"`
	Priority int32  `json:"priority,omitempty"`
}

// xrd is the part of a CompositeResourceDefinition this package reads.
type xrd struct {
	Spec struct {
		Group string `json:"group"`
		Names struct {
			Kind string `json:"kind"`
		} `json:"names"`
		ClaimNames *struct {
			Kind string `json:"kind"`
		} `json:"claimNames"`
		Versions []struct {
			Name                     string   `json:"name"`
			AdditionalPrinterColumns []Column `json:"additionalPrinterColumns"`
			Schema                   struct {
				OpenAPIV3Schema map[string]any `json:"openAPIV3Schema"`
			} `json:"schema"`
		} `json:"versions"`
	} `json:"spec"`
}

func parseXRD(data []byte) (*xrd, error) {
	x := &xrd{}
	if err := yaml.Unmarshal(data, x); err != nil {
		return nil, err
	}
	if len(x.Spec.Versions) == 0 {
		return nil, fmt.Errorf("the XRD has no versions")
	}
	return x, nil
}

// embedded is the embedded XRD, parsed once; it is part of the binary, so a failure is a
// bug that the tests catch.
var embedded = func() *xrd {
	x, err := parseXRD(xrdYAML)
	if err != nil {
		panic(fmt.Sprintf("the embedded XRD: %v", err))
	}
	return x
}()

// PrinterColumns are the XRD's additionalPrinterColumns: the API's own columns of kubectl
// get, before the ones Crossplane adds.
func PrinterColumns() []Column {
	return append([]Column(nil), embedded.Spec.Versions[0].AdditionalPrinterColumns...)
}
