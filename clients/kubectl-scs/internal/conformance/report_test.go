package conformance

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"sigs.k8s.io/yaml"
)

// TestReportShape: the YAML has the fields of an SCS compliance check report, with the
// results as the compliance check counts them.
func TestReportShape(t *testing.T) {
	start := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	o := &Outcome{Environment: "gardener-regionone", Namespace: "team1", Minors: []string{"1.34"}, Started: start, Ended: start.Add(90 * time.Second),
		Results: []Result{
			{ID: "create-ready-1.34", Verdict: Passed, Message: "Ready", Duration: 30 * time.Second},
			{ID: "node-zones-1.34", Verdict: Skipped, Message: "no zones"},
			{ID: "refused-change", Verdict: Failed, Message: "accepted"},
		}}
	data, err := ReportOf(o, []string{"kubectl-scs", "conformance", "--environment", "gardener-regionone"}, "run-1", "inv-1").YAML()
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := yaml.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"spec", "checked_at", "reference_date", "subject", "run"} {
		if _, ok := got[k]; !ok {
			t.Errorf("report lacks %s:\n%s", k, data)
		}
	}
	if !bytes.HasPrefix(data, []byte("---\n")) {
		t.Error("report does not start a YAML document")
	}
	inv := got["run"].(map[string]any)["invocations"].(map[string]any)["inv-1"].(map[string]any)
	results, _ := json.Marshal(inv["results"])
	if string(results) != `{"create-ready-1.34":1,"refused-change":-1}` {
		t.Errorf("results = %s", results)
	}
	if inv["rc"] != float64(1) || inv["error"] != float64(1) || inv["warning"] != float64(1) || inv["info"] != float64(1) {
		t.Errorf("invocation counts: rc %v error %v warning %v info %v", inv["rc"], inv["error"], inv["warning"], inv["info"])
	}
	if got["checked_at"] != "2026-12-01T10:01:30Z" || got["reference_date"] != "2026-12-01" || got["subject"] != "gardener-regionone" {
		t.Errorf("checked_at %v, reference_date %v, subject %v", got["checked_at"], got["reference_date"], got["subject"])
	}

	var sum bytes.Buffer
	if err := WriteSummary(&sum, o); err != nil {
		t.Fatal(err)
	}
	want := `SCS KaaS cluster API (scs-XXXX-v1, draft), environment gardener-regionone (namespace team1), minors 1.34:
- FAIL (1 passed, 1 failed, 1 skipped) in 1m30s
  - PASSED  create-ready-1.34 (30s): Ready
  - SKIPPED node-zones-1.34 (0s): no zones
  - FAILED  refused-change (0s): accepted
`
	if sum.String() != want {
		t.Errorf("summary:\n%s\nwant:\n%s", sum.String(), want)
	}
}
