package model

import (
	"math/rand/v2"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation"
)

// TestIsDNSLabel holds isDNSLabel to the regular expression it replaces, on edge cases and
// on random strings of the characters that matter.
func TestIsDNSLabel(t *testing.T) {
	cases := []string{"", "a", "-", "a-", "-a", "a-b", "A", "a.b", "a_b", "0", "0-0", "a--b",
		strings.Repeat("a", 63), strings.Repeat("a", 64), "ä", "a\n"}
	r := rand.New(rand.NewPCG(1, 2))
	const chars = "az09-A._ä"
	for range 20000 {
		b := make([]byte, r.IntN(8))
		for i := range b {
			b[i] = chars[r.IntN(len(chars))]
		}
		cases = append(cases, string(b))
	}
	for _, s := range cases {
		if got, want := isDNSLabel(s), len(validation.IsDNS1123Label(s)) == 0; got != want {
			t.Errorf("isDNSLabel(%q) = %v, IsDNS1123Label says %v", s, got, want)
		}
	}
}
