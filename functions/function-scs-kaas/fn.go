package main

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"sort"
	"strings"
	"time"

	"github.com/crossplane/function-sdk-go/logging"
	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
	"google.golang.org/protobuf/types/known/durationpb"
	"k8s.io/utils/ptr"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/model"
	"github.com/SovereignCloudStack/scs-kaas/model/all"
)

// Response TTLs. Under realtime compositions Crossplane reconciles the composite resource
// whenever a composed resource changes, so the TTL is only the safety net for changes no
// watch reports (a backend controller that updates status without touching the object we
// compose, an EnvironmentConfig edit) and for events Crossplane's watch circuit breaker
// drops: the e2e saw a user's change to a ready cluster wait out a five-minute TTL after the
// breaker had opened, and a converging cluster's conditions flapping through Crossplane's
// stale status writes (crossplane/crossplane#7062) open it on every scale or upgrade
// (docs/reliability.md). While a cluster is on its way the net is ten seconds, so that a
// converged cluster shows Ready at most that late even then (six calls a minute for each of
// the few clusters converging at a time); a ready cluster is checked every minute, which
// costs one call of about a millisecond of CPU per cluster and minute (docs/scale.md) and
// bounds how long a change can wait.
const (
	ttlConverging = 10 * time.Second
	ttlReady      = time.Minute
)

// Function is the composition function: a thin adapter that turns a RunFunctionRequest into
// a model.Input and the model.Output back into a RunFunctionResponse.
type Function struct {
	fnv1.UnimplementedFunctionRunnerServiceServer

	log      logging.Logger
	backends *model.Registry
	options  model.Options
	metrics  *metrics
	// now is the clock a delivered kubeconfig's expiry is checked against.
	now func() time.Time
}

// defaultConnectionSecretNamespace is where composed resources write connection secrets
// when the composite resource names no namespace for its own: Crossplane's namespace.
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

