#!/usr/bin/env bash
# Installs what the SCS compliance-suite plugin (contrib/scs-compliance-plugin) and its test
# need: the distribution's python3 with the packages the plugin and the suite's own runner
# (run_plugin.py of SovereignCloudStack/standards, which the test runs) import: kubernetes,
# yaml, click and jinja2 (Debian packages python3-kubernetes, python3-yaml, python3-click,
# python3-jinja2; no pip, no network beyond the distribution's mirror).
# A no-op when they are there; as root it installs them with apt-get, otherwise it says how.
set -euo pipefail
python=${SCS_KAAS_PYTHON:-/usr/bin/python3}
modules="kubernetes, yaml, click, jinja2"
packages="python3-kubernetes python3-yaml python3-click python3-jinja2"
if "$python" -c "import $modules" 2>/dev/null; then
	exit 0
fi
if [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null; then
	echo "python-deps: installing $packages" >&2
	# shellcheck disable=SC2086 # one word per package
	apt-get install -y -q $packages >&2 ||
		{ apt-get update -q >&2 && apt-get install -y -q $packages >&2; }
	"$python" -c "import $modules"
	exit 0
fi
echo "python-deps: $python cannot import $modules; install $packages (apt-get), or set SCS_KAAS_PYTHON" >&2
exit 1
