package main

import (
	"strings"
	"testing"
)

const input = `fnbench peer=noop c=1 n=2000 run=1
json {"label":"peer=noop c=1 n=2000 run=1","n":2000,"c":1,"p50Ms":0.4,"p99Ms":1.0,"callsPerSecond":2000,"peerCpuSeconds":0.8,"peerPeakMaxMiB":34}
json {"label":"peer=gotmpl c=1 n=2000 run=1","n":2000,"c":1,"p50Ms":2.0,"p99Ms":5.0,"callsPerSecond":400,"peerCpuSeconds":4.0,"peerPeakMaxMiB":40}
json {"label":"peer=pat c=1 n=2000 run=1","n":2000,"c":1,"p50Ms":3.0,"p99Ms":6.0,"callsPerSecond":300,"peerCpuSeconds":8.0,"peerPeakMaxMiB":44}
json {"label":"peer=scs c=1 n=2000 run=1","n":2000,"c":1,"p50Ms":0.6,"p99Ms":2.0,"callsPerSecond":1500,"peerCpuSeconds":1.6,"peerPeakMaxMiB":37.4}
json {"label":"peer=noop c=1 n=2000 run=2","n":2000,"c":1,"p50Ms":0.5,"p99Ms":1.0,"callsPerSecond":1900,"peerCpuSeconds":1.0,"peerPeakMaxMiB":34}
json {"label":"peer=gotmpl c=1 n=2000 run=2","n":2000,"c":1,"p50Ms":2.0,"p99Ms":5.0,"callsPerSecond":400,"peerCpuSeconds":2.5,"peerPeakMaxMiB":40}
json {"label":"peer=pat c=1 n=2000 run=2","n":2000,"c":1,"p50Ms":3.0,"p99Ms":6.0,"callsPerSecond":300,"peerCpuSeconds":8.0,"peerPeakMaxMiB":44}
json {"label":"peer=scs c=1 n=2000 run=2","n":2000,"c":1,"p50Ms":0.6,"p99Ms":2.5,"callsPerSecond":1400,"peerCpuSeconds":1.5,"peerPeakMaxMiB":37.4}
`

// TestTable: ranges over runs, ratios to the peers of the same run, and the bars judged by
// the worst run.
func TestTable(t *testing.T) {
	var out strings.Builder
	if err := run(strings.NewReader(input), &out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| no-op (protocol floor) | 1 | 0.40 - 0.50 | 1.00 | 1900 - 2000 | 0.40 - 0.50 | 34.0 | 0.20 - 0.40 | 0.10 - 0.12 | 0.20 - 0.25 | 0.85 |",
		// CPU 0.80/2.00 = 0.40 in run 1 and 0.75/1.25 = 0.60 in run 2.
		"| **function-scs-kaas** | 1 | 0.60 | 2.00 - 2.50 | 1400 - 1500 | 0.75 - 0.80 | 37.4 | 0.40 - 0.60 | 0.19 - 0.20 | 0.30 | 0.93 |",
		"- CPU per call at 1 caller(s) at most 0.60 × function-go-templating's: 0.60, holds",
		"- CPU per call at 1 caller(s) at most 0.35 × function-patch-and-transform's: 0.20, holds",
		"- p50 at 1 caller(s) at most 0.70 × function-go-templating's: 0.30, holds",
		"- peak RSS at 1 caller(s) at most 1.00 × function-go-templating's: 0.93, holds",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the table lacks\n%s\n%s", want, out.String())
		}
	}
	missed := strings.Replace(input, `"peerPeakMaxMiB":37.4}`, `"peerPeakMaxMiB":42}`, 1)
	out.Reset()
	if err := run(strings.NewReader(missed), &out); err != nil {
		t.Fatal(err)
	}
	if want := "- peak RSS at 1 caller(s) at most 1.00 × function-go-templating's: 1.05, MISSED"; !strings.Contains(out.String(), want) {
		t.Errorf("the table lacks\n%s\n%s", want, out.String())
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
