#!/bin/bash
# record -> result directory -> report, on live software events.
. "${GX_SRCDIR}/tests/e2e/lib.sh"
can_sample || skip_all "perf_event_open of cpu-clock is not permitted here"
command -v jq >/dev/null || skip_all "jq is absent (Debian package jq)"

# A plain recording: the default events (cycles,instructions or cpu-clock).
"$GX_BIN" record -o r1 -- "$WL/wl-spin" 300 >out 2>err
ok $? "record exits with the workload's status 0"
check "perf.data written" test -s r1/perf.data
check "meta.json written" test -s r1/meta.json
check "meta.json is JSON with the workload's argv" \
	sh -c "jq -e '.workload.argv[1] == \"300\" and .workload.exited and .workload.exit_code == 0' r1/meta.json"
if ! jq -e '.pmu' r1/meta.json >/dev/null; then
	check "no PMU: one line says hardware counters are unavailable" \
		sh -c "grep -c 'hardware counters are unavailable' err | grep -qx 1"
	check "no PMU: falls back to cpu-clock" sh -c "jq -e '.events[0].name == \"cpu-clock\"' r1/meta.json"
else
	skip 2 "this machine has a PMU"
fi
n=$(gx_samples r1)
check "samples were taken (got $n)" test "$n" -gt 10
"$GX_BIN" report r1 >rep 2>rerr
ok $? "report reads the result"
check "report names the workload's process" grep -q 'wl-spin' rep
check "report names the workload's module" grep -q 'tests/workloads/wl-spin$' rep
check "report is silent on stderr" test ! -s rerr
check "report --json has the schema tag" sh -c "'$GX_BIN' report --json r1 | jq -e '.schema == \"gexplore-report 1\"'"
check "the workload's module dominates" \
	sh -c "'$GX_BIN' report --json r1 | jq -e '.modules[0].module | endswith(\"wl-spin\")'"

# Next free gxNNN, and 'report' alone opens the newest.
"$GX_BIN" record -q -e cpu-clock -- "$WL/wl-spin" 50 >/dev/null 2>&1
"$GX_BIN" record -q -e cpu-clock -- "$WL/wl-spin" 50 >/dev/null 2>&1
check "default result names gx001, gx002" test -f gx001/perf.data -a -f gx002/perf.data
is "$("$GX_BIN" report --json | jq -r .result)" "gx002" "report without RESULT opens the newest"
check "-o on a non-empty directory is refused" sh -c "! '$GX_BIN' record -q -o r1 -- true 2>/dev/null"
check "-o on a non-empty directory: the error names -f" \
	sh -c "'$GX_BIN' record -q -o r1 -- true 2>&1 | grep -q 'overwrite it with -f (--force)'"
check "-f reuses it" "$GX_BIN" record -q -f -o r1 -e cpu-clock -- true
# A crash is said where the run is summed up: record's last line, the TUI
"$GX_BIN" record -o crashed -e cpu-clock -- sh -c "'$WL/wl-spin' 30 >/dev/null; kill -SEGV \$\$" \
	>/dev/null 2>crash.err
check "a crashed workload: record's last line says SIGSEGV" \
	grep -q '^gexplore: recorded crashed (the workload was killed by SIGSEGV)' crash.err
"$GX_BIN" tui --keys "" --dump 100x20 crashed >scr 2>/dev/null
check "... and the TUI's summary" grep -q 'Ended    killed by SIGSEGV' scr
"$GX_BIN" record -q -o failed3 -e cpu-clock -- sh -c 'exit 3' >/dev/null 2>&1
"$GX_BIN" tui --keys "" --dump 100x20 failed3 >scr 2>/dev/null
check "a workload's exit 3 in the TUI's summary" grep -q 'Ended    exit 3' scr
if ! jq -e '.pmu' r1/meta.json >/dev/null; then
	"$GX_BIN" --no-tui -o once -- "$WL/wl-spin" 50 >once.txt 2>&1
	is "$(grep -c 'hardware counters are unavailable' once.txt)" 1 \
		"gexplore -- CMD without a PMU: the warning is said once, not again in the report"
	check "... whose Warnings count it" grep -q "the recording's 1 warning, said above" once.txt
	check "... and the report of the result alone says it" \
		sh -c "'$GX_BIN' report once | grep -q '^  - hardware counters are unavailable'"
	"$GX_BIN" tui --keys "" --dump 100x40 once >scr 2>/dev/null
	is "$(grep -c 'hardware counters are unavailable\|No PMU' scr)" 1 "the TUI says no PMU once"
	check "the top-down note does not call sampled hotspots exact" sh -c "! grep -q 'still exact' once.txt"
