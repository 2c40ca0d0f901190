package main

import (
	"cmp"
	"strings"
	"time"

	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// The function's own metrics, served beside the SDK's gRPC metrics on --metrics-address
// (docs/operations.md says what each means and how to query it).
const (
	metricRunDuration      = "scs_kaas_function_run_duration_seconds"
	metricResults          = "scs_kaas_function_results_total"
	metricDesiredResources = "scs_kaas_function_desired_resources_total"
	metricKubeconfigExpiry = "scs_kaas_function_kubeconfig_remaining_seconds"
	metricNotReady         = "scs_kaas_function_not_ready_seconds"
	metricUpdatePlanned    = "scs_kaas_function_update_planned_seconds"
)

// Values of the backend label besides the backends' types: a call refused before a backend
// was chosen, and the first call of a reconcile, which only asks for EnvironmentConfigs.
const (
	backendNone         = "none"
	backendRequirements = "requirements"
)

// metrics are the function's metrics, in the registry the SDK serves.
type metrics struct {
	registry  *prometheus.Registry
	duration  *prometheus.HistogramVec
	results   *prometheus.CounterVec
	resources *prometheus.CounterVec
	// Observed once per call: the alerts count calls by bucket (package/monitoring).
	kubeconfig *prometheus.HistogramVec
	notReady   *prometheus.HistogramVec
	planned    *prometheus.HistogramVec
}

func newMetrics() *metrics {
	m := &metrics{
		registry: prometheus.NewRegistry(),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: metricRunDuration,
			Help: "Time the function took for one RunFunction call, by the backend of the cluster (none: refused before one was chosen; requirements: a call that only asked for the EnvironmentConfigs).",
			// A call takes about a millisecond; a slow one hundreds (docs/performance.md).
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1},
		}, []string{"backend"}),
		results: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: metricResults,
			Help: "Results the function returned, by severity (Fatal: a refusal, nothing changed; Warning) and reason (a condition reason of the API).",
		}, []string{"severity", "reason"}),
		resources: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: metricDesiredResources,
			Help: "Composed resources the function desired, summed over calls, by backend; divided by the calls it is the resources per cluster.",
		}, []string{"backend"}),
		kubeconfig: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: metricKubeconfigExpiry,
			Help: "Time until the delivered kubeconfig's credentials expire (0: expired), observed on every call on a cluster whose kubeconfig says, by backend.",
			// Expired, within an hour, a day, a week, a month.
			Buckets: []float64{0, 3600, 86400, 7 * 86400, 30 * 86400},
		}, []string{"backend"}),
		notReady: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: metricNotReady,
			Help: "Time since the composite resource was last Ready (or created), observed on every call on a cluster that is not Ready, by backend.",
			// Five minutes to a day: creation takes minutes; half an hour is an alert.
			Buckets: []float64{300, 900, 1800, 3600, 6 * 3600, 86400},
		}, []string{"backend"}),
		planned: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: metricUpdatePlanned,
			Help: "Time until an update the cluster plans on its own may start (its window, its wave), observed on every call on a cluster that plans one, by backend and kind (KubernetesPatch, EndOfLifeUpgrade).",
			// Within an hour, a day, three days (a wave), a week.
			Buckets: []float64{3600, 86400, 3 * 86400, 7 * 86400},
		}, []string{"backend", "kind"}),
	}
	// What the default registry carries, which the SDK serves without one of the function's.
	m.registry.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		m.duration, m.results, m.resources, m.kubeconfig, m.notReady, m.planned)
	return m
}

// observe records one call that started at start.
func (m *metrics) observe(start time.Time, rsp *fnv1.RunFunctionResponse, facts runFacts) {
	backend := cmp.Or(facts.backend, backendNone)
	m.duration.WithLabelValues(backend).Observe(time.Since(start).Seconds())
	for _, r := range rsp.GetResults() {
		severity := strings.TrimPrefix(r.GetSeverity().String(), "SEVERITY_")
		m.results.WithLabelValues(strings.ToUpper(severity[:1])+strings.ToLower(severity[1:]), r.GetReason()).Inc()
	}
	if facts.desired > 0 {
		m.resources.WithLabelValues(backend).Add(float64(facts.desired))
	}
	if facts.kubeconfigKnown {
		m.kubeconfig.WithLabelValues(backend).Observe(max(0, facts.kubeconfigLeft.Seconds()))
	}
	if facts.notReadyFor > 0 {
		m.notReady.WithLabelValues(backend).Observe(facts.notReadyFor.Seconds())
	}
	if facts.plannedKind != "" {
		m.planned.WithLabelValues(backend, facts.plannedKind).Observe(max(0, facts.plannedIn.Seconds()))
	}
}
