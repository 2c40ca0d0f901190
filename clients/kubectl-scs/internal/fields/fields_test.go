package fields

import (
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func TestString(t *testing.T) {
	obj := &unstructured.Unstructured{Object: map[string]any{
		"spec": map[string]any{"version": "1.34", "count": int64(2), "none": nil},
	}}
	for _, c := range []struct {
		path []string
		want string
	}{
		{[]string{"spec", "version"}, "1.34"},
		{[]string{"spec", "count"}, "2"},
		{[]string{"spec", "none"}, ""},
		{[]string{"spec", "missing"}, ""},
		{[]string{"spec", "version", "deeper"}, ""},
	} {
		if got := String(obj, c.path...); got != c.want {
			t.Errorf("String(%v) = %q, want %q", c.path, got, c.want)
		}
	}
}

func TestStrings(t *testing.T) {
	obj := &unstructured.Unstructured{Object: map[string]any{
		"catalog": map[string]any{"versions": []any{"1.33", "1.34"}, "numbers": []any{1.5, int64(2)}, "empty": []any{}, "scalar": "x"},
	}}
	for _, c := range []struct {
		path []string
		want []string
	}{
		{[]string{"catalog", "versions"}, []string{"1.33", "1.34"}},
		{[]string{"catalog", "numbers"}, []string{"1.5", "2"}},
		{[]string{"catalog", "empty"}, nil},
		{[]string{"catalog", "scalar"}, nil},
		{[]string{"catalog", "missing"}, nil},
	} {
		got := Strings(obj, c.path...)
		if !slices.Equal(got, c.want) || (got == nil) != (c.want == nil) {
			t.Errorf("Strings(%v) = %#v, want %#v", c.path, got, c.want)
		}
	}
}

// TestStalled: only a Stalled True about the current generation says the cluster will not
// progress; one about an older generation may be fixed already.
func TestStalled(t *testing.T) {
	cluster := func(generation int64, conds ...any) *unstructured.Unstructured {
		u := &unstructured.Unstructured{Object: map[string]any{"status": map[string]any{"conditions": conds}}}
		u.SetGeneration(generation)
		return u
	}
	stalled := func(status string, observed any) map[string]any {
		return map[string]any{"type": "Stalled", "status": status, "reason": "InvalidSpec", "message": "no", "observedGeneration": observed}
	}
	for _, c := range []struct {
		name string
		obj  *unstructured.Unstructured
		want bool
	}{
		{"true about this generation", cluster(3, stalled("True", int64(3))), true},
		{"as JSON numbers decode", cluster(3, stalled("True", float64(3))), true},
		{"about an older generation", cluster(3, stalled("True", int64(2))), false},
		{"without a generation", cluster(3, stalled("True", nil)), false},
		{"false", cluster(3, stalled("False", int64(3))), false},
		{"not reported", cluster(3), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, ok := Stalled(c.obj)
			if ok != c.want {
				t.Errorf("Stalled = %v, want %v", ok, c.want)
			}
			if ok && (s.Reason != "InvalidSpec" || s.Message != "no") {
				t.Errorf("Stalled condition = %+v", s)
			}
		})
	}
}
