#!/usr/bin/env bash
# The vulnerability gate (make vulncheck): govulncheck over the given modules, offline, against
# the Go vulnerability database of the golang.org/x/vulndb module that
# hack/tools/govulncheck pins. The database is built once per vulndb version, with that
# module's own gendb, into the tool cache; the report names its date.
#
#   hack/vulncheck.sh TOOL_DIR MODULE_DIR...
#
# Fails when a module's code reaches a vulnerable function (govulncheck's "Your code is
# affected") that hack/vulncheck-accepted.yaml does not accept for that module; a finding in
# code the module never reaches does not count. hack/vulngate decides and prints each.
set -euo pipefail

tool=$1
shift
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" # MODULE_DIRs are relative to the repository's root
version=$(awk '$1 == "golang.org/x/vulndb" {print $2}' "$root/hack/tools/govulncheck/go.mod")
[[ -n $version ]] || { echo "vulncheck: no golang.org/x/vulndb version in hack/tools/govulncheck/go.mod" >&2; exit 1; }
db=${SCS_KAAS_CACHE:?}/vulndb/$version

work=$(mktemp -d "${TMPDIR:-/tmp}/vulndb.XXXXXX")
trap 'rm -rf "$work"' EXIT

if [[ ! -f $db/index/db.json ]]; then
	# gendb reads the entries from a git repository and dates each by its last commit: one
	# commit at the time of the module's pseudo-version dates them all by the database's
	# version, and the output is the same on every machine.
	[[ $version =~ ([0-9]{14})-[0-9a-f]{12}$ ]] || { echo "vulncheck: $version is no pseudo-version" >&2; exit 1; }
	stamp=${BASH_REMATCH[1]}
	when="${stamp:0:4}-${stamp:4:2}-${stamp:6:2}T${stamp:8:2}:${stamp:10:2}:${stamp:12:2}Z"
	mkdir -p "$work/repo/data"
	cp -R "$tool/osv" "$work/repo/data/osv"
	(
		cd "$work/repo"
		git init -q
		git add data/osv
		GIT_AUTHOR_DATE=$when GIT_COMMITTER_DATE=$when git -c user.name=vulndb -c user.email=vulndb@localhost \
			-c commit.gpgsign=false commit -q -m "golang.org/x/vulndb@$version"
	)
	"$tool/gendb" -repo "$work/repo" -out "$work/db"
	mkdir -p "$(dirname "$db")"
	rm -rf "$db.tmp"
	mv "$work/db" "$db.tmp"
	mv -T "$db.tmp" "$db"
fi

modified=$(sed -n 's/.*"modified": *"\([^"]*\)".*/\1/p' "$db/index/db.json")
echo "govulncheck $(basename "$tool"), offline, against the Go vulnerability database golang.org/x/vulndb@$version (modified $modified), with $(go env GOVERSION)"
scans=()
for m in "$@"; do
	echo "govulncheck ($m)"
	out=$work/scan-${#scans[@]}.json
	(cd "$m" && "$tool/govulncheck" -db "file://$db" -format json ./...) >"$out"
	scans+=("$m=$out")
done
go run ./hack/vulngate -accepted hack/vulncheck-accepted.yaml -db-date "${modified:0:10}" "${scans[@]}"
