#!/bin/bash
# Both unwinders on a workload built without frame pointers: the kernel's
# frame-pointer chains (-g) miss chain_a and chain_b; --call-graph dwarf
# unwinds main -> chain_a -> chain_b -> chain_c offline.
. "${GX_SRCDIR}/tests/e2e/lib.sh"
command -v jq >/dev/null || skip_all "jq is absent (Debian package jq)"
can_sample || skip_all "perf_event_open of cpu-clock is not permitted here"
"$GX_BIN" version --build-options | grep -q 'libunwind=yes' || skip_all "built without libunwind"

"$GX_BIN" record -q -o fp -e cpu-clock -g -- "$WL/wl-nofp-chain" 300 >/dev/null 2>&1
ok $? "record -g"
"$GX_BIN" report --folded fp >fp.folded
check "-g: chain_c is sampled" grep -q 'chain_c [0-9]*$' fp.folded
check "-g: no stack has main;chain_a;chain_b;chain_c (no frame pointers)" \
	sh -c "! grep -q 'main;chain_a;chain_b;chain_c' fp.folded"
"$GX_BIN" report --json --limit 0 fp >fp.json
check "-g: main's total is far from 100%" \
	jq -e '[.functions[] | select(.function == "main") | .total_share] | (add // 0) < 0.5' fp.json

"$GX_BIN" record -q -o dw -e cpu-clock --call-graph dwarf,4096 -- "$WL/wl-nofp-chain" 300 >/dev/null 2>&1
ok $? "record --call-graph dwarf"
"$GX_BIN" report --folded dw >dw.folded
"$GX_BIN" report --json --limit 0 dw >dw.json
n=$(jq .samples dw.json)
got=$(grep ';main;chain_a;chain_b;chain_c' dw.folded | awk '{s += $NF} END {print s + 0}')
check "dwarf: main;chain_a;chain_b;chain_c on most samples ($got of $n)" test $((got * 10)) -ge $((n * 8))
check "dwarf: the path runs from _start" grep -q '^wl-nofp-chain;_start;__libc_start_main;.*main;chain_a;chain_b;chain_c [0-9]*$' dw.folded
check "dwarf: main's total is over 90%" \
	jq -e '.functions[] | select(.function == "main") | .total_share > 0.9' dw.json
check "dwarf: chain_a and chain_b have totals, no self" \
	jq -e '[.functions[] | select(.function == "chain_a" or .function == "chain_b") | select(.total_share > 0.9 and .share < 0.05)] | length == 2' dw.json
# the loop's body (marked) or its control line just above: skid decides
check "dwarf: chain_c's hottest line is in the marked loop" \
	jq -e --argjson l "$(grep -n 'HOT chain_c \*/' "$GX_SRCDIR/tests/workloads/wl-nofp-chain.c" | cut -d: -f1)" \
	'.functions[] | select(.function == "chain_c") | .line == $l or .line == $l - 1' dw.json
check "dwarf: the call site in chain_b is a line with a total (ip - 1)" \
	jq -e --argjson l "$(grep -n 'x = chain_c(x ^ 0x55);' "$GX_SRCDIR/tests/workloads/wl-nofp-chain.c" | cut -d: -f1)" \
	'[.lines[] | select(.function == "chain_b" and .line == $l and .total_share > 0.9)] | length == 1' dw.json
is "$(jq .unwind_failures dw.json)" 0 "dwarf: every sample unwound"
# (a sample at _start, whose copy ends at the environment, may read above it)
check "dwarf: under 1% of the stacks cut by the 4096-byte copy ($(jq .stacks_cut dw.json) of $n): they reach _start" \
	jq -e '.stacks_cut * 100 < .samples' dw.json
check "... and the report does not say any stop short" sh -c "! '$GX_BIN' report dw | grep -q 'stop short'"
# a copy too small for the stack: the stacks that stop short are counted,
# and the report says which size to record with
"$GX_BIN" record -q -o cut -e cpu-clock --call-graph dwarf,512 -- "$WL/wl-deep-calls" 200 >/dev/null 2>&1
"$GX_BIN" report --json cut >cut.json
check "dwarf,512 on deep calls: most stacks are counted as cut ($(jq .stacks_cut cut.json) of $(jq .samples cut.json))" \
	jq -e '.stacks_cut * 2 > .samples' cut.json
"$GX_BIN" report cut >cut.txt
check "... and the report says so, with a larger size to record with" \
	grep -qE 'stacks \([0-9]+%\) stop short: their callers lay above the 512-byte stack copy; record with a larger one \(--call-graph dwarf,2048\)' cut.txt
"$GX_BIN" report --by callpath --limit 1 dw >cp.txt
check "--by callpath shows the chain" grep -q 'wl-nofp-chain: _start;.*main;chain_a;chain_b;chain_c$' cp.txt

# linked without .eh_frame_hdr: the search table is built from .eh_frame
CC=${CC:-cc}
if "$CC" -g -O1 -fomit-frame-pointer -fno-inline -fasynchronous-unwind-tables \
	-fno-optimize-sibling-calls -Wl,--no-eh-frame-hdr -o nohdr \
	"$GX_SRCDIR/tests/workloads/wl-nofp-chain.c" -lpthread -lm 2>/dev/null &&
	! readelf -lW nohdr 2>/dev/null | grep -q GNU_EH_FRAME; then
	"$GX_BIN" record -q -o nh -e cpu-clock --call-graph dwarf,4096 -- ./nohdr 300 >/dev/null 2>&1
	ok $? "record --call-graph dwarf of a binary without .eh_frame_hdr"
	"$GX_BIN" report --folded nh >nh.folded
	n=$("$GX_BIN" report --json nh | jq .samples)
	got=$(grep ';main;chain_a;chain_b;chain_c' nh.folded | awk '{s += $NF} END {print s + 0}')
	check "no .eh_frame_hdr: main;chain_a;chain_b;chain_c on most samples ($got of $n)" \
		test $((got * 10)) -ge $((n * 8))
else
	skip 2 "cannot link without .eh_frame_hdr here ($CC, readelf)"
fi
done_testing
