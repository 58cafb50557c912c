#!/usr/bin/env bash
# ceiling.sh: the demo against the ceiling of this machine (issue 20).
#
# Runs the demo (examples/nethttp) and internal/cmd/ceiling, a trivial
# net/http server answering with the demo's own responses captured once
# (status, headers and bytes, one w.Write each), and loads each with
# `wrk -t2 -c64` in alternating rounds: a cached .xml.gz (the largest file
# of the index), the same file as plain .xml, the index (gzip-encoded and
# plain), robots.txt, a 304 and part 1 of the file's HTML view with its
# live notes (gzip-encoded and plain). It prints the median requests per second
# of each and demo/ceiling, and the CPU time each server spent per
# request (user and system, from /proc: on a shared machine, load moves it
# less than it moves requests per second), then the write system calls
# per response of each server if strace is installed.
#
#	scripts/ceiling.sh [rounds (3)] [seconds per run (10)]
#
# DEMO=path runs that demo binary instead of building examples/nethttp
# (to measure another version of the library against the same ceiling).
# PORT=n serves the demo on 127.0.0.1:n and the ceiling on n+1 (18080).
# ONLY=name loads only the responses whose name (as printed, spaces
# written _) matches that awk regular expression: ONLY=robots.txt.
# RHT=d gives the ceiling's server that ReadHeaderTimeout (10s, as the
# demo's; 0s for none: then each small response costs the ceiling about
# half a system call less, the read deadline's wake-up of the poller).
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
port=${PORT:-18080}
demo=http://127.0.0.1:$port
ceil=http://127.0.0.1:$((port + 1))
"$tmp/demo" -addr "127.0.0.1:$port" >"$tmp/demo.log" 2>&1 &
pids+=($!)
demo_pid=$!
"$tmp/ceiling" -from "$demo" -addr "127.0.0.1:$((port + 1))" -targets "$tmp/targets" -read-header-timeout "${RHT:-10s}" >"$tmp/ceiling.log" 2>&1 &
pids+=($!)
ceil_pid=$!
for _ in $(seq 3000); do
	[ -s "$tmp/targets" ] && curl -fso /dev/null "$ceil/robots.txt" && break
	kill -0 "$ceil_pid" 2>/dev/null || { cat "$tmp/ceiling.log" "$tmp/demo.log"; exit 1; }
	sleep 0.2
done

if [ -n "${ONLY:-}" ]; then
	awk -F'\t' -v o="$ONLY" '$1 ~ o' "$tmp/targets" >"$tmp/only"
	[ -s "$tmp/only" ] || { echo "ONLY=$ONLY matches none of: $(cut -f1 "$tmp/targets" | tr '\n' ' ')" >&2; exit 1; }
	mv "$tmp/only" "$tmp/targets"
fi

# cpu PID: the CPU time the process has used, in clock ticks.
cpu() { awk '{print $14 + $15}' "/proc/$1/stat"; }
tick=$(getconf CLK_TCK)

# rps PID URL AE INM: wrk's requests per second, and the server's CPU
# microseconds per request.
rps() {
	local args=(-t2 -c64 -d"${secs}s" --timeout 60s) # a request timed out would not be counted
	[ "$3" != - ] && args+=(-H "Accept-Encoding: $3")
	[ "$4" != - ] && args+=(-H "If-None-Match: $4")
	local c0 out c1
	c0=$(cpu "$1")
	out=$(wrk "${args[@]}" "$2")
	c1=$(cpu "$1")
	echo "$out" | awk -v c="$((c1 - c0))" -v tick="$tick" '
		/requests in/ {n = $1}
		/^Requests\/sec:/ {r = $2}
		END {printf "%s %.1f\n", r, c * 1e6 / tick / n}'
}

echo "machine: $(nproc) CPUs, $(lscpu | sed -n 's/^Model name: *//p')"
echo "targets: $(cut -f2 "$tmp/targets" | sort -u | tr '\n' ' ')"
while IFS=$'\t' read -r name path ae inm; do
	rps "$demo_pid" "$demo$path" "$ae" "$inm" >/dev/null # warm-up
	for r in $(seq "$rounds"); do
		if [ $((r % 2)) = 1 ]; then
			d=$(rps "$demo_pid" "$demo$path" "$ae" "$inm"); c=$(rps "$ceil_pid" "$ceil$path" "$ae" "$inm")
		else
			c=$(rps "$ceil_pid" "$ceil$path" "$ae" "$inm"); d=$(rps "$demo_pid" "$demo$path" "$ae" "$inm")
		fi
		echo "$name $d $c" >>"$tmp/results" # name, demo req/s and µs, ceiling req/s and µs
	done
done <"$tmp/targets"

median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
col() { awk -v n="$1" -v i="$2" '$1==n {print $i}' "$tmp/results" | median; }
printf '\n%-16s %10s %10s %6s   %-22s %8s %8s %9s\n' response "demo req/s" ceiling ratio "ratios by round" "demo µs" "ceil. µs" "ceil/demo"
while IFS=$'\t' read -r name _ _ _; do
	d=$(col "$name" 2) c=$(col "$name" 4) du=$(col "$name" 3) cu=$(col "$name" 5)
	each=$(awk -v n="$name" '$1==n {printf "%.2f ", $2/$4}' "$tmp/results")
	printf '%-16s %10.0f %10.0f %6.2f   %-22s %8.1f %8.1f %9.2f\n' "${name//_/ }" "$d" "$c" "$(echo "$d $c" | awk '{print $1/$2}')" "$each" \
		"$du" "$cu" "$(echo "$cu $du" | awk '{print $1/$2}')"
done <"$tmp/targets"

echo "peak memory (VmHWM): demo $(awk '/^VmHWM/ {print $2, $3}' "/proc/$demo_pid/status"), ceiling $(awk '/^VmHWM/ {print $2, $3}' "/proc/$ceil_pid/status")"

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
