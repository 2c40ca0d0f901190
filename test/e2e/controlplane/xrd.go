package controlplane

import (
	"context"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// applyManifests applies Options.Manifests into the Crossplane cluster and
// waits for their XRDs.
func (e *Env) applyManifests(ctx context.Context) error {
	if len(e.opts.Manifests) == 0 {
		return nil
	}
	objs, err := ReadManifests(e.opts.Manifests...)
	if err != nil {
		return err
	}
	if err := e.Crossplane.ApplyObjects(ctx, objs...); err != nil {
		return err
	}
	if err := e.waitCRDsEstablished(ctx, e.Crossplane, objs); err != nil {
		return err
	}
	for _, o := range objs {
		if o.GetKind() == "CompositeResourceDefinition" {
			if err := e.Crossplane.WaitXRD(ctx, o.GetAPIVersion(), o.GetName()); err != nil {
				return err
			}
		}
	}
	return nil
}

// WaitXRD waits until the named CompositeResourceDefinition is Established
// and, if it defines a claim, Offered; then the XR (and claim) kinds are
// served and Crossplane watches them. apiVersion is the XRD's own
// (apiextensions.crossplane.io/v1 or v2): reading a v2 XRD as v1 works but
// warns on every request.
func (c *Cluster) WaitXRD(ctx context.Context, apiVersion, name string) error {
	var last *unstructured.Unstructured
	err := waitFor(ctx, 120*time.Second, "XRD "+name+" Established/Offered", nil, func(ctx context.Context) (bool, error) {
		xrd, err := c.Get(ctx, apiVersion, "CompositeResourceDefinition", "", name)
		if err != nil {
			return false, err
		}
		last = xrd
		if !conditionTrue(xrd, "Established") {
			return false, nil
		}
		if _, hasClaim, _ := unstructured.NestedMap(xrd.Object, "spec", "claimNames"); hasClaim && !conditionTrue(xrd, "Offered") {
			return false, nil
		}
		return true, nil
	})
	if err != nil && last != nil {
		return fmt.Errorf("%w; conditions: %s", err, conditionSummary(last))
	}
	c.Mapper.Reset()
	return err
}
