#!/usr/bin/env bash
# Builds pinned third-party programs (kube-apiserver, etcd, Crossplane, ...) from
# the wrapper modules next to this script into a per-version cache outside the
# clone, and prints one binary directory per requested tool on stdout.
#
#   hack/tools/build.sh <tool>...      build if needed, print the dirs
#   hack/tools/build.sh --dir <tool>... only print the dirs (no build)
#   hack/tools/build.sh --download <tool>... fetch the modules of those not built, at once
#   hack/tools/build.sh --list          list the tools
#   hack/tools/build.sh all             every tool, one after the other
#
# Why a cache outside the clone: kube-apiserver alone takes 10+ minutes on two
# cores; every clone (CI, fresh checkouts, worktrees) should pay that once.
# Why wrapper modules: the Go module proxy here refuses version listing, so
# `go install pkg@version` cannot work; a go.mod + go.sum pins every dependency.
#
# Each tool directory holds go.mod, go.sum, tools.go and tool.conf (see README.md;
# an assets-only tool has no tools.go).
# Everything but the directories goes to stderr so callers can do
# KUBE_BIN=$(hack/tools/build.sh kubernetes).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cache_root=${SCS_KAAS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/scs-kaas}
tools_root=$cache_root/tools

log() { printf 'tools: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

list_tools() {
	local d
	for d in "$here"/*/tool.conf; do basename "$(dirname "$d")"; done
}

# module_version prints the version the wrapper's go.mod requires for $2.
# Parsed with awk rather than `go list -m`, which would need the module graph
# (and so the network) before anything is cached.
module_version() {
	awk -v m="$2" '
		$1 == "require" && $2 == m { print $3; exit }
		$1 == m && $2 ~ /^v/ { print $2; exit }
	' "$1/go.mod"
}

# stamp is a hash of the wrapper's inputs and of the Go that builds it: a cached
# build made from different inputs for the same version (say a changed replace), or
# by another Go, is rebuilt, not reused.
stamp() {
	{
		(cd "$1" && find . -type f ! -name '*.md' -print0 | LC_ALL=C sort -z | xargs -0 sha256sum)
		go_env "$1" go env GOVERSION
	} | sha256sum | cut -d' ' -f1
}

# load_conf reads tool.conf (plain shell assignments) into globals.
load_conf() {
	MODULE="" PACKAGES="" BINARY_NAME="" BINARIES="" LDFLAGS="" TAGS="" ASSETS=""
	# shellcheck disable=SC1090
	source "$1/tool.conf"
	[[ -n $MODULE ]] || die "$1/tool.conf needs MODULE"
	[[ -n $PACKAGES$BINARIES$ASSETS ]] || die "$1/tool.conf needs PACKAGES, BINARIES or ASSETS"
	VERSION=$(module_version "$1" "$MODULE")
	[[ -n $VERSION ]] || die "$1/go.mod does not require $MODULE"
}

# resolve sets OUT (the cache dir) and the tool.conf variables for tool $1.
resolve() {
	local src=$here/$1
	[[ -f $src/tool.conf ]] || die "unknown tool '$1' (known: $(list_tools | tr '\n' ' '))"
	load_conf "$src"
	OUT=$tools_root/$1-$VERSION
}

# go_env runs a go command in wrapper $1 the way every build does.
# GOWORK=off: a go.work in the clone must not pull the wrapper into it.
# GOFLAGS keeps the caller's (e.g. -p=2) but forbids touching go.mod/go.sum
# so that what is built is exactly what is committed.
go_env() {
	(
		cd "$1"
		shift
		export GOWORK=off GOTOOLCHAIN=${GOTOOLCHAIN:-local} CGO_ENABLED=${CGO_ENABLED:-0}
		export GOFLAGS="${GOFLAGS:-} -mod=readonly"
		"$@"
	)
}

# go_build TOOL SRC TARGET PKG... runs `go build -o TARGET PKG...` in SRC with
# LDFLAGS and the build tags in TAGS. Up to three attempts: on an empty module cache a download can fail
# transiently; a real compile error fails again within seconds (cached).
go_build() {
	local tool=$1 src=$2 target=$3 attempt
	shift 3
	for attempt in 1 2 3; do
		if go_env "$src" go build -trimpath -tags "$TAGS" -ldflags "$LDFLAGS" -o "$target" "$@" >&2; then
			return
		fi
		((attempt < 3)) || die "go build of $tool failed (3 attempts)"
		log "go build of $tool failed (attempt $attempt); retrying in 10s"
		sleep 10
	done
}

build_one() {
	local tool=$1 src=$here/$1 out want
	resolve "$tool"
	out=$OUT
	want=$(stamp "$src")
	if [[ -f $out/.stamp && $(<"$out/.stamp") == "$want" ]]; then
		printf '%s\n' "$out"
		return
	fi

	mkdir -p "$tools_root"
	# One builder per tool version at a time: parallel make jobs or two clones
	# must not both spend ten minutes on the same binary.
	exec {lock}>"$tools_root/.lock-$tool-$VERSION"
	flock "$lock"
	if [[ -f $out/.stamp && $(<"$out/.stamp") == "$want" ]]; then
		exec {lock}>&-
		printf '%s\n' "$out"
		return
	fi
	# Left over from a killed build; safe to delete while we hold the lock.
	rm -rf "$tools_root/.tmp-$tool-$VERSION".*

	local tmp
	tmp=$(mktemp -d "$tools_root/.tmp-$tool-$VERSION.XXXXXX")
	local heartbeat=""
	trap 'rm -rf "$tmp"; [[ -z $heartbeat ]] || kill "$heartbeat" 2>/dev/null' EXIT
	trap 'exit 130' INT TERM
	chmod 755 "$tmp" # mktemp makes it 0700; the final dir is an ordinary one

	log "building $tool $VERSION (packages: ${PACKAGES:-none}; binaries: ${BINARIES:-none}; assets: $(wc -w <<<"$ASSETS"))"
	local start=$SECONDS
	# go build is silent for up to a quarter of an hour; say that it is alive
	# so that CI logs (and people) do not take it for a hang. Its stdout is not
	# ours and its sleep dies with it: a caller reading our stdout, as in
	# dir=$(build.sh etcd) or Go's exec.Cmd, would otherwise wait up to a
	# minute for an orphaned sleep to close the pipe.
	(
		trap 'kill "$s" 2>/dev/null; exit 0' TERM
		m=0
		while sleep 60 & s=$!; wait "$s" && kill -0 $$ 2>/dev/null; do # ends with this script, even after SIGKILL
			m=$((m + 1))
			log "still building $tool $VERSION ($m min)"
		done
	) >/dev/null &
	heartbeat=$!

	# PACKAGES: one `go build` for all of them so that they share compilation;
	# the binaries are named after the packages (or BINARY_NAME for one).
	if [[ -n $PACKAGES ]]; then
		local -a pkgs
		read -r -a pkgs <<<"$PACKAGES"
		local target=$tmp/
		if [[ -n $BINARY_NAME ]]; then
			((${#pkgs[@]} == 1)) || die "$tool: BINARY_NAME needs exactly one package"
			target=$tmp/$BINARY_NAME
		fi
		go_build "$tool" "$src" "$target" "${pkgs[@]}"
	fi
	# BINARIES: "name=package ..." for main packages whose names clash (go
	# build -o DIR/ would silently write one file for two packages called
	# kubeadm): one `go build -o DIR/name package` each, one after the other,
	# so the later ones reuse the first's compilation from the build cache.
	local bin
	for bin in $BINARIES; do
		[[ $bin == ?*=?* ]] || die "$tool: BINARIES entry '$bin' is not name=package"
		go_build "$tool" "$src" "$tmp/${bin%%=*}" "${bin#*=}"
	done
	kill "$heartbeat" 2>/dev/null || true
	heartbeat=""

	# ASSETS: "dest=module:relative/path ..." copies a directory or a file of
	# a module (e.g. CRDs shipped in the module zip) next to the binaries; dest
	# may have subdirectories (crds/core). The module is downloaded if need be
	# (a tool may consist of assets only), checked against the committed go.sum.
	local asset dest rest mod rel moddir
	for asset in $ASSETS; do
		[[ $asset == ?*=?*:?* ]] || die "$tool: ASSETS entry '$asset' is not dest=module:path"
		dest=${asset%%=*} rest=${asset#*=}
		mod=${rest%%:*} rel=${rest#*:}
		go_env "$src" go mod download "$mod" >&2 || die "$tool: cannot download $mod"
		moddir=$(go_env "$src" go list -m -f '{{.Dir}}' "$mod")
		[[ -e $moddir/$rel ]] || die "$tool: $mod has no $rel"
		[[ ! -e $tmp/$dest ]] || die "$tool: ASSETS name $dest twice"
		mkdir -p "$(dirname "$tmp/$dest")"
		cp -R "$moddir/$rel" "$tmp/$dest"
		# Module cache files are read-only; keep the cache deletable.
		chmod -R u+w "$tmp/$dest"
	done

	printf '%s\n' "$want" >"$tmp/.stamp"
	printf 'built in %ss with %s\n' "$((SECONDS - start))" "$(go version)" >"$tmp/.buildinfo"
	# Swap in atomically: a reader sees the old complete dir or the new one.
	if [[ -e $out ]]; then
		local old
		old=$(mktemp -d "$tools_root/.tmp-$tool-$VERSION.XXXXXX")
		mv -T "$out" "$old/old"
		mv -T "$tmp" "$out"
		rm -rf "$old"
	else
		mv -T "$tmp" "$out"
	fi
	trap - EXIT INT TERM
	exec {lock}>&-
	log "built $tool $VERSION in $((SECONDS - start))s -> $out"
	printf '%s\n' "$out"
}

# download_all fetches the modules of every tool in $@ that is not built yet, all at once.
# A cold build spends a quarter to half a minute per tool fetching before it compiles, one
# tool after the other; fetched beforehand, beside the first compile, the network waits
# leave the builds' way (make test does it first). go build later finds the modules in
# the cache; whatever this misses, it fetches itself, so a failure here only warns.
download_all() {
	local t want
	local -a pids=()
	for t in "$@"; do
		resolve "$t"
		want=$(stamp "$here/$t")
		[[ -f $OUT/.stamp && $(<"$OUT/.stamp") == "$want" ]] && continue
		(
			start=$SECONDS
			if go_env "$here/$t" go mod download >&2; then
				log "downloaded the modules of $t in $((SECONDS - start))s"
			else
				log "warning: downloading the modules of $t failed; its build fetches them again"
			fi
		) &
		pids+=($!)
	done
	((${#pids[@]} == 0)) || wait "${pids[@]}"
}

main() {
	local mode=build
	case ${1:-} in
	--list) list_tools; return ;;
	--dir) mode=dir; shift ;;
	--download) mode=download; shift ;;
	-h | --help | "") sed -n '2,10p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2; [[ -n ${1:-} ]]; return ;;
	esac
	local -a tools=("$@")
	if [[ ${tools[0]} == all ]]; then mapfile -t tools < <(list_tools); fi
	if [[ $mode == download ]]; then download_all "${tools[@]}"; return; fi
	local t
	for t in "${tools[@]}"; do
		if [[ $mode == dir ]]; then resolve "$t" && printf '%s\n' "$OUT"; else build_one "$t"; fi
	done
}

# On one line with exit: bash reads scripts as it runs them, and a build.sh
# edited during a quarter-hour build must not run the edited remainder.
main "$@"; exit
