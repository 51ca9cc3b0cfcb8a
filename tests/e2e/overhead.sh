#!/bin/bash
# The overhead line counts what sampling costs the workload in the kernel
# (samples x one sample's cost, calibrated at record time), not only
# gexplore's own CPU: at a high sampling rate it is visibly larger than at
# the default, and the line says what it includes; a result recorded
# without the calibration says what its figure leaves out.
. "${GX_SRCDIR}/tests/e2e/lib.sh"
can_sample || skip_all "cannot open software events here (perf_event_paranoid?)"
command -v jq >/dev/null || skip_all "jq is absent (Debian package jq)"

# wl-spin spins for a fixed time: both runs last as long, whatever they cost
"$GX_BIN" record -q -o dflt -e cpu-clock -- "$WL/wl-spin" 300 >/dev/null 2>&1
ok $? "record at the default rate (4 kHz)"
"$GX_BIN" record -q -o high -e cpu-clock -c 10000 -- "$WL/wl-spin" 300 >/dev/null 2>&1
ok $? "record at -c 10000 (100 kHz)"

for r in dflt high; do
	check "$r: meta.json has the samples, one sample's cost and their product" \
		jq -e '.sample_records > 0 and .sample_cost_ns > 0 and
		       ((.sampling_s - .sample_records * .sample_cost_ns / 1e9) | fabs) < 1e-6' "$r/meta.json"
done
share() {	# share RESULT: (gexplore's CPU + sampling) / duration, from report --json
	"$GX_BIN" report --json "$1" 2>/dev/null | jq '(.self_cpu_s + .sampling_s) / .duration_s'
}
sd=$(share dflt)
sh=$(share high)
awk -v d="$sd" -v h="$sh" 'BEGIN { exit !(h > 3 * d && h > 0.1) }'
ok $? "the high-rate recording's overhead ($sh of the run) is visibly larger than the default's ($sd)"
awk -v d="$(jq .sample_records dflt/meta.json)" -v h="$(jq .sample_records high/meta.json)" 'BEGIN { exit !(h > 5 * d) }'
ok $? "... with many more samples"

"$GX_BIN" report high >high.txt 2>&1
check "report: the line gives the total and its share of the run" \
	grep -qE '^  overhead  about [0-9.]+ s \(([0-9.]+% of the run|about all of the run)\): gexplore [0-9.]+ s of CPU$' high.txt
check "report: ... and the kernel's cost of sampling, samples x cost" \
	grep -qE '^            \+ the kernel.s cost of sampling [0-9.]+ s \([0-9,]+ samples x [0-9.]+ us, calibrated\)$' high.txt
# `gexplore -- CMD` prints the same summary at the end of the recording
"$GX_BIN" --no-tui -o run -e cpu-clock -c 10000 -- "$WL/wl-spin" 100 >/dev/null 2>run.txt
check "the end-of-record summary carries the same line" grep -q "the kernel.s cost of sampling" run.txt

# a result from before the calibration: the figure says what it leaves out
cp -r dflt old && jq 'del(.sample_records, .sample_cost_ns, .sampling_s)' dflt/meta.json >old/meta.json
"$GX_BIN" report old >old.txt 2>&1
check "without the calibration: gexplore's CPU only ..." grep -qE '^  overhead  gexplore used [0-9.]+ s of CPU' old.txt
check "... and the line says the sampling cost is not included" \
	grep -q "not included: the kernel's cost of taking the samples (not measured)" old.txt
is "$("$GX_BIN" report --json old 2>/dev/null | jq -c '[.sampling_s, .sample_cost_ns]')" '[null,null]' \
	"report --json: sampling_s and sample_cost_ns null without the calibration"
done_testing
