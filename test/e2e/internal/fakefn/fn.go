package main

import (
	"context"
	"errors"
	"time"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"github.com/crossplane/function-sdk-go/logging"
	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
	"github.com/crossplane/function-sdk-go/request"
	"github.com/crossplane/function-sdk-go/resource"
	"github.com/crossplane/function-sdk-go/resource/composed"
	"github.com/crossplane/function-sdk-go/response"
)

// fn composes, for an XR with spec.project and spec.message, an Object
// (kubernetes.crossplane.io/v1alpha2) that puts ConfigMap <xr name> with
// data.message into namespace garden-<project> of the garden cluster.
type fn struct {
	fnv1.UnimplementedFunctionRunnerServiceServer
	log logging.Logger
}

func (f *fn) RunFunction(_ context.Context, req *fnv1.RunFunctionRequest) (*fnv1.RunFunctionResponse, error) {
	rsp := response.To(req, time.Minute)
	xr, err := request.GetObservedCompositeResource(req)
	if err != nil {
		response.Fatal(rsp, err)
		return rsp, nil
	}
	project, _ := xr.Resource.GetString("spec.project")
	message, _ := xr.Resource.GetString("spec.message")
	providerConfig, _ := xr.Resource.GetString("spec.providerConfigName")
	if project == "" {
		// Fatal, not an empty desired state: that would delete the Object.
		response.Fatal(rsp, errors.New("spec.project is required"))
		return rsp, nil
	}
	if providerConfig == "" {
		providerConfig = "garden"
	}

	obj := composed.New()
	obj.SetAPIVersion("kubernetes.crossplane.io/v1alpha2")
	obj.SetKind("Object")
	if err := obj.SetValue("spec", map[string]any{
		"watch":             true,
		"providerConfigRef": map[string]any{"name": providerConfig},
		"forProvider": map[string]any{"manifest": map[string]any{
			"apiVersion": "v1",
			"kind":       "ConfigMap",
			"metadata":   map[string]any{"name": xr.Resource.GetName(), "namespace": "garden-" + project},
			"data":       map[string]any{"message": message},
		}},
	}); err != nil {
		response.Fatal(rsp, err)
		return rsp, nil
	}

	desired, err := request.GetDesiredComposedResources(req)
	if err != nil {
		response.Fatal(rsp, err)
		return rsp, nil
	}
	d := &resource.DesiredComposed{Resource: obj, Ready: resource.ReadyFalse}
	observed, err := request.GetObservedComposedResources(req)
	if err != nil {
		response.Fatal(rsp, err)
		return rsp, nil
	}
	if o, ok := observed["configmap"]; ok && o.Resource.GetCondition(xpv2.TypeReady).Status == "True" {
		d.Ready = resource.ReadyTrue
	}
	desired["configmap"] = d
	if err := response.SetDesiredComposedResources(rsp, desired); err != nil {
		response.Fatal(rsp, err)
		return rsp, nil
	}
	f.log.Debug("composed", "xr", xr.Resource.GetName(), "ready", d.Ready)
	return rsp, nil
}
