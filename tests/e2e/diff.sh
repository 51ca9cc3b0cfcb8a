#!/bin/bash
# gexplore diff: per scope and metric, A, B and the change, biggest first;
# the two newest results by default; --json and --csv.
. "${GX_SRCDIR}/tests/e2e/lib.sh"
command -v jq >/dev/null || skip_all "jq is absent (Debian package jq)"
X="$GX_BIN"

gen() { gen_skl "$@"; }
# A: CPI 1.25, FE .10; B: CPI 1.0 (-20%), FE .20 (+100%)
gen gx001 800000000 400000000 && gen gx002 1000000000 800000000
ok $? "two synthetic results"
"$X" diff --json >d.json 2>err
ok $? "diff with no arguments"
is "$(jq -r '.a + " " + .b' d.json)" "gx001 gx002" "defaults: the two newest results, older first"
val() { jq -r --arg s "$1" --arg m "$2" '.entries[] | select(.scope == $s and .metric == $m) | .'"$3"' * 10000 | round / 10000' d.json | head -1; }
is "$(val run CPI a)" 1.25 "run CPI in A"
is "$(val run CPI b)" 1 "run CPI in B"
is "$(val run CPI delta)" -0.25 "run CPI delta"
is "$(val run CPI change)" -0.2 "run CPI relative change"
is "$(val process Frontend_Bound change)" 1 "per process: Frontend_Bound doubled"
is "$(jq -r '.entries[0].metric' d.json)" Frontend_Bound "the biggest change comes first"
"$X" diff --csv gx001 gx002 >d.csv
is "$(head -1 d.csv)" "scope,row,metric,a,b,delta,change,delta_lo,delta_hi,noise,a_n,b_n,a_sd,b_sd,df" \
	"--csv header"
check "--csv: the run's CPI row, exact (no interval), a real change, one run a side" \
	grep -qE '^run,,CPI,1\.25,1,-0\.25,-0\.2,-0\.25,-0\.25,0,1,1,,,$' d.csv
"$X" diff gx001 gx002 >d.txt
check "text: a table with the change in % (a whole-run value is exact: ±0)" \
	grep -qE '^run +CPI +1\.25 +1 +-0\.25 +±0 +-20\.0%' d.txt
check "text: one run a side, each change with its 95% interval from the samples" \
	grep -qE '^process +Frontend_Bound +10\.0% +20\.0% +\+10\.0% +±4\.4% +\+100\.0% +backend$' d.txt
check "text: the header names the interval" grep -q '±95%' d.txt
"$X" diff --metric cpi --scope run --json gx001 gx002 >one.json
is "$(jq -r '.entries | length' one.json)" 1 "--metric and --scope narrow it"
"$X" diff --metric nonsense gx001 gx002 >/dev/null 2>&1
is $? 2 "unknown metric: 2"
"$X" diff --json --metric cpu-clock gx001 gx002 >sw.json
is "$?:$(jq -r '.entries | length' sw.json)" "0:0" "an event neither result recorded: no entries, no error"
# per function (gen-perfdata function lines): hot_inner's CPI 1.5 -> 1.2
gen_skl_funcs fa 400000000 && gen_skl_funcs fb 500000000
"$X" diff --json --scope function fa fb >f.json
fv() { jq -r --arg r "$1" --arg m "$2" '.entries[] | select(.row == $r and .metric == $m) | .'"$3"' * 10000 | round / 10000' f.json; }
is "$(fv hot_inner CPI a) $(fv hot_inner CPI b)" "1.5 1.2" "per function: A and B"
is "$(fv hot_inner CPI change)" -0.2 "per function: the change"
is "$(fv hot_outer CPI change)" 0 "per function: an unchanged function"
is "$(jq -r '[.entries[] | select(.scope == "process" and .metric == "Frontend_Bound")][0] | (.noise | tostring) + " " + .unit' d.json)" \
	"false fraction" "per process: Frontend_Bound 10% -> 20% on 100 samples is a real change"
