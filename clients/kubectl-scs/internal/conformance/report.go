package conformance

import (
	"fmt"
	"io"
	"strings"
	"time"

	"sigs.k8s.io/yaml"
)

// Verdict is the outcome of one check.
type Verdict string

const (
	// Passed means the check saw what the standard requires.
	Passed Verdict = "passed"
	// Failed means the check saw something else, or could not run for an error of the environment.
	Failed Verdict = "failed"
	// Skipped means the check does not apply (no zones offered, no minor to upgrade to) or was
	// not reached (an interrupt); the message says which.
	Skipped Verdict = "skipped"
)

// Result is one check: a test case of the report.
type Result struct {
	// ID names the check, as the test case ids of the SCS compliance checks do
	// ("kubeconfig-version-1.34").
	ID          string        `json:"id"`
	Description string        `json:"description"`
	Verdict     Verdict       `json:"verdict"`
	Message     string        `json:"message"`
	Duration    time.Duration `json:"-"`
}

// Spec identifies what the kit checks, as the spec block of an SCS compliance report does.
type Spec struct {
	UUID string `json:"uuid"`
	Name string `json:"name"`
	URL  string `json:"url"`
}

// KitSpec is the standard the kit checks: the draft in docs/standard. The uuid is this
// kit's own until the standard gets its number and its entry in the SCS certificate scopes.
var KitSpec = Spec{
	UUID: "5d1b4bd2-7f53-4a37-9a55-3c2a1c0e6f21",
	Name: "SCS KaaS cluster API (scs-XXXX-v1, draft)",
	URL:  "https://github.com/SovereignCloudStack/scs-kaas/blob/main/docs/standard/scs-XXXX-v1-kaas-cluster-api.md",
}

// Report is what `kubectl scs conformance --report` writes: the fields of the reports of
// the SCS compliance check (Tests/scs-compliance-check.py in SovereignCloudStack/standards):
// spec, checked_at, reference_date, subject and run with its invocations, whose results map
// test case ids to 1 (pass), 0 (abort) or -1 (fail). A test case that was not run is
// absent, as the compliance check leaves out missing ones; stderr says why it was skipped.
type Report struct {
	Spec          Spec   `json:"spec"`
	CheckedAt     string `json:"checked_at"`
	ReferenceDate string `json:"reference_date"`
	Subject       string `json:"subject"`
	Run           Run    `json:"run"`
}

// Run is the run block of a report.
type Run struct {
	UUID          string                `json:"uuid"`
	Argv          []string              `json:"argv"`
	Assignment    map[string]string     `json:"assignment"`
	Sections      []string              `json:"sections"`
	ForcedVersion *string               `json:"forced_version"`
	ForcedTests   *string               `json:"forced_tests"`
	Invocations   map[string]Invocation `json:"invocations"`
}

// Invocation is one run of a check tool: here the kit itself, once.
type Invocation struct {
	ID       string         `json:"id"`
	Cmd      string         `json:"cmd"`
	Results  map[string]int `json:"results"`
	RC       int            `json:"rc"`
	Stdout   []string       `json:"stdout"`
	Stderr   []string       `json:"stderr"`
	Info     int            `json:"info"`
	Warning  int            `json:"warning"`
	Error    int            `json:"error"`
	Critical int            `json:"critical"`
}

// Outcome is a whole run of the kit: every check in order, and what it ran against.
type Outcome struct {
	Environment string
	Namespace   string
	// Minors are the Kubernetes minors the run tested; Offered what the environment offers.
	Minors  []string
	Offered Offer
	Results []Result
	Started time.Time
	Ended   time.Time
	// Leftovers name what the cleanup could not delete; empty when everything is gone.
	Leftovers []string
}

// Passed says whether the run passed: no check failed and the cleanup left nothing behind.
// Skipped checks do not fail a run; the summary and the report name them.
func (o *Outcome) Passed() bool {
	for _, r := range o.Results {
		if r.Verdict == Failed {
			return false
		}
	}
	return len(o.Leftovers) == 0
}

