#!/bin/bash
# A time range or a region of a result totalled in memory (the TUI's
# Space and region keys; gx_result_opts.keep_samples) is the profile a
# walk of perf.data gives: tests/unit/test-result-range compares the two
# on synthetic results (call stacks from bench/tui-gen, regions from
# tests/gen/gen-perfdata) and, where this machine can sample, on
# recordings with frame-pointer and DWARF call stacks, gexplore's own
# multiplexing (time slots), a program's regions and, as root, off-CPU
# waits (a range credits each by its overlap with it).
. "${GX_SRCDIR}/tests/e2e/lib.sh"
CMP="$GX_BUILDDIR/tests/unit/test-result-range"
[ -x "$CMP" ] || skip_all "tests/unit/test-result-range is not built"

same() {	# same RESULT DESCRIPTION
	"$CMP" "$1" >cmp.out 2>&1
	ok $? "$2: in memory as walked ($(grep -c '^ok' cmp.out) comparisons)"
	grep -E '^not ok|^#' cmp.out | head -20 | sed 's/^/# /'
}

"$GX_BUILDDIR/bench/tui-gen" gen "$WL/wl-spin" 20000 >/dev/null 2>&1
ok $? "bench/tui-gen: 20000 samples with call chains"
same gen "synthetic call chains over four threads"

"$GEN" -o genr -b "$WL/wl-spin" >/dev/null 2>&1 <<SPEC
model skl
smt off
process 1000 app
function hot_inner
CPU_CLK_UNHALTED.THREAD 600000000
INST_RETIRED.ANY 300000000
region inner
process 1001 other
function hot_outer
CPU_CLK_UNHALTED.THREAD 400000000
INST_RETIRED.ANY 400000000
region outer
SPEC
ok $? "gen-perfdata: two processes, a region each"
same genr "synthetic regions and hardware events"

if ! can_sample; then
	skip 13 "cannot sample cpu-clock here (perf_event_paranoid or seccomp)"
	done_testing
	exit
fi
"$GX_BIN" record -q -g -o fp -e cpu-clock -- "$WL/wl-spin" 300 >/dev/null 2>&1
ok $? "record -g"
same fp "frame-pointer call stacks"
"$GX_BIN" record -q -o dw -e cpu-clock --call-graph dwarf,4096 -- "$WL/wl-nofp-chain" 300 \
	>/dev/null 2>&1
ok $? "record --call-graph dwarf"
same dw "DWARF-unwound call stacks"
"$GX_BIN" record -q -c 1000000 -o mux \
	-e "cpu-clock,{page-faults,minor-faults},{context-switches,task-clock}" \
	-- "$WL/wl-mux-steady" 3000 >/dev/null 2>&1
ok $? "record multiplexed groups"
same mux "multiplexed by gexplore (time slots)"
"$GX_BIN" record -q -o reg -e cpu-clock -F 4000 -- "$WL/wl-regions" pause >/dev/null 2>&1
ok $? "record wl-regions"
same reg "regions on threads and a forked child"
"$GX_BIN" record -q -o inl -e cpu-clock -- "$WL/wl-sym-inline" 100000000 >/dev/null 2>&1
ok $? "record wl-sym-inline"
same inl "samples in inlined code (hot_inner, inlined into outer)"
# off-CPU waits, a sample at each switch-out (as root): a range credits a
# wait by its overlap with it, in memory as walked
if [ "$(id -u)" != 0 ]; then
	skip 3 "not root: an --off-cpu recording with stacks of its waits needs it"
else
	"$GX_BIN" record -q -g --off-cpu -o off -- "$WL/wl-offcpu" 400 >/dev/null 2>&1
	ok $? "record --off-cpu wl-offcpu"
	same off "off-CPU waits, each credited by its overlap with a range"
	# the TUI: a range in the middle of the sleeper's 400 ms sleep
	# (wl-offcpu's waits start with the run) shows the range's length of
	# it in wait_sleep's OffCPU, not nothing (3 decimals each end)
	R=$(printf 'Right %.0s' $(seq 12))
	rng=$("$GX_BIN" tui --keys "t $R Space $R Space" --dump 200x12 off 2>&1 |
		sed -n 's/.*views filtered to \([0-9.]*\)-\([0-9.]*\) s.*/\1 \2/p')
	"$GX_BIN" tui --keys "t $R Space $R Space g" --dump 200x120 off >scr 2>&1
	got=$(grep -E ' wl-offcpu +wait_sleep *$' scr | grep -Eo '[0-9]+\.[0-9]{3}s' | tr -d s)
	awk -v r="$rng" -v g="${got:-0}" 'BEGIN { split(r, a, " "); d = g - (a[2] - a[1]);
		exit !(a[2] > a[1] && a[2] < 0.39 && d * d <= 9e-6) }'
	ok $? "tui: a range ($rng s) inside a 400 ms sleep shows its part of it: ${got:-none} s"
fi
done_testing
