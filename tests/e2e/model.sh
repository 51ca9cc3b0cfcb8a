#!/bin/bash
# record --model (issue 28): a result where there is no PMU. The workload
# (tests/workloads/wl-model: the same instructions every run) under
# callgrind; two runs give identical instructions per function; every
# format labels the modelled numbers (text, JSON, CSV, JUnit, check's
# JSON); check gates modelled CPI with 0 or 1, never 77; --max-regress on
# instructions is exact over repeated runs; without valgrind (or llvm-mca)
# on PATH, one line names the Debian package and no result is left.
. "$GX_SRCDIR/tests/e2e/lib.sh"

WLM="$WL/wl-model"
if ! command -v valgrind >/dev/null 2>&1; then
	skip_all "valgrind is not installed (Debian package valgrind; ./bootstrap installs it)"
fi
if ! command -v llvm-mca >/dev/null 2>&1; then
	skip_all "llvm-mca is not installed (Debian package llvm; ./bootstrap installs it)"
fi
[ -x "$WLM" ] || skip_all "no $WLM (make check builds it)"

# without the tools: one line naming the package, exit 2, nothing left
mkdir -p nomca && ln -s "$(command -v valgrind)" nomca/valgrind
out=$(PATH="$TMP/nonexistent" "$GX_BIN" record --model -o rnone -- "$WLM" lat_chain 2>&1)
is "$?" 2 "no valgrind on PATH: exit 2"
is "$(printf '%s\n' "$out" | wc -l)" 1 "no valgrind: one line"
printf '%s\n' "$out" | grep -q "install the Debian package valgrind"
ok $? "no valgrind: the line names the package ($out)"
[ ! -e rnone ]
ok $? "no valgrind: no result directory left"
out=$(PATH="$TMP/nomca" "$GX_BIN" record --model -o rnone -- "$WLM" lat_chain 2>&1)
printf '%s\n' "$out" | grep -q "install the Debian package llvm"
ok $? "no llvm-mca: the line names the package llvm ($out)"
out=$("$GX_BIN" record --model --off-cpu -o rnone -- "$WLM" lat_chain 2>&1)
is "$?" 2 "--model with --off-cpu: a usage error"
printf '%s\n' "$out" | grep -q "no --off-cpu with it" && [ ! -e rnone ]
ok $? "... in one line, no result left ($out)"

# two runs, one the default command form (gexplore --model -- CMD)
"$GX_BIN" record -q --model -o r1 -- "$WLM" all >r1.out 2>r1.err
is "$?" 0 "record --model: exit 0 (the workload's)"
"$GX_BIN" --model -q -o r2 -- "$WLM" all >r2.out 2>r2.err </dev/null
is "$?" 0 "gexplore --model -- CMD records too"
grep -q '"modelled": true' r1/meta.json
ok $? "meta.json says modelled"
"$GX_BIN" report r1 --csv --limit 0 >r1.csv 2>/dev/null
"$GX_BIN" report r2 --csv --limit 0 >r2.csv 2>/dev/null
head -1 r1.csv | grep -q 'instructions_exact,cycles_modelled,cpi_modelled'
ok $? "CSV: the columns say exact and modelled"
# function,module,... instructions_exact: the per-function counts
cut_insns() { awk -F, 'NR > 1 { print $1 "," $(NF-2) }' "$1" | sort; }
cut_insns r1.csv >r1.ins
cut_insns r2.csv >r2.ins
for f in lat_chain indep_fp chase branchy stream_sum; do
	grep -q "^$f," r1.ins
	ok $? "a row for $f"
done
cmp -s r1.ins r2.ins
ok $? "two runs: identical instructions per function"
[ $? = 0 ] || diff r1.ins r2.ins | head | sed 's/^/# /'

# threads run serialized under Valgrind: the result says so
"$GX_BIN" record -q --model -o rt -- "$WLM" threads >/dev/null 2>&1
grep -qE 'ran [2-9] threads \(processes included\); Valgrind runs them serialized' rt/meta.json
ok $? "threads: the result says they ran serialized"

# the text report: exact and modelled said beside the numbers
"$GX_BIN" report r1 >r1.txt 2>&1
grep -q 'instructions(exact)  cycles(modelled)  CPI(modelled)' r1.txt
ok $? "text: the function table labels its columns"
grep -q 'Top-down (MODELLED, not measured' r1.txt
ok $? "text: the tree is labelled modelled"
grep -q 'cycles:modelled' r1.txt
ok $? "text: the events are named modelled"
grep -q 'below each row its 95% intervals' r1.txt
ok $((! $?)) "text: no sampling intervals for exact counts"
"$GX_BIN" report r1 --json >r1.json 2>/dev/null
grep -q '"modelled": true' r1.json
ok $? "JSON: modelled at the top and in the tree"
[ "$(grep -c '"modelled": true' r1.json)" -ge 2 ]
ok $? "JSON: twice (the result and its top-down)"
grep -q '"cycles:modelled"' r1.json
ok $? "JSON: the event's name says modelled"

# the TUI, headless: the summary says modelled beside the tree and CPI
"$GX_BIN" tui r1 --keys '' --dump 100x30 >tui.txt 2>&1
grep -q 'PMU none: MODELLED' tui.txt
ok $? "TUI: no PMU, modelled"
grep -q 'Top-down (modelled, not measured' tui.txt && grep -q 'CPI .* (modelled)' tui.txt
ok $? "TUI: the tree and CPI are labelled modelled"

# check: 0 or 1 on a modelled CPI, never 77; labelled in text, JSON, JUnit
cpi=$(awk -F, 'NR > 1 && $1 == "lat_chain" { print $NF }' r1.csv)
diag "lat_chain's modelled CPI: $cpi"
"$GX_BIN" check r1 --max cpi=100 --junit pass.xml >check.txt 2>&1
is "$?" 0 "check --max cpi=100: pass (0)"
grep -q '(modelled' check.txt
ok $? "check's text says modelled"
grep -q '<system-out>.*modelled' pass.xml
ok $? "JUnit: a passing case says modelled"
"$GX_BIN" check r1 --max cpi=0.01 --junit fail.xml --json >check.json 2>/dev/null
is "$?" 1 "check --max cpi=0.01: fail (1), not 77"
grep -q 'failure type="threshold" message=".*modelled' fail.xml
ok $? "JUnit: the failure says modelled"
grep -q '"modelled": true' check.json
ok $? "check --json: modelled"
"$GX_BIN" check r1 --function lat_chain --max cpi=100 >/dev/null 2>&1
is "$?" 0 "check --function lat_chain: a modelled function's CPI is checked (0)"

# exact counts: --max-regress instructions=0.5% over two repeated runs
"$GX_BIN" check --repeat 2 --record '--model' --baseline r1 \
	--max-regress instructions=0.5% -- "$WLM" all >repeat.txt 2>&1
st=$?
is "$st" 0 "check --repeat 2 --record --model --max-regress instructions=0.5%: pass"
[ "$st" = 0 ] || sed 's/^/# /' repeat.txt | tail -5

# diff of a measured and a modelled result names each side
if can_sample; then
	"$GX_BIN" record -q -o m1 -e cpu-clock -- "$WLM" all >/dev/null 2>&1
	"$GX_BIN" diff m1 r1 >diff.txt 2>&1
	grep -q 'A = m1 (measured), B = r1 (MODELLED)' diff.txt
	ok $? "diff: measured against modelled"
else
	skip 1 "cannot sample here (perf_event_paranoid)"
fi
done_testing