// Counts returns how many checks passed, failed and were skipped.
func (o *Outcome) Counts() (passed, failed, skipped int) {
	for _, r := range o.Results {
		switch r.Verdict {
		case Passed:
			passed++
		case Failed:
			failed++
		default:
			skipped++
		}
	}
	return passed, failed, skipped
}

// ReportOf builds the SCS-shaped report of a run; runID and invocationID are UUIDs, argv the
// command line.
func ReportOf(o *Outcome, argv []string, runID, invocationID string) *Report {
	inv := Invocation{ID: invocationID, Cmd: strings.Join(argv, " "), Results: map[string]int{}, Stdout: []string{}, Stderr: []string{}}
	for _, r := range o.Results {
		switch r.Verdict {
		case Passed:
			inv.Results[r.ID] = 1
			inv.Stdout = append(inv.Stdout, r.ID+": PASS")
			inv.Stderr = append(inv.Stderr, "INFO: "+r.ID+": "+r.Message)
			inv.Info++
		case Failed:
			inv.Results[r.ID] = -1
			inv.Stdout = append(inv.Stdout, r.ID+": FAIL")
			inv.Stderr = append(inv.Stderr, "ERROR: "+r.ID+": "+r.Message)
			inv.Error++
		default:
			inv.Stderr = append(inv.Stderr, "WARNING: "+r.ID+" skipped: "+r.Message)
			inv.Warning++
		}
	}
	for _, l := range o.Leftovers {
		inv.Stderr = append(inv.Stderr, "ERROR: not deleted: "+l)
		inv.Error++
	}
	if !o.Passed() {
		inv.RC = 1
	}
	return &Report{
		Spec:          KitSpec,
		CheckedAt:     o.Ended.UTC().Format(time.RFC3339),
		ReferenceDate: o.Started.UTC().Format(time.DateOnly),
		Subject:       o.Environment,
		Run: Run{
			UUID: runID,
			Argv: argv,
			Assignment: map[string]string{
				"environment": o.Environment,
				"namespace":   o.Namespace,
				"minors":      strings.Join(o.Minors, ","),
			},
			Sections:    []string{},
			Invocations: map[string]Invocation{invocationID: inv},
		},
	}
}

// YAML is the report as a YAML document, as the compliance check writes it (explicit start).
func (r *Report) YAML() ([]byte, error) {
	data, err := yaml.Marshal(r)
	if err != nil {
		return nil, err
	}
	return append([]byte("---\n"), data...), nil
}

// WriteSummary writes the readable summary of a run: the verdict first, in the words of the
// compliance check (PASS, FAIL), then every check with its verdict and message.
func WriteSummary(w io.Writer, o *Outcome) error {
	p, f, s := o.Counts()
	verdict := "PASS"
	if !o.Passed() {
		verdict = "FAIL"
	}
	parts := []string{fmt.Sprintf("%d passed", p)}
	if f > 0 {
		parts = append(parts, fmt.Sprintf("%d failed", f))
	}
	if s > 0 {
		parts = append(parts, fmt.Sprintf("%d skipped", s))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s, environment %s (namespace %s), minors %s:\n", KitSpec.Name, o.Environment, o.Namespace, orNone(strings.Join(o.Minors, ", ")))
	fmt.Fprintf(&b, "- %s (%s) in %s\n", verdict, strings.Join(parts, ", "), o.Ended.Sub(o.Started).Round(time.Second))
	for _, r := range o.Results {
		fmt.Fprintf(&b, "  - %-7s %s (%s): %s\n", strings.ToUpper(string(r.Verdict)), r.ID, r.Duration.Round(time.Second), r.Message)
	}
	for _, l := range o.Leftovers {
		fmt.Fprintf(&b, "  - LEFT    %s: the cleanup could not delete it\n", l)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
