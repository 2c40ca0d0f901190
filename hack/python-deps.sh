#!/usr/bin/env bash
# Installs what the SCS compliance-suite plugin (contrib/scs-compliance-plugin) and its test
# need: the distribution's python3 with the kubernetes and yaml packages (Debian packages
# python3-kubernetes, python3-yaml; no pip, no network beyond the distribution's mirror).
# A no-op when they are there; as root it installs them with apt-get, otherwise it says how.
set -euo pipefail
python=${SCS_KAAS_PYTHON:-/usr/bin/python3}
if "$python" -c 'import kubernetes, yaml' 2>/dev/null; then
	exit 0
fi
if [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null; then
	echo "python-deps: installing python3-kubernetes python3-yaml" >&2
	apt-get install -y -q python3-kubernetes python3-yaml >&2 ||
		{ apt-get update -q >&2 && apt-get install -y -q python3-kubernetes python3-yaml >&2; }
	"$python" -c 'import kubernetes, yaml'
	exit 0
fi
echo "python-deps: $python lacks the kubernetes and yaml packages; install python3-kubernetes and python3-yaml (apt-get), or set SCS_KAAS_PYTHON" >&2
exit 1