// RunFunction translates one composite resource. Every error ends in a Fatal result and
// leaves the desired state as it came in: Crossplane deletes composed resources that are
// missing from the desired state, so an empty or partial answer would delete clusters.
//
// A panic, a bug on some input nobody foresaw, ends the same way: without the recovery one
// bad composite would crash the function for every tenant, over and over.
func (f *Function) RunFunction(_ context.Context, req *fnv1.RunFunctionRequest) (rsp *fnv1.RunFunctionResponse, err error) {
	start := time.Now()
	var facts runFacts
	defer func() {
		if p := recover(); p != nil {
			name := req.GetObserved().GetComposite().GetResource().GetFields()["metadata"].GetStructValue().GetFields()["name"].GetStringValue()
			f.log.Info("Recovered from a panic; nothing was changed", "xr", name, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			// A fresh response: the one under way may hold half of the desired state. The
			// request's own desired state is never written to (encodeOutput).
			rsp, err = refuse(newResponse(req, ttlConverging), kaasv1alpha1.ReasonInternalError,
				errors.New("the function failed on this composite resource with an internal error, logged with its stack; nothing was changed: please report it")), nil
		}
		f.metrics.observe(start, rsp, facts)
	}()
	rsp, facts = f.runFunction(req)
	return rsp, nil
}

// runFacts is what one call tells the metrics beyond its response: the cluster's backend,
// how many resources it desired, how long its delivered kubeconfig is valid (if it says),
// and how long it has not been Ready.
type runFacts struct {
	backend         string
	desired         int
	kubeconfigKnown bool
	kubeconfigLeft  time.Duration
	notReadyFor     time.Duration
}

// runFunction answers one request, and says what the metrics record of it.
func (f *Function) runFunction(req *fnv1.RunFunctionRequest) (*fnv1.RunFunctionResponse, runFacts) {
	rsp := newResponse(req, ttlConverging)

	in, err := decodeInput(req, f.options)
	if err != nil {
		return refuse(rsp, kaasv1alpha1.ReasonRenderFailed, err), runFacts{}
	}
	in.Now = f.now()
	// Every log line names the composite; a logger WithValues would encode that name on
	// every call, logged or not.
	xr := in.Cluster.Name

	out, err := f.backends.Reconcile(in)
	if err != nil {
		f.log.Info("Refusing to render", "xr", xr, "reason", model.ReasonOf(err), "error", err.Error())
		return refuse(rsp, model.ReasonOf(err), err), runFacts{}
	}
	// Crossplane fetches what the requirements select and calls again; until then the
	// response carries no desired state of ours and Crossplane does not act on it.
	rsp.Requirements = encodeRequirements(out.Requirements)
	facts := runFacts{backend: backendRequirements}
	if out.Environment != nil {
		facts.backend = string(out.Environment.Backend)
	}
	if !out.Complete {
		return rsp, facts
	}

	if err := encodeOutput(req, rsp, out, in.Cluster.Namespace != ""); err != nil {
		// encodeOutput changes the response only once everything is encoded, so the
		// desired state is still what came in.
		return refuse(rsp, kaasv1alpha1.ReasonRenderFailed, err), facts
	}
	if out.Observation.Ready {
		rsp.Meta.Ttl = durationpb.New(ttlReady)
	}
	f.log.Debug("Rendered", "xr", xr, "backend", out.Environment.Backend, "environment", out.Environment.Name,
		"phase", out.Status.Phase, "resources", len(out.Rendering.Resources), "unready", unreadyResources{out})
	facts.desired = len(out.Rendering.Resources)
	if !out.KubeconfigExpires.IsZero() {
		facts.kubeconfigKnown, facts.kubeconfigLeft = true, out.KubeconfigExpires.Sub(in.Now)
	}
	facts.notReadyFor = notReadyFor(req, in.Now)
	return rsp, facts
}

// The SDK's request and response packages are not used: they import controller-runtime
// and with it client-go's scheme of every Kubernetes API group, which took the function's
// peak RSS to function-go-templating's (docs/performance.md). What the function needs of
// them is newResponse, the Results and setCondition, and protobuf's own AsMap and NewStruct.

// newResponse starts the response to req as response.To does: its tag, a time to live, and
// the desired state and context of the earlier pipeline steps, which the function adds to
// and never writes into.
func newResponse(req *fnv1.RunFunctionRequest, ttl time.Duration) *fnv1.RunFunctionResponse {
	return &fnv1.RunFunctionResponse{
		Meta:    &fnv1.ResponseMeta{Tag: req.GetMeta().GetTag(), Ttl: durationpb.New(ttl)},
		Desired: req.GetDesired(),
		Context: req.GetContext(),
	}
}

// setCondition sets a condition on the composite resource and its claim.
func setCondition(rsp *fnv1.RunFunctionResponse, typ string, status fnv1.Status, reason, message string) {
	rsp.Conditions = append(rsp.Conditions, &fnv1.Condition{Type: typ, Status: status, Reason: reason,
		Message: &message, Target: fnv1.Target_TARGET_COMPOSITE_AND_CLAIM.Enum()})
}

// warn adds a Warning result: an event on the composite resource and its claim.
func warn(rsp *fnv1.RunFunctionResponse, reason, message string) {
	rsp.Results = append(rsp.Results, &fnv1.Result{Severity: fnv1.Severity_SEVERITY_WARNING, Message: message,
		Reason: ptr.To(reason), Target: fnv1.Target_TARGET_COMPOSITE_AND_CLAIM.Enum()})
}

// event adds a Normal result: an event on the composite resource and its claim.
func event(rsp *fnv1.RunFunctionResponse, reason, message string) {
	rsp.Results = append(rsp.Results, &fnv1.Result{Severity: fnv1.Severity_SEVERITY_NORMAL, Message: message,
		Reason: ptr.To(reason), Target: fnv1.Target_TARGET_COMPOSITE_AND_CLAIM.Enum()})
}

// refuse ends the pipeline with a Fatal result, which stops Crossplane before it applies or
// deletes anything, and says why in the Rendered condition of the composite resource and
// its claim. A Fatal result alone becomes an event of the composite resource only; the
// Warning before it, which Crossplane emits before it stops, is the claim's event.
func refuse(rsp *fnv1.RunFunctionResponse, reason string, err error) *fnv1.RunFunctionResponse {
	warn(rsp, reason, err.Error())
	rsp.Results = append(rsp.Results, &fnv1.Result{Severity: fnv1.Severity_SEVERITY_FATAL, Message: err.Error(), Reason: ptr.To(reason),
		Target: fnv1.Target_TARGET_COMPOSITE.Enum()})
	setCondition(rsp, kaasv1alpha1.ConditionRendered, fnv1.Status_STATUS_CONDITION_FALSE, reason, err.Error())
	setCondition(rsp, kaasv1alpha1.ConditionStalled, fnv1.Status_STATUS_CONDITION_TRUE, reason, err.Error())
	return rsp
}

// encodeOutput writes the desired composed resources, the composite's status, conditions,
// warnings and connection details into the response. Desired resources of earlier pipeline
// steps stay, but for those of the names this function renders.
func encodeOutput(req *fnv1.RunFunctionRequest, rsp *fnv1.RunFunctionResponse, out *model.Output, namespaced bool) error {
	desired, err := encodeDesired(req, out, namespaced)
	if err != nil {
		return err
	}
	rsp.Desired = desired

	setCondition(rsp, kaasv1alpha1.ConditionRendered, fnv1.Status_STATUS_CONDITION_TRUE, kaasv1alpha1.ReasonRendered,
		fmt.Sprintf("rendered for backend %s in environment %s", out.Environment.Backend, out.Environment.Name))
	setStalled(rsp, out)
	for _, c := range out.Observation.Conditions {
		status := fnv1.Status_STATUS_CONDITION_UNKNOWN
		switch c.Status {
		case model.ConditionTrue:
			status = fnv1.Status_STATUS_CONDITION_TRUE
		case model.ConditionFalse:
			status = fnv1.Status_STATUS_CONDITION_FALSE
		}
		setCondition(rsp, c.Type, status, c.Reason, c.Message)
	}
	setSpecSupported(rsp, out.Rendering.Unsupported)
	for _, e := range out.Events {
		if e.Type == model.EventNormal {
			event(rsp, e.Reason, e.Message)
			continue
		}
		warn(rsp, e.Reason, e.Message)
	}
	return nil
}

// setStalled says whether the cluster can progress without a change by someone: not when
// its backend gave up on it (phase Failed, in the backend's words from BackendReady).
func setStalled(rsp *fnv1.RunFunctionResponse, out *model.Output) {
	if out.Status.Phase == kaasv1alpha1.PhaseFailed {
		for _, c := range out.Observation.Conditions {
			if c.Type == kaasv1alpha1.ConditionBackendReady {
				setCondition(rsp, kaasv1alpha1.ConditionStalled, fnv1.Status_STATUS_CONDITION_TRUE, c.Reason, c.Message)
				return
			}
		}
	}
	setCondition(rsp, kaasv1alpha1.ConditionStalled, fnv1.Status_STATUS_CONDITION_FALSE, kaasv1alpha1.ReasonRendered,
		"the function renders the cluster")
}

// setSpecSupported reports portable fields the backend cannot honour, as a Warning result
// (an event on the claim) and as a condition that stays visible.
func setSpecSupported(rsp *fnv1.RunFunctionResponse, unsupported []model.Unsupported) {
	if len(unsupported) == 0 {
		setCondition(rsp, kaasv1alpha1.ConditionSpecSupported, fnv1.Status_STATUS_CONDITION_TRUE, kaasv1alpha1.ReasonAllFieldsHonoured,
			"the backend honours every field that is set")
		return
	}
	msgs := make([]string, 0, len(unsupported))
	for _, u := range unsupported {
		msg := fmt.Sprintf("%s: %s", u.Field, u.Reason)
		msgs = append(msgs, msg)
		warn(rsp, kaasv1alpha1.ReasonUnsupportedField, msg)
	}
	sort.Strings(msgs)
	setCondition(rsp, kaasv1alpha1.ConditionSpecSupported, fnv1.Status_STATUS_CONDITION_FALSE, kaasv1alpha1.ReasonUnsupportedFields,
		strings.Join(msgs, "; "))
}

// unreadyResources names the rendered resources that are not ready yet, for the debug log:
// what an operator wants to know when a cluster does not become Ready. It is a
// logr.Marshaler so that the names are only collected when debug logging is on, not on
// every call.
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
