package controlplane

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
)

// The Cluster Stacks and Magnum backends compose kinds of other controllers. Cluster API
// runs for real (StartClusterAPI); the Cluster Stack operator and provider-openstack cannot
// run here, so their CRDs are served: the API server stores and validates what the function
// composes, as a real management cluster would, and tests and the playground play the
// controllers.

// CAPIVersion is the Cluster API release that runs (hack/tools/cluster-api) and that make
// render validates against.
const CAPIVersion = "v1.14.2"

// upstreamCRDs are the Cluster Stack operator's and provider-openstack's CRDs, read from
// ../shared/crds where the machine has it (no Go module carries them).
var upstreamCRDs = []string{
	"cso_clusterstack.x-k8s.io_clusterstackreleases.yaml",
	"containerinfra.openstack.crossplane.io_clusterv1s.yaml",
	"containerinfra.openstack.crossplane.io_nodegroupv1s.yaml",
	// The Crossplane v2 kinds, which namespaced composites compose.
	"containerinfra.openstack.m.crossplane.io_clusterv1s.yaml",
	"containerinfra.openstack.m.crossplane.io_nodegroupv1s.yaml",
}

// BackendCRDs returns the manifests of the CRDs of the controllers that cannot run here:
// from ../shared/crds next to the repository, or else the permissive stand-ins in
// test/e2e/controlplane/testdata/standin-crds, which store the same kinds without checking
// their schema (logged: the upstream schemas are then checked nowhere in this run). Cluster
// API's CRDs come with Cluster API (Options.ClusterAPI).
func BackendCRDs(logf func(string, ...any), repoRoot string) []string {
	var paths []string
	shared := filepath.Join(repoRoot, "..", "shared", "crds")
	standIns := filepath.Join(repoRoot, "test", "e2e", "controlplane", "testdata", "standin-crds")
	for _, name := range upstreamCRDs {
		p := filepath.Join(shared, name)
		if _, err := os.Stat(p); err != nil {
			if logf != nil {
				logf("NOTE: %s not found: using a permissive stand-in CRD, so provider-openstack's and the Cluster Stack operator's schemas are not checked in this run", p)
			}
			p = filepath.Join(standIns, name)
		}
		paths = append(paths, p)
	}
	return paths
}

// ApplyStatus server-side-applies status onto obj's status subresource under manager: what
// the controller that manager names would write.
func (c *Cluster) ApplyStatus(ctx context.Context, obj *unstructured.Unstructured, status map[string]any, manager string) (*unstructured.Unstructured, error) {
	ri, err := c.resourceFor(obj)
	if err != nil {
		return nil, err
	}
	return ApplyStatus(ctx, ri, obj, status, manager)
}

// ApplyStatus server-side-applies status onto the status subresource of obj, which ri
// serves, under manager, with force: what the controller manager names would write.
func ApplyStatus(ctx context.Context, ri dynamic.ResourceInterface, obj *unstructured.Unstructured, status map[string]any, manager string) (*unstructured.Unstructured, error) {
	patch := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": obj.GetAPIVersion(),
		"kind":       obj.GetKind(),
		"metadata":   map[string]any{"name": obj.GetName(), "namespace": obj.GetNamespace()},
		"status":     status,
	}}
	data, err := patch.MarshalJSON()
	if err != nil {
		return nil, err
	}
	force := true
	got, err := ri.Patch(ctx, obj.GetName(), types.ApplyPatchType, data, metav1.PatchOptions{FieldManager: manager, Force: &force}, "status")
	if err != nil {
		return nil, fmt.Errorf("writing the status of %s %s as %s would: %w", obj.GetKind(), obj.GetName(), manager, err)
	}
	return got, nil
}

// ApplyWithStatus applies objects as ApplyObjects does, then the status each carries as
// manager: objects a controller keeps, such as the Cluster Stack operator's
// ClusterStackReleases, written as that controller would.
func (c *Cluster) ApplyWithStatus(ctx context.Context, manager string, objs ...*unstructured.Unstructured) error {
	for _, o := range objs {
		status, _, _ := unstructured.NestedMap(o.Object, "status")
		if err := c.ApplyObjects(ctx, o); err != nil {
			return err
		}
		if len(status) == 0 {
			continue
		}
		if _, err := c.ApplyStatus(ctx, o, status, manager); err != nil {
			return err
		}
	}
	return nil
}
