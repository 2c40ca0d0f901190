package provider

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/types"
)

// documented is an attribute as docs/terraform.md names it: its full path in backticks
// (`node_pools[].machine_type`), or its list's with its own name in backticks (the table
// row of `node_pools[].taints` lists `key`, `value` and `effect`).
type documented struct{ parent, name string }

func (d documented) full() string {
	if d.parent == "" {
		return d.name
	}
	return d.parent + "." + d.name
}

// specDocNames are the spec attributes under parent, nested ones included.
func specDocNames(parent string, fields []field) []documented {
	var out []documented
	for _, f := range fields {
		d := documented{parent: parent, name: f.Name}
		switch f.Kind {
		case kObject:
			// Named through its fields: `kubernetes.version`.
			out = append(out, specDocNames(d.full(), f.Fields)...)
			continue
		case kObjectList:
			out = append(out, specDocNames(d.full()+"[]", f.Fields)...)
		}
		out = append(out, d)
	}
	return out
}

// TestDocsNameEveryAttribute: docs/terraform.md describes every attribute of the provider,
// the resource and the data sources; a new field of the API fails here until it does.
func TestDocsNameEveryAttribute(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "..", "docs", "terraform.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	names := specDocNames("", specFields)
	for _, n := range []string{"id", "namespace", "name", "wait_for_ready", "kubeconfig"} {
		names = append(names, documented{name: n})
	}
	for _, n := range []string{"create", "update", "delete"} {
		names = append(names, documented{parent: "timeouts", name: n})
	}
	for n, t := range statusAttrTypes {
		names = append(names, documented{parent: "status", name: n})
		if o, ok := t.(types.ObjectType); ok {
			for m := range o.AttrTypes {
				names = append(names, documented{parent: "status." + n, name: m})
			}
		}
	}
	for n := range environmentAttrTypes {
		names = append(names, documented{name: n})
	}
	for _, n := range []string{"kubeconfig_path", "kubeconfig_context", "namespace", "dry_run_on_plan"} {
		names = append(names, documented{name: n})
	}
	var missing []string
	for _, d := range names {
		if strings.Contains(doc, "`"+d.full()+"`") {
			continue
		}
		parent := strings.TrimSuffix(d.parent, "[]")
		if parent != "" && strings.Contains(doc, "`"+parent+"`") && strings.Contains(doc, "`"+d.name+"`") {
			continue
		}
		missing = append(missing, d.full())
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("docs/terraform.md does not name these attributes: %s", strings.Join(missing, ", "))
	}
}
