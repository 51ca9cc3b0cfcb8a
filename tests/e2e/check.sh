#!/bin/bash
# gexplore check: thresholds pass (0), fail (1), cannot measure (77) and
# usage errors (2) on synthetic Skylake results with known counts, on a real
# perf recording with cycles and instructions, and on a live cpu-clock-only
# recording; the JUnit, GitHub and JSON outputs.
. "${GX_SRCDIR}/tests/e2e/lib.sh"
command -v jq >/dev/null || skip_all "jq is absent (Debian package jq)"
X="$GX_BIN"

gen() { gen_skl "$@"; }
rc() { "$@" >out 2>err; echo $?; }

gen skl 800000000 && ok 0 "synthetic skl result, CPI 1.25" || ok 1 "synthetic skl result"
is "$(rc "$X" check skl --max cpi=1.2)" 1 "--max cpi=1.2 fails on CPI 1.25"
check "the failure names value and limit" grep -q 'cpi of the run = 1.25 > max 1.2' out
is "$(rc "$X" check skl --max cpi=1.3)" 0 "--max cpi=1.3 passes"
is "$(rc "$X" check skl --max CPI=1.25)" 0 "a value at the limit passes (names are case-insensitive)"
is "$(rc "$X" check skl --min ipc=0.8 --min ipc=0.79)" 0 "--min ipc=0.8 passes on IPC 0.8"
is "$(rc "$X" check skl --min ipc=0.85)" 1 "--min ipc=0.85 fails"
is "$(rc "$X" check skl --max Backend_Bound=0.4)" 1 "--max Backend_Bound=0.4 fails on 0.43"
is "$(rc "$X" check skl --max Backend_Bound=45%)" 0 "--max Backend_Bound=45% passes"
is "$(rc "$X" check skl --max cpi=1.3 --max backend_bound=0.4)" 1 "one violated check fails the run"
is "$(rc "$X" check skl --process backend --max cpi=1.2)" 1 "per process: fails"
check "per process: the row is named" grep -q 'process backend (1000)' out
is "$(rc "$X" check skl --module wl-spin --max cpi=1.3)" 0 "per module by basename: passes"
is "$(rc "$X" check skl --min 'INST_RETIRED.ANY/CPU_CLK_UNHALTED.THREAD=0.8')" 0 \
	"event ratio by model event names"
is "$(rc "$X" check skl --max branch-misses/branches=0.1)" 77 "ratio of events not recorded: cannot measure"
check "... says which event is missing" grep -q "no 'branch-misses' event" out

# baseline: the result's CPI is 10% above the baseline's (1.25 vs 1.1364)
gen base 880000000 >/dev/null
is "$(rc "$X" check skl --baseline base --max-regress cpi=5%)" 1 "CPI 10% above the baseline: --max-regress cpi=5% fails"
check "... with the baseline in the message" grep -q 'baseline 1.136' out
is "$(rc "$X" check skl --baseline base --max-regress cpi=15%)" 0 "--max-regress cpi=15% passes"
is "$(rc "$X" check skl --baseline base --max-regress ipc=5%)" 1 "IPC dropped 9%: a regression for higher-is-better"
is "$(rc "$X" check base --baseline skl --max-regress cpi=1%)" 0 "an improvement is no regression"
is "$(rc "$X" check skl --baseline base --max-regress cpi=0.2)" 0 "absolute delta limit"

# several runs of one command: mean and interval; noise alone does not fail
gen r1 900000000 >/dev/null; gen r2 800000000 >/dev/null; gen r3 700000000 >/dev/null
is "$(rc "$X" check r1 r2 r3 --max cpi=1.2)" 0 "3 noisy runs, mean CPI 1.26, interval spans 1.2: pass"
check "the interval is printed" grep -qE '\[[0-9.]+, [0-9.]+\] 95% CI over 3 runs' out
check "... and called inconclusive" grep -q inconclusive out
is "$(rc "$X" check skl skl skl --max cpi=1.2)" 1 "3 identical runs above the limit: fail"

