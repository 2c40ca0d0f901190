#!/usr/bin/env bash
# make test: the live lane (make live: end-to-end passes and the playground on local control
# planes) and the checks lane (make checks: lint, vulnerabilities, module tests, fuzzing,
# render) at once. The control planes mostly wait on reconciles while the checks compute, so
# the checks run at nice 10 and take the cycles the live tests leave: a control plane under a
# test keeps the CPU it asks for, and its deadlines mean what they say.
#
# Beside both, the modules of every tool and module are fetched at once (make download), so
# that the tools' builds in the live lane find them rather than wait on the network in turn.
#
# Both lanes run to the end, whatever the other does; make test fails if either fails. The
# checks' lines carry a "[checks] " prefix; their log is also in _output/test/checks.log.
set -euo pipefail
cd "$(dirname "$0")/.."

make=${MAKE:-make}
out=_output/test
mkdir -p "$out"
rm -f "$out/checks.rc"
start=$SECONDS

# Ctrl-C or a CI timeout's SIGTERM stops both lanes and everything they started: the whole
# process group, the make that called this script included.
trap 'trap - INT TERM; kill 0' INT TERM

# The modules of the tools and tests come from the network while the first tool compiles.
nice -n 10 "$make" --no-print-directory download 2>&1 | sed -u 's/^/[download] /' &
download=$!

(
	rc=0
	nice -n 10 "$make" --no-print-directory checks >"$out/checks.log" 2>&1 || rc=$?
	echo "$rc" >"$out/checks.rc"
) &
checks=$!
# Stream the checks' log as it grows, each line marked.
tail -n +1 -F --pid="$checks" "$out/checks.log" 2>/dev/null | sed -u 's/^/[checks] /' &
follower=$!

live_rc=0
"$make" --no-print-directory live || live_rc=$?
live_seconds=$((SECONDS - start))

wait "$download" || true
wait "$checks" || true
wait "$follower" 2>/dev/null || true
checks_rc=$(cat "$out/checks.rc" 2>/dev/null || echo 1)

# CI shows the end of the output: a failed checks lane's own end comes last, next to the verdict,
# rather than 40 minutes of live-lane lines above it.
if ((checks_rc != 0)); then
	echo "make test: the checks lane failed; the end of $out/checks.log:"
	tail -n 60 "$out/checks.log" | sed 's/^/[checks] /'
fi
echo "make test: live lane rc=$live_rc (${live_seconds} s), checks lane rc=$checks_rc; $((SECONDS - start)) s in all"
((live_rc == 0 && checks_rc == 0))
