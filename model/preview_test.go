package model

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
)

// TestEverySpecFieldHasAnEffect walks the spec's types and checks that an edit of every
// field it finds belongs to a row of the capability table, whose effect each backend
// declares: a field added to the API without one fails here, instead of being previewed
// as something else.
func TestEverySpecFieldHasAnEffect(t *testing.T) {
	paths := specLeaves(reflect.TypeFor[kaasv1alpha1.ClusterSpec](), "")
	if len(paths) < 20 {
		t.Fatalf("found only %d fields in the spec: %v", len(paths), paths)
	}
	for _, p := range paths {
		if f, _, known := fieldOfSpecPath(p, "1.34", "1.35"); !known {
			t.Errorf("spec.%s: no row of the capability table covers it (fieldOfSpecPath); declare its effect", p)
		} else if !strings.Contains(strings.Join(fieldNames(), "|"), string(f)) {
			t.Errorf("spec.%s: row %q is not in Fields", p, f)
		}
	}
	if _, _, known := fieldOfSpecPath("newField", "1.34", "1.34"); known {
		t.Error("a path nobody declared is classified")
	}
}

func fieldNames() []string {
	out := make([]string, 0, len(Fields))
	for _, f := range Fields {
		out = append(out, string(f))
	}
	return out
}

// specLeaves lists the paths of every leaf of a type the way the preview flattens a spec:
// lists of objects with a name by the name, maps by a key, other lists as a whole, and
// types that encode themselves as JSON (IntOrString) as one value.
func specLeaves(t reflect.Type, prefix string) []string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Implements(reflect.TypeFor[json.Marshaler]()) || reflect.PointerTo(t).Implements(reflect.TypeFor[json.Marshaler]()) {
		return []string{prefix}
	}
	switch t.Kind() {
	case reflect.Struct:
		var out []string
		for i := range t.NumField() {
			name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
			if name == "" || name == "-" {
				continue
			}
			out = append(out, specLeaves(t.Field(i).Type, join(prefix, name))...)
		}
		return out
	case reflect.Slice:
		if e := t.Elem(); e.Kind() == reflect.Struct {
			if f, ok := e.FieldByName("Name"); ok && strings.HasPrefix(f.Tag.Get("json"), "name") {
				out := []string{prefix + "[p]"}
				for _, l := range specLeaves(e, prefix+"[p]") {
					if l != prefix+"[p].name" {
						out = append(out, l)
					}
				}
				return out
			}
		}
		return []string{prefix}
	case reflect.Map:
		return []string{prefix + ".k"}
	}
	return []string{prefix}
}
