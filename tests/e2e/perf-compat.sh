#!/bin/bash
# Linux perf reads gexplore's perf.data without warnings and counts the same
# samples; gexplore reads perf's.
. "${GX_SRCDIR}/tests/e2e/lib.sh"
[ -n "$PERF" ] || skip_all "perf is absent (Debian package linux-perf)"
can_sample || skip_all "perf_event_open of cpu-clock is not permitted here"
command -v jq >/dev/null || skip_all "jq is absent (Debian package jq)"

for spec in "cpu-clock" "cpu-clock,page-faults" "-g cpu-clock" "--call-graph=dwarf,4096 cpu-clock"; do
	set -- $spec
	ev=${!#}
	opts=("${@:1:$(($# - 1))}")
	rm -rf r
	"$GX_BIN" record -q -o r "${opts[@]}" -e "$ev" -- "$WL/wl-spin" 150 >/dev/null 2>&1
	ok $? "record $spec"
	"$PERF" report -i r/perf.data --stdio >rep 2>err
	ok $? "perf report reads it ($spec)"
	if grep -qiE 'warn|fail|error|unknown|corrupt|incompat' err || grep -qE '^(# *)?[Ww]arning' rep; then
		ok 1 "perf report: no warnings ($spec)"
		sed 's/^/#   /' err | head -5
	else
		ok 0 "perf report: no warnings ($spec)"
	fi
	"$PERF" script -i r/perf.data -F tid,time >scr 2>serr
	ok $? "perf script reads it ($spec)"
	check "perf script: no warnings ($spec)" test ! -s serr
	is "$(wc -l <scr)" "$(gx_samples r)" "perf script and gexplore count the same samples ($spec)"
	check "perf report names the workload ($spec)" grep -q 'wl-spin' rep
done

# perf's header: our features are there.
"$PERF" report -i r/perf.data --header-only >hdr 2>/dev/null
for f in hostname "os release" arch "nrcpus online" "cpudesc" "cpuid" "cmdline" "event"; do
	check "perf sees the $f feature" grep -qi "^# $f" hdr
done

# And the other way: gexplore reads what perf recorded here.
"$PERF" record -q -o p.data -e cpu-clock -c 100000 -- "$WL/wl-spin" 150 >/dev/null 2>&1
if [ -s p.data ]; then
	"$GX_BIN" report p.data >rep 2>err
	ok $? "gexplore reports perf's own perf.data"
	is "$(gx_samples p.data)" "$("$PERF" script -i p.data -F ip 2>/dev/null | wc -l)" \
		"same sample count as perf script"
	# perf writes PERF_RECORD_EVENT_UPDATE (unit, scale) for cpu-clock:
	# only its NAME kind may rename the event
	"$GX_BIN" report --json p.data >p.json 2>err
	is "$(jq -r '.events[0].name + " " + .events[0].pmu' p.json)" "cpu-clock software" \
		"the event keeps its name despite the scale and unit updates"
	"$GX_BIN" report --event cpu-clock p.data >/dev/null 2>err
	ok $? "--event cpu-clock finds it"
else
	skip 4 "perf record failed here"
fi
done_testing
