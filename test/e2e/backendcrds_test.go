package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// The Cluster Stacks and Magnum backends compose kinds whose controllers cannot run here
// (Cluster API, the Cluster Stack operator, provider-openstack). Their CRDs are installed
// so that the API server stores and validates what the function renders; the tests play
// the controllers.

// capiVersion is the Cluster API release whose Cluster CRD (with its CEL rules) the
// Crossplane cluster serves, as make render validates against it.
const capiVersion = "v1.14.2"

// upstreamCRDs are the Cluster Stack operator's and provider-openstack's CRDs, read from
// ../shared/crds where the machine has it (no Go module carries them).
var upstreamCRDs = []string{
	"cso_clusterstack.x-k8s.io_clusterstackreleases.yaml",
	"containerinfra.openstack.crossplane.io_clusterv1s.yaml",
	"containerinfra.openstack.crossplane.io_nodegroupv1s.yaml",
}

// backendCRDs returns the manifests of the backends' CRDs: Cluster API's Cluster CRD from
// the Go module proxy, and the upstream CRDs from ../shared/crds, or else the permissive
// stand-ins in testdata/standin-crds, which store the same kinds without checking their
// schema (said loudly: the upstream schemas are then checked nowhere in this run).
func backendCRDs(ctx context.Context) ([]string, error) {
	capi, err := capiClusterCRD(ctx)
	if err != nil {
		return nil, err
	}
	paths := []string{capi}
	shared := filepath.Join(repoRoot, "..", "shared", "crds")
	standIns := filepath.Join(repoRoot, "test", "e2e", "testdata", "standin-crds")
	for _, name := range upstreamCRDs {
		p := filepath.Join(shared, name)
		if _, err := os.Stat(p); err != nil {
			logf("NOTE: %s not found: the end-to-end tests use a permissive stand-in CRD for it, so provider-openstack's and the Cluster Stack operator's schemas are not checked in this run", p)
			p = filepath.Join(standIns, name)
		}
		paths = append(paths, p)
	}
	return paths, nil
}

// capiClusterCRD downloads (or finds in the module cache) Cluster API and returns the path
// of its Cluster CRD.
func capiClusterCRD(ctx context.Context) (string, error) {
	cmd := exec.CommandContext(ctx, "go", "mod", "download", "-json", "sigs.k8s.io/cluster-api@"+capiVersion)
	cmd.Dir = repoRoot
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("downloading sigs.k8s.io/cluster-api@%s for its Cluster CRD: %w", capiVersion, err)
	}
	var mod struct{ Dir string }
	if err := json.Unmarshal(out, &mod); err != nil || mod.Dir == "" {
		return "", fmt.Errorf("go mod download sigs.k8s.io/cluster-api@%s: no module directory in %q", capiVersion, out)
	}
	p := filepath.Join(mod.Dir, "core", "config", "crd", "bases", "cluster.x-k8s.io_clusters.yaml")
	if _, err := os.Stat(p); err != nil {
		return "", err
	}
	return p, nil
}
