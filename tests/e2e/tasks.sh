#!/bin/bash
# Every thread and every child process shows up (inherit), with COMM names.
. "${GX_SRCDIR}/tests/e2e/lib.sh"
can_sample || skip_all "perf_event_open of cpu-clock is not permitted here"
command -v jq >/dev/null || skip_all "jq is absent"

"$GX_BIN" record -q -o t -e cpu-clock -- "$WL/wl-threads" 4 300 >/dev/null 2>&1
ok $? "multithreaded workload recorded"
"$GX_BIN" report --json --limit 0 t >t.json
is "$(jq '[.threads[] | select(.comm == "wl-threads" and .samples[0] > 5)] | length' t.json)" 5 \
	"main thread and 4 workers each have samples"
is "$(jq '[.processes[] | select(.comm == "wl-threads")] | length' t.json)" 1 "one process"

"$GX_BIN" record -q -o f -e cpu-clock -- "$WL/wl-fork" 3 300 >/dev/null 2>&1
ok $? "forking workload recorded"
"$GX_BIN" report --json --limit 0 f >f.json
is "$(jq '[.processes[] | select(.comm == "wl-fork" and .samples[0] > 5)] | length' f.json)" 4 \
	"parent and 3 children each have samples"
is "$(jq '[.processes[].pid] | unique | length' f.json)" \
	"$(jq '.processes | length' f.json)" "one row per process"
check "children's module is the workload" \
	sh -c "jq -e '.modules[0].module | endswith(\"wl-fork\")' f.json"
done_testing
