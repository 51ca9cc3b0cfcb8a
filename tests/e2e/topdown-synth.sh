#!/bin/bash
# The top-down tree from results that carry hardware event attributes and
# known counts, as if recorded on Skylake, Sapphire Rapids and Zen 4: the
# report's values are the ones computed by hand from the published
# formulas (shared/TOPDOWN.md), for the whole run and per process.
. "${GX_SRCDIR}/tests/e2e/lib.sh"
command -v jq >/dev/null || skip_all "jq is absent (Debian package jq)"

# value of metric NAME in a tree (JSON), rounded to 4 decimals
val() { jq -r --arg n "$2" "$1 | .metrics[] | select(.name == \$n) | .value * 10000 | round / 10000"; }

# ---- Skylake, SMT off. SLOTS = 4 * CLKS.
# backend (pid 1000): FE .4/4=.10  BS (1.8-1.6+4*.02)/4=.07  RET 1.6/4=.40
#                     BE 1-.10-(1.8+.08)/4=.43  CPI 1/.8=1.25
# frontend (pid 2000): FE 1.6/4=.40  BS (2.0-1.8)/4=.05  RET 1.8/4=.45  BE 1-.4-.5=.10  CPI 1
# whole run: SLOTS 8e9: FE 2/8=.25  BS .48/8=.06  RET 3.4/8=.425  BE 1-.25-3.88/8=.265
#            CPI 2/1.8=1.1111; bottleneck Backend_Bound (.265 > .25, both flagged)
"$GEN" -o skl -b "$WL/wl-spin" <<'SPEC'
model skl
smt off
process 1000 backend
CPU_CLK_UNHALTED.THREAD 1000000000
INST_RETIRED.ANY 800000000
IDQ_UOPS_NOT_DELIVERED.CORE 400000000
UOPS_ISSUED.ANY 1800000000
UOPS_RETIRED.RETIRE_SLOTS 1600000000
INT_MISC.RECOVERY_CYCLES 20000000
process 2000 frontend
CPU_CLK_UNHALTED.THREAD 1000000000
INST_RETIRED.ANY 1000000000
IDQ_UOPS_NOT_DELIVERED.CORE 1600000000
UOPS_ISSUED.ANY 2000000000
UOPS_RETIRED.RETIRE_SLOTS 1800000000
SPEC
ok $? "skl: synthetic result written"
"$GX_BIN" report --json skl >skl.json 2>err
ok $? "skl: report reads it"
check "skl: report is silent on stderr" test ! -s err
is "$(jq -r .topdown.model skl.json)" skl "skl: model from meta.json"
is "$(jq -r .topdown.source skl.json)" counts "skl: whole run from the counting reads"
R='.topdown.run'
is "$(val "$R" Frontend_Bound <skl.json)" 0.25 "skl run: Frontend_Bound"
is "$(val "$R" Bad_Speculation <skl.json)" 0.06 "skl run: Bad_Speculation"
is "$(val "$R" Retiring <skl.json)" 0.425 "skl run: Retiring"
is "$(val "$R" Backend_Bound <skl.json)" 0.265 "skl run: Backend_Bound"
is "$(val "$R" CPI <skl.json)" 1.1111 "skl run: CPI"
is "$(jq -r "$R.bottleneck" skl.json)" Backend_Bound "skl run: bottleneck"
is "$(jq -r "$R.metrics[] | select(.name == \"CPI\") | .upstream" skl.json)" Info_Thread_CPI \
	"skl run: upstream name of CPI (compare with perf stat -M)"
is "$(jq -r '.topdown.processes[0].tree.metrics[] | select(.name == "Frontend_Bound") | .upstream' skl.json)" \
	Frontend_Bound "skl row: upstream name in each row's tree"
