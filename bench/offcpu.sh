#!/bin/bash
# bench/offcpu.sh: what --off-cpu costs a workload that switches thousands
# of times a second (bench/switches: two threads ping-pong over pipes),
# beside `perf record --switch-events` on the same run. Each way runs the
# workload -n times (default 5); its own wall time's median is compared
# with the plain run's. Built and run by `make bench-offcpu`.
#
#   bench/offcpu.sh [-n RUNS] [ROUND_TRIPS]
#
# Ways: plain; perf record --switch-events (cpu-clock, as gexplore samples
# without a PMU); gexplore record --off-cpu (switch records and the
# /proc prober every 2 ms); and with --off-cpu-min 10000 (probes every
# 5 ms, waits under 10 ms left out of stacks).
#
# The ways take turns run after run (plain, perf, gexplore, gexplore
# --off-cpu-min), so that a shared machine's load falls on each alike.
#
# Measured as root (2 cores of an AMD EPYC VM shared with four other
# builds, load average 5, kernel 6.18, -n 15, medians of the workload's
# own time), issue 45:
#   before (each switch-out also sampled as context-switches, without -g
#   too: two records a switch where perf writes one):
#     offcpu: plain 0.186 s; perf --switch-events 0.292 s (+57%)
#     offcpu: gexplore --off-cpu 0.415 s (+123%); ratio gexplore/perf 1.42
#   after (the switch-out sample only with -g or --call-graph, whose
#   stacks it is for):
#     offcpu: plain 0.316 s; perf --switch-events 0.532 s (+68%)
#     offcpu: gexplore --off-cpu 0.367 s (+16%); ratio gexplore/perf 0.69
#     (a second run: plain 0.231 s, perf +93%, gexplore +35%, ratio 0.70)
# As nobody (perf_event_paranoid 2: no switch-out sample either way),
# this build: ratio 1.50 in one run of -n 11, 0.54 in one of -n 15; the
# build before 0.79 (-n 15): within that machine's noise.
# Single runs spread over 3x on that machine: read the ratio, not the
# percentages, and rerun on a quiet one. Every switch is one record in
# either tool; what gexplore adds is its prober's reads of /proc (a pass
# every 2 ms over the workload's threads).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
GX=${GX_BIN:-$top/gexplore}
W=${GX_BUILDDIR:-$top}/bench/switches
PERF=${PERF:-perf}
n=5
if [ "${1:-}" = -n ]; then n=$2; shift 2; fi
rounds=${1:-20000}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
secs() { sed -n 's/.* in \([0-9.]*\) s.*/\1/p'; }
once() {	# once NAME CMD...: one run's workload time, appended to NAME's
	local name=$1
	shift
	rm -rf "$tmp/r" "$tmp/perf.data"
	"$@" 2>/dev/null | secs >>"$tmp/$name.all"
}
perf_ok=false
if command -v "$PERF" >/dev/null && "$PERF" record -q -o "$tmp/probe.data" -e cpu-clock true >/dev/null 2>&1; then
	perf_ok=true
fi
# the ways take turns, run after run: a shared machine's load falls on
# each alike (one way's n runs in a row met another load than the next's)
for i in $(seq "$n"); do
	once plain "$W" "$rounds"
	if $perf_ok; then
		once perf "$PERF" record -q -o "$tmp/perf.data" -e cpu-clock --switch-events -- "$W" "$rounds"
	fi
	once gx "$GX" record -q -o "$tmp/r" --off-cpu -- "$W" "$rounds"
	once gxmin "$GX" record -q -o "$tmp/r" --off-cpu --off-cpu-min 10000 -- "$W" "$rounds"
done
for w in plain perf gx gxmin; do
	if [ -s "$tmp/$w.all" ]; then median <"$tmp/$w.all" >"$tmp/$w"; else echo 0 >"$tmp/$w"; fi
done
"$GX" record -q -o "$tmp/last" --off-cpu -- "$W" "$rounds" >/dev/null 2>&1
waits=$("$GX" report "$tmp/last" --json 2>/dev/null | jq '[.off_cpu.threads[].waits] | add')
probes=$(jq '.off_cpu.probes' "$tmp/last/meta.json")
awk -v p="$(cat "$tmp/plain")" -v f="$(cat "$tmp/perf")" -v g="$(cat "$tmp/gx")" \
    -v m="$(cat "$tmp/gxmin")" -v r="$rounds" -v w="$waits" -v pr="$probes" 'BEGIN {
	printf "offcpu: %d round trips, plain %.3f s (%.0f waits/s); %s waits recorded, %s probed\n",
		r, p, 2 * r / p, w, pr
	if (f > 0)
		printf "offcpu: perf --switch-events %.3f s (+%.0f%%)\n", f, 100 * (f - p) / p
	else
		printf "offcpu: perf --switch-events n/a (no perf, or it may not record here)\n"
	printf "offcpu: gexplore --off-cpu %.3f s (+%.0f%%); --off-cpu-min 10000 %.3f s (+%.0f%%)\n",
		g, 100 * (g - p) / p, m, 100 * (m - p) / p
	if (f > 0)
		printf "offcpu: ratio gexplore/perf %.2f\n", g / f }'