else
	skip 5 "this machine has a PMU"
fi

# gexplore [options] -- CMD records then prints the summary on stderr:
# CMD's standard output is CMD's alone (gexplore -- xz -c f > f.xz).
"$GX_BIN" -o r2 -e cpu-clock -- "$WL/wl-spin" 100 >out2 2>sum
ok $? "gexplore -- CMD exits 0"
check "gexplore -- CMD prints the summary on stderr" grep -q '^Processes' sum
check "... and the recorded line" grep -q 'gexplore: recorded r2:' sum
head -c 200000 "$GX_BIN" >in.bin
"$GX_BIN" -q -o r2b -e cpu-clock -- cat in.bin >out.bin 2>sum2
ok $? "gexplore -- cat FILE > OUT exits 0"
check "... OUT is byte-identical to FILE: nothing of gexplore in it" cmp -s in.bin out.bin
check "... the report went to stderr" grep -q '^Processes' sum2
"$GX_BIN" -q -o r2c -e cpu-clock --check '--max cpu-clock=1e15' -- cat in.bin >out.bin 2>sum3
check "--check with -- CMD: OUT still byte-identical" cmp -s in.bin out.bin
"$GX_BIN" -q -o r2d -e cpu-clock -- sh -c 'echo x; exit 3' >out3 2>/dev/null
is "$?" 3 "gexplore -- CMD exits with CMD's status"
is "$(cat out3)" "x" "... its stdout CMD's own"
check "--no-report records only" sh -c "'$GX_BIN' -q --no-report -o r3 -e cpu-clock -- true >o3 && test ! -s o3 && test -f r3/perf.data"

# Events: perf's generic names, libpfm4 names, -c and -F.
"$GX_BIN" record -q -o r4 -e page-faults -c 1 -- "$WL/wl-spin" 20 >/dev/null 2>&1
ok $? "page-faults -c 1 records"
check "page-faults: one sample per fault" sh -c "jq -e '.events[0].sav == 1' r4/meta.json"
"$GX_BIN" record -q -o r5 -e cpu-clock -F 2000 -- "$WL/wl-spin" 100 >/dev/null 2>&1
check "-F 2000 recorded in frequency mode" sh -c "jq -e '.events[0].freq == 2000' r5/meta.json"
"$GX_BIN" record -q -o r6 -e cpu-clock,page-faults --rate 2 -- "$WL/wl-spin" 20 >/dev/null 2>&1
check "--rate 2 doubles the default SAV" sh -c "jq -e '.events[0].sav == 500000' r6/meta.json"
check "two events in the result" sh -c "'$GX_BIN' report --json r6 | jq -e '.events | length == 2'"

# Bad input: one line, non-zero.
"$GX_BIN" record -q -o r7 -e no-such-event -- true >/dev/null 2>e7
is "$?" 2 "unknown event exits 2"
is "$(wc -l <e7)" 1 "unknown event: one line"
check "unknown event: names it" grep -q 'no-such-event' e7
"$GX_BIN" record -q -o r8 -e cpu-clock -- ./no/such/binary >/dev/null 2>e8
rc=$?
check "missing binary: non-zero exit ($rc)" test "$rc" -ne 0
check "missing binary: says why" grep -q 'No such file' e8
"$GX_BIN" record -c 5 -F 5 -- true >/dev/null 2>e9
is "$?" 2 "-c with -F is a usage error"
"$GX_BIN" report no-such-result >/dev/null 2>e10
is "$?" 2 "report of a missing result exits 2"
is "$(wc -l <e10)" 1 "missing result: one line"
"$GX_BIN" frobnicate >/dev/null 2>&1
is "$?" 2 "unknown command exits 2"
is "$("$GX_BIN" rep --help 2>&1 | head -1 | cut -c1-22)" "usage: gexplore report" "unique prefix finds report"
check "version --build-options lists the options" sh -c "'$GX_BIN' version --build-options | grep -q 'libunwind='"

# The workload starts on a stack of its own until its exec (the keeper's
# clone, as posix_spawn): a script without #! is run by /bin/sh with a
# copy of argv's pointers on that stack. 30000 arguments crashed a 64 KiB
# stack (exit 139); the stack is sized for them now.
printf 'echo "$#"\n' >noshebang
chmod +x noshebang
"$GX_BIN" record -q -o r11 -e cpu-clock -- ./noshebang $(seq 1 30000) >args.out 2>args.err
is "$?" 0 "a script without #! and 30000 arguments runs"
is "$(cat args.out)" 30000 "... and sees them all"
done_testing