B='.topdown.processes[] | select(.comm == "backend") | .tree'
F='.topdown.processes[] | select(.comm == "frontend") | .tree'
is "$(val "$B" Frontend_Bound <skl.json)" 0.1 "skl backend: Frontend_Bound"
is "$(val "$B" Bad_Speculation <skl.json)" 0.07 "skl backend: Bad_Speculation"
is "$(val "$B" Backend_Bound <skl.json)" 0.43 "skl backend: Backend_Bound"
is "$(val "$B" CPI <skl.json)" 1.25 "skl backend: CPI"
is "$(jq -r "$B.bottleneck" skl.json)" Backend_Bound "skl backend: bottleneck"
is "$(val "$F" Frontend_Bound <skl.json)" 0.4 "skl frontend: Frontend_Bound"
is "$(val "$F" Backend_Bound <skl.json)" 0.1 "skl frontend: Backend_Bound"
is "$(val "$F" CPI <skl.json)" 1 "skl frontend: CPI"
is "$(jq -r "$F.bottleneck" skl.json)" Frontend_Bound "skl frontend: bottleneck"
check "skl backend: a 95% interval that holds the value" \
	jq -e '.topdown.processes[] | select(.comm == "backend") | .intervals.Backend_Bound as $i |
	       $i[0] < 0.43 and 0.43 < $i[1] and $i[1] - $i[0] < 0.5' skl.json
check "skl: intervals for every row" jq -e '[.topdown.processes[] | .intervals | length > 0] | all' skl.json
"$GX_BIN" report skl >skl.txt 2>/dev/null
check "skl text: the tree with the bottleneck marked" grep -q 'Backend_Bound .*<==' skl.txt
check "skl text: level 1 per process" grep -q 'Top-down level 1 by process' skl.txt
check "skl text: flagged cell marked (* survives without colour)" grep -qE '43\.0%\*.*backend' skl.txt

# ---- Skylake per function: the same two profiles as functions of one
# process (wl-spin's hot_inner and hot_outer), found by symbolization.
"$GEN" -o sklf -b "$WL/wl-spin" <<'SPEC'
model skl
smt off
process 5000 wl-spin
function hot_inner
CPU_CLK_UNHALTED.THREAD 1000000000
INST_RETIRED.ANY 800000000
IDQ_UOPS_NOT_DELIVERED.CORE 400000000
UOPS_ISSUED.ANY 1800000000
UOPS_RETIRED.RETIRE_SLOTS 1600000000
INT_MISC.RECOVERY_CYCLES 20000000
function hot_outer
CPU_CLK_UNHALTED.THREAD 1000000000
INST_RETIRED.ANY 1000000000
IDQ_UOPS_NOT_DELIVERED.CORE 1600000000
UOPS_ISSUED.ANY 2000000000
UOPS_RETIRED.RETIRE_SLOTS 1800000000
SPEC
ok $? "skl per function: synthetic result written"
"$GX_BIN" report --json sklf >sklf.json 2>/dev/null
FI='.topdown.functions[] | select(.function == "hot_inner") | .tree'
FO='.topdown.functions[] | select(.function == "hot_outer") | .tree'
is "$(val "$FI" Frontend_Bound <sklf.json)" 0.1 "skl hot_inner: Frontend_Bound"
is "$(val "$FI" Bad_Speculation <sklf.json)" 0.07 "skl hot_inner: Bad_Speculation"
is "$(val "$FI" Backend_Bound <sklf.json)" 0.43 "skl hot_inner: Backend_Bound"
is "$(val "$FI" CPI <sklf.json)" 1.25 "skl hot_inner: CPI"
is "$(jq -r "$FI.bottleneck" sklf.json)" Backend_Bound "skl hot_inner: bottleneck"
is "$(val "$FO" Frontend_Bound <sklf.json)" 0.4 "skl hot_outer: Frontend_Bound"
is "$(val "$FO" Retiring <sklf.json)" 0.45 "skl hot_outer: Retiring"
is "$(val "$FO" CPI <sklf.json)" 1 "skl hot_outer: CPI"
is "$(jq -r "$FO.bottleneck" sklf.json)" Frontend_Bound "skl hot_outer: bottleneck"
is "$(val "$R" Backend_Bound <sklf.json)" 0.265 "skl per function: the whole run is unchanged"
"$GX_BIN" report sklf >sklf.txt 2>/dev/null
check "skl text: level 1 by function names both" \
	sh -c "sed -n '/level 1 by function/,/^\$/p' sklf.txt | grep -q 'hot_inner' && sed -n '/level 1 by function/,/^\$/p' sklf.txt | grep -q 'hot_outer'"