# cannot measure: too few samples, a metric the model lacks, MUX reliability
is "$(rc "$X" check skl --process backend --min-samples 1000 --max cpi=2)" 77 "too few samples: 77"
check "... with the reason" grep -q 'too few samples' out
is "$(rc "$X" check skl --cpu generic --max Backend_Bound=0.5)" 77 "a metric the model has not: 77"
jq '. + {mux: {mode: "gexplore", reliability: 0.5, rows: []}}' skl/meta.json >m && cp m skl/meta.json
is "$(rc "$X" check skl --max cpi=2)" 77 "MUX reliability 0.5 below the default floor 0.7: 77"
check "... with the reason" grep -q 'MUX reliability 0.50' out
is "$(rc "$X" check skl --max cpi=2 --min-reliability 0.4)" 0 "--min-reliability 0.4 accepts it"

# usage and input errors: 2
is "$(rc "$X" check skl --max nonsense=1)" 2 "unknown metric: 2"
is "$(rc "$X" check skl --max cpi)" 2 "malformed threshold: 2"
is "$(rc "$X" check skl --max-regress cpi=5%)" 2 "--max-regress without --baseline: 2"
is "$(rc "$X" check no-such-result --max cpi=1)" 2 "missing result: 2"
is "$(rc "$X" check skl)" 2 "no check given: 2"
is "$(rc "$X" check skl --process nobody --max cpi=1)" 2 "no such process: 2"

# outputs
gen skl 800000000 >/dev/null 2>&1 || { rm -rf skl; gen skl 800000000; }
"$X" check skl --json --max cpi=1.2 --max cpi=1.3 >c.json
is "$(jq -r '.status, .exit, .checks[0].value, .checks[0].status, .checks[1].status' c.json | tr '\n' ' ')" \
	"fail 1 1.25 fail pass " "--json: status, exit, values"
"$X" check skl --baseline base --junit j.xml --max cpi=1.2 --max-regress cpi=50% --max nope/cycles=1 >/dev/null
if command -v xmllint >/dev/null; then
	check "--junit validates against the JUnit subset GitLab/Jenkins read" \
		xmllint --noout --schema "$GX_SRCDIR/tests/junit.xsd" j.xml
	is "$(xmllint --xpath 'count(//testcase)' j.xml)" 3 "one testcase per check x row"
	is "$(xmllint --xpath 'string(/testsuites/@failures)' j.xml)" 1 "failures counted"
	is "$(xmllint --xpath 'string(/testsuites/@skipped)' j.xml)" 1 "skipped counted"
	check "failure message has value, limit and baseline" sh -c \
		"xmllint --xpath 'string(//failure/@message)' j.xml | grep -q '1.25 > max 1.2, baseline 1.136'"
else
	skip 5 "xmllint is absent (Debian package libxml2-utils)"
fi
"$X" check skl --github --max cpi=1.2 --max nope/cycles=1 >gh
is "$(grep -c '^::' gh)" 2 "--github: one annotation per failed or skipped check"
check "--github: an error line in workflow-command syntax" \
	grep -qE '^::error( file=[^,:]+,line=[0-9]+,)? ?title=gexplore check::cpi of the run = 1\.25 > max 1\.2' gh
"$X" check skl --json --github --max cpi=1.2 --max nope/cycles=1 >ghj 2>ghe
check "--json --github: standard output is one JSON document" jq -e .checks ghj
is "$(grep -c '^::' ghe)" 2 "--json --github: the annotations on standard error"
check "--github: a skip is a warning" grep -qE '^::warning title=gexplore check::cannot measure' gh
check "--github: no raw newline or % in the message" sh -c "! grep -E '^::.*%[^0-9A-F]' gh"

# per function: gen-perfdata's function lines put samples in wl-spin's
# hot_inner (CPI 1.5) and hot_outer (CPI 1.0); hot_inner starts at the
# line that declares it in tests/workloads/wl-spin.c
gen_skl_funcs fn 400000000 >/dev/null
is "$(rc "$X" check fn --function hot_inner --max cpi=1.2)" 1 "--function hot_inner: CPI 1.5 fails"
is "$(rc "$X" check fn --function hot_outer --max cpi=1.2)" 0 "--function hot_outer: CPI 1.0 passes"
is "$(rc "$X" check fn --function nosuch --max cpi=1.2)" 2 "--function of no sampled function: 2"
is "$(rc "$X" check fn --top 2 --max cpi=1.2 --json)" 1 "--top 2: the two hottest functions"
is "$(jq -r '[.checks[] | .row + ":" + .status] | join(" ")' out)" "hot_inner:fail hot_outer:pass" \
	"--top 2: hottest first, each with its own verdict"
