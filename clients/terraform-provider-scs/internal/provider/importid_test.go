package provider

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseImportID(t *testing.T) {
	type result struct{ Namespace, Name, Err string }
	for _, tc := range []struct {
		id   string
		want result
	}{
		{"team1/dev", result{Namespace: "team1", Name: "dev"}},
		{"team1/dev.eu-1", result{Namespace: "team1", Name: "dev.eu-1"}},
		{"dev", result{Err: `import ID "dev" is not namespace/name, such as team1/dev`}},
		{"team1/", result{Err: `import ID "team1/" is not namespace/name, such as team1/dev`}},
		{"/dev", result{Err: `import ID "/dev" is not namespace/name, such as team1/dev`}},
		{"a/b/c", result{Err: `import ID "a/b/c" is not namespace/name, such as team1/dev`}},
		{"Team1/dev", result{Err: `import ID "Team1/dev": namespace "Team1": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`}},
		{"team1/Dev_1", result{Err: `import ID "team1/Dev_1": name "Dev_1": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`}},
	} {
		ns, name, err := parseImportID(tc.id)
		got := result{Namespace: ns, Name: name}
		if err != nil {
			got.Err = err.Error()
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("parseImportID(%q) (-want +got):\n%s", tc.id, diff)
		}
	}
}
