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
	cases = append(cases, randomStrings(rand.New(rand.NewPCG(1, 2)), "az09-A._ä", 20000, 8)...)
	for _, s := range cases {
		if got, want := isDNSLabel(s), len(validation.IsDNS1123Label(s)) == 0; got != want {
			t.Errorf("isDNSLabel(%q) = %v, IsDNS1123Label says %v", s, got, want)
		}
	}
}

// randomStrings returns n strings of up to maxLen-1 bytes, each a byte of chars (a
// multi-byte character among them gives invalid UTF-8 too).
func randomStrings(r *rand.Rand, chars string, n, maxLen int) []string {
	out := make([]string, 0, n)
	for range n {
		b := make([]byte, r.IntN(maxLen))
		for i := range b {
			b[i] = chars[r.IntN(len(chars))]
		}
		out = append(out, string(b))
	}
	return out
}
