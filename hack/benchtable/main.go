// Command benchtable turns the JSON summaries fnbench prints (lines starting "json ", as
// hack/bench.sh runs it) into the markdown table of docs/performance.md: per function and
// number of callers, the range over runs of latency, throughput, CPU time per call and peak
// RSS, each function's figures as multiples of function-go-templating's and
// function-patch-and-transform's in the same run, and whether function-scs-kaas keeps the
// bars (bars) in every run.
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

	fmt.Fprintf(out, "%d run(s); a range is the lowest and highest over the runs. \"×go-templating\" and \"×P&T\" divide by function-go-templating's and function-patch-and-transform's figure of the same run.\n\n", len(runs))
	fmt.Fprintln(out, "| function | callers | p50 ms | p99 ms | calls/s | CPU ms/call | peak RSS MiB | CPU ×go-templating | CPU ×P&T | p50 ×go-templating | RSS ×go-templating |")
	fmt.Fprintln(out, "|---|---|---|---|---|---|---|---|---|---|---|")
	var verdicts []string
	for _, c := range callers {
		for _, n := range names {
			var p50, p99, perSecond, cpu, rss span
			ratios := make([]span, len(bars))
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
				for i, b := range bars {
					if peer, ok := runs[run][key{b.peer, c}]; ok && n.peer != b.peer {
						ratios[i].add(b.figure(f) / b.figure(peer))
					}
				}
			}
			if p50.n == 0 {
				continue
			}
			fmt.Fprintf(out, "| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", n.name, c,
				p50.format("%.2f"), p99.format("%.2f"), perSecond.format("%.0f"), cpu.format("%.2f"), rss.format("%.1f"),
				ratios[0].format("%.2f"), ratios[1].format("%.2f"), ratios[2].format("%.2f"), ratios[3].format("%.2f"))
			if n.peer == "scs" {
				for i, b := range bars {
					verdicts = append(verdicts, b.verdict(c, ratios[i]))
				}
			}
		}
	}
	if len(verdicts) > 0 {
		fmt.Fprintf(out, "\nBars (the highest ratio over the runs):\n\n")
		for _, v := range verdicts {
			fmt.Fprintln(out, "- "+v)
		}
	}
	return nil
}

// bars are the ratios function-scs-kaas must keep to its peers (issue 29), in the order of
// the table's ratio columns.
var bars = []bar{
	{"CPU per call", "gotmpl", "function-go-templating's", 0.6, func(f figures) float64 { return f.cpu }},
	{"CPU per call", "pat", "function-patch-and-transform's", 0.35, func(f figures) float64 { return f.cpu }},
	{"p50", "gotmpl", "function-go-templating's", 0.7, func(f figures) float64 { return f.p50 }},
	{"peak RSS", "gotmpl", "function-go-templating's", 1, func(f figures) float64 { return f.rss }},
}

type bar struct {
	what, peer, peerName string
	most                 float64
	figure               func(figures) float64
}

func (b bar) verdict(callers int, ratio span) string {
	if ratio.n == 0 {
		return fmt.Sprintf("%s at %d caller(s): %s not measured", b.what, callers, b.peerName)
	}
	state := "holds"
	if ratio.hi > b.most+1e-9 { // a ratio exactly at the bar holds
		state = "MISSED"
	}
	return fmt.Sprintf("%s at %d caller(s) at most %.2f × %s: %.2f, %s", b.what, callers, b.most, b.peerName, ratio.hi, state)
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