is "$(jq -r '[.entries[] | select(.row == "hot_inner" and .metric == "CPI")][0].noise' f.json)" \
	true "per function: CPI 1.5 -> 1.2 on 100 samples is within noise"

# noise: a change that 100 samples a side cannot tell from sampling error,
# and one they can (each function's cycles rest on its 100 samples)
gen_cyc() {
	"$GEN" -o "$1" -b "$WL/wl-spin" <<SPEC
model skl
smt off
process 1000 app
function hot_inner
CPU_CLK_UNHALTED.THREAD $2
INST_RETIRED.ANY 400000000
function hot_outer
CPU_CLK_UNHALTED.THREAD 400000000
INST_RETIRED.ANY 400000000
SPEC
}
gen_cyc na 600000000 && gen_cyc nb 620000000 && gen_cyc nc 1200000000
"$X" diff --json --scope function --metric CPU_CLK_UNHALTED.THREAD na nb >n.json
nz() { jq -r --arg r "$1" '[.entries[] | select(.row == $r)][0] | "\(.noise) \(.unit)"' "$2"; }
is "$(nz hot_inner n.json)" "true count" "noise: 600M -> 620M cycles on 100 samples a side is within noise"
"$X" diff --json --scope function --metric CPU_CLK_UNHALTED.THREAD na nc >c.json
is "$(nz hot_inner c.json)" "false count" "noise: 600M -> 1.2G cycles is a real change"
"$X" diff --scope function --metric CPU_CLK_UNHALTED.THREAD na nb >n.txt
check "text: changes within noise under their own heading, marked ~" \
	sh -c "grep -q '^-- within noise' n.txt && grep -q 'hot_inner ~' n.txt"
check "text: counts in human units" grep -qE ' 600 M +620 M +\+20 M ' n.txt

# live: time and shares in human units; a row of a few samples that is new
# or gone is noise
if can_sample; then
	for i in 1 2; do
		"$X" record -q -o same$i -e cpu-clock -- "$WL/wl-spin" 300 >/dev/null 2>&1
	done
	"$X" diff --json --scope function same1 same2 >l.json
	is "$(jq '[.entries[] | select(.metric == "share" and (.a == null or .b == null)) | select(.noise == false and ((.a // .b) < 0.002))] | length' l.json)" 0 \
		"noise: a one-sample row new or gone is noise, not a change"
	"$X" diff --scope function --limit 0 same1 same2 >l.txt
	check "text: time in human units" grep -qE ' [0-9.]+ ms ' l.txt
	check "text: shares in %" grep -qE '^function share +[0-9.]+% ' l.txt
else
	skip 3 "cannot sample cpu-clock here"
fi
# a real recording against itself: nothing changed, even where several
# modules each have an [unknown] function
if [ -r "$GX_FIXTURES/quipper-busy.1-3.4.perf.data" ]; then
	busy="$GX_FIXTURES/quipper-busy.1-3.4.perf.data"
	"$X" diff --json --scope function "$busy" "$busy" >self.json
	is "$(jq '[.entries[] | select(.delta != 0 or .in_a != .in_b)] | length' self.json)" 0 \
		"a result against itself: no change in any function"
	printf 'ffffffff81019700 T busy_fn\n' >ks.txt
	"$X" diff --json --scope function --kallsyms ks.txt "$busy" "$busy" >ks.json
	check "--kallsyms names the kernel's functions" jq -e '[.entries[] | select(.row == "busy_fn")] | length > 0' ks.json
	"$X" check --function busy_fn --max cpi=100 --kallsyms ks.txt "$busy" >/dev/null 2>&1
	is $? 0 "check --kallsyms: a kernel function by name"
	"$X" tui --kallsyms ks.txt --keys "g" --dump 100x20 "$busy" >tui.txt 2>&1
	check "tui --kallsyms: the grid shows it" grep -q busy_fn tui.txt
else
	skip 4 "fixtures absent"
