// Command benchtable turns the JSON summaries fnbench prints (lines starting "json ", as
// hack/bench.sh runs it) into the markdown table of docs/performance.md: per function and
// number of callers, the range over runs of latency, throughput, CPU time per call and peak
// RSS, and each as a multiple of the no-op function's in the same run, which is the
// figure that travels between machines.
//
//	hack/bench.sh | go run ./hack/benchtable
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// summary is the part of fnbench's JSON summary the table shows.
type summary struct {
	Label      string  `json:"label"`
	N          int     `json:"n"`
	C          int     `json:"c"`
	Errors     int64   `json:"errors"`
	P50        float64 `json:"p50Ms"`
	P99        float64 `json:"p99Ms"`
	PerSecond  float64 `json:"callsPerSecond"`
	CPUSeconds float64 `json:"peerCpuSeconds"`
	PeakRSS    float64 `json:"peerPeakMaxMiB"`
}

// names are the functions hack/bench.sh knows, in the order of the table.
var names = []struct{ peer, name string }{
	{"noop", "no-op (protocol floor)"},
	{"gotmpl", "function-go-templating"},
	{"pat", "function-patch-and-transform"},
	{"scs", "**function-scs-kaas**"},
}

type key struct {
	peer string
	c    int
}

// figures are one function's measurements of one run.
type figures struct{ p50, p99, perSecond, cpu, rss float64 }

func main() {
	if err := run(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "benchtable:", err)
		os.Exit(1)
	}
}

func run(in io.Reader, out io.Writer) error {
	runs := map[string]map[key]figures{}
	var order []string
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "json ")
		if !ok {
			continue
		}
		var s summary
		if err := json.Unmarshal([]byte(line), &s); err != nil {
			return fmt.Errorf("%q: %w", line, err)
		}
		if s.Errors > 0 {
			return fmt.Errorf("%s: %d calls failed; the run measures nothing", s.Label, s.Errors)
		}
		peer, run := labelField(s.Label, "peer"), labelField(s.Label, "run")
		if peer == "" || s.N == 0 {
			return fmt.Errorf("%q: no peer or no calls in the label", s.Label)
		}
		if runs[run] == nil {
			runs[run] = map[key]figures{}
			order = append(order, run)
		}
		runs[run][key{peer, s.C}] = figures{s.P50, s.P99, s.PerSecond, s.CPUSeconds * 1000 / float64(s.N), s.PeakRSS}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	if len(runs) == 0 {
		return fmt.Errorf("no fnbench JSON summaries (lines starting \"json \") in the input")
	}
	var callers []int
	seen := map[int]bool{}
	for _, r := range runs {
		for k := range r {
			if !seen[k.c] {
				seen[k.c] = true
				callers = append(callers, k.c)
			}
		}
	}
	sort.Ints(callers)

	fmt.Fprintf(out, "%d run(s); a range is the lowest and highest over the runs. \"×no-op\" divides by the no-op function's figure of the same run.\n\n", len(runs))
	fmt.Fprintln(out, "| function | callers | p50 ms | p99 ms | calls/s | CPU ms/call | peak RSS MiB | CPU ×no-op | p50 ×no-op | RSS ×no-op |")
	fmt.Fprintln(out, "|---|---|---|---|---|---|---|---|---|---|")
	for _, c := range callers {
		for _, n := range names {
			var p50, p99, perSecond, cpu, rss, cpuX, p50X, rssX span
			for _, run := range order {
				f, ok := runs[run][key{n.peer, c}]
				if !ok {
					continue
				}
				p50.add(f.p50)
				p99.add(f.p99)
				perSecond.add(f.perSecond)
				cpu.add(f.cpu)
				rss.add(f.rss)
				if floor, ok := runs[run][key{"noop", c}]; ok && n.peer != "noop" {
					cpuX.add(f.cpu / floor.cpu)
					p50X.add(f.p50 / floor.p50)
					rssX.add(f.rss / floor.rss)
				}
			}
			if p50.n == 0 {
				continue
			}
			fmt.Fprintf(out, "| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s |\n", n.name, c,
				p50.format("%.2f"), p99.format("%.2f"), perSecond.format("%.0f"), cpu.format("%.2f"), rss.format("%.1f"),
				cpuX.format("%.2f"), p50X.format("%.2f"), rssX.format("%.2f"))
		}
	}
	return nil
}

// labelField reads name=value from a label such as "peer=scs c=1 n=2000 run=1".
func labelField(label, name string) string {
	for _, f := range strings.Fields(label) {
		if v, ok := strings.CutPrefix(f, name+"="); ok {
			return v
		}
	}
	return ""
}

// span is the range of a figure over runs.
type span struct {
	lo, hi float64
	n      int
}

func (s *span) add(v float64) {
	if s.n == 0 || v < s.lo {
		s.lo = v
	}
	if s.n == 0 || v > s.hi {
		s.hi = v
	}
	s.n++
}

func (s span) format(verb string) string {
	if s.n == 0 {
		return "-"
	}
	lo, hi := fmt.Sprintf(verb, s.lo), fmt.Sprintf(verb, s.hi)
	if lo == hi {
		return lo
	}
	return lo + " - " + hi
}
