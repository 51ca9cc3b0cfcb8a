#!/bin/bash
# Every thread and every child process shows up (inherit), with COMM names.
. "${GX_SRCDIR}/tests/e2e/lib.sh"
can_sample || skip_all "perf_event_open of cpu-clock is not permitted here"
command -v jq >/dev/null || skip_all "jq is absent (Debian package jq)"

"$GX_BIN" record -q -o t -e cpu-clock -- "$WL/wl-threads" 4 300 >/dev/null 2>&1
ok $? "multithreaded workload recorded"
"$GX_BIN" report --json --limit 0 t >t.json
# The main thread only starts them, but loading the program can give it a
# few samples on a busy machine: count the other threads.
is "$(jq '[.threads[] | select(.comm == "wl-threads" and .tid != .pid and .samples[0] > 5)] | length' t.json)" 4 \
	"each of the 4 spinning threads has samples"
is "$(jq '[.threads[] | select(.pid == .tid)] | length' t.json)" 1 "the main thread is a row of its own"
is "$(jq '[.processes[] | select(.comm == "wl-threads")] | length' t.json)" 1 "one process"

"$GX_BIN" record -q -o f -e cpu-clock -- "$WL/wl-fork" 3 300 >/dev/null 2>&1
ok $? "forking workload recorded"
"$GX_BIN" report --json --limit 0 f >f.json
is "$(jq '[.processes[] | select((.comm | test("^wl-fork-[0-2]$")) and .samples[0] > 5)] | length' f.json)" 3 \
	"each of the 3 children has samples, under the name its COMM record gave it"
is "$(jq '[.processes[] | select(.comm | test("^wl-fork-")) | .pid] | unique | length' f.json)" 3 \
	"three distinct child pids"
check "children's module is the workload" \
	sh -c "jq -e '.modules[0].module | endswith(\"wl-fork\")' f.json"

# -p: attach to a running process; its maps are synthesized from /proc.
# SIGINT ends the recording; job control on so that the background gexplore
# gets it (skipped when this shell started with it ignored).
"$WL/wl-spin" 5000 &
target=$!
sleep 0.2
if why=$(signal_ignored INT); then
	"$GX_BIN" record -q -o p -e cpu-clock -p $target >/dev/null 2>perr &
	gx=$!
	sleep 0.8
	kill $target 2>/dev/null
	wait $gx
	skip 1 "$why"
else
	set -m
	"$GX_BIN" record -q -o p -e cpu-clock -p $target >/dev/null 2>perr &
	gx=$!
	sleep 0.8
	kill -INT $gx
	wait $gx
	ok $? "-p: SIGINT ends the recording with status 0"
	set +m
fi
kill $target 2>/dev/null
wait $target 2>/dev/null
"$GX_BIN" report --json p >p.json 2>/dev/null
check "-p: samples of the attached process" sh -c "jq -e '[.processes[] | select(.pid == $target and .samples[0] > 20)] | length == 1' p.json"
check "-p: its binary is known from the synthesized maps" sh -c "jq -e '.modules[0].module | endswith(\"wl-spin\")' p.json"
check "-p: meta.json records the pid" sh -c "jq -e '.workload.pid == $target' p/meta.json"
done_testing
