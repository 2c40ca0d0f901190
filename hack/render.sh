#!/usr/bin/env bash
# Runs the render pipeline (hack/render) with the tools it needs, building them on first use:
# the crossplane CLI and core from the tool cache, the function binary, the Shoot CRD
# generated from Gardener's types (hack/shootcrd), provider-kubernetes' and Cluster API's CRDs.
#
#   hack/render.sh          render every example, validate, print (make render)
#   hack/render.sh test     the render tests (make test-render)
set -euo pipefail
cd "$(dirname "$0")/.."
out=$PWD/_output

cli=$(hack/tools/build.sh crossplane-cli)/crossplane-cli
core=$(hack/tools/build.sh crossplane)/crossplane
go build -trimpath -o "$out/bin/function-scs-kaas" ./functions/function-scs-kaas
# provider-kubernetes' CRDs straight from its module: no need to build the provider here.
pk=$(cd hack/tools/provider-kubernetes && go mod download -json github.com/crossplane-contrib/provider-kubernetes | sed -n 's/.*"Dir": "\(.*\)".*/\1/p')/package/crds
[[ -d $pk ]] || { echo "render: provider-kubernetes CRDs not found ($pk)" >&2; exit 1; }
# Cluster API's own Cluster CRD, with its CEL rules, from the module that publishes it.
capi=$(go mod download -json sigs.k8s.io/cluster-api@v1.14.2 | sed -n 's/.*"Dir": "\(.*\)".*/\1/p')/core/config/crd/bases/cluster.x-k8s.io_clusters.yaml
[[ -f $capi ]] || { echo "render: Cluster API's Cluster CRD not found ($capi)" >&2; exit 1; }
schemas=$PWD/apis/xrd/legacy,$PWD/hack/shootcrd/crds,$pk,$capi,$PWD/providers/provider-gardener-kubeconfig/package/crds
# provider-openstack is not on the module proxy; its CRDs come from ../shared/crds when
# this checkout has them. Without them the Magnum objects are rendered but not validated,
# and the output says so.
unvalidated=""
openstack=(../shared/crds/containerinfra.openstack.crossplane.io_*.yaml ../shared/crds/containerinfra.openstack.m.crossplane.io_*.yaml)
if [[ -f ${openstack[0]} ]]; then
	for f in "${openstack[@]}"; do schemas+=,$(cd "$(dirname "$f")" && pwd)/$(basename "$f"); done
else
	echo "render: ../shared/crds is missing: Magnum managed resources are not validated against provider-openstack's CRDs" >&2
	unvalidated=containerinfra.openstack.crossplane.io,containerinfra.openstack.m.crossplane.io
fi

case ${1:-render} in
render)
	exec go run ./hack/render -cli "$cli" -core "$core" -function "$out/bin/function-scs-kaas" \
		-schemas "$schemas" -unvalidated "$unvalidated" -out "$out/render"
	;;
test)
	SCS_KAAS_REQUIRE_TOOLS=1 SCS_KAAS_CROSSPLANE_CLI=$cli SCS_KAAS_CROSSPLANE_CORE=$core \
		SCS_KAAS_FUNCTION=$out/bin/function-scs-kaas SCS_KAAS_SCHEMAS=$schemas SCS_KAAS_UNVALIDATED=$unvalidated \
		exec go test -count=1 ./hack/render/
	;;
*)
	echo "usage: hack/render.sh [render|test]" >&2
	exit 2
	;;
esac