check "skl text: hot_outer's Frontend flagged" grep -qE '40\.0%\*.*hot_outer' sklf.txt

# ---- Sapphire Rapids, general-counter variant, SMT off.
# SLOTS 6e9: FE (1.3-.1)/6=.20  BE 1.8/6=.30  RET 2.4/6=.40  BS max(1-.9,0)=.10  CPI 1/1.5=.6667
"$GEN" -o spr -b "$WL/wl-spin" <<'SPEC'
model spr gp
smt off
process 3000 app
TOPDOWN.SLOTS 6000000000
CPU_CLK_UNHALTED.THREAD 1000000000
INST_RETIRED.ANY 1500000000
IDQ_BUBBLES.CORE 1300000000
INT_MISC.UOP_DROPPING 100000000
TOPDOWN.BACKEND_BOUND_SLOTS 1800000000
UOPS_RETIRED.SLOTS 2400000000
SPEC
ok $? "spr: synthetic result written"
"$GX_BIN" report --json spr >spr.json 2>/dev/null
is "$(val "$R" Frontend_Bound <spr.json)" 0.2 "spr run: Frontend_Bound"
is "$(val "$R" Backend_Bound <spr.json)" 0.3 "spr run: Backend_Bound"
is "$(val "$R" Retiring <spr.json)" 0.4 "spr run: Retiring"
is "$(val "$R" Bad_Speculation <spr.json)" 0.1 "spr run: Bad_Speculation"
is "$(val "$R" CPI <spr.json)" 0.6667 "spr run: CPI"
is "$(jq -r "$R.variant" spr.json)" gp "spr: the general-counter variant recorded is used"

# ---- Zen 4, SMT off. SLOTS = 6 * cycles = 6e9.
# FE .6/6=.10  BS (3.0-2.7)/6=.05  BE 2.4/6=.40  SMT 0  RET 2.7/6=.45  CPI 1/2=.5
"$GEN" -o zen4 -b "$WL/wl-spin" <<'SPEC'
model zen4
smt off
process 4000 app
ls_not_halted_cyc 1000000000
ex_ret_instr 2000000000
ex_ret_ops 2700000000
de_src_op_disp.all 3000000000
de_no_dispatch_per_slot.no_ops_from_frontend 600000000
de_no_dispatch_per_slot.backend_stalls 2400000000
de_no_dispatch_per_slot.smt_contention 0
SPEC
ok $? "zen4: synthetic result written"
"$GX_BIN" report --json zen4 >zen4.json 2>/dev/null
is "$(val "$R" Frontend_Bound <zen4.json)" 0.1 "zen4 run: Frontend_Bound"
is "$(val "$R" Bad_Speculation <zen4.json)" 0.05 "zen4 run: Bad_Speculation"
is "$(val "$R" Backend_Bound <zen4.json)" 0.4 "zen4 run: Backend_Bound"
is "$(val "$R" Retiring <zen4.json)" 0.45 "zen4 run: Retiring"
is "$(val "$R" CPI <zen4.json)" 0.5 "zen4 run: CPI"
is "$(jq -r "$R.bottleneck" zen4.json)" Backend_Bound "zen4 run: bottleneck"
M='.topdown.modules[0].tree'
is "$(val "$M" Backend_Bound <zen4.json)" 0.4 "zen4: per-module row from the samples agrees"

