package model

import (
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
)

// Label keys and values are checked on every call for every pool; their validation in
// apimachinery runs regular expressions. These say what it says without them, and the
// validation still words every refusal (TestLabelSyntax holds them to it).

// isLabelKey says what len(validation.IsQualifiedName(s)) == 0 says: a name of at most 63
// characters, with an optional DNS subdomain prefix and '/'.
func isLabelKey(s string) bool {
	name := s
	if prefix, rest, found := strings.Cut(s, "/"); found {
		if !isDNSSubdomain(prefix) {
			return false
		}
		name = rest
	}
	return name != "" && len(name) <= validation.LabelValueMaxLength && isLabelWord(name)
}

// isLabelValue says what len(validation.IsValidLabelValue(s)) == 0 says.
func isLabelValue(s string) bool {
	return s == "" || len(s) <= validation.LabelValueMaxLength && isLabelWord(s)
}

// isLabelWord: alphanumerics, '-', '_' and '.', beginning and ending with an alphanumeric.
func isLabelWord(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case (c == '-' || c == '_' || c == '.') && i > 0 && i < len(s)-1:
		default:
			return false
		}
	}
	return s != ""
}

// isDNSSubdomain says what len(validation.IsDNS1123Subdomain(s)) == 0 says: lower-case
// DNS labels joined by dots, at most 253 characters.
func isDNSSubdomain(s string) bool {
	if len(s) > validation.DNS1123SubdomainMaxLength {
		return false
	}
	for part := range strings.SplitSeq(s, ".") {
		if part == "" || part[0] == '-' || part[len(part)-1] == '-' {
			return false
		}
		for i := 0; i < len(part); i++ {
			if c := part[i]; !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-') {
				return false
			}
		}
	}
	return true
}

// labelsValid says what an empty validation.ValidateLabels says.
func labelsValid(labels map[string]string) bool {
	for k, v := range labels {
		if !isLabelKey(k) || !isLabelValue(v) {
			return false
		}
	}
	return true
}
