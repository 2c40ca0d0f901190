package main

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"time"

	"github.com/crossplane/function-sdk-go/logging"
	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
	"google.golang.org/protobuf/types/known/durationpb"
	"k8s.io/utils/ptr"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/model"
	"github.com/SovereignCloudStack/scs-kaas/model/all"
)

// Response TTLs: the net for changes no watch reports and for events Crossplane's circuit
// breaker drops (docs/reliability.md); a minute once Ready costs little (docs/scale.md), as
// long as Crossplane hears of the composite's changes. While its watch circuit is open, a
// Ready composite keeps the short TTL: Crossplane drops the events of a team's edit too.
const (
	ttlConverging = 10 * time.Second
	ttlReady      = time.Minute
)

// Function is the composition function: a thin adapter between RunFunction and the model.
type Function struct {
	fnv1.UnimplementedFunctionRunnerServiceServer

	log      logging.Logger
	backends *model.Registry
	options  model.Options
	metrics  *metrics
	now      func() time.Time
}

// defaultConnectionSecretNamespace is Crossplane's, for a composite that names none.
const defaultConnectionSecretNamespace = "crossplane-system"

// NewFunction returns the function with every backend this build supports.
func NewFunction(log logging.Logger) *Function {
	return &Function{
		log:      log,
		backends: all.Registry(),
		options:  model.Options{ConnectionSecretNamespace: defaultConnectionSecretNamespace},
		metrics:  newMetrics(),
		now:      time.Now,
	}
}

