#!/bin/bash
# The promise of gexplore's 95% intervals, held to its definition: over N
# recordings of one workload, an event's interval must hold the truth in
# about 95% of them. Each recording multiplexes two groups of software
# events and counts the same events all run outside the rotation, so
# every run carries its own truth:
#   -e cpu-clock,context-switches,task-clock,page-faults,minor-faults,
#      {page-faults,context-switches},{minor-faults,task-clock}
# over a steady, a bursty and a periodic workload (tests/workloads/
# wl-mux-steady ITERATIONS [bursty|periodic]). Slow (N = 60 runs of each,
# minutes): run by `make check-slow`, not `make check`.
#
# The bound: a correct 95% interval holds the truth in X ~ Binomial(60,
# 0.95) runs; P(X <= 49) = 1.7e-4, so each check below (an event on a
# workload; 12 of them) requires at least 50 of 60, and the suite fails a
# correct interval about once in 500 runs (12 x 1.7e-4). An interval that
# holds the truth 85% of the time passes a check with probability 0.2.
# GX_COVERAGE_RUNS and GX_COVERAGE_ITERS change N (the bound follows at
# the same false-failure rate) and the workload's length (default 14000
# iterations, as in issue 26); GX_COVERAGE_MODES picks workloads.
. "${GX_SRCDIR}/tests/e2e/lib.sh"
command -v jq >/dev/null || skip_all "jq is absent (Debian package jq)"
N=${GX_COVERAGE_RUNS:-60}
ITERS=${GX_COVERAGE_ITERS:-14000}
SPEC='cpu-clock,context-switches,task-clock,page-faults,minor-faults,{page-faults,context-switches},{minor-faults,task-clock}'
EVENTS="page-faults context-switches minor-faults task-clock"

# the largest k with P(Binomial(N, 0.95) < k) <= 2e-4 (50 for N = 60)
need=$(awk -v n="$N" 'BEGIN {
	p = 0.95; q = 1 - p
	for (k = 0; k <= n; k++) {
		# P(X = k) by logs
		lp = 0
		for (i = 1; i <= n; i++) lp += log(i)
		for (i = 1; i <= k; i++) lp -= log(i)
		for (i = 1; i <= n - k; i++) lp -= log(i)
		lp += k * log(p) + (n - k) * log(q)
		cum += exp(lp)
		if (cum > 2e-4) { print k; exit }
	}
	print n }')
diag "$N runs of each workload ($ITERS iterations); each event's interval must hold the truth in >= $need of them"

for mode in ${GX_COVERAGE_MODES:-steady bursty periodic}; do
	declare -A held=() width=() miss=()
	for ev in $EVENTS; do held[$ev]=0; width[$ev]=0; miss[$ev]=""; done
	runs=0
	for i in $(seq "$N"); do
		rm -rf r
		"$GX_BIN" record -q -o r -e "$SPEC" -- "$WL/wl-mux-steady" "$ITERS" "$mode" >/dev/null 2>&1 ||
			continue
		runs=$((runs + 1))
		for ev in $EVENTS; do
			# truth: the always-on copy; the estimate: the rotated one
			read -r t lo est hi <<<"$(jq -r --arg n "$ev" '
				([.events[] | select(.name == $n and .group < 0) | .count] | first) as $t |
				([.events[] | select(.name == $n and .group >= 0)] | first) as $e |
				"\($t) \($e.estimate_lo) \($e.estimate) \($e.estimate_hi)"' r/meta.json)"
			if awk -v t="$t" -v l="$lo" -v h="$hi" 'BEGIN { exit !(l != "null" && h != "null" && l + 0 <= t + 0 && t + 0 <= h + 0) }'; then
				held[$ev]=$((held[$ev] + 1))
			else
				miss[$ev]="${miss[$ev]} [$lo $est $hi]<-$t"
			fi
			width[$ev]=$(awk -v w="${width[$ev]}" -v l="$lo" -v h="$hi" -v e="$est" \
				'BEGIN { if (e > 0 && l != "null") w += (h - l) / e; print w }')
		done
	done
	is "$runs" "$N" "$mode: every recording succeeded"
	for ev in $EVENTS; do
		diag "$mode: $ev held $((held[$ev]))/$runs, mean width $(awk -v w="${width[$ev]}" -v n="$runs" 'BEGIN { printf "%.2f%%", n ? 100 * w / n : 0 }') of the estimate"
		[ -n "${miss[$ev]}" ] && diag "  missed:$(echo "${miss[$ev]}" | cut -c1-400)"
		check "$mode: $ev's 95% interval held the truth in >= $need of $N runs (${held[$ev]})" \
			test "${held[$ev]}" -ge "$need"
	done
	unset held width miss
done
done_testing
