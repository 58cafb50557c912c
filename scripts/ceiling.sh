#!/usr/bin/env bash
# ceiling.sh: the demo against the ceiling of this machine (issue 20).
#
# Runs the demo (examples/nethttp) and internal/cmd/ceiling, a trivial
# net/http server answering with the demo's own responses captured once
# (status, headers and bytes, one w.Write each), and loads each with
# `wrk -t2 -c64` in alternating rounds: a cached .xml.gz (the largest file
# of the index), the same file as plain .xml, the index (gzip-encoded and
# plain), robots.txt and a 304. It prints the median requests per second
# of each and demo/ceiling, then the write system calls per response of
# each server if strace is installed.
#
#	scripts/ceiling.sh [rounds (3)] [seconds per run (10)]
#
# DEMO=path runs that demo binary instead of building examples/nethttp
# (to measure another version of the library against the same ceiling).
#
# Needs Go, curl and wrk (installed with apt-get if missing; run as root).
# The demo's catalogue is built in the user's cache directory on first run.
set -euo pipefail
rounds=${1:-3}
secs=${2:-10}
cd "$(dirname "$0")/.."
if ! command -v wrk >/dev/null; then
	apt-get install -y wrk >/dev/null
fi
tmp=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	rm -rf "$tmp"
}
trap cleanup EXIT

if [ -n "${DEMO:-}" ]; then
	cp "$DEMO" "$tmp/demo"
else
	go build -o "$tmp/demo" ./examples/nethttp
fi
go build -o "$tmp/ceiling" ./internal/cmd/ceiling
demo=http://127.0.0.1:18080
ceil=http://127.0.0.1:18081
"$tmp/demo" -addr 127.0.0.1:18080 >"$tmp/demo.log" 2>&1 &
pids+=($!)
demo_pid=$!
"$tmp/ceiling" -from "$demo" -addr 127.0.0.1:18081 -targets "$tmp/targets" >"$tmp/ceiling.log" 2>&1 &
pids+=($!)
ceil_pid=$!
for _ in $(seq 3000); do
	[ -s "$tmp/targets" ] && curl -fso /dev/null "$ceil/robots.txt" && break
	kill -0 "$ceil_pid" 2>/dev/null || { cat "$tmp/ceiling.log" "$tmp/demo.log"; exit 1; }
	sleep 0.2
done

# rps URL AE INM: wrk's requests per second.
rps() {
	local args=(-t2 -c64 -d"${secs}s" --timeout 60s) # a request timed out would not be counted
	[ "$2" != - ] && args+=(-H "Accept-Encoding: $2")
	[ "$3" != - ] && args+=(-H "If-None-Match: $3")
	wrk "${args[@]}" "$1" | awk '/^Requests\/sec:/ {print $2}'
}

echo "machine: $(nproc) CPUs, $(lscpu | sed -n 's/^Model name: *//p')"
echo "targets: $(cut -f2 "$tmp/targets" | sort -u | tr '\n' ' ')"
while IFS=$'\t' read -r name path ae inm; do
	rps "$demo$path" "$ae" "$inm" >/dev/null # warm-up
	for r in $(seq "$rounds"); do
		if [ $((r % 2)) = 1 ]; then
			d=$(rps "$demo$path" "$ae" "$inm"); c=$(rps "$ceil$path" "$ae" "$inm")
		else
			c=$(rps "$ceil$path" "$ae" "$inm"); d=$(rps "$demo$path" "$ae" "$inm")
		fi
		echo "$name $d $c" >>"$tmp/results"
	done
done <"$tmp/targets"

median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
printf '\n%-16s %12s %12s %8s   %s\n' response "demo req/s" "ceiling" ratio "ratios by round"
while IFS=$'\t' read -r name _ _ _; do
	d=$(awk -v n="$name" '$1==n {print $2}' "$tmp/results" | median)
	c=$(awk -v n="$name" '$1==n {print $3}' "$tmp/results" | median)
	each=$(awk -v n="$name" '$1==n {printf "%.2f ", $2/$3}' "$tmp/results")
	printf '%-16s %12.0f %12.0f %8.2f   %s\n' "${name//_/ }" "$d" "$c" "$(echo "$d $c" | awk '{print $1/$2}')" "$each"
done <"$tmp/targets"

if command -v strace >/dev/null; then
	printf '\n%-16s %22s %22s\n' response "demo writes/response" "ceiling writes/response"
	while IFS=$'\t' read -r name path ae inm; do
		line="${name//_/ }"
		for pair in "$demo_pid $demo" "$ceil_pid $ceil"; do
			set -- $pair
			hdr=()
			[ "$ae" != - ] && hdr+=(-H "Accept-Encoding: $ae")
			[ "$inm" != - ] && hdr+=(-H "If-None-Match: $inm")
			strace -f -c -e trace=write,writev,sendmsg -p "$1" -o "$tmp/strace" 2>/dev/null &
			sp=$!
			sleep 0.5
			n=50
			curl -fs "${hdr[@]}" $(for _ in $(seq $n); do echo "$2$path"; done) >/dev/null
			sleep 0.3
			kill -INT $sp
			wait $sp 2>/dev/null || true
			w=$(awk '$NF ~ /^(write|writev|sendmsg)$/ {s += $4} END {print s+0}' "$tmp/strace")
			line="$line $(echo "$w $n" | awk '{printf "%.1f", $1/$2}')"
		done
		set -- $line
		printf '%-16s %22s %22s\n' "${line% * *}" "${@: -2:1}" "${@: -1}"
	done <"$tmp/targets"
fi