hl=$(grep -n 'void hot_inner' "$GX_SRCDIR/tests/workloads/wl-spin.c" | cut -d: -f1)
line=$(jq -r '.checks[0].line' out)
check "the failing function's hottest line lies in hot_inner (from line $hl)" \
	test "$line" -ge "$hl" -a "$line" -le $((hl + 4))
GITHUB_WORKSPACE="$GX_SRCDIR" "$X" check fn --top 1 --max cpi=1.2 --github >gh2
check "--github: ::error on the hottest line, path relative to the workspace" \
	grep -qE "^::error file=tests/workloads/wl-spin\.c,line=$line,title=gexplore check::cpi of function hot_inner = 1\.5 > max 1\.2\$" gh2
"$X" check fn --function hot_inner --max cpi=1.2 --junit jf.xml >/dev/null
if command -v xmllint >/dev/null; then
	check "--junit with file and line validates" xmllint --noout --schema "$GX_SRCDIR/tests/junit.xsd" jf.xml
	is "$(xmllint --xpath 'string(//testcase/@line)' jf.xml)" "$line" "--junit: the testcase has the hottest line"
else
	skip 2 "xmllint is absent (Debian package libxml2-utils)"
fi
gen_skl_funcs fnbase 440000000 >/dev/null	# hot_inner CPI 1.364: ours is 10% above
is "$(rc "$X" check fn --function hot_inner --baseline fnbase --max-regress cpi=5%)" 1 \
	"per function against a baseline: 10% CPI regression fails 5%"
is "$(rc "$X" check fn --function hot_outer --baseline fnbase --max-regress cpi=5%)" 0 \
	"... and an unchanged function passes"

# a real recording with cycles and instructions
F="$GX_FIXTURES/quipper-busy.1-3.4.perf.data"
if [ -f "$F" ]; then
	is "$(rc "$X" check "$F" --max cpi=100)" 0 "quipper-busy: CPI is computable, passes a loose limit"
	is "$(rc "$X" check "$F" --max cpi=0.01)" 1 "quipper-busy: fails a tight one"
	is "$(rc "$X" check "$F" --min ipc=0.01 --max cycles/instructions=100)" 0 "quipper-busy: IPC and a ratio"
	is "$(rc "$X" check "$F" --top 3 --max cpi=100 --json)" 0 "quipper-busy: the 3 hottest functions"
	is "$(jq -r '.checks | length' out)" 3 "... one outcome each"
else
	skip 5 "fixture $F is absent"
fi

