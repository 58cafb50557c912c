#!/usr/bin/env bash
# modgraph.sh: what an application that imports only the root package
# pulls into its module graph (issue 29 point 2: at most 13 modules).
#
# Builds a scratch module in a temporary directory that imports
# github.com/freshmap/sitemap and nothing else, with a replace to this
# checkout, runs `go mod tidy` in it (GOWORK=off, GOFLAGS=-mod=mod, the
# GOPROXY of `go env`: offline once the module cache holds the root's
# requirements; the root's go.sum is copied in so no checksum is asked
# for), and counts the distinct module paths of `go mod graph` other than
# the scratch module itself and the go and toolchain lines. It prints them
# and fails when there are more than the limit.
#
#	scripts/modgraph.sh [limit (13)]
#
# A test-only requirement of the root module counts too: module graph
# pruning keeps every requirement of the root's go.mod in a consumer's
# graph, so a dependency of a root test belongs in the module of the
# adapter that owns it (docs/modules.md).
set -euo pipefail
limit=${1:-13}
case $limit in '' | *[!0-9]*) echo "modgraph.sh: the limit must be a number, not $limit" >&2; exit 2 ;; esac
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/go.mod" <<MOD
module example.com/onlyroot

go $(sed -n 's/^go //p' "$root/go.mod")

require github.com/freshmap/sitemap v0.0.0-00010101000000-000000000000

replace github.com/freshmap/sitemap => $root
MOD
cat >"$tmp/main.go" <<'GO'
package main

import "github.com/freshmap/sitemap"

func main() { _ = sitemap.Config{} }
GO
cp "$root/go.sum" "$tmp/go.sum"
cd "$tmp"
export GOWORK=off GOFLAGS=-mod=mod GOPROXY="$(go env GOPROXY)"
go mod tidy
go build -o /dev/null .
mods=$(go mod graph | tr ' ' '\n' | sed 's/@.*//' | grep -v -x -e example.com/onlyroot -e go -e toolchain | sort -u)
n=$(printf '%s\n' "$mods" | grep -c .)
printf '%s\n' "$mods"
echo "$n modules in the graph of a module importing only github.com/freshmap/sitemap (limit $limit)"
if [ "$n" -gt "$limit" ]; then
	echo "modgraph.sh: $n modules, more than $limit: the root module requires more than the middleware needs" >&2
	exit 1
fi
