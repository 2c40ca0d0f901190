package main

import (
	"strings"
	"testing"
)

const input = `fnbench peer=noop c=1 n=2000 run=1
json {"label":"peer=noop c=1 n=2000 run=1","n":2000,"c":1,"p50Ms":0.4,"p99Ms":1.0,"callsPerSecond":2000,"peerCpuSeconds":0.8,"peerPeakMaxMiB":34}
json {"label":"peer=scs c=1 n=2000 run=1","n":2000,"c":1,"p50Ms":0.6,"p99Ms":2.0,"callsPerSecond":1500,"peerCpuSeconds":1.6,"peerPeakMaxMiB":37.4}
json {"label":"peer=noop c=1 n=2000 run=2","n":2000,"c":1,"p50Ms":0.5,"p99Ms":1.0,"callsPerSecond":1900,"peerCpuSeconds":1.0,"peerPeakMaxMiB":34}
json {"label":"peer=scs c=1 n=2000 run=2","n":2000,"c":1,"p50Ms":0.6,"p99Ms":2.5,"callsPerSecond":1400,"peerCpuSeconds":1.5,"peerPeakMaxMiB":37.4}
`

// TestTable: ranges over runs, and ratios to the no-op of the same run.
func TestTable(t *testing.T) {
	var out strings.Builder
	if err := run(strings.NewReader(input), &out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| no-op (protocol floor) | 1 | 0.40 - 0.50 | 1.00 | 1900 - 2000 | 0.40 - 0.50 | 34.0 | - | - | - |",
		// CPU 0.80/0.40 = 2.00 in run 1 and 0.75/0.50 = 1.50 in run 2.
		"| **function-scs-kaas** | 1 | 0.60 | 2.00 - 2.50 | 1400 - 1500 | 0.75 - 0.80 | 37.4 | 1.50 - 2.00 | 1.20 - 1.50 | 1.10 |",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the table lacks\n%s\n%s", want, out.String())
		}
	}
}

func TestRefusesFailedRuns(t *testing.T) {
	err := run(strings.NewReader(`json {"label":"peer=scs c=1 n=2000 run=1","n":2000,"c":1,"errors":3}`), &strings.Builder{})
	if err == nil || !strings.Contains(err.Error(), "3 calls failed") {
		t.Errorf("want a refusal of a run with failed calls, got %v", err)
	}
	if err := run(strings.NewReader("nothing here\n"), &strings.Builder{}); err == nil {
		t.Error("want an error without summaries")
	}
}
