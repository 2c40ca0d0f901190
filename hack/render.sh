#!/usr/bin/env bash
# Runs the render pipeline (hack/render) with the tools it needs, building them on first use:
# the crossplane CLI and core from the tool cache, the function binary, the Shoot CRD
# generated from Gardener's types, and provider-kubernetes' CRDs from its Go module.
#
#   hack/render.sh          render every example, validate, print (make render)
#   hack/render.sh test     the render tests (make test-render)
set -euo pipefail
cd "$(dirname "$0")/.."
out=$PWD/_output

cli=$(hack/tools/build.sh crossplane-cli)/crossplane-cli
core=$(hack/tools/build.sh crossplane)/crossplane
go build -trimpath -o "$out/bin/function-scs-kaas" ./functions/function-scs-kaas
(cd hack/shootcrd && go run . -o "$out/crds/core.gardener.cloud_shoots.yaml")
pk=$(go mod download -json github.com/crossplane-contrib/provider-kubernetes@v1.3.1 | sed -n 's/.*"Dir": "\(.*\)".*/\1/p')
[[ -d $pk/package/crds ]] || { echo "render: provider-kubernetes CRDs not found in the module cache" >&2; exit 1; }
schemas=$PWD/apis/xrd,$out/crds/core.gardener.cloud_shoots.yaml,$pk/package/crds

case ${1:-render} in
render)
	exec go run ./hack/render -cli "$cli" -core "$core" -function "$out/bin/function-scs-kaas" \
		-schemas "$schemas" -out "$out/render"
	;;
test)
	SCS_KAAS_REQUIRE_TOOLS=1 SCS_KAAS_CROSSPLANE_CLI=$cli SCS_KAAS_CROSSPLANE_CORE=$core \
		SCS_KAAS_FUNCTION=$out/bin/function-scs-kaas SCS_KAAS_SCHEMAS=$schemas \
		exec go test -count=1 ./hack/render/
	;;
*)
	echo "usage: hack/render.sh [render|test]" >&2
	exit 2
	;;
esac
