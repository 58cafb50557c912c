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
# One kind of change apidiff calls incompatible is let through, and said:
# a type moved to another package of this module and kept under its old
# name by an alias (type URL = urlset.URL; golang/go#37138). apidiff says
# "URL: changed from URL to github.com/freshmap/sitemap/urlset.URL", and
# the same of every name whose type mentions it ("FromSlice: changed from
# func([]URL, int) Source to func([]URL, int) Source"). Such a line passes
# only when the new type, written without this module's package
# qualifiers, reads as the old one; and then the old package is compared
# with the moved types' new package, so a field or method a moved type lost
# still fails. What a program can still tell apart is the type's name under
# reflection (%T prints urlset.URL).
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
module=$(go list -m)
# unqualify writes a type without the package qualifiers of this module.
unqualify() { sed -E "s#${module//./\\.}(/[A-Za-z0-9_-]+)*\.##g" <<<"$1"; }
status=0
for dir in "${dirs[@]}"; do
	pkg=$(cd "$root/$dir" && go list .)
	name=${pkg//\//_}
	(cd "$tmp/old/$dir" && apidiff -w "$tmp/$name.old" "$pkg")
	(cd "$root/$dir" && apidiff -w "$tmp/$name.new" "$pkg")
	echo "== $pkg: $(git rev-parse --short "$base") → working tree"
	apidiff "$tmp/$name.old" "$tmp/$name.new"
	broken=() moved=() homes=()
	while IFS= read -r line; do
		subject=${line%%: *}
		if [[ $line =~ ^[^:]+:\ changed\ from\ (.*)\ to\ (.*)$ ]]; then
			was=${BASH_REMATCH[1]} now=${BASH_REMATCH[2]}
			if [ "$(unqualify "$now")" = "$was" ]; then
				if [[ $subject = "$was" && $now =~ ^($module/[^ ]+)\.$was$ ]]; then
					moved+=("$subject")
					homes+=("${BASH_REMATCH[1]}")
				fi
				continue
			fi
		fi
		broken+=("$line")
	done < <(apidiff -incompatible "$tmp/$name.old" "$tmp/$name.new" | sed -n 's/^- //p')
	# A moved type must keep its fields and methods in its new home.
	for home in $(printf '%s\n' "${homes[@]}" | sort -u); do
		(cd "$root" && apidiff -w "$tmp/home.new" "$home")
		while IFS= read -r line; do
			subject=${line%%: *}
			for m in "${moved[@]}"; do
				if [[ $subject = "$m" || $subject = "$m".* ]]; then broken+=("$line (moved to $home)"); fi
			done
		done < <(apidiff -incompatible "$tmp/$name.old" "$tmp/home.new" | sed -n 's/^- //p')
	done
	if [ ${#moved[@]} -gt 0 ]; then
		echo "moved behind an alias, same API in the new package: ${moved[*]}"
	fi
	if [ ${#broken[@]} -gt 0 ]; then
		echo "apidiff.sh: $pkg has incompatible changes since $base:" >&2
		printf -- '- %s\n' "${broken[@]}" >&2
		status=1
	else
		echo "no incompatible change"
	fi
done
exit $status
