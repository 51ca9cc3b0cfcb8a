#!/bin/bash
# mux's one scaling rule on a result the kernel multiplexed (more events
# than counters, no braces: no slice log, only each counting read's time
# enabled and running), written by gen-perfdata as if recorded on
# Skylake: every count is scaled by enabled/running on every path (text,
# JSON, CSV, top-down), its running share shown as perf stat's
# "(50.00%)" (the TUI too), and an event that counted under 10% of the run is warned
# about. The live twin is tests/pmu/live.sh's "flat" recording.
. "${GX_SRCDIR}/tests/e2e/lib.sh"
command -v jq >/dev/null || skip_all "jq is absent (Debian package jq)"

# the truth: 1e9 cycles, 8e8 instructions, 2e9 uops; instructions counted
# half the time, uops 5% of it
"$GEN" -o kmx -b "$WL/wl-spin" <<'SPEC'
model skl
smt off
running INST_RETIRED.ANY 50
running UOPS_ISSUED.ANY 5
process 1000 spin
CPU_CLK_UNHALTED.THREAD 1000000000
INST_RETIRED.ANY 400000000
UOPS_ISSUED.ANY 100000000
SPEC
ok $? "a kernel-multiplexed result written"
"$GX_BIN" report --json kmx >kmx.json 2>err
ok $? "report --json reads it"
ev() { jq -r --arg n "$1" --arg f "$2" '.events[] | select(.name == $n) | .[$f]' kmx.json; }
is "$(ev INST_RETIRED.ANY counted)" 800000000 "JSON: instructions counted 4e8 while running half the time: 8e8"
is "$(ev INST_RETIRED.ANY counted_raw)" 400000000 "JSON: the raw count beside it"
is "$(ev INST_RETIRED.ANY running)" 0.5 "JSON: its running share"
is "$(ev INST_RETIRED.ANY estimated)" 800000000 "JSON: its samples' periods scaled alike"
is "$(ev INST_RETIRED.ANY multiplexed)" true "JSON: marked multiplexed"
is "$(ev CPU_CLK_UNHALTED.THREAD multiplexed)" false "JSON: cycles never left its counter"
is "$(ev CPU_CLK_UNHALTED.THREAD counted)" 1000000000 "JSON: cycles as counted"
is "$(jq -r '.topdown.run.metrics[] | select(.name == "CPI") | .value' kmx.json)" 1.25 \
	"top-down: CPI from the scaled counts (1e9 / 8e8), not 2.5 from the raw ones"
check "JSON: the warning for uops (5% of the run)" \
	jq -e '[.warnings[] | select(test("UOPS_ISSUED.ANY counted only 5.00% of the run"))] | length == 1' kmx.json

"$GX_BIN" report kmx >kmx.txt 2>err
ok $? "text report"
check "text: instructions scaled, with perf stat's running share" \
	grep -Eq '^  INST_RETIRED.ANY +100 +800,000,000 +800,000,000  \(50\.00%\)$' kmx.txt
check "text: cycles without a share" grep -Eq '^  CPU_CLK_UNHALTED.THREAD +100 +1,000,000,000 +1,000,000,000$' kmx.txt
check "text: the warning" grep -q 'UOPS_ISSUED.ANY counted only 5.00% of the run (multiplexed)' kmx.txt
check "text: no warning for instructions (half the run)" sh -c '! grep -q "INST_RETIRED.ANY counted only" kmx.txt'
check "text: per-function CPI from scaled rows (1.25)" grep -Eq '^ +1\.25 ' <("$GX_BIN" report --by function kmx)

"$GX_BIN" report --csv --by process --event INST_RETIRED.ANY kmx >kmx.csv
ok $? "CSV by instructions"
is "$(head -1 kmx.csv)" "pid,comm,self_pct,samples,estimated,running_pct" "CSV: the running share appended"
is "$(sed -n 2p kmx.csv)" "1000,spin,100.0000,100,800000000,50.00" "CSV: scaled, with the share"
is "$("$GX_BIN" report --csv --by process kmx | sed -n 2p)" "1000,spin,100.0000,100,1000000000," \
	"CSV by cycles: no share"
if "$GX_BIN" tui --keys "" --dump 120x40 kmx >scr 2>/dev/null; then
	check "TUI: the summary lists instructions scaled with its share" \
		grep -Eq 'INST_RETIRED.ANY 8e\+08 x2\.00 \(50\.00%\)' scr
	check "TUI: the warning among the hints" grep -q 'UOPS_ISSUED.ANY counted only 5.00% of the run' scr
else
	skip 2 "no TUI in this build"
fi
done_testing
