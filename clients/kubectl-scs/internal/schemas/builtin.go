package schemas

import (
	"embed"
	"fmt"
	"path"
)

// The schemas built into kubectl-scs, so that a released binary validates offline, outside
// any checkout, as GitOps pipelines run it: the API's XRD and the CRDs of every kind the
// function renders or reads. They are copies, because go:embed cannot reach outside the
// module; TestBuiltinSchemasAreCurrent compares each with its source, and `make generate`
// (the same test with -update) copies them again.
//
//go:embed builtin/*.yaml
var builtinFiles embed.FS

// builtinSource is where one embedded file comes from: a file of this repository, a file
// of a Go module at the version one of hack/tools pins, or a file of ../shared/crds (the
// upstream schemas no Go module carries).
type builtinSource struct {
	// File is the name under builtin/.
	File string
	// Origin names the source in reports, with its version.
	Origin string
	// RepoPath is a path from the repository's root.
	RepoPath string
	// Module is a module path; ToolDir the directory under hack/tools whose go.mod pins it;
	// ModulePath the file in the module.
	Module, ToolDir, ModulePath string
	// SharedPath is a path under ../shared/crds.
	SharedPath string
}

var builtinSources = []builtinSource{
	{File: "scsclusters.kaas.scs.community.yaml", Origin: "the API's XRD", RepoPath: "apis/xrd/namespaced/scsclusters.kaas.scs.community.yaml"},
	{File: "gardener.kaas.scs.community_adminkubeconfigs.yaml", Origin: "provider-gardener-kubeconfig",
		RepoPath: "providers/provider-gardener-kubeconfig/package/crds/gardener.kaas.scs.community_adminkubeconfigs.yaml"},
	{File: "gardener.m.kaas.scs.community_adminkubeconfigs.yaml", Origin: "provider-gardener-kubeconfig",
		RepoPath: "providers/provider-gardener-kubeconfig/package/crds/gardener.m.kaas.scs.community_adminkubeconfigs.yaml"},
	{File: "kubernetes.crossplane.io_objects.yaml", Origin: "provider-kubernetes v1.3.1",
		Module: "github.com/crossplane-contrib/provider-kubernetes", ToolDir: "provider-kubernetes", ModulePath: "package/crds/kubernetes.crossplane.io_objects.yaml"},
	{File: "kubernetes.m.crossplane.io_objects.yaml", Origin: "provider-kubernetes v1.3.1",
		Module: "github.com/crossplane-contrib/provider-kubernetes", ToolDir: "provider-kubernetes", ModulePath: "package/crds/kubernetes.m.crossplane.io_objects.yaml"},
	{File: "cluster.x-k8s.io_clusters.yaml", Origin: "Cluster API v1.14.2",
		Module: "sigs.k8s.io/cluster-api", ToolDir: "cluster-api", ModulePath: "core/config/crd/bases/cluster.x-k8s.io_clusters.yaml"},
	{File: "clusterstack.x-k8s.io_clusterstacks.yaml", Origin: "cluster-stack-operator v0.2.0-alpha.1", SharedPath: "cso_clusterstack.x-k8s.io_clusterstacks.yaml"},
	{File: "clusterstack.x-k8s.io_clusterstackreleases.yaml", Origin: "cluster-stack-operator v0.2.0-alpha.1", SharedPath: "cso_clusterstack.x-k8s.io_clusterstackreleases.yaml"},
	{File: "containerinfra.openstack.crossplane.io_clusterv1s.yaml", Origin: "provider-openstack v0.9.0", SharedPath: "containerinfra.openstack.crossplane.io_clusterv1s.yaml"},
	{File: "containerinfra.openstack.crossplane.io_nodegroupv1s.yaml", Origin: "provider-openstack v0.9.0", SharedPath: "containerinfra.openstack.crossplane.io_nodegroupv1s.yaml"},
	{File: "containerinfra.openstack.m.crossplane.io_clusterv1s.yaml", Origin: "provider-openstack v0.9.0", SharedPath: "containerinfra.openstack.m.crossplane.io_clusterv1s.yaml"},
	{File: "containerinfra.openstack.m.crossplane.io_nodegroupv1s.yaml", Origin: "provider-openstack v0.9.0", SharedPath: "containerinfra.openstack.m.crossplane.io_nodegroupv1s.yaml"},
}

// addBuiltin adds every embedded schema; they are part of the binary, so a failure is a
// bug that the tests catch.
func (s *Set) addBuiltin() {
	for _, src := range builtinSources {
		data, err := builtinFiles.ReadFile(path.Join("builtin", src.File))
		if err != nil {
			panic(fmt.Sprintf("the built-in schema %s: %v", src.File, err))
		}
		if _, err := s.addDocuments(data, src.Origin+", built in"); err != nil {
			panic(fmt.Sprintf("the built-in schema %s: %v", src.File, err))
		}
	}
}