fi
# one program in two directories (a copy: the same build-id; a rebuild:
# only the file name is the same): its modules and functions match
if can_sample; then
	mkdir -p dir-a dir-b && cp "$WL/wl-spin" dir-a/ && cp "$WL/wl-spin" dir-b/
	"$X" record -q -o ra -e cpu-clock -- "$TMP/dir-a/wl-spin" 150 >/dev/null 2>&1
	"$X" record -q -o rb -e cpu-clock -- "$TMP/dir-b/wl-spin" 150 >/dev/null 2>&1
	"$X" diff --json --scope function --scope module --metric share ra rb >mv.json
	is "$(jq '[.entries[] | select(.row == "hot_inner" and .a != null and .b != null)] | length' mv.json)" 1 \
		"another directory, same build-id: hot_inner is one row, not gone and new"
	is "$(jq '[.entries[] | select(.scope == "module" and (.row | endswith("/wl-spin")) and (.a == null or .b == null))] | length' mv.json)" 0 \
		"the module matches by build-id"
	if command -v "${CC:-cc}" >/dev/null; then
		mkdir -p dir-c && "${CC:-cc}" -O1 -g -DREBUILT -o dir-c/wl-spin "$GX_SRCDIR/tests/workloads/wl-spin.c"
		"$X" record -q -o rc -e cpu-clock -- "$TMP/dir-c/wl-spin" 150 >/dev/null 2>&1
		"$X" diff --json --scope function --metric share ra rc >mc.json
		is "$(jq '[.entries[] | select(.row == "hot_inner" and .a != null and .b != null)] | length' mc.json)" 1 \
			"a rebuild elsewhere: matched by file name"
	else
		skip 1 "no C compiler"
	fi
else
	skip 3 "perf_event_open of cpu-clock is not permitted here"
fi
# Two builds of one program under different names (CI builds differ in path
# or name): their main programs are matched, and said so; transform is a
# change, not a row gone and a row new
if can_sample && command -v "${CC:-cc}" >/dev/null; then
	cat >dif.c <<'SRC'
#include <stdio.h>
__attribute__((noinline)) double transform(long n)
{ volatile double s = 0; for (long i = 0; i < n; i++) s += i * 0.5; return s; }
__attribute__((noinline)) double other(long n)
{ volatile double s = 1; for (long i = 0; i < n; i++) s *= 1.0000001; return s; }
int main(void) { printf("%f\n", transform(N) + other(60000000)); return 0; }
SRC
	"${CC:-cc}" -O1 -g -DN=60000000 -o difA dif.c && "${CC:-cc}" -O1 -g -DN=180000000 -o difB dif.c
	"$X" record -q -o da -e cpu-clock -- ./difA >/dev/null 2>&1
	"$X" record -q -o db -e cpu-clock -- ./difB >/dev/null 2>&1
	"$X" diff --json da db >dd.json 2>/dev/null
	is "$(jq -r '[.entries[] | select(.scope == "function" and .row == "transform" and .metric == "cpu-clock") | (.a != null and .b != null)] | .[0]' dd.json)" \
		true "two differently named builds: transform is in both sides"
	check "... and its time went up (a change, not gone/new)" \
		jq -e '[.entries[] | select(.scope == "function" and .row == "transform" and .metric == "cpu-clock")][0].change > 0.5' dd.json
	check "... the programs' modules matched, and said so" \
		jq -e '.matched | index("difA (A) is difB (B): the main program of each run") != null' dd.json
	"$X" diff da db >dd.txt 2>&1
	check "... in the text too" grep -q '^  matched: difA (A) is difB (B): the command of each run' dd.txt
	"$X" diff --match-module difA=difB --scope module --json da db >dm.json 2>/dev/null
	check "--match-module difA=difB: matched by it" \
		jq -e '.matched | index("difA (A) is difB (B): --match-module") != null' dm.json
	"$X" diff --match-module difA da db >/dev/null 2>err
	is "$?" 2 "--match-module without '=': a usage error"
	check "... that says A=B" grep -q 'takes A=B' err
else
	skip 7 "no sampling or no C compiler"
fi
mkdir lone && cd lone && { "$X" diff >/dev/null 2>&1; is $? 2 "fewer than two results: 2"; cd ..; }
done_testing
