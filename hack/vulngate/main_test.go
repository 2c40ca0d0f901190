package main

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// stream is govulncheck's -format json output for a module that reaches GO-1 (twice, by a
// long and a short trace), imports GO-2's package without calling it, and requires GO-3's
// module only.
const stream = `
{"config": {"protocol_version": "v1.0.0", "scanner_name": "govulncheck"}}
{"osv": {"id": "GO-1", "summary": "Panic in compress"}}
{"osv": {"id": "GO-2", "summary": "Bypass in echo"}}
{"finding": {"osv": "GO-1", "fixed_version": "v1.20.2", "trace": [
  {"module": "example.com/compress", "version": "v1.19.1", "package": "example.com/compress/fse", "function": "Compress"},
  {"module": "example.com/m", "package": "example.com/m/a", "function": "B"},
  {"module": "example.com/m", "package": "example.com/m", "function": "main", "position": {"filename": "main.go", "line": 9}}]}}
{"finding": {"osv": "GO-1", "fixed_version": "v1.20.2", "trace": [
  {"module": "example.com/compress", "version": "v1.19.1", "package": "example.com/compress/fse", "function": "Decompress"},
  {"module": "example.com/m", "package": "example.com/m", "function": "run", "position": {"filename": "run.go", "line": 3}}]}}
{"finding": {"osv": "GO-2", "trace": [{"module": "example.com/echo", "version": "v4.15.4", "package": "example.com/echo"}]}}
{"finding": {"osv": "GO-3", "fixed_version": "v2.0.0", "trace": [{"module": "example.com/old", "version": "v1.0.0"}]}}
`

func TestParse(t *testing.T) {
	got, err := Parse("hack/m", strings.NewReader(stream))
	if err != nil {
		t.Fatal(err)
	}
	want := []Reached{{
		Module:  "hack/m",
		ID:      "GO-1",
		Summary: "Panic in compress",
		Found:   "example.com/compress@v1.19.1",
		Fixed:   "example.com/compress@v1.20.2",
		Example: "example.com/m.run (run.go:3) -> example.com/compress/fse.Decompress",
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Parse(): -want, +got:\n%s", diff)
	}
}

func TestDecide(t *testing.T) {
	db := time.Date(2026, 11, 5, 0, 0, 0, 0, time.UTC)
	reached := Reached{Module: "clients/x", ID: "GO-1", Summary: "Panic", Found: "c@v1", Fixed: "c@v2", Example: "m.f -> c.g"}
	line := "clients/x (GO-1) Panic: c@v1, fix: c@v2; reached: m.f -> c.g"
	accept := func(module, until string) Acceptance {
		return Acceptance{ID: "GO-1", Modules: []string{module}, Reason: "not served", Until: until}
	}

	cases := map[string]struct {
		reached  []Reached
		accepted []Acceptance
		want     Verdict
	}{
		"NothingReached": {},
		"ReachedAndNotAccepted": {
			reached: []Reached{reached},
			want:    Verdict{Failing: []string{line}},
		},
		"AcceptedForItsModule": {
			reached:  []Reached{reached},
			accepted: []Acceptance{accept("clients/x", "2026-11-05")},
			want:     Verdict{Accepted: []string{line + "; until 2026-11-05: not served"}},
		},
		"AcceptedForEveryModule": {
			reached:  []Reached{reached},
			accepted: []Acceptance{accept("*", "2026-11-05")},
			want:     Verdict{Accepted: []string{line + "; until 2026-11-05: not served"}},
		},
		"AcceptedForAnotherModuleOnly": {
			reached:  []Reached{reached},
			accepted: []Acceptance{accept("clients/y", "2027-01-01")},
			want: Verdict{Failing: []string{
				line,
				"acceptance of GO-1 for clients/y matches no reached vulnerability: remove it",
			}},
		},
		"AcceptanceEndedBeforeTheDatabase": {
			reached:  []Reached{reached},
			accepted: []Acceptance{accept("clients/x", "2026-11-04")},
			want: Verdict{Failing: []string{
				line + "; its acceptance ended 2026-11-04, before the database of 2026-11-05: look again",
			}},
		},
		"AcceptanceOfSomethingNoLongerReached": {
			accepted: []Acceptance{accept("clients/x", "2027-01-01")},
			want: Verdict{Failing: []string{
				"acceptance of GO-1 for clients/x matches no reached vulnerability: remove it",
			}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := Decide(tc.reached, tc.accepted, db)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Decide(): -want, +got:\n%s", diff)
			}
		})
	}
}

func TestDecideRefusesAnAcceptanceWithoutAReason(t *testing.T) {
	_, err := Decide(nil, []Acceptance{{ID: "GO-1", Modules: []string{"m"}, Until: "2027-01-01"}}, time.Now())
	if err == nil {
		t.Fatal("Decide() accepted an acceptance without a reason")
	}
}
