#!/usr/bin/env bash
# Signs pushed packages with cosign and attaches each one's SBOM as a CycloneDX attestation,
# so that Crossplane can verify them at install (docs/install.md, "Verify what you install").
#
#   hack/sign.sh REF[=SBOM]...
#
# REF is a package in a registry, best by digest (registry/owner/name@sha256:...): a tag
# is resolved when signing, and a tag moved in between would get the signature. SBOM is the
# CycloneDX file make package wrote beside the package (_output/packages/*.cdx.json); a
# Configuration has none: it holds no code, and what it installs is signed on its own.
#
# Environment:
#   COSIGN_KEY       the private key (cosign generate-key-pair), or a KMS URI cosign accepts
#   COSIGN_PASSWORD  its password; cosign reads it from the environment
#   REKOR_URL        the transparency log the signatures are recorded in (default: sigstore's
#                    public Rekor); Crossplane refuses a key-signed package without a log entry
#   COSIGN           the cosign binary (default: the pinned one, built on first use)
#
# The signatures use cosign's classic format (a .sig tag beside the package, the log entry in
# its annotations): what Crossplane v2.4.0 verifies against a key (--new-bundle-format=false,
# --use-signing-config=false, so that --rekor-url is the log used).
set -euo pipefail
cd "$(dirname "$0")/.."

(($# > 0)) || { sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
: "${COSIGN_KEY:?COSIGN_KEY names the signing key (see hack/sign.sh)}"
cosign=${COSIGN:-$(hack/tools/build.sh cosign)/cosign}
rekor=${REKOR_URL:-https://rekor.sigstore.dev}
flags=(--key="$COSIGN_KEY" --yes --tlog-upload=true --rekor-url="$rekor"
	--new-bundle-format=false --use-signing-config=false)

for arg in "$@"; do
	ref=${arg%%=*} sbom=
	"$cosign" sign "${flags[@]}" "$ref"
	if [[ $arg == *=* ]]; then
		sbom=${arg#*=}
		[[ -s $sbom ]] || { echo "sign: no SBOM at $sbom (run make package)" >&2; exit 1; }
		"$cosign" attest "${flags[@]}" --type=cyclonedx --predicate="$sbom" "$ref"
	fi
	echo "signed $ref${sbom:+ (SBOM attested)}"
done
