package model

import (
	"math/rand/v2"
	"strings"
	"testing"

	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// TestLabelSyntax holds the label checks to apimachinery's regular expressions, on edge
// cases and on random strings of the characters that matter.
func TestLabelSyntax(t *testing.T) {
	cases := []string{"", "a", "-", "a-", "-a", "a.b", "a_b", "a..b", "A", "0", "/", "a/", "/a", "a/b",
		"a/b/c", "a.b/c", "A.b/c", "a-/c", "a..b/c", ".a/c", "a_b/c", "example.com/MyName", "ä",
		strings.Repeat("a", 63), strings.Repeat("a", 64), strings.Repeat("a", 253) + "/a",
		strings.Repeat("a", 254) + "/a", strings.Repeat("a", 100) + "/" + strings.Repeat("b", 63),
		strings.Repeat("a", 100) + "." + strings.Repeat("b", 100) + "/x"}
	cases = append(cases, randomStrings(rand.New(rand.NewPCG(5, 6)), "azAZ09-_./ä", 50000, 12)...)
	for _, s := range cases {
		if got, want := isLabelKey(s), len(validation.IsQualifiedName(s)) == 0; got != want {
			t.Errorf("isLabelKey(%q) = %v, IsQualifiedName says %v", s, got, want)
		}
		if got, want := isLabelValue(s), len(validation.IsValidLabelValue(s)) == 0; got != want {
			t.Errorf("isLabelValue(%q) = %v, IsValidLabelValue says %v", s, got, want)
		}
		if got, want := isDNSSubdomain(s), len(validation.IsDNS1123Subdomain(s)) == 0; got != want {
			t.Errorf("isDNSSubdomain(%q) = %v, IsDNS1123Subdomain says %v", s, got, want)
		}
		labels := map[string]string{s: "v", "k": s}
		if got, want := labelsValid(labels), len(metav1validation.ValidateLabels(labels, field.NewPath("l"))) == 0; got != want {
			t.Errorf("labelsValid(%v) = %v, ValidateLabels says %v", labels, got, want)
		}
	}
}
