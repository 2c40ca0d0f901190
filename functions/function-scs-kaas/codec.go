package main

import (
	"fmt"
	"maps"

	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
	"github.com/crossplane/function-sdk-go/request"
	"github.com/crossplane/function-sdk-go/resource"
	"github.com/crossplane/function-sdk-go/resource/composed"
	"github.com/crossplane/function-sdk-go/response"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/SovereignCloudStack/scs-kaas/model"
	"github.com/SovereignCloudStack/scs-kaas/model/input"
)

// decodeInput reads the observed composite resource, the observed composed resources and
// the required resources of a request, and hands them to package input, which makes the
// model's Input of them as it does for every other caller.
func decodeInput(req *fnv1.RunFunctionRequest, opts model.Options) (model.Input, error) {
	xr, err := request.GetObservedCompositeResource(req)
	if err != nil {
		return model.Input{}, fmt.Errorf("cannot read the observed composite resource: %w", err)
	}
	observed, err := request.GetObservedComposedResources(req)
	if err != nil {
		return model.Input{}, fmt.Errorf("cannot read the observed composed resources: %w", err)
	}
	required, err := request.GetRequiredResources(req)
	if err != nil {
		return model.Input{}, fmt.Errorf("cannot read the required resources: %w", err)
	}
	r := input.Request{
		Composite:         xr.Resource.Object,
		ConnectionDetails: xr.ConnectionDetails,
		Observed:          make(map[string]model.ObservedResource, len(observed)),
		Required:          make(map[string][]*unstructured.Unstructured, len(required)),
	}
	for name, o := range observed {
		r.Observed[string(name)] = model.ObservedResource{Object: &o.Resource.Unstructured, ConnectionDetails: o.ConnectionDetails}
	}
	for name, items := range required {
		objs := make([]*unstructured.Unstructured, 0, len(items))
		for _, i := range items {
			objs = append(objs, i.Resource)
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

// encodeDesired returns the desired state: the rendered resources with the readiness the
// backend observed, and the composite resource earlier pipeline steps desired with this
// API's status and connection details set, next to what earlier steps desired.
//
// It is built in a response of its own, never in the request's desired state (which
// response.To hands on, not a copy): the SDK's setters write as they convert, and an error
// half way must leave the desired state as it came in.
func encodeDesired(req *fnv1.RunFunctionRequest, out *model.Output, namespaced bool) (*fnv1.State, error) {
	ours := &fnv1.RunFunctionResponse{}
	// One resource at a time, in the order rendered: an error names the resource, the
	// same one on every call.
	for _, r := range out.Rendering.Resources {
		ready := resource.ReadyFalse
		if out.Observation.ResourceReady[r.Name] {
			ready = resource.ReadyTrue
		}
		dcd := &resource.DesiredComposed{Resource: &composed.Unstructured{Unstructured: *r.Object}, Ready: ready}
		if err := response.SetDesiredComposedResources(ours, map[resource.Name]*resource.DesiredComposed{resource.Name(r.Name): dcd}); err != nil {
			return nil, fmt.Errorf("cannot encode desired resource %s: %w", r.Name, err)
		}
	}

	xr, err := request.GetDesiredCompositeResource(req)
	if err != nil {
		return nil, fmt.Errorf("cannot read the desired composite resource: %w", err)
	}
	status, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&out.Status)
	if err != nil {
		return nil, fmt.Errorf("cannot encode the composite resource's status: %w", err)
	}
	// Earlier steps' status fields stay; this API's win.
	if earlier, ok := xr.Resource.Object["status"].(map[string]any); ok {
		maps.Copy(earlier, status)
		status = earlier
	}
	xr.Resource.Object["status"] = status
	// A copy: the map is the request's.
	xr.ConnectionDetails = maps.Clone(xr.ConnectionDetails)
	if !namespaced {
		// Crossplane drops them for namespaced composites; their kubeconfig Secret is a
		// composed resource.
		maps.Copy(xr.ConnectionDetails, out.Observation.ConnectionDetails)
	}
	if err := response.SetDesiredCompositeResource(ours, xr); err != nil {
		return nil, fmt.Errorf("cannot encode the composite resource's status: %w", err)
	}
	ours.Desired.Composite.Ready = req.GetDesired().GetComposite().GetReady()

	desired := &fnv1.State{Composite: ours.GetDesired().GetComposite(), Resources: maps.Clone(req.GetDesired().GetResources())}
	if desired.Resources == nil {
		desired.Resources = make(map[string]*fnv1.Resource, len(out.Rendering.Resources))
	}
	maps.Copy(desired.Resources, ours.GetDesired().GetResources())
	return desired, nil
}
