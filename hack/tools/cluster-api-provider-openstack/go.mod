// Wrapper module that pins the Cluster API OpenStack provider (see ../README.md).
// Nothing is built from it: only its CRDs are copied (tool.conf ASSETS), so
// there is no tools.go and `go mod tidy` would drop the requirement: do not run
// it here. go.sum holds the module's two hashes, which is all a build needs;
// the checksum database answers 404 for this module through our proxy, so a
// bump changes the version below, empties go.sum and writes the new hashes with
//   GONOSUMDB=sigs.k8s.io/cluster-api-provider-openstack go mod download sigs.k8s.io/cluster-api-provider-openstack
// (v0.13.0's CRDs were compared byte for byte with the upstream git tag).
module scs-kaas.local/tools/cluster-api-provider-openstack

go 1.26.0

require sigs.k8s.io/cluster-api-provider-openstack v0.13.0