# ---- Skylake, SMT on, recorded system-wide (every sibling measured):
# CORE_CLKS = THREAD_ANY/2 = .8e9, SLOTS 3.2e9: FE .8/3.2=.25 (read from
# meta.json's smt and system_wide; per-thread, the estimate's events are absent)
"$GEN" -o sklsmt -b "$WL/wl-spin" <<'SPEC'
model skl
smt on
system-wide
process 5000 app
CPU_CLK_UNHALTED.THREAD 1000000000
CPU_CLK_UNHALTED.THREAD_ANY 1600000000
INST_RETIRED.ANY 1000000000
IDQ_UOPS_NOT_DELIVERED.CORE 800000000
UOPS_ISSUED.ANY 1800000000
UOPS_RETIRED.RETIRE_SLOTS 1600000000
INT_MISC.RECOVERY_CYCLES_ANY 20000000
SPEC
ok $? "skl SMT on, system-wide: synthetic result written"
"$GX_BIN" report --json sklsmt >sklsmt.json 2>/dev/null
is "$(jq -r "$R.smt" sklsmt.json)" on "skl SMT on: the recording's SMT state"
is "$(jq -r "$R.core_wide" sklsmt.json)" true "skl system-wide: core-wide formulas"
is "$(val "$R" Frontend_Bound <sklsmt.json)" 0.25 "skl SMT on, core-wide: Frontend_Bound over THREAD_ANY/2"

# --cpu overrides the recorded model.
"$GX_BIN" report --json --cpu generic zen4 >g.json 2>/dev/null
is "$(jq -r .topdown.available g.json)" false "--cpu generic: zen4's events are not generic's"
# ---- per-region top-down (gexplore-regions(3)): the skl counts of the
# two processes above, each process's samples in a region of its own
# (gen-perfdata's "region"): each region's level 1 is its process's.
"$GEN" -o sklr -b "$WL/wl-spin" <<'SPEC'
model skl
smt off
process 1000 backend
region be
CPU_CLK_UNHALTED.THREAD 1000000000
INST_RETIRED.ANY 800000000
IDQ_UOPS_NOT_DELIVERED.CORE 400000000
UOPS_ISSUED.ANY 1800000000
UOPS_RETIRED.RETIRE_SLOTS 1600000000
INT_MISC.RECOVERY_CYCLES 20000000
process 2000 frontend
region fe
CPU_CLK_UNHALTED.THREAD 1000000000
INST_RETIRED.ANY 1000000000
IDQ_UOPS_NOT_DELIVERED.CORE 1600000000
UOPS_ISSUED.ANY 2000000000
UOPS_RETIRED.RETIRE_SLOTS 1800000000
SPEC
ok $? "regions: synthetic result with two regions written"
"$GX_BIN" report --by region --json sklr >sklr.json 2>/dev/null
rtd() { jq -r --arg r "$1" --arg n "$2" '.regions[] | select(.name == $r) | .topdown[$n] * 10000 | round / 10000' sklr.json; }
is "$(rtd be Frontend_Bound) $(rtd be Bad_Speculation) $(rtd be Retiring) $(rtd be Backend_Bound) $(rtd be CPI)" \
	"0.1 0.07 0.4 0.43 1.25" "regions: be's level 1 and CPI are the backend process's"
is "$(rtd fe Frontend_Bound) $(rtd fe Bad_Speculation) $(rtd fe Retiring) $(rtd fe Backend_Bound) $(rtd fe CPI)" \
	"0.4 0.05 0.45 0.1 1" "regions: fe's are the frontend process's"
"$GX_BIN" report --by region sklr >sklr.txt 2>&1
check "regions: the text report has a level-1 table by region" \
	grep -Eq '^  be +1\.25 +10\.0% +7\.0% +43\.0%\* +40\.0%' sklr.txt
"$GX_BIN" report --by region --csv sklr >sklr.csv 2>/dev/null
is "$(head -1 sklr.csv | cut -d, -f10-)" "CPI,Frontend_Bound,Bad_Speculation,Backend_Bound,Retiring" \
	"regions: CSV level-1 columns after the hot function"
is "$(awk -F, '$1 == "fe" { print $12 }' sklr.csv)" 0.05 "regions: CSV fe's Bad_Speculation"

done_testing
