#!/usr/bin/env bash
# Builds the Crossplane packages of the project into _output/packages, without Docker or a
# registry: the Configuration (XRD and Composition), the Function and the Provider with their
# runtime images embedded (hack/imagetar). `crossplane xpkg build` also checks each
# package's metadata and objects, so a broken package fails here.
set -euo pipefail
cd "$(dirname "$0")/.."
out=$PWD/_output/packages
stage=$PWD/_output/package-stage
rm -rf "$stage" && mkdir -p "$out"
cli=$(hack/tools/build.sh crossplane-cli)/crossplane-cli
(cd hack/imagetar && go build -o "$PWD/../../_output/bin/imagetar" .)
imagetar=$PWD/_output/bin/imagetar

# Configurations, one per flavour: a package root each with the metadata, the XRD and the
# Composition. The namespaced one (Crossplane v2) is the primary, package/crossplane.yaml;
# -claims is the legacy one beside it, package/legacy/crossplane.yaml.
for flavour in namespaced legacy; do
	meta=package/crossplane.yaml
	[[ $flavour == namespaced ]] || meta=package/$flavour/crossplane.yaml
	mkdir -p "$stage/configuration-$flavour"
	cp "$meta" apis/xrd/$flavour/*.yaml compositions/$flavour/*.yaml "$stage/configuration-$flavour/"
done
"$cli" xpkg build --package-root="$stage/configuration-namespaced" --examples-root=examples \
	-o "$out/configuration-scs-kaas.xpkg"
"$cli" xpkg build --package-root="$stage/configuration-legacy" --examples-root=examples \
	-o "$out/configuration-scs-kaas-claims.xpkg"

# Each package that runs code gets an SBOM beside it, <package>.cdx.json: CycloneDX, made by
# cyclonedx-gomod from the Go build information of the very binary in the package (the
# modules and versions linked in, the Go that built it). hack/sign.sh attaches it to the
# pushed package as a signed attestation. The Configurations hold no code: no SBOM.
# -std lists the Go standard library too: most advisories an auditor asks about are in it.
cyclonedx=$(hack/tools/build.sh cyclonedx-gomod)/cyclonedx-gomod
sbom() { "$cyclonedx" bin -json -std ${3:+-version "$3"} -output "$2" "$1"; }

# Function: a static binary in a single-layer image, embedded in the package.
CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$stage/function" ./functions/function-scs-kaas
sbom "$stage/function" "$out/function-scs-kaas.cdx.json"
"$imagetar" -binary "$stage/function" -path /function -port 9443 -o "$stage/function.tar"
"$cli" xpkg build --package-root=functions/function-scs-kaas/package \
	--embed-runtime-image-tarball="$stage/function.tar" -o "$out/function-scs-kaas.xpkg"

# Provider: the same for provider-gardener-kubeconfig.
p=providers/provider-gardener-kubeconfig
(cd $p && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$stage/provider" ./cmd/provider)
sbom "$stage/provider" "$out/provider-gardener-kubeconfig.cdx.json"
"$imagetar" -binary "$stage/provider" -path /usr/local/bin/provider -port 8080 -o "$stage/provider.tar"
"$cli" xpkg build --package-root=$p/package \
	--embed-runtime-image-tarball="$stage/provider.tar" -o "$out/provider-gardener-kubeconfig.xpkg"

# provider-kubernetes, which every Configuration of the project depends on, for registries
# that cannot reach xpkg.crossplane.io (an air-gapped install, the e2e's registry): the
# package/ of the module hack/tools pins, with the binary hack/tools builds as its runtime
# image, as its Dockerfile lays it out. Not a package of this project: _output/packages/deps.
pk_mod=github.com/crossplane-contrib/provider-kubernetes
(cd hack/tools/provider-kubernetes && go mod download "$pk_mod")
pk_dir=$(cd hack/tools/provider-kubernetes && go list -m -f '{{.Dir}}' "$pk_mod")
pk_version=$(cd hack/tools/provider-kubernetes && go list -m -f '{{.Version}}' "$pk_mod")
pk_bin=$(hack/tools/build.sh provider-kubernetes)/provider-kubernetes
cp -R "$pk_dir/package" "$stage/provider-kubernetes" && chmod -R u+w "$stage/provider-kubernetes"
"$imagetar" -binary "$pk_bin" -path /usr/local/bin/crossplane-kubernetes-provider -port 8080 -o "$stage/provider-kubernetes.tar"
mkdir -p "$out/deps"
sbom "$pk_bin" "$out/deps/provider-kubernetes-$pk_version.cdx.json" "$pk_version"
"$cli" xpkg build --package-root="$stage/provider-kubernetes" \
	--embed-runtime-image-tarball="$stage/provider-kubernetes.tar" -o "$out/deps/provider-kubernetes-$pk_version.xpkg"

ls -l "$out" "$out/deps"
