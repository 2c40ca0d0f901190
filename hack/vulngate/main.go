// Command vulngate is the decision of make lint's vulnerability gate. It reads the JSON
// streams govulncheck wrote for each module (hack/vulncheck.sh), keeps the findings the
// module's code reaches (govulncheck's "Your code is affected": a trace down to a vulnerable
// function), and fails unless each is accepted in hack/vulncheck-accepted.yaml for that
// module, with a reason, until a database date not yet reached.
//
// Acceptances are dated against the vulnerability database, not the clock: the gate's verdict
// on a commit never changes by itself, and bumping the database past an acceptance's date
// makes its owner look again. An acceptance that no longer matches a finding fails the gate
// too, so the file holds only what is true today.
//
//	go run ./hack/vulngate -accepted hack/vulncheck-accepted.yaml -db-date 2026-11-05 MODULE=FILE...
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"

	"sigs.k8s.io/yaml"
)

// message is one value of govulncheck's -format json stream; only the parts the gate reads.
type message struct {
	OSV     *osv     `json:"osv,omitempty"`
	Finding *finding `json:"finding,omitempty"`
}

type osv struct {
	ID      string `json:"id"`
	Summary string `json:"summary"`
}

type finding struct {
	OSV          string  `json:"osv"`
	FixedVersion string  `json:"fixed_version"`
	Trace        []frame `json:"trace"`
}

// frame is one step of a finding's trace: the first is the vulnerable symbol (or only its
// module or package when govulncheck could not go further), the last the caller in the
// scanned module.
type frame struct {
	Module   string    `json:"module"`
	Version  string    `json:"version"`
	Package  string    `json:"package"`
	Function string    `json:"function"`
	Receiver string    `json:"receiver"`
	Position *position `json:"position,omitempty"`
}

type position struct {
	Filename string `json:"filename"`
	Line     int    `json:"line"`
}

// Acceptance is one entry of hack/vulncheck-accepted.yaml.
type Acceptance struct {
	ID string `json:"id"`
	// Modules are the module directories it holds for; "*" is every module, for the
	// standard library, which every module builds with.
	Modules []string `json:"modules"`
	Reason  string   `json:"reason"`
	// Until is the last database date (YYYY-MM-DD) the acceptance holds for.
	Until string `json:"until"`
}

// Reached is one vulnerability a module reaches.
type Reached struct {
	Module  string
	ID      string
	Summary string
	// Found is the vulnerable module at the version the scanned module uses.
	Found, Fixed string
	// Example is a trace from the scanned module's code to the vulnerable symbol.
	Example string
}

// Verdict is the gate's decision on every reached vulnerability and every acceptance.
type Verdict struct {
	Accepted []string
	Failing  []string
}

func main() {
	acceptedPath := flag.String("accepted", "hack/vulncheck-accepted.yaml", "acceptances of reachable vulnerabilities")
	dbDate := flag.String("db-date", "", "the vulnerability database's date, YYYY-MM-DD")
	flag.Parse()
	if err := run(*acceptedPath, *dbDate, flag.Args(), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "vulngate:", err)
		os.Exit(1)
	}
}

func run(acceptedPath, dbDate string, scans []string, out io.Writer) error {
	db, err := time.Parse(time.DateOnly, dbDate)
	if err != nil {
		return fmt.Errorf("-db-date: %w", err)
	}
	raw, err := os.ReadFile(acceptedPath) //nolint:gosec // a path of this repository, given by make
	if err != nil {
		return err
	}
	var accepted []Acceptance
	if err := yaml.UnmarshalStrict(raw, &accepted); err != nil {
		return fmt.Errorf("%s: %w", acceptedPath, err)
	}
	var reached []Reached
	for _, scan := range scans {
		module, file, ok := strings.Cut(scan, "=")
		if !ok {
			return fmt.Errorf("argument %q is not MODULE=FILE", scan)
		}
		f, err := os.Open(file) //nolint:gosec // written by hack/vulncheck.sh
		if err != nil {
			return err
		}
		r, err := Parse(module, f)
		_ = f.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", file, err)
		}
		reached = append(reached, r...)
	}
	v, err := Decide(reached, accepted, db)
	if err != nil {
		return fmt.Errorf("%s: %w", acceptedPath, err)
	}
	for _, line := range v.Accepted {
		_, _ = fmt.Fprintln(out, "accepted:", line)
	}
	for _, line := range v.Failing {
		_, _ = fmt.Fprintln(out, "FAILS:", line)
	}
	_, _ = fmt.Fprintf(out, "vulnerability gate: %d reached, %d accepted in %s, %d failing\n",
		len(reached), len(v.Accepted), acceptedPath, len(v.Failing))
	if len(v.Failing) > 0 {
		return errors.New("reachable vulnerabilities: update the module (the fixed version is named), or accept one with a reason in " + acceptedPath)
	}
	return nil
}

