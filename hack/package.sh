#!/usr/bin/env bash
# Builds the Crossplane packages of the project into _output/packages, without Docker or a
# registry: the Configuration (XRD and Composition), the Function and the Provider with their
# runtime images embedded (hack/imagetar). `crossplane xpkg build` also checks each
# package's metadata and objects, so a broken package fails here.
set -euo pipefail
cd "$(dirname "$0")/.."
out=$PWD/_output/packages
stage=$PWD/_output/package-stage
rm -rf "$stage" && mkdir -p "$out" "$stage/configuration"
cli=$(hack/tools/build.sh crossplane-cli)/crossplane-cli
(cd hack/imagetar && go build -o "$PWD/../../_output/bin/imagetar" .)
imagetar=$PWD/_output/bin/imagetar

# Configuration: one package root with the metadata, the XRD and the Composition.
cp package/crossplane.yaml apis/xrd/*.yaml compositions/*.yaml "$stage/configuration/"
"$cli" xpkg build --package-root="$stage/configuration" --examples-root=examples \
	-o "$out/configuration-scs-kaas.xpkg"

# Function: a static binary in a single-layer image, embedded in the package.
CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$stage/function" ./functions/function-scs-kaas
"$imagetar" -binary "$stage/function" -path /function -port 9443 -o "$stage/function.tar"
"$cli" xpkg build --package-root=functions/function-scs-kaas/package \
	--embed-runtime-image-tarball="$stage/function.tar" -o "$out/function-scs-kaas.xpkg"

# Provider: the same for provider-gardener-kubeconfig.
p=providers/provider-gardener-kubeconfig
(cd $p && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$stage/provider" ./cmd/provider)
"$imagetar" -binary "$stage/provider" -path /usr/local/bin/provider -port 8080 -o "$stage/provider.tar"
"$cli" xpkg build --package-root=$p/package \
	--embed-runtime-image-tarball="$stage/provider.tar" -o "$out/provider-gardener-kubeconfig.xpkg"

ls -l "$out"
