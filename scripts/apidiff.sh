#!/usr/bin/env bash
# apidiff.sh: does the working tree break the API of a package at an older
# commit? (issue 29: none of the root package's exported names may go or
# change incompatibly while code moves out of it.)
#
# Exports the package's API at the base commit (a `git archive` of it in a
# temporary directory) and in the working tree with
# golang.org/x/exp/cmd/apidiff, prints every change apidiff finds and fails
# when one is incompatible. Each side is read with GOWORK=off in its own
# module, so the nested modules (docs/modules.md) play no part.
#
#	scripts/apidiff.sh [base commit (dc1837d)] [package directory (.)]...
#
# The directories are relative to the repository root and must be in the
# root module at both commits. Needs git, the base commit in the clone
# (not in a shallow one) and apidiff (installed if missing).
set -euo pipefail
base=${1:-dc1837d}
shift || true
dirs=("$@")
[ ${#dirs[@]} -gt 0 ] || dirs=(.)
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
if ! git rev-parse -q --verify "$base^{commit}" >/dev/null; then
	echo "apidiff.sh: commit $base is not in this clone (a shallow clone? git fetch --unshallow)" >&2
	exit 2
fi
export PATH="$PATH:$(go env GOPATH)/bin"
command -v apidiff >/dev/null || go install golang.org/x/exp/cmd/apidiff@latest
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/old"
git archive "$base" | tar -x -C "$tmp/old"
export GOWORK=off
status=0
for dir in "${dirs[@]}"; do
	pkg=$(cd "$root/$dir" && go list .)
	name=${pkg//\//_}
	(cd "$tmp/old/$dir" && apidiff -w "$tmp/$name.old" "$pkg")
	(cd "$root/$dir" && apidiff -w "$tmp/$name.new" "$pkg")
	echo "== $pkg: $(git rev-parse --short "$base") → working tree"
	apidiff "$tmp/$name.old" "$tmp/$name.new"
	if [ -n "$(apidiff -incompatible "$tmp/$name.old" "$tmp/$name.new")" ]; then
		echo "apidiff.sh: $pkg has incompatible changes since $base (above)" >&2
		status=1
	fi
done
exit $status
