package main

import (
	"strings"
	"testing"

	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
	"github.com/crossplane/function-sdk-go/resource"
	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/testing/protocmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/model"
)

// TestEncodeOutputRefusesWhatCannotBeEncoded: a status or a rendered resource that cannot
// be encoded (a string that is not UTF-8, which no protobuf Struct can hold) is an error
// that names it and leaves the response and the request as they were, whether or not
// earlier steps desired a status and resources: the caller refuses with the desired state
// as it came.
func TestEncodeOutputRefusesWhatCannotBeEncoded(t *testing.T) {
	earlier := &fnv1.State{
		Composite: &fnv1.Resource{Resource: resource.MustStructJSON(`{"status":{"fromEarlierStep":true}}`)},
		Resources: map[string]*fnv1.Resource{"platform-extra": {Resource: resource.MustStructJSON(fromPreviousStep)}},
	}
	object := func(m map[string]any) model.Resource {
		return model.Resource{Name: "gardener-shoot", Object: &unstructured.Unstructured{Object: m}}
	}
	outputs := map[string]struct {
		out  *model.Output
		want string
	}{
		"status": {
			out:  &model.Output{Status: kaasv1alpha1.ClusterStatus{APIServerURL: "\xff"}},
			want: "cannot encode the composite resource's status",
		},
		"resource": {
			out: &model.Output{Rendering: &model.Rendering{Resources: []model.Resource{
				object(map[string]any{"kind": "Object"}), {Name: "bad", Object: &unstructured.Unstructured{Object: map[string]any{"s": "\xff"}}}}}},
			want: "cannot encode desired resource bad",
		},
	}
	for name, desired := range map[string]*fnv1.State{"nothing desired before": {}, "earlier steps desired": earlier} {
		for what, tc := range outputs {
			t.Run(name+"/"+what, func(t *testing.T) {
				tc.out.Environment = &model.Environment{}
				tc.out.Observation = &model.Observation{}
				if tc.out.Rendering == nil {
					tc.out.Rendering = &model.Rendering{}
				}
				req := &fnv1.RunFunctionRequest{Desired: desired}
				reqBefore := proto.Clone(req)
				rsp := &fnv1.RunFunctionResponse{Desired: desired}
				before := proto.Clone(rsp)
				err := encodeOutput(req, rsp, tc.out, false)
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("encodeOutput = %v; want an error %q", err, tc.want)
				}
				if !proto.Equal(before, rsp) {
					t.Errorf("the response changed (-before +after):\n%s", cmp.Diff(before, rsp, protocmp.Transform()))
				}
				if !proto.Equal(reqBefore, req) {
					t.Errorf("the request changed (-before +after):\n%s", cmp.Diff(reqBefore, req, protocmp.Transform()))
				}
			})
		}
	}
}
