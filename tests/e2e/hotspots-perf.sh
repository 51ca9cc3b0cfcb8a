#!/bin/bash
# gexplore's per-function self shares agree with `perf report` on the same
# perf.data: within 1 percentage point for every function perf puts above 2%.
. "${GX_SRCDIR}/tests/e2e/lib.sh"
[ -n "$PERF" ] || skip_all "perf is absent (Debian package linux-perf)"
command -v jq >/dev/null || skip_all "jq is absent (Debian package jq)"
can_sample || skip_all "perf_event_open of cpu-clock is not permitted here"

# compare NAME RESULT: perf's "--sort sym" against gexplore's function rows
# (--no-inline: perf's sym column is the out-of-line symbol).
compare() {
	local name=$1 r=$2 n=0 bad=0 pct sym ours
	"$PERF" report -i "$r/perf.data" --stdio --no-children --sort sym -F overhead,sym -g none \
		2>/dev/null | sed -n 's/^ *\([0-9.]*\)%  \[.\] \(.*[^ ]\) *$/\1 \2/p' >"$r.perf"
	"$GX_BIN" report --json --limit 0 --no-inline "$r" >"$r.json"
	while read -r pct sym; do
		awk -v p="$pct" 'BEGIN { exit !(p > 2) }' || continue
		case $sym in 0x*) continue ;; esac	# perf could not name it
		n=$((n + 1))
		ours=$(jq --arg f "$sym" '[.functions[] | select(.function == $f) | .share] | add // 0 | . * 100' "$r.json")
		if ! awk -v a="$pct" -v b="$ours" 'BEGIN { d = a - b; exit !(d <= 1 && d >= -1) }'; then
			bad=$((bad + 1))
			diag "$name: $sym perf $pct% gexplore $ours%"
		fi
	done <"$r.perf"
	ok $((n == 0)) "$name: perf names functions above 2% ($n)"
	is "$bad" 0 "$name: every function above 2% within 1 point of perf"
}

"$GX_BIN" record -q -o t -e cpu-clock -g -- "$WL/wl-hot-threads" 300 >/dev/null 2>&1
ok $? "record wl-hot-threads"
compare "wl-hot-threads -g" t
"$GX_BIN" record -q -o d -e cpu-clock -g -- "$WL/wl-deep-calls" 300 >/dev/null 2>&1
ok $? "record wl-deep-calls"
compare "wl-deep-calls -g" d
"$GX_BIN" record -q -o w -e cpu-clock --call-graph dwarf,4096 -- "$WL/wl-nofp-chain" 300 >/dev/null 2>&1
ok $? "record wl-nofp-chain --call-graph dwarf"
compare "wl-nofp-chain dwarf" w
"$PERF" record -q -o p.data -e cpu-clock -c 250000 -g -- "$WL/wl-hot-threads" 300 >/dev/null 2>&1
if [ -s p.data ]; then
	mkdir -p pr && mv p.data pr/perf.data
	compare "perf-recorded wl-hot-threads" pr
else
	skip 2 "perf record failed here"
fi
done_testing