// RunFunction translates one composite resource. Every error, and a panic, ends in a Fatal
// result with the desired state as it came in: Crossplane deletes what is missing from it,
// and a crash would stop the function for every tenant, over and over.
func (f *Function) RunFunction(_ context.Context, req *fnv1.RunFunctionRequest) (rsp *fnv1.RunFunctionResponse, err error) {
	start := time.Now()
	var facts runFacts
	defer func() {
		if p := recover(); p != nil {
			name := req.GetObserved().GetComposite().GetResource().GetFields()["metadata"].GetStructValue().GetFields()["name"].GetStringValue()
			f.log.Info("Recovered from a panic; nothing was changed", "xr", name, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			// A fresh response: the one under way may hold half of the desired state.
			rsp, err = refuse(newResponse(req, ttlConverging), kaasv1alpha1.ReasonInternalError,
				errors.New("the function failed on this composite resource with an internal error, logged with its stack; nothing was changed: please report it")), nil
		}
		f.metrics.observe(start, rsp, facts)
	}()
	rsp, facts = f.runFunction(req)
	return rsp, nil
}

// runFacts is what one call tells the metrics beyond its response.
type runFacts struct {
	backend         string
	desired         int
	kubeconfigKnown bool
	kubeconfigLeft  time.Duration
	notReadyFor     time.Duration
	// plannedKind is the kind of update the cluster plans on its own, plannedIn how long
	// until it may start; empty: none.
	plannedKind string
	plannedIn   time.Duration
}

// runFunction answers one request, and says what the metrics record of it.
func (f *Function) runFunction(req *fnv1.RunFunctionRequest) (*fnv1.RunFunctionResponse, runFacts) {
	rsp := newResponse(req, ttlConverging)

	in, err := decodeInput(req, f.options)
	if err != nil {
		return refuse(rsp, kaasv1alpha1.ReasonRenderFailed, err), runFacts{}
	}
	in.Now = f.now()
	// Not a logger WithValues: that would encode the name on every call, logged or not.
	xr := in.Cluster.Name

	out, err := f.backends.Reconcile(in)
	if err != nil {
		f.log.Info("Refusing to render", "xr", xr, "reason", model.ReasonOf(err), "error", err.Error())
		return refuse(rsp, model.ReasonOf(err), err), runFacts{}
	}
	// Until the requirements are fetched, Crossplane does not act on the response.
	rsp.Requirements = encodeRequirements(out.Requirements)
	facts := runFacts{backend: backendRequirements}
	if out.Environment != nil {
		facts.backend = string(out.Environment.Backend)
	}
	if !out.Complete {
		return rsp, facts
	}

	if err := encodeOutput(req, rsp, out, in.Cluster.Namespace != ""); err != nil {
		// encodeOutput changed nothing: the desired state is still what came in.
		return refuse(rsp, kaasv1alpha1.ReasonRenderFailed, err), facts
	}
	if out.Observation.Ready && !watchCircuitOpen(req) {
		rsp.Meta.Ttl = durationpb.New(ttlReady)
	}
	f.log.Debug("Rendered", "xr", xr, "backend", out.Environment.Backend, "environment", out.Environment.Name,
		"phase", out.Status.Phase, "resources", len(out.Rendering.Resources), "unready", unreadyResources{out})
	facts.desired = len(out.Rendering.Resources)
	if !out.KubeconfigExpires.IsZero() {
		facts.kubeconfigKnown, facts.kubeconfigLeft = true, out.KubeconfigExpires.Sub(in.Now)
	}
	facts.notReadyFor = notReadyFor(req, in.Now)
	if m := out.Status.Maintenance; m != nil && m.Planned != nil && m.Planned.NotBefore != nil {
		facts.plannedKind, facts.plannedIn = string(m.Planned.Kind), m.Planned.NotBefore.Sub(in.Now)
	}
	return rsp, facts
}

// watchCircuitOpen says whether Crossplane's circuit breaker drops the composite's watch
// events now: Crossplane marks its Responsive condition False (WatchCircuitOpen) before it
// calls the function. A composite with add-ons opens it as Flux writes its objects' status
// while they install, and it stays open for minutes (docs/addons.md#time-to-ready).
func watchCircuitOpen(req *fnv1.RunFunctionRequest) bool {
	// Crossplane's apiextensions/v1 TypeResponsive and ReasonWatchCircuitOpen; that package
	// would bring controller-runtime into the function.
	responsive := observedCondition(req, "Responsive")
	return responsive["status"].GetStringValue() == "False" && responsive["reason"].GetStringValue() == "WatchCircuitOpen"
}

// The SDK's request and response packages are not used: they import controller-runtime, for
// much more memory (docs/performance.md#what-bounds-it).

// newResponse starts the response to req as response.To does, with the desired state and
// context of earlier steps, which the function never writes into.
func newResponse(req *fnv1.RunFunctionRequest, ttl time.Duration) *fnv1.RunFunctionResponse {
	return &fnv1.RunFunctionResponse{
		Meta:    &fnv1.ResponseMeta{Tag: req.GetMeta().GetTag(), Ttl: durationpb.New(ttl)},
		Desired: req.GetDesired(),
		Context: req.GetContext(),
	}
}

// event adds a result that is an event of the composite resource and its claim.
func event(rsp *fnv1.RunFunctionResponse, severity fnv1.Severity, reason, message string) {
	rsp.Results = append(rsp.Results, &fnv1.Result{Severity: severity, Message: message,
		Reason: ptr.To(reason), Target: fnv1.Target_TARGET_COMPOSITE_AND_CLAIM.Enum()})
}

// refuse ends the pipeline with a Fatal result, which stops Crossplane before it applies or
// deletes anything. A Fatal result is an event of the composite only; the Warning before it
// is the claim's.
func refuse(rsp *fnv1.RunFunctionResponse, reason string, err error) *fnv1.RunFunctionResponse {
	event(rsp, fnv1.Severity_SEVERITY_WARNING, reason, err.Error())
	rsp.Results = append(rsp.Results, &fnv1.Result{Severity: fnv1.Severity_SEVERITY_FATAL, Message: err.Error(), Reason: ptr.To(reason),
		Target: fnv1.Target_TARGET_COMPOSITE.Enum()})
	setConditions(rsp, model.RefusalConditions(reason, err.Error()))
	return rsp
}

// encodeOutput writes the desired state, conditions and events once all is encoded.
func encodeOutput(req *fnv1.RunFunctionRequest, rsp *fnv1.RunFunctionResponse, out *model.Output, namespaced bool) error {
	desired, err := encodeDesired(req, out, namespaced)
	if err != nil {
		return err
	}
	rsp.Desired = desired
	setConditions(rsp, out.Conditions)
	for _, e := range out.Events {
		severity := fnv1.Severity_SEVERITY_WARNING
		if e.Type == model.EventNormal {
			severity = fnv1.Severity_SEVERITY_NORMAL
		}
		event(rsp, severity, e.Reason, e.Message)
	}
	return nil
}

// setConditions sets the model's conditions on the composite resource and its claim.
func setConditions(rsp *fnv1.RunFunctionResponse, conditions []model.Condition) {
	for _, c := range conditions {
		status := fnv1.Status_STATUS_CONDITION_UNKNOWN
		switch c.Status {
		case model.ConditionTrue:
			status = fnv1.Status_STATUS_CONDITION_TRUE
		case model.ConditionFalse:
			status = fnv1.Status_STATUS_CONDITION_FALSE
		}
		rsp.Conditions = append(rsp.Conditions, &fnv1.Condition{Type: c.Type, Status: status, Reason: c.Reason,
			Message: ptr.To(c.Message), Target: fnv1.Target_TARGET_COMPOSITE_AND_CLAIM.Enum()})
	}
}

// unreadyResources names the rendered resources not ready yet, for the debug log; a
// logr.Marshaler, so that they are collected only when debug logging is on.
type unreadyResources struct{ out *model.Output }

// MarshalLog implements logr.Marshaler.
func (u unreadyResources) MarshalLog() any {
	names := []string{}
	for _, r := range u.out.Rendering.Resources {
		if !u.out.Observation.ResourceReady[r.Name] {
			names = append(names, r.Name)
		}
	}
	return names
}
