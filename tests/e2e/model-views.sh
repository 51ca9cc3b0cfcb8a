#!/bin/bash
# How the views show a record --model result (issue 39, part 6): each
# event says whether it is exact or modelled (issue 45), and neither kind
# has an interval anywhere: diff prints "exact" or "modelled" where the
# interval would be and calls no change of one "within noise"; check's
# text, JSON and JUnit give no interval over two runs that differ; the
# TUI's grid header says modelled and the disassembly has no skid note;
# a clamped top-down fraction is noted once; no "-0.0"; -q prints
# nothing but errors, with --model as without. Two small recordings,
# reused by every check.
. "$GX_SRCDIR/tests/e2e/lib.sh"

WLM="$WL/wl-model"
need_model
command -v jq >/dev/null 2>&1 || skip_all "jq is not installed (Debian package jq)"
[ -x "$WLM" ] || skip_all "no $WLM (make check builds it)"

# -q: nothing but errors (the model's notes stay in meta.json)
"$GX_BIN" record -q --model -o m1 -- "$WLM" lat_chain 1 >m1.out 2>m1.err
is "$?" 0 "record -q --model: exit 0"
[ ! -s m1.err ] && [ ! -s m1.out ]
ok $? "record -q --model: nothing said ($(head -c 300 m1.err))"
grep -q '"warnings"' m1/meta.json && grep -q 'modelled: no PMU counted this run' m1/meta.json
ok $? "... its notes are in meta.json's warnings"
"$GX_BIN" record --model -o m2 -- "$WLM" lat_chain 2 >/dev/null 2>m2.err
grep -q 'recorded m2 (modelled)' m2.err
ok $? "without -q: the summary line"
if can_sample; then
	"$GX_BIN" record -q -e cpu-clock -o n1 -- "$WLM" lat_chain 1 >n1.out 2>n1.err
	[ ! -s n1.err ] && [ ! -s n1.out ]
	ok $? "record -q (measured): nothing said either ($(head -c 300 n1.err))"
else
	skip 1 "cannot sample here (perf_event_paranoid)"
fi

# diff: exact and modelled values have no interval and are never noise
"$GX_BIN" diff m1 m2 --limit 0 >d.txt 2>d.err
is "$?" 0 "diff of two modelled results: exit 0"
grep -E '^(run|function) +instructions:exact ' d.txt >d.ins
[ -s d.ins ] && ! grep -q $'\u00b1' d.ins && [ "$(grep -c ' exact ' d.ins)" = "$(wc -l <d.ins)" ]
ok $? "diff: instructions:exact has no \u00b1, the column says exact ($(head -1 d.ins))"
grep -qE '^function +cycles:modelled +.* modelled +[-+][0-9.]+% +lat_chain' d.txt
ok $? "diff: a modelled count says modelled"
! grep -q 'within noise (the 95%' d.txt && ! grep -q ' ~$' d.txt
ok $? "diff: no change of a modelled result is within noise"
! grep -qE -- '-0\.0+(%| |$)' d.txt
ok $? "diff: no -0.0"
"$GX_BIN" diff m1 m2 --limit 0 --json >d.json 2>/dev/null
is "$(jq -r '.schema' d.json)" "gexplore-diff 1.2" "diff --json: schema 1.2"
is "$(jq -r '[.entries[] | select(.metric == "instructions:exact")
	| [.kind, .delta_lo, .noise] | tostring] | unique | join(" ")' d.json)" \
	'["exact",null,false]' "diff --json: instructions:exact is exact, no interval, not noise"
is "$(jq -r '[.entries[] | select(.noise)] | length' d.json)" 0 "diff --json: nothing is noise"
is "$(jq -r '.entries[] | select(.metric == "cycles:modelled" and .scope == "run") | .kind' d.json)" \
	modelled "diff --json: cycles:modelled is modelled"

# check over two runs that differ: no interval on an exact or modelled value
"$GX_BIN" check m1 m2 --max instructions:exact=1000 --max cpi=100 --json >c.json 2>/dev/null
is "$?" 1 "check m1 m2: instructions:exact over 1000 fails"
is "$(jq -r '[.checks[] | [.kind, .interval] | tostring] | join(" ")' c.json)" \
	'["exact",null] ["modelled",null]' "check --json: kinds, no interval"
"$GX_BIN" check m1 m2 --max instructions:exact=1000 >c.txt 2>&1
grep -q 'instructions:exact of the run = .*(exact' c.txt && ! grep -q 'CI over' c.txt
ok $? "check: the text says exact, no interval ($(head -1 c.txt))"
"$GX_BIN" check m1 m2 --max instructions:exact=1000 --junit j.xml >/dev/null 2>&1
grep -q '<failure type="threshold"' j.xml && ! grep -q 'interval:' j.xml
ok $? "JUnit: the failure has no interval"

# the TUI: the grid's header says modelled; no skid in the disassembly
"$GX_BIN" tui m1 --keys 'g' --dump 100x12 >grid.txt 2>&1
head -1 grid.txt | grep -q 'bottom-up: functions (MODELLED cycles, CPI, top-down)'
ok $? "tui: the grid header says modelled ($(head -1 grid.txt))"
grep -q 'by Cycles% (modelled)' grid.txt
ok $? "tui: the sort line says modelled"
! grep -qE -- '-0\.0+(%| |$)' grid.txt
ok $? "tui: no -0.0 in the grid"
"$GX_BIN" tui m1 --keys 'g d' --dump 100x24 >dis.txt 2>&1
head -1 dis.txt | grep -q 'disassembly: lat_chain'
ok $? "tui: the disassembly of lat_chain"
! grep -qi 'skid:\|<- \|precise_ip' dis.txt && grep -q 'cycles:modelled: modelled at the instruction' dis.txt
ok $? "tui: no skid note for a modelled clock"
grep -qE '^ +[0-9.]+%\*? +1 ' dis.txt && [ "$(grep -cE '^ +0\.0% +1 ' dis.txt)" -lt \
	"$(grep -cE '^ +[0-9.]+%\*? +1 ' dis.txt)" ]
ok $? "tui: disassembly shares are the instructions' cycles, not one sample each"

# report: each event's kind in JSON; every fraction in [0, 100%]; the
# clamping noted once when any
is "$("$GX_BIN" report m1 --json 2>/dev/null | jq -r '[.events[] | select(.name ==
	"cycles:modelled" or .name == "instructions:exact" or .name == "branches:exact") |
	.name + "=" + .kind] | join(" ")')" \
	"cycles:modelled=modelled instructions:exact=exact branches:exact=exact" \
	"report --json: each event's kind"
if can_sample; then
	is "$("$GX_BIN" report n1 --json 2>/dev/null | jq -r '[.events[].kind] | unique | join(" ")')" \
		sampled "report --json: a measured result's events are sampled"
else
	skip 1 "cannot sample here (perf_event_paranoid)"
fi
"$GX_BIN" report m1 --limit 0 >r.txt 2>&1
! grep -qE -- '-0\.0+(%| |$)' r.txt && ! grep -qE ' -[0-9.]+%' r.txt
ok $? "report: no negative fraction, no -0.0"
n=$(grep -cE '%~ ' r.txt) notes=$(grep -c '~ clamped:' r.txt)
if [ "$n" -gt 0 ]; then
	is "$notes" 1 "report: $n rows with a clamped fraction, one note under the tables"
else
	is "$notes" 0 "report: no clamped row, no note"
fi
done_testing
