#!/bin/bash
# The overhead line counts what sampling costs the workload in the kernel
# (samples x one sample's cost, calibrated at record time), not only
# gexplore's own CPU: at a high sampling rate it is visibly larger than at
# the default, and the line says what it includes; a result recorded
# without the calibration says what its figure leaves out.
. "${GX_SRCDIR}/tests/e2e/lib.sh"
can_sample || skip_all "cannot open software events here (perf_event_paranoid?)"
command -v jq >/dev/null || skip_all "jq is absent (Debian package jq)"

rm -rf "$XDG_CACHE_HOME"	# can_sample's probe filled it
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
samp() {	# samp RESULT: the kernel's cost of sampling / duration
	"$GX_BIN" report --json "$1" 2>/dev/null | jq '.sampling_s / .duration_s'
}
sd=$(share dflt)
sh=$(share high)
pd=$(samp dflt)
ph=$(samp high)
# The sampling part is samples x one figure (the cache's): 25 times the
# rate asked would make it about 25 times the share, but a VM delivers
# far fewer of 100 kHz's timer samples (CI here: 6.3 times the default's
# share, 4.9 in the ASan build under load), so several times is asked.
# The whole was asked to double once, which gexplore's own CPU decides on
# a loaded machine (1.99 in an ASan build at a load of 4, its own CPU
# 0.18 of the default's run).
awk -v d="$pd" -v h="$ph" 'BEGIN { exit !(d > 0 && h > 3 * d) }'
ok $? "the high rate's sampling cost ($ph of the run) is several times the default's ($pd)"
awk -v d="$sd" -v h="$sh" 'BEGIN { exit !(h > d) }'
ok $? "... and so its whole overhead ($sh of the run) is larger than the default's ($sd)"
awk -v d="$(jq .sample_records dflt/meta.json)" -v h="$(jq .sample_records high/meta.json)" 'BEGIN { exit !(h > 3 * d) }'
ok $? "... with several times the samples"

"$GX_BIN" report high >high.txt 2>&1
check "report: the line gives the total and its share of the run" \
	grep -qE '^  overhead  about [0-9.]+ s \(([0-9.]+% of the run|about all of the run)\): gexplore [0-9.]+ s of CPU$' high.txt
check "report: ... and the kernel's cost of sampling, samples x cost" \
	grep -qE '^            \+ the kernel.s cost of sampling [0-9.]+ s \([0-9,]+ samples x [0-9.]+ us, calibrated\)$' high.txt
# `gexplore -- CMD` prints the same summary at the end of the recording
"$GX_BIN" --no-tui -o run -e cpu-clock -c 10000 -- "$WL/wl-spin" 100 >/dev/null 2>run.txt
check "the end-of-record summary carries the same line" grep -q "the kernel.s cost of sampling" run.txt

# The calibration is kept per machine, kernel and sample shape in
# $XDG_CACHE_HOME/gexplore (this test's own, lib.sh): the first recording
# spun it, every later one of the same shape reads it (no spin on every
# record, which was most of a short recording's cost).
cost_from() { jq -r .sample_cost_from "$1/meta.json"; }
is "$(cost_from dflt)" measured "the first recording calibrated the sample cost (meta.json: sample_cost_from)"
is "$(cost_from high)" cached "the second, its samples shaped alike, read it from the cache"
is "$(cost_from run)" cached "... and so did the third"
awk -v a="$(jq .sample_cost_ns dflt/meta.json)" -v b="$(jq .sample_cost_ns high/meta.json)" \
	'BEGIN { d = a - b; exit !(a > 0 && (d < 0 ? -d : d) <= a * 1e-5) }'
ok $? "... the same figure"
n=$(find "$XDG_CACHE_HOME/gexplore" -name 'sample-cost-*' | wc -l)
is "$n" 1 "one cache file under \$XDG_CACHE_HOME/gexplore"
"$GX_BIN" record -q -o fp -e cpu-clock -g -- "$WL/wl-spin" 50 >/dev/null 2>&1
is "$(cost_from fp)" measured "samples of another shape (-g: call chains) are calibrated apart"
"$GX_BIN" record -q -o fp2 -e cpu-clock -g -- "$WL/wl-spin" 50 >/dev/null 2>&1
is "$(cost_from fp2)" cached "... and cached apart"
for f in "$XDG_CACHE_HOME"/gexplore/sample-cost-*; do echo garbage >"$f"; done
"$GX_BIN" record -q -o bad -e cpu-clock -- "$WL/wl-spin" 50 >/dev/null 2>&1
is "$(cost_from bad)" measured "a cache file that does not read right is measured again"
"$GX_BIN" record -q -o bad2 -e cpu-clock -- "$WL/wl-spin" 50 >/dev/null 2>&1
is "$(cost_from bad2)" cached "... and written anew"
# a cache that cannot be made: a file where its directory should be
: >notadir
XDG_CACHE_HOME=$TMP/notadir "$GX_BIN" record -q -o ro -e cpu-clock -- "$WL/wl-spin" 50 >/dev/null 2>ro.err
ok $? "a cache that cannot be written is no failure of the recording"
is "$(cost_from ro)" measured "... the cost measured then"
is "$(cat ro.err)" "" "... and nothing said about it"
# no home: a private directory under $TMPDIR (this test's own) keeps it
mkdir -m 700 nohome-tmp
env -u XDG_CACHE_HOME -u HOME TMPDIR="$TMP/nohome-tmp" \
	"$GX_BIN" record -q -o nohome -e cpu-clock -- "$WL/wl-spin" 50 >/dev/null 2>&1
ok $? "no \$XDG_CACHE_HOME nor \$HOME: recorded"
is "$(cost_from nohome)" measured "... the cost measured"
env -u XDG_CACHE_HOME -u HOME TMPDIR="$TMP/nohome-tmp" \
	"$GX_BIN" record -q -o nohome2 -e cpu-clock -- "$WL/wl-spin" 50 >/dev/null 2>&1
is "$(cost_from nohome2)" cached "... and cached in \$TMPDIR/gexplore-cache-UID for the next"

# a result from before the calibration: the figure says what it leaves out
cp -r dflt old && jq 'del(.sample_records, .sample_cost_ns, .sampling_s)' dflt/meta.json >old/meta.json
"$GX_BIN" report old >old.txt 2>&1
check "without the calibration: gexplore's CPU only ..." grep -qE '^  overhead  gexplore used [0-9.]+ s of CPU' old.txt
check "... and the line says the sampling cost is not included" \
	grep -q "not included: the kernel's cost of taking the samples (not measured)" old.txt
is "$("$GX_BIN" report --json old 2>/dev/null | jq -c '[.sampling_s, .sample_cost_ns]')" '[null,null]' \
	"report --json: sampling_s and sample_cost_ns null without the calibration"
done_testing
