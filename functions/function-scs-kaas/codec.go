package main

import (
	"fmt"
	"maps"
	"time"

	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
	"google.golang.org/protobuf/types/known/structpb"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/SovereignCloudStack/scs-kaas/model"
	"github.com/SovereignCloudStack/scs-kaas/model/input"
)

// decodeInput hands what a request observed and required to package input, as every caller.
func decodeInput(req *fnv1.RunFunctionRequest, opts model.Options) (model.Input, error) {
	observed, required := req.GetObserved().GetResources(), req.GetRequiredResources()
	r := input.Snapshot{
		Composite:         req.GetObserved().GetComposite().GetResource().AsMap(),
		ConnectionDetails: req.GetObserved().GetComposite().GetConnectionDetails(),
		Observed:          make(map[string]model.ObservedResource, len(observed)),
		Required:          make(map[string][]*unstructured.Unstructured, len(required)),
	}
	for name, o := range observed {
		r.Observed[name] = model.ObservedResource{Object: &unstructured.Unstructured{Object: o.GetResource().AsMap()}, ConnectionDetails: o.GetConnectionDetails()}
	}
	// A requirement Crossplane answered is present, also when nothing matched.
	for name, rs := range required {
		objs := make([]*unstructured.Unstructured, 0, len(rs.GetItems()))
		for _, o := range rs.GetItems() {
			objs = append(objs, &unstructured.Unstructured{Object: o.GetResource().AsMap()})
		}
		r.Required[name] = objs
	}
	return input.Decode(r, opts)
}

func encodeRequirements(reqs map[string]model.Selector) *fnv1.Requirements {
	out := &fnv1.Requirements{Resources: make(map[string]*fnv1.ResourceSelector, len(reqs))}
	for name, s := range reqs {
		sel := &fnv1.ResourceSelector{ApiVersion: s.APIVersion, Kind: s.Kind}
		if s.Namespace != "" {
			sel.Namespace = &s.Namespace
		}
		if s.MatchName != "" {
			sel.Match = &fnv1.ResourceSelector_MatchName{MatchName: s.MatchName}
		} else {
			sel.Match = &fnv1.ResourceSelector_MatchLabels{MatchLabels: &fnv1.MatchLabels{Labels: s.MatchLabels}}
		}
		out.Resources[name] = sel
	}
	return out
}

// encodeDesired returns what earlier steps desired with the rendered resources, the status
// and connection details set, as a State of its own: the request's is never written into,
// so that an error half way leaves it as it came.
func encodeDesired(req *fnv1.RunFunctionRequest, out *model.Output, namespaced bool) (*fnv1.State, error) {
	desired := &fnv1.State{Resources: maps.Clone(req.GetDesired().GetResources())}
	if desired.Resources == nil {
		desired.Resources = make(map[string]*fnv1.Resource, len(out.Rendering.Resources))
	}
	// In the order rendered: an error names the same resource on every call.
	for _, r := range out.Rendering.Resources {
		s, err := structpb.NewStruct(r.Object.Object)
		if err != nil {
			return nil, fmt.Errorf("cannot encode desired resource %s: %w", r.Name, err)
		}
		ready := fnv1.Ready_READY_FALSE
		if out.Observation.ResourceReady[r.Name] {
			ready = fnv1.Ready_READY_TRUE
		}
		desired.Resources[r.Name] = &fnv1.Resource{Resource: s, Ready: ready}
	}

	earlier := req.GetDesired().GetComposite()
	xr := earlier.GetResource().AsMap()
	status, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&out.Status)
	if err != nil {
		return nil, fmt.Errorf("cannot encode the composite resource's status: %w", err)
	}
	// Earlier steps' status fields stay; this API's win.
	if st, ok := xr["status"].(map[string]any); ok {
		maps.Copy(st, status)
		status = st
	}
	xr["status"] = status
	s, err := structpb.NewStruct(xr)
	if err != nil {
		return nil, fmt.Errorf("cannot encode the composite resource's status: %w", err)
	}
	details := make(map[string][]byte, len(earlier.GetConnectionDetails())+len(out.Observation.ConnectionDetails))
	maps.Copy(details, earlier.GetConnectionDetails())
	if !namespaced {
		// Crossplane drops them for namespaced composites, whose Secret is composed.
		maps.Copy(details, out.Observation.ConnectionDetails)
	}
	desired.Composite = &fnv1.Resource{Resource: s, ConnectionDetails: details, Ready: earlier.GetReady()}
	return desired, nil
}

// notReadyFor is how long the composite has not been Ready; zero while it is or says nothing.
func notReadyFor(req *fnv1.RunFunctionRequest, now time.Time) time.Duration {
	ready := observedCondition(req, "Ready")
	if ready == nil || ready["status"].GetStringValue() == "True" {
		return 0
	}
	since, err := time.Parse(time.RFC3339, ready["lastTransitionTime"].GetStringValue())
	if err != nil || now.Before(since) {
		return 0
	}
	return now.Sub(since)
}

// observedCondition is the fields of the observed composite's condition of type typ, or nil.
func observedCondition(req *fnv1.RunFunctionRequest, typ string) map[string]*structpb.Value {
	status := req.GetObserved().GetComposite().GetResource().GetFields()["status"].GetStructValue()
	for _, c := range status.GetFields()["conditions"].GetListValue().GetValues() {
		if f := c.GetStructValue().GetFields(); f["type"].GetStringValue() == typ {
			return f
		}
	}
	return nil
}