# live, cpu-clock only (no PMU here, or forced): CPI cannot be measured
if can_sample; then
	"$X" record -q -o live -e cpu-clock -- "$WL/wl-spin" 50 >/dev/null 2>&1
	is "$(rc "$X" check live --max cpi=1.2)" 77 "cpu-clock-only recording: CPI is 77"
	check "... and says why" grep -q 'CPI needs the cycles and instructions counters' out
	is "$(rc "$X" check live --max Backend_Bound=0.5)" 77 "cpu-clock-only recording: a top-down node is 77"
	is "$(rc "$X" check live --max cpu-clock=1e15 --json)" 0 "cpu-clock itself can be checked"
	run=$(jq -r '.checks[0].value' out)
	"$X" check live --process wl-spin --max cpu-clock=1e15 --json >out2
	proc=$(jq -r '.checks[0].value' out2)
	check "the run's exact count agrees with the process's samples ($run vs $proc ns)" \
		awk -v r="$run" -v p="$proc" 'BEGIN { exit !(r > 0.8 * p && r < 1.25 * p) }'
	# time in human units: limits with units, messages in s/ms with the change
	is "$(rc "$X" check live --max cpu-clock=1000s --min cpu-clock=1us)" 0 "--max cpu-clock=1000s, --min 1us pass"
	is "$(rc "$X" check live --max cpu-clock=1ms)" 1 "--max cpu-clock=1ms fails a 50 ms run"
	check "... in human units" grep -qE '^FAIL  cpu-clock of the run = [0-9.]+ ms > max 1 ms$' out
	is "$(rc "$X" check live --max cpu-clock=500000ns --junit jl.xml --github)" 1 "--max in ns: the same limit"
	check "--github: the time in ms" grep -qE '^::error title=gexplore check::cpu-clock of the run = [0-9.]+ ms > max 500 us$' out
	check "--junit: value and limit in human units" \
		grep -qE 'value: [0-9.]+ ms&#10;limit: 500 us' jl.xml
	is "$(rc "$X" check live --baseline live --max-regress cpu-clock=10% --max-regress cpu-clock=5ms)" 0 \
		"--max-regress cpu-clock against itself: 10% and 5ms pass"
	check "... the baseline and the change in %" \
		grep -qE 'cpu-clock of the run = [0-9.]+ ms, baseline [0-9.]+ ms \(\+0\.0%\); up by at most 10% \(limit [0-9.]+ ms\)' out
	check "... an absolute limit in ms" grep -q 'up by at most 5 ms (limit' out
	is "$(rc "$X" check live --max cpu-clock=5%)" 2 "a percentage of a time is a usage error"
	check "... that says so" grep -q 'cpu-clock is a time' err
	is "$(rc "$X" check live --max share=2s)" 2 "a time limit on a share is a usage error"
	check "... that says so" grep -q 'share is not a time' err
	is "$(rc "$X" check live --max cpi=2s)" 2 "... and on CPI, though CPI cannot be measured here"
	is "$(rc "$X" check live --process wl-spin --max share=101% --min share=50%)" 0 "a share in %"
	is "$(rc "$X" record -q -o rec2 -e cpu-clock --check '--max cpi=1.2' -- "$WL/wl-spin" 20)" 77 \
		"record --check: the check's status"
	is "$(rc "$X" record -q -o rec3 -e cpu-clock --check '--max cpu-clock=1' -- "$WL/wl-spin" 20)" 1 \
		"record --check: a violated check fails the recording command"
	# the workload's stdout is its own: the verdict goes to stderr
	seq 1 20000 >want.out
	"$X" record -q -o rec4 -e cpu-clock --check '--max cpu-clock=10s' -- seq 1 20000 >got.out 2>got.err
	is $? 0 "record --check of seq: passes"
	check "record --check leaves the program's stdout byte-identical" cmp -s want.out got.out
	check "... and says the verdict on stderr" grep -q 'PASS' got.err
	"$X" record -q -o rec5 -e cpu-clock --check '--max cpu-clock=1' -- seq 1 20000 >/dev/null 2>got.err
	is $? 1 "record --check with stdout to /dev/null: a violated check exits 1"
	check "... and shows the reason on stderr" grep -q 'FAIL' got.err
	"$X" record -q -o rec6 -e cpu-clock --repeat 2 --check '--max cpu-clock=10s' -- seq 1 20000 >got.out 2>got.err
	check "record --repeat 2 --check: stdout is the two runs' output alone" \
		sh -c 'cat want.out want.out | cmp -s - got.out'
	is "$(rc "$X" check --repeat 3 --record '-e cpu-clock' --max cpu-clock=1e15 -- "$WL/wl-spin" 20)" 0 \
		"check --repeat 3 -- CMD records three runs and passes"
	check "... printing the interval" grep -q '95% CI over 3 runs' out
	# multiplexed software groups: whole-run and per-process values use the
	# mux estimates (cpu-clock is both the reference and a group member;
	# -c 250000: 4 kHz in the groups too, where clocks default to 400 Hz,
	# for enough samples per process row; 400 ms: 20 slices a group, where
	# 150 ms (7) let a loaded machine's stalls in a few slices move the
	# estimate past the bounds)
	"$X" record -q -o mx -c 250000 -e '{cpu-clock},{task-clock}' -- "$WL/wl-spin" 400 >/dev/null 2>&1
	is "$(rc "$X" check mx --min task-clock/cpu-clock=0.8 --max task-clock/cpu-clock=1.2)" 0 \
		"multiplexed: task-clock/cpu-clock of the run is about 1"
	is "$(rc "$X" check mx --process wl-spin --min task-clock/cpu-clock=0.7 --max task-clock/cpu-clock=1.3)" 0 \
		"multiplexed: per process too (periods scaled by the group's share)"
else
	skip 26 "cannot sample cpu-clock here"
fi
done_testing
