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
# Measured (2 cores of an AMD EPYC VM shared with other jobs, load
# average 11, kernel 6.18, -n 7, medians of the workload's own time):
#   offcpu: 20000 round trips, plain 0.417 s (95923 waits/s); 40129 waits
#     recorded, 324 probed
#   offcpu: perf --switch-events 0.594 s (+42%)
#   offcpu: gexplore --off-cpu 0.735 s (+76%); --off-cpu-min 10000 0.784 s (+88%)
#   offcpu: ratio gexplore/perf 1.24
# On that machine single runs of either spread over 3x (0.16-1.9 s): read
# the ratio, not the percentages, and rerun on a quiet one. Every switch
# is one record in either tool; what gexplore adds is its prober's reads
# of /proc (a pass every 2 ms over the workload's threads).
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
run() {		# run NAME CMD...: the workload's median time over n runs
	local name=$1 i
	shift
	for i in $(seq "$n"); do
		rm -rf "$tmp/r" "$tmp/perf.data"
		"$@" 2>/dev/null | secs
	done | median >"$tmp/$name"
}
run plain "$W" "$rounds"
if command -v "$PERF" >/dev/null && "$PERF" record -q -o "$tmp/probe.data" -e cpu-clock true >/dev/null 2>&1; then
	run perf "$PERF" record -q -o "$tmp/perf.data" -e cpu-clock --switch-events -- "$W" "$rounds"
else
	echo 0 >"$tmp/perf"
fi
run gx "$GX" record -q -o "$tmp/r" --off-cpu -- "$W" "$rounds"
run gxmin "$GX" record -q -o "$tmp/r" --off-cpu --off-cpu-min 10000 -- "$W" "$rounds"
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
