package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/crossplane/function-sdk-go/logging"
	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"
	"sigs.k8s.io/yaml"
)

// What the project ships for Prometheus and Grafana (docs/operations.md).
const (
	monitoringDir  = "../../package/monitoring"
	prometheusRule = monitoringDir + "/prometheusrule.yaml"
	rulesTest      = monitoringDir + "/rules_test.yaml"
	dashboard      = monitoringDir + "/dashboard.json"
)

// metricsNow is the clock of the calls that give every metric a sample.
var metricsNow = time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)

// everyMetricCalls are calls after which every metric of the function has a sample: a
// refusal, a first call, a Ready cluster of every backend, and a Cluster API cluster whose
// kubeconfig expires in twelve hours and that has not been Ready for 45 minutes.
func everyMetricCalls(t *testing.T) []*fnv1.RunFunctionRequest {
	t.Helper()
	xr := readObject(t, exampleXR)
	reqs := []*fnv1.RunFunctionRequest{requestFor(t, xr, nil), requestFor(t, xr, []map[string]any{})}
	var capi readyCluster
	for _, c := range readyClusters(t) {
		reqs = append(reqs, c.req)
		if c.kubeconfigRequired != "" && capi.req == nil {
			capi = c
		}
	}
	late := withKubeconfig(t, proto.Clone(capi.req).(*fnv1.RunFunctionRequest), capi, certKubeconfig(t, metricsNow.Add(12*time.Hour)))
	return append(reqs, notReadySince(t, late, metricsNow.Add(-45*time.Minute)))
}

// notReadySince gives the request's observed composite a Ready condition False since then.
func notReadySince(t *testing.T, req *fnv1.RunFunctionRequest, since time.Time) *fnv1.RunFunctionRequest {
	t.Helper()
	xr := req.GetObserved().GetComposite().GetResource().AsMap()
	status, _ := xr["status"].(map[string]any)
	if status == nil {
		status = map[string]any{}
	}
	status["conditions"] = []any{map[string]any{"type": "Ready", "status": "False", "reason": "Creating", "lastTransitionTime": since.Format(time.RFC3339)}}
	xr["status"] = status
	s, err := structpb.NewStruct(xr)
	if err != nil {
		t.Fatal(err)
	}
	req.Observed.Composite.Resource = s
	return req
}

// exportedMetrics are the names of the metrics the function serves as main serves them,
// the SDK's gRPC metrics included, each histogram with its _bucket, _sum and _count series.
func exportedMetrics(t *testing.T) []string {
	t.Helper()
	fn := NewFunction(logging.NewNopLogger())
	fn.now = func() time.Time { return metricsNow }
	conn, _ := serve(t, fn, fn.metrics.registry)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	for _, req := range everyMetricCalls(t) {
		if _, err := fnv1.NewFunctionRunnerServiceClient(conn).RunFunction(ctx, req, grpc.WaitForReady(true)); err != nil {
			t.Fatal(err)
		}
	}
	families, err := fn.metrics.registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, mf := range families {
		names = append(names, mf.GetName())
		if mf.GetType().String() == "HISTOGRAM" {
			names = append(names, mf.GetName()+"_bucket", mf.GetName()+"_sum", mf.GetName()+"_count")
		}
	}
	return names
}

// metricName finds the function's metrics in a PromQL expression.
var metricName = regexp.MustCompile(`\b(?:scs_kaas|grpc_server)_[a-z_]+\b`)

// TestMonitoringQueriesExportedMetrics: every metric the shipped alerts and dashboard query
// is one the function exports, and every metric of the function's own is on the dashboard:
// a renamed metric cannot leave an alert that never fires or an empty panel behind.
func TestMonitoringQueriesExportedMetrics(t *testing.T) {
	exported := exportedMetrics(t)
	queries := map[string][]string{}
	var board struct {
		Panels []struct {
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	if err := json.Unmarshal(readFile(t, dashboard), &board); err != nil {
		t.Fatalf("%s: %v", dashboard, err)
	}
	for _, p := range board.Panels {
		for _, target := range p.Targets {
			queries[dashboard] = append(queries[dashboard], target.Expr)
		}
	}
	for _, r := range alertRules(t) {
		queries[prometheusRule] = append(queries[prometheusRule], r.Expr)
	}
	onDashboard := map[string]bool{}
	for file, exprs := range queries {
		if len(exprs) == 0 {
			t.Errorf("%s has no queries", file)
		}
		for _, expr := range exprs {
			names := metricName.FindAllString(expr, -1)
			if len(names) == 0 {
				t.Errorf("%s: %q queries none of the function's metrics", file, expr)
			}
			for _, n := range names {
				if !slices.Contains(exported, n) {
					t.Errorf("%s: %q queries %s, which the function does not export", file, expr, n)
				}
				if file == dashboard {
					onDashboard[strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(n, "_bucket"), "_count"), "_sum")] = true
				}
			}
		}
	}
	for _, n := range []string{metricRunDuration, metricResults, metricDesiredResources, metricKubeconfigExpiry, metricNotReady} {
		if !onDashboard[n] {
			t.Errorf("%s shows nothing of %s", dashboard, n)
		}
	}
}

// rule is an alerting rule of the shipped PrometheusRule.
type rule struct {
	Alert string `json:"alert"`
	Expr  string `json:"expr"`
}

func alertRules(t *testing.T) []rule {
	t.Helper()
	var pr struct {
		Spec struct {
			Groups []struct {
				Rules []rule `json:"rules"`
			} `json:"groups"`
		} `json:"spec"`
	}
	if err := yaml.Unmarshal(readFile(t, prometheusRule), &pr); err != nil {
		t.Fatalf("%s: %v", prometheusRule, err)
	}
	var out []rule
	for _, g := range pr.Spec.Groups {
		out = append(out, g.Rules...)
	}
	return out
}

// TestAlertRules runs the alerts' unit tests (rules_test.yaml) with promtool, built from
// Prometheus's Go module by make (hack/tools/promtool): each alert fires on the series
// that should fire it and stays quiet on the others, and every alert has a test.
func TestAlertRules(t *testing.T) {
	dir := os.Getenv("SCS_KAAS_TOOL_PROMTOOL")
	promtool := filepath.Join(dir, "promtool")
	if _, err := os.Stat(promtool); dir == "" || err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("promtool is missing (SCS_KAAS_TOOL_PROMTOOL=%q): make test builds it (make tools-promtool)", dir)
		}
		t.Skipf("promtool is missing (SCS_KAAS_TOOL_PROMTOOL=%q): make tools-promtool builds it, make test runs this test", dir)
	}
	var pr map[string]any
	if err := yaml.Unmarshal(readFile(t, prometheusRule), &pr); err != nil {
		t.Fatal(err)
	}
	// promtool reads rule files, the PrometheusRule's spec.
	rules, err := yaml.Marshal(pr["spec"])
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	if err := os.WriteFile(filepath.Join(tmp, "rules.yaml"), rules, 0o600); err != nil {
		t.Fatal(err)
	}
	tests := readFile(t, rulesTest)
	if err := os.WriteFile(filepath.Join(tmp, "rules_test.yaml"), tests, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, r := range alertRules(t) {
		if !strings.Contains(string(tests), "alertname: "+r.Alert+"\n") {
			t.Errorf("%s has no test of alert %s", rulesTest, r.Alert)
		}
	}
	out, err := exec.CommandContext(t.Context(), promtool, "test", "rules", filepath.Join(tmp, "rules_test.yaml")).CombinedOutput()
	t.Logf("promtool test rules:\n%s", out)
	if err != nil {
		t.Fatalf("promtool test rules: %v", err)
	}
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
