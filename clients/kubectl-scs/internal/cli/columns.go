package cli

import (
	"bytes"
	"fmt"
	"io"
	"reflect"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/duration"
	"k8s.io/cli-runtime/pkg/printers"
	"k8s.io/client-go/util/jsonpath"

	"github.com/SovereignCloudStack/scs-kaas/clients/kubectl-scs/internal/schemas"
)

// Crossplane's own printer columns, which it appends to the XRD's when it generates the
// SCSCluster CRD (crossplane-runtime v2, pkg/xcrd: CompositeResourceClaimPrinterColumns for
// claims, CompositeResourcePrinterColumns for namespaced composites). With the XRD's
// columns they are what kubectl get kaas shows.
var (
	syncedColumn = schemas.Column{Name: "SYNCED", Type: "string", JSONPath: ".status.conditions[?(@.type=='Synced')].status"}
	readyColumn  = schemas.Column{Name: "READY", Type: "string", JSONPath: ".status.conditions[?(@.type=='Ready')].status"}
	ageColumn    = schemas.Column{Name: "AGE", Type: "date", JSONPath: ".metadata.creationTimestamp"}

	claimColumns     = []schemas.Column{syncedColumn, readyColumn, {Name: "CONNECTION-SECRET", Type: "string", JSONPath: ".spec.writeConnectionSecretToRef.name"}, ageColumn}
	compositeColumns = []schemas.Column{syncedColumn, readyColumn,
		{Name: "COMPOSITION", Type: "string", JSONPath: ".spec.crossplane.compositionRef.name"},
		{Name: "COMPOSITIONREVISION", Type: "string", JSONPath: ".spec.crossplane.compositionRevisionRef.name", Priority: 1},
		ageColumn}
)

// columnsFor is every printer column of SCSCluster in a flavour, in kubectl's order.
func columnsFor(f flavour) []schemas.Column {
	own := schemas.PrinterColumns()
	if f == flavourLegacy {
		return append(own, claimColumns...)
	}
	return append(own, compositeColumns...)
}

// table turns objects into the Table kubectl's printer prints, with the cells computed as
// the API server computes them for a custom resource (apiextensions-apiserver's
// tableconvertor): a missing value is an empty cell, a date an age.
func table(objs []*unstructured.Unstructured, cols []schemas.Column, now time.Time) (*metav1.Table, error) {
	t := &metav1.Table{ColumnDefinitions: []metav1.TableColumnDefinition{{Name: "Name", Type: "string", Format: "name"}}}
	paths := make([]*jsonpath.JSONPath, 0, len(cols))
	for _, c := range cols {
		t.ColumnDefinitions = append(t.ColumnDefinitions, metav1.TableColumnDefinition{Name: c.Name, Type: c.Type, Priority: c.Priority})
		p := jsonpath.New(c.Name)
		p.AllowMissingKeys(true)
		if err := p.Parse(fmt.Sprintf("{%s}", c.JSONPath)); err != nil {
			return nil, fmt.Errorf("printer column %s: %w", c.Name, err)
		}
		paths = append(paths, p)
	}
	var buf bytes.Buffer
	for _, o := range objs {
		row := metav1.TableRow{Cells: []any{o.GetName()}, Object: runtime.RawExtension{Object: o}}
		for i, p := range paths {
			results, err := p.FindResults(o.Object)
			if err != nil || len(results) == 0 || len(results[0]) == 0 {
				row.Cells = append(row.Cells, nil)
				continue
			}
			value := results[0][0].Interface()
			if cols[i].Type == "string" {
				buf.Reset()
				if err := p.PrintResults(&buf, []reflect.Value{reflect.ValueOf(value)}); err != nil {
					row.Cells = append(row.Cells, nil)
					continue
				}
				row.Cells = append(row.Cells, buf.String())
				continue
			}
			row.Cells = append(row.Cells, cell(cols[i].Type, value, now))
		}
		t.Rows = append(t.Rows, row)
	}
	return t, nil
}

// cell formats a value of a non-string column.
func cell(typ string, value any, now time.Time) any {
	switch typ {
	case "date":
		s, ok := value.(string)
		if !ok {
			return nil
		}
		var ts metav1.Time
		if err := ts.UnmarshalQueryParameter(s); err != nil {
			return "<invalid>"
		}
		if ts.IsZero() {
			return "<unknown>"
		}
		return duration.HumanDuration(now.Sub(ts.Time))
	case "integer", "number", "boolean":
		return value
	}
	return nil
}

// printTable prints a table as kubectl get does: upper-case headers, columns aligned,
// priority columns only when wide, a NAMESPACE column first when listing all namespaces.
func printTable(w io.Writer, t *metav1.Table, wide, withNamespace bool) error {
	tw := printers.GetNewTabWriter(w)
	p := printers.NewTablePrinter(printers.PrintOptions{Wide: wide, WithNamespace: withNamespace})
	if err := p.PrintObj(t, tw); err != nil {
		return err
	}
	return tw.Flush()
}
