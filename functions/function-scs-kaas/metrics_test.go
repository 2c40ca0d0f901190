package main

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/crossplane/function-sdk-go/logging"
	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
	"github.com/google/go-cmp/cmp"
	dto "github.com/prometheus/client_model/go"
)

// TestMetricsCountWhatTheFunctionDid: after a refusal, a first call and a Ready cluster of
// every backend, the function's metrics say so: the refusal under its reason, a duration
// observed per backend, the composed resources desired per backend.
func TestMetricsCountWhatTheFunctionDid(t *testing.T) {
	f := NewFunction(logging.NewNopLogger())
	xr := readObject(t, exampleXR)
	ctx := context.Background()
	if _, err := f.RunFunction(ctx, requestFor(t, xr, nil)); err != nil {
		t.Fatal(err)
	}
	if _, err := f.RunFunction(ctx, requestFor(t, xr, []map[string]any{})); err != nil {
		t.Fatal(err)
	}
	ready := readyClusters(t)
	for _, c := range ready {
		if _, err := f.RunFunction(ctx, c.req); err != nil {
			t.Fatal(err)
		}
	}

	families, err := f.metrics.registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, mf := range families {
		for _, m := range mf.GetMetric() {
			key := mf.GetName() + labels(m)
			switch {
			case m.GetCounter() != nil:
				got[key] = m.GetCounter().GetValue()
			case m.GetHistogram() != nil:
				got[key] = float64(m.GetHistogram().GetSampleCount())
			}
		}
	}
	want := map[string]float64{
		// Two Ready clusters (one per flavour) of each backend, the Cluster Stacks ones
		// local and remote; the first call only asked for the environments.
		metricRunDuration + "{backend=clusterstack}":                     4,
		metricRunDuration + "{backend=gardener}":                         2,
		metricRunDuration + "{backend=magnum}":                           2,
		metricRunDuration + "{backend=none}":                             1,
		metricRunDuration + "{backend=requirements}":                     1,
		metricResults + "{reason=EnvironmentUnavailable,severity=Fatal}": 1,
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %v, want %v", k, got[k], v)
		}
	}
	for _, b := range []string{"gardener", "clusterstack", "magnum"} {
		if got[metricDesiredResources+"{backend="+b+"}"] == 0 {
			t.Errorf("no composed resources counted for backend %s", b)
		}
	}
	if d := cmp.Diff(float64(0), got[metricResults+"{reason=,severity=Fatal}"]); d != "" {
		t.Errorf("a Fatal result without a reason: %s", d)
	}
}

// labels writes a metric's labels as name{a=x,b=y}, sorted as Prometheus gathers them.
func labels(m *dto.Metric) string {
	if len(m.GetLabel()) == 0 {
		return ""
	}
	s := "{"
	for i, l := range m.GetLabel() {
		if i > 0 {
			s += ","
		}
		s += l.GetName() + "=" + l.GetValue()
	}
	return s + "}"
}

// TestOperationsDocNamesTheMetrics: docs/operations.md names every metric the function
// exports, so that a renamed metric cannot leave the documented queries behind.
func TestOperationsDocNamesTheMetrics(t *testing.T) {
	doc, err := os.ReadFile("../../docs/operations.md")
	if err != nil {
		t.Fatal(err)
	}
	// A refusal and a Ready cluster: every metric has a sample.
	f := NewFunction(logging.NewNopLogger())
	for _, req := range []*fnv1.RunFunctionRequest{requestFor(t, readObject(t, exampleXR), []map[string]any{}), readyClusters(t)[0].req} {
		if _, err := f.RunFunction(context.Background(), req); err != nil {
			t.Fatal(err)
		}
	}
	families, err := f.metrics.registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	named := 0
	want := []string{metricRunDuration, metricResults, metricDesiredResources}
	for _, mf := range families {
		if !strings.HasPrefix(mf.GetName(), "scs_kaas_") {
			continue
		}
		named++
		if !strings.Contains(string(doc), "`"+mf.GetName()+"`") {
			t.Errorf("docs/operations.md does not name %s", mf.GetName())
		}
	}
	if named != len(want) {
		t.Errorf("the function exports %d scs_kaas_ metrics, want %d: %v", named, len(want), want)
	}
}
