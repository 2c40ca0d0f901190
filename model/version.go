package model

import (
	"fmt"
	"strconv"
	"strings"
)

// Version is a Kubernetes minor ("1.34") or patch ("1.34.2"); a leading "v", as Cluster API
// writes versions, is accepted.
type Version struct {
	Major, Minor int
	Patch        int // -1 for a minor
}

// ParseVersion parses "1.34", "1.34.2" or "v1.34.2".
func ParseVersion(s string) (Version, error) {
	parts := strings.Split(strings.TrimPrefix(s, "v"), ".")
	if len(parts) < 2 || len(parts) > 3 {
		return Version{}, fmt.Errorf("%q is not a Kubernetes version such as 1.34 or 1.34.2", s)
	}
	v := Version{Patch: -1}
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 || (len(p) > 1 && p[0] == '0') {
			return Version{}, fmt.Errorf("%q is not a Kubernetes version such as 1.34 or 1.34.2", s)
		}
		switch i {
		case 0:
			v.Major = n
		case 1:
			v.Minor = n
		case 2:
			v.Patch = n
		}
	}
	return v, nil
}

// MinorString is the minor, such as "1.34".
func (v Version) MinorString() string { return fmt.Sprintf("%d.%d", v.Major, v.Minor) }

// HasPatch says whether the version pins a patch.
func (v Version) HasPatch() bool { return v.Patch >= 0 }

// String is "1.34" or "1.34.2".
func (v Version) String() string {
	if v.HasPatch() {
		return fmt.Sprintf("%d.%d.%d", v.Major, v.Minor, v.Patch)
	}
	return v.MinorString()
}

// SameMinor says whether both versions name the same minor.
func (v Version) SameMinor(o Version) bool { return v.Major == o.Major && v.Minor == o.Minor }
