package main

import "testing"

func TestReflow(t *testing.T) {
	cases := map[string]struct{ in, want string }{
		"WrappedSentence": {
			in:   "Environment names the backend environment that builds this cluster: the\nEnvironmentConfig labelled kaas.scs.community/environment=<name>.",
			want: "Environment names the backend environment that builds this cluster: the EnvironmentConfig labelled kaas.scs.community/environment=<name>.",
		},
		"Paragraphs": {
			in:   "First paragraph\nwrapped.\n\nSecond one.",
			want: "First paragraph wrapped.\n\nSecond one.",
		},
		"ListItems": {
			in:   "Values:\n- a, which\n  wraps\n- b",
			want: "Values:\n- a, which wraps\n- b",
		},
		"Empty": {in: "", want: ""},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := reflow(tc.in); got != tc.want {
				t.Errorf("reflow(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}