// Parse reads one module's govulncheck JSON stream and returns the vulnerabilities its code
// reaches, one per ID, with the shortest trace as the example.
func Parse(module string, r io.Reader) ([]Reached, error) {
	summaries := map[string]string{}
	byID := map[string]*Reached{}
	shortest := map[string]int{}
	dec := json.NewDecoder(r)
	for {
		var m message
		err := dec.Decode(&m)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		if m.OSV != nil {
			summaries[m.OSV.ID] = m.OSV.Summary
		}
		f := m.Finding
		// A finding without a function at the top of its trace is only imported or required:
		// the module's code does not reach the vulnerable symbol.
		if f == nil || len(f.Trace) == 0 || f.Trace[0].Function == "" {
			continue
		}
		if n, seen := shortest[f.OSV]; seen && n <= len(f.Trace) {
			continue
		}
		shortest[f.OSV] = len(f.Trace)
		top := f.Trace[0]
		fixed := "none published"
		if f.FixedVersion != "" {
			fixed = top.Module + "@" + f.FixedVersion
		}
		byID[f.OSV] = &Reached{
			Module:  module,
			ID:      f.OSV,
			Found:   top.Module + "@" + top.Version,
			Fixed:   fixed,
			Example: describe(f.Trace),
		}
	}
	ids := make([]string, 0, len(byID))
	for id := range byID {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	out := make([]Reached, 0, len(ids))
	for _, id := range ids {
		r := *byID[id]
		r.Summary = summaries[id]
		out = append(out, r)
	}
	return out, nil
}

// describe prints a trace from the caller in the module to the vulnerable symbol.
func describe(trace []frame) string {
	parts := make([]string, 0, len(trace))
	for i := len(trace) - 1; i >= 0; i-- {
		f := trace[i]
		name := f.Function
		if f.Receiver != "" {
			name = strings.TrimPrefix(f.Receiver, "*") + "." + name
		}
		name = f.Package + "." + name
		if i == len(trace)-1 && f.Position != nil {
			name = fmt.Sprintf("%s (%s:%d)", name, f.Position.Filename, f.Position.Line)
		}
		parts = append(parts, name)
	}
	return strings.Join(parts, " -> ")
}

// Decide accepts each reached vulnerability that an acceptance names for its module, up to
// the acceptance's date, and fails the rest, every expired acceptance and every acceptance
// that matches nothing.
func Decide(reached []Reached, accepted []Acceptance, db time.Time) (Verdict, error) {
	var v Verdict
	used := make([]bool, len(accepted))
	for i, a := range accepted {
		if a.ID == "" || len(a.Modules) == 0 || strings.TrimSpace(a.Reason) == "" {
			return Verdict{}, fmt.Errorf("acceptance %d needs id, modules and reason", i)
		}
		if _, err := time.Parse(time.DateOnly, a.Until); err != nil {
			return Verdict{}, fmt.Errorf("acceptance %s: until: %w", a.ID, err)
		}
	}
	for _, r := range reached {
		line := fmt.Sprintf("%s (%s) %s: %s, fix: %s; reached: %s", r.Module, r.ID, r.Summary, r.Found, r.Fixed, r.Example)
		i := match(accepted, r)
		if i < 0 {
			v.Failing = append(v.Failing, line)
			continue
		}
		used[i] = true
		until, _ := time.Parse(time.DateOnly, accepted[i].Until)
		if db.After(until) {
			v.Failing = append(v.Failing, fmt.Sprintf("%s; its acceptance ended %s, before the database of %s: look again",
				line, accepted[i].Until, db.Format(time.DateOnly)))
			continue
		}
		v.Accepted = append(v.Accepted, fmt.Sprintf("%s; until %s: %s", line, accepted[i].Until, strings.TrimSpace(accepted[i].Reason)))
	}
	for i, a := range accepted {
		if !used[i] {
			v.Failing = append(v.Failing, fmt.Sprintf("acceptance of %s for %s matches no reached vulnerability: remove it",
				a.ID, strings.Join(a.Modules, ", ")))
		}
	}
	return v, nil
}

func match(accepted []Acceptance, r Reached) int {
	for i, a := range accepted {
		if a.ID != r.ID {
			continue
		}
		for _, m := range a.Modules {
			if m == r.Module || m == "*" {
				return i
			}
		}
	}
	return -1
}
