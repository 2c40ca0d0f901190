package main

import (
	"fmt"
	"sync/atomic"

	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/functions/function-scs-kaas/internal/wire"
	"github.com/SovereignCloudStack/scs-kaas/model"
	"github.com/SovereignCloudStack/scs-kaas/model/objectmap"
)

// decodeInput reads the observed composite resource, the observed composed resources and
// the required resources of a request.
func decodeInput(req *wire.Request, opts model.Options) (model.Input, error) {
	in := model.Input{Options: opts, ConnectionDetails: req.Composite.ConnectionDetails}
	if err := decodeComposite(req.Composite.Resource, &in); err != nil {
		return in, err
	}
	in.Observed = make(map[string]model.ObservedResource, len(req.Observed))
	for name, o := range req.Observed {
		in.Observed[name] = model.ObservedResource{
			Object:            &unstructured.Unstructured{Object: o.Resource},
			ConnectionDetails: o.ConnectionDetails,
		}
	}
	in.Required = make(map[string][]*unstructured.Unstructured, len(req.Required))
	for name, objects := range req.Required {
		items := make([]*unstructured.Unstructured, 0, len(objects))
		for _, o := range objects {
			items = append(items, &unstructured.Unstructured{Object: o})
		}
		in.Required[name] = items
	}
	return in, nil
}

// decodeComposite reads the composite resource of either flavour: the legacy cluster-scoped
// XSCSCluster, or the namespaced SCSCluster of Crossplane v2, whose kubeconfig Secret the
// function composes. The spec is the same.
func decodeComposite(xr map[string]any, in *model.Input) error {
	if xr == nil {
		return fmt.Errorf("the request has no observed composite resource")
	}
	in.Cluster = &kaasv1alpha1.XSCSCluster{}
	// What encoding/json decodes from the composite's JSON form, and its error in its words.
	if err := objectmap.FromJSONValue(xr, in.Cluster, false); err != nil {
		return fmt.Errorf("cannot decode the observed composite resource as %s: %w", kaasv1alpha1.CompositeKind, err)
	}
	ref := func(field string) string {
		s, _, _ := unstructured.NestedString(xr, "spec", "writeConnectionSecretToRef", field)
		return s
	}
	c := in.Cluster
	switch {
	case c.APIVersion == kaasv1alpha1.APIVersion && c.Kind == kaasv1alpha1.CompositeKind && c.Namespace == "":
		// Composed resources that publish connection details write them where Crossplane
		// keeps the composite's own connection secret (the Composition's
		// writeConnectionSecretsToNamespace).
		if ns := ref("namespace"); ns != "" {
			in.Options.ConnectionSecretNamespace = ns
		}
		return nil
	case c.APIVersion == kaasv1alpha1.APIVersion && c.Kind == kaasv1alpha1.ClaimKind && c.Namespace != "":
		in.KubeconfigSecret = ref("name")
		return nil
	}
	return fmt.Errorf("the composite resource is a %s %s; this function composes %s %s (cluster-scoped, with claims) and namespaced %s only",
		c.APIVersion, c.Kind, kaasv1alpha1.APIVersion, kaasv1alpha1.CompositeKind, kaasv1alpha1.ClaimKind)
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

// renderedSize and statusSize are how many bytes the last call's rendered resources and
// status took: the next call, most likely about a cluster of the same shape, encodes into
// buffers of those sizes rather than growing them step by step.
var renderedSize, statusSize atomic.Int64

// encodeResources encodes rendered objects as desired composed resources with the
// readiness the backend observed, all into one buffer.
func encodeResources(resources []model.Resource, ready map[string]bool) (map[string]wire.Rendered, error) {
	out := make(map[string]wire.Rendered, len(resources))
	buf := make([]byte, 0, renderedSize.Load())
	for _, r := range resources {
		start := len(buf)
		b, err := wire.AppendObject(buf, r.Object.Object)
		if err != nil {
			// What the encoder leaves to structpb: it takes it, or says what is wrong.
			s, err := objectmap.NewStruct(r.Object.Object)
			if err != nil {
				return nil, fmt.Errorf("cannot encode desired resource %s: %w", r.Name, err)
			}
			if b, err = (proto.MarshalOptions{}).MarshalAppend(buf, s); err != nil {
				return nil, fmt.Errorf("cannot encode desired resource %s: %w", r.Name, err)
			}
		}
		buf = b
		state := fnv1.Ready_READY_FALSE
		if ready[r.Name] {
			state = fnv1.Ready_READY_TRUE
		}
		// A slice of its own: should buf grow, this one keeps what it holds.
		out[r.Name] = wire.Rendered{Struct: buf[start:len(buf):len(buf)], Ready: state}
	}
	renderedSize.Store(int64(len(buf)))
	return out, nil
}

// encodeComposite returns the desired composite resource: what earlier pipeline steps
// desired, with this API's status fields and connection details set. The status comes
// apart, encoded straight from the typed status (wire.AppendTyped), unless earlier steps
// desired status fields of their own to merge it with: building a protobuf Struct of it
// only to encode that took as long as encoding the rest of the response.
func encodeComposite(desired *fnv1.Resource, status kaasv1alpha1.ClusterStatus, details map[string][]byte) (*fnv1.Resource, []byte, error) {
	out := &fnv1.Resource{Resource: &structpb.Struct{Fields: map[string]*structpb.Value{}}, ConnectionDetails: map[string][]byte{}}
	if desired != nil {
		for k, v := range desired.GetResource().GetFields() {
			out.Resource.Fields[k] = v
		}
		for k, v := range desired.GetConnectionDetails() {
			out.ConnectionDetails[k] = v
		}
		out.Ready = desired.GetReady()
	}
	for k, v := range details {
		out.ConnectionDetails[k] = v
	}
	earlier := out.Resource.GetFields()["status"].GetStructValue().GetFields()
	if len(earlier) == 0 {
		if b, ok := wire.AppendTyped(make([]byte, 0, statusSize.Load()), &status); ok {
			statusSize.Store(int64(len(b)))
			delete(out.Resource.Fields, "status")
			return out, b, nil
		}
	}
	st, err := objectmap.ToStruct(&status)
	if err != nil {
		return nil, nil, fmt.Errorf("cannot encode the composite resource's status: %w", err)
	}
	merged := &structpb.Struct{Fields: make(map[string]*structpb.Value, len(earlier)+len(st.GetFields()))}
	for k, v := range earlier {
		merged.Fields[k] = v
	}
	for k, v := range st.GetFields() {
		merged.Fields[k] = v
	}
	out.Resource.Fields["status"] = structpb.NewStructValue(merged)
	return out, nil, nil
}
