package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/crossplane/function-sdk-go/logging"
	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
	"github.com/google/go-cmp/cmp"
	dto "github.com/prometheus/client_model/go"
	"google.golang.org/protobuf/proto"
)

// TestMetricsCountWhatTheFunctionDid: after a refusal, a first call, a Ready cluster of
// every backend and a Cluster API cluster not Ready for 45 minutes whose kubeconfig expires
// in twelve hours, the function's metrics say so: the refusal under its reason (a Fatal
// result and the Warning that is the claim's event), a duration observed per backend, the
// composed resources desired per backend, the kubeconfig in the bucket of a day, the
// cluster not Ready in the bucket above half an hour.
func TestMetricsCountWhatTheFunctionDid(t *testing.T) {
	f := NewFunction(logging.NewNopLogger())
	f.now = func() time.Time { return metricsNow }
	for _, req := range append(everyMetricCalls(t), plannedUpdateCall(t)) {
		if _, err := f.RunFunction(context.Background(), req); err != nil {
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
				for _, b := range m.GetHistogram().GetBucket() {
					got[fmt.Sprintf("%s_bucket%s{le=%g}", mf.GetName(), labels(m), b.GetUpperBound())] = float64(b.GetCumulativeCount())
				}
			}
		}
	}
	want := map[string]float64{
		// Two Ready clusters (one per flavour) of each backend, the Cluster Stacks ones
		// local and remote, and one with add-ons on Gardener and on Magnum; the first
		// call only asked for the environments.
		metricRunDuration + "{backend=clusterstack}":                       6,
		metricRunDuration + "{backend=gardener}":                           3,
		metricRunDuration + "{backend=magnum}":                             3,
		metricRunDuration + "{backend=none}":                               1,
		metricRunDuration + "{backend=requirements}":                       1,
		metricResults + "{reason=EnvironmentUnavailable,severity=Fatal}":   1,
		metricResults + "{reason=EnvironmentUnavailable,severity=Warning}": 1,
		metricNotReady + "{backend=clusterstack}":                          1,
		metricNotReady + "_bucket{backend=clusterstack}{le=1800}":          0,
		metricNotReady + "_bucket{backend=clusterstack}{le=3600}":          1,
		metricKubeconfigExpiry + "_bucket{backend=clusterstack}{le=3600}":  0,
		metricKubeconfigExpiry + "_bucket{backend=clusterstack}{le=86400}": 1,
		// The Cluster Stacks cluster offered a newer release of its minor plans it for its
		// next window (derived from its identity, at night), within a day.
		metricUpdatePlanned + "{backend=clusterstack,kind=KubernetesPatch}":                  1,
		metricUpdatePlanned + "_bucket{backend=clusterstack,kind=KubernetesPatch}{le=3600}":  0,
		metricUpdatePlanned + "_bucket{backend=clusterstack,kind=KubernetesPatch}{le=86400}": 1,
		metricUpdatePlanned + "{backend=gardener,kind=KubernetesPatch}":                      0,
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
	f := NewFunction(logging.NewNopLogger())
	f.now = func() time.Time { return metricsNow }
	for _, req := range append(everyMetricCalls(t), plannedUpdateCall(t)) {
		if _, err := f.RunFunction(context.Background(), req); err != nil {
			t.Fatal(err)
		}
	}
	families, err := f.metrics.registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	named := 0
	want := []string{metricRunDuration, metricResults, metricDesiredResources, metricKubeconfigExpiry, metricNotReady, metricUpdatePlanned}
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

// plannedUpdateCall is a call on a Ready Cluster Stacks cluster offered a newer release of
// its minor, outside its window: it plans the update.
func plannedUpdateCall(t *testing.T) *fnv1.RunFunctionRequest {
	t.Helper()
	return withNewerRelease(t, proto.Clone(readyClusterNamed(t, "clusterstack/legacy").req).(*fnv1.RunFunctionRequest))
}
