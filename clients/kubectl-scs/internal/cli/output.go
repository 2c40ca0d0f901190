package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// Output formats, as kubectl spells them.
const (
	outputTable = ""
	outputWide  = "wide"
	outputYAML  = "yaml"
	outputJSON  = "json"
	outputName  = "name"
)

// addOutputFlag adds -o with the formats a command supports.
func addOutputFlag(cmd *cobra.Command, target *string, def string, formats ...string) {
	cmd.Flags().StringVarP(target, "output", "o", def, "Output format: one of "+strings.Join(formats, "|"))
	_ = cmd.RegisterFlagCompletionFunc("output", cobra.FixedCompletions(formats, cobra.ShellCompDirectiveNoFileComp))
}

// checkOutput refuses a format the command does not support.
func checkOutput(format string, formats ...string) error {
	if format == outputTable || slices.Contains(formats, format) {
		return nil
	}
	return usage("unknown output format %q: use one of %s", format, strings.Join(formats, "|"))
}

// cleaned drops metadata.managedFields, as kubectl does unless --show-managed-fields: it
// is the API server's bookkeeping and buries the object.
func cleaned(obj *unstructured.Unstructured) map[string]any {
	out := obj.DeepCopy().Object
	if md, ok := out["metadata"].(map[string]any); ok {
		delete(md, "managedFields")
	}
	return out
}

// printObjects prints objects as YAML documents, a JSON object or List, or kind/name
// lines. asList wraps even one object in a List, as kubectl get without a name does.
func printObjects(w io.Writer, format string, objs []*unstructured.Unstructured, asList bool) error {
	switch format {
	case outputName:
		for _, o := range objs {
			fmt.Fprintln(w, objectName(o))
		}
		return nil
	case outputYAML, outputJSON:
	default:
		return usage("unknown output format %q", format)
	}
	var v any
	if asList || len(objs) != 1 {
		items := make([]any, 0, len(objs))
		for _, o := range objs {
			items = append(items, cleaned(o))
		}
		v = map[string]any{"apiVersion": "v1", "kind": "List", "items": items, "metadata": map[string]any{"resourceVersion": ""}}
	} else {
		v = cleaned(objs[0])
	}
	return printValue(w, format, v)
}

// printYAMLStream prints objects as one YAML stream, documents separated by ---, which
// kubectl apply -f and the render command's --observed read back.
func printYAMLStream(w io.Writer, objs []*unstructured.Unstructured) error {
	for i, o := range objs {
		if i > 0 {
			fmt.Fprintln(w, "---")
		}
		if err := printValue(w, outputYAML, cleaned(o)); err != nil {
			return err
		}
	}
	return nil
}

// printValue prints any value as YAML or as JSON indented like kubectl's.
func printValue(w io.Writer, format string, v any) error {
	if format == outputJSON {
		data, err := json.MarshalIndent(v, "", "    ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(w, "%s\n", data)
		return err
	}
	data, err := yaml.Marshal(v)
	if err != nil {
		return err
	}
	_, err = w.Write(data)
	return err
}

// objectName is kind.group/name, as kubectl -o name prints it.
func objectName(o *unstructured.Unstructured) string {
	gvk := o.GroupVersionKind()
	kind := strings.ToLower(gvk.Kind)
	if gvk.Group != "" {
		kind += "." + gvk.Group
	}
	return kind + "/" + o.GetName()
}
