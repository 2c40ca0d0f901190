package main

import (
	"time"

	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
	"google.golang.org/protobuf/types/known/durationpb"
)

// The few response helpers the function needs, written here rather than imported from
// function-sdk-go's response package: that package pulls in controller-runtime's client and
// with it client-go's scheme of every Kubernetes API group, several MiB more of binary to
// map and type registries kept on the heap of every function process.

// newResponse starts the response to req: its tag, a time to live, and the desired state
// and context of the earlier pipeline steps, which the function adds to and never drops.
func newResponse(req *fnv1.RunFunctionRequest, ttl time.Duration) *fnv1.RunFunctionResponse {
	return &fnv1.RunFunctionResponse{
		Meta:    &fnv1.ResponseMeta{Tag: req.GetMeta().GetTag(), Ttl: durationpb.New(ttl)},
		Desired: req.GetDesired(),
		Context: req.GetContext(),
	}
}

// addFatal ends the pipeline: Crossplane applies and deletes nothing of this call.
func addFatal(rsp *fnv1.RunFunctionResponse, err error) {
	rsp.Results = append(rsp.Results, &fnv1.Result{
		Severity: fnv1.Severity_SEVERITY_FATAL,
		Message:  err.Error(),
		Target:   fnv1.Target_TARGET_COMPOSITE.Enum(),
	})
}

// addWarning becomes a Warning event on the composite resource and its claim.
func addWarning(rsp *fnv1.RunFunctionResponse, reason, message string) {
	rsp.Results = append(rsp.Results, &fnv1.Result{
		Severity: fnv1.Severity_SEVERITY_WARNING,
		Message:  message,
		Reason:   &reason,
		Target:   fnv1.Target_TARGET_COMPOSITE_AND_CLAIM.Enum(),
	})
}

// addCondition sets a condition on the composite resource and its claim.
func addCondition(rsp *fnv1.RunFunctionResponse, typ string, status fnv1.Status, reason, message string) {
	rsp.Conditions = append(rsp.Conditions, &fnv1.Condition{
		Type:    typ,
		Status:  status,
		Reason:  reason,
		Message: &message,
		Target:  fnv1.Target_TARGET_COMPOSITE_AND_CLAIM.Enum(),
	})
}
