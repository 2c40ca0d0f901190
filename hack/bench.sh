#!/usr/bin/env bash
# Side-by-side gRPC benchmark of function-scs-kaas against the peers measured in
# ../shared/tools/fnbench (function-go-templating, function-patch-and-transform and a no-op
# function), all rendering the same five-pool Gardener Shoot. Needs ../shared (not part of
# a fresh clone); docs/performance.md has the figures and how to read them.
#
#   hack/bench.sh                 our function only
#   PEERS="noop gotmpl pat scs" hack/bench.sh   with the peers (built on first use)
# RUNS (default 2) and CONFIGS (default "1:2000 8:5000", concurrency:calls) as in fnbench.
set -euo pipefail
cd "$(dirname "$0")/.."
shared=../shared/tools/fnbench
[[ -d $shared ]] || { echo "bench: $shared is missing (a fresh clone has no ../shared); nothing to compare with" >&2; exit 1; }
out=$PWD/_output/bench
bin=${SCS_KAAS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/scs-kaas}/bench
mkdir -p "$out" "$bin"
RUNS=${RUNS:-2}
CONFIGS=${CONFIGS:-"1:2000 8:5000"}
PEERS=${PEERS:-scs}
ADDR=127.0.0.1:19443
check="-expect-kind Object -expect-field spec.forProvider.manifest.kind=Shoot"

(cd "$shared" && go build -o "$out/fnbench" . && go build -o "$bin/fn-noop" ./cmd/fn-noop)
go build -trimpath -ldflags "-s -w" -o "$out/function-scs-kaas" ./functions/function-scs-kaas

# Every function gets the same request: a ready five-pool Gardener cluster, its Shoot
# observed healthy and its kubeconfig delivered, with the environment it names, as
# Crossplane sends it on a steady-state reconcile (written by the function's
# TestBenchRequest from its Wire benchmark). The peers get their pipeline input besides.
request=$PWD/functions/function-scs-kaas/testdata/bench/request-ready.yaml

peer_bin() {
	local name=$1 module=$2 version=$3
	[[ -x $bin/fn-$name-$version ]] && { echo "$bin/fn-$name-$version"; return; }
	local w
	w=$(mktemp -d)
	printf 'module example.local/%s\ngo 1.25.12\nrequire %s %s\n' "$name" "$module" "$version" >"$w/go.mod"
	printf '//go:build tools\n\npackage tools\n\nimport _ "%s"\n' "$module" >"$w/tools.go"
	(cd "$w" && go mod tidy >&2 && go build -o "$bin/fn-$name-$version" "$module")
	rm -rf "$w"
	echo "$bin/fn-$name-$version"
}

# Every binary is built before anything is timed: a peer built inside start would still be
# compiling when start gives up waiting for it to listen.
declare -A peer_cmd=([scs]="$out/function-scs-kaas --insecure --address=$ADDR --metrics-address=" [noop]="$bin/fn-noop -insecure -address=$ADDR")
for peer in $PEERS; do
	case $peer in
	gotmpl) peer_cmd[gotmpl]="$(peer_bin gotmpl github.com/crossplane-contrib/function-go-templating v0.12.3) --insecure --address=$ADDR" ;;
	pat) peer_cmd[pat]="$(peer_bin pat github.com/crossplane-contrib/function-patch-and-transform v0.10.9) --insecure --address=$ADDR" ;;
	scs | noop) ;;
	*) echo "bench: unknown peer $peer (noop, gotmpl, pat, scs)" >&2; exit 2 ;;
	esac
done

start() {
	if (exec 3<>"/dev/tcp/${ADDR%:*}/${ADDR##*:}") 2>/dev/null; then
		echo "bench: $ADDR is taken by another process; stop it first" >&2
		exit 1
	fi
	# shellcheck disable=SC2086 # the command line is split on purpose
	${peer_cmd[$1]} >/dev/null 2>&1 &
	PID=$!
	for _ in $(seq 100); do
		kill -0 "$PID" 2>/dev/null || { echo "bench: $1 exited at start" >&2; exit 1; }
		(exec 3<>"/dev/tcp/${ADDR%:*}/${ADDR##*:}") 2>/dev/null && return
		sleep 0.1
	done
	echo "bench: $1 did not listen" >&2
	exit 1
}
args() {
	case $1 in
	scs) echo "-request $request $check" ;;
	noop) echo "-request $request" ;;
	gotmpl) echo "-request $request -input $shared/testdata/input-gotmpl.yaml $check" ;;
	pat) echo "-request $request -input $shared/testdata/input-pat.yaml $check" ;;
	esac
}

for run in $(seq 1 "$RUNS"); do
	for peer in $PEERS; do
		for cfg in $CONFIGS; do
			c=${cfg%%:*} n=${cfg##*:}
			start "$peer"
			# shellcheck disable=SC2046
			"$out/fnbench" -label "peer=$peer c=$c n=$n run=$run" -address $ADDR $(args "$peer") \
				-n "$n" -c "$c" -warmup 200 -pid "$PID" -json
			kill "$PID"
			wait "$PID" 2>/dev/null || true
			echo
		done
	done
done
