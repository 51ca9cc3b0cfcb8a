#!/bin/bash
# Exit status and signals: gexplore exits with the workload's status
# (128+N when killed by signal N), SIGINT reaches the workload, and every
# way a run can end leaves a readable result.
. "${GX_SRCDIR}/tests/e2e/lib.sh"
can_sample || skip_all "perf_event_open of cpu-clock is not permitted here"
command -v jq >/dev/null || skip_all "jq is absent (Debian package jq)"

"$GX_BIN" record -q -o r1 -e cpu-clock -- "$WL/wl-spin" 20 3 >/dev/null 2>&1
is "$?" 3 "workload exit code 3 is gexplore's"
check "meta.json has exit code 3" sh -c "jq -e '.workload.exit_code == 3' r1/meta.json"

"$GX_BIN" record -q -o r2 -e cpu-clock -- sh -c 'kill -TERM $$' >/dev/null 2>&1
is "$?" 143 "workload killed by SIGTERM: 128+15"
check "meta.json names the signal" sh -c "jq -e '.workload.term_signal == 15' r2/meta.json"
check "report says killed by SIGTERM" sh -c "'$GX_BIN' report r2 | grep -q 'killed by SIGTERM'"

# SIGINT to gexplore mid-run goes to the workload; the result is complete.
# Job control on, so that the background job below gets SIGINT as this
# shell has it; when this shell itself started with SIGINT ignored, nothing
# can undo that here and the test skips.
if why=$(signal_ignored INT); then
	skip 5 "$why"
	# What can be checked then: the workload inherits it ignored too.
	"$GX_BIN" record -q -o r3 -e cpu-clock -- grep '^SigIgn' /proc/self/status >sigign 2>/dev/null
	check "SIGINT ignored at start stays ignored in the workload" \
		sh -c "m=\$(awk '{print \$2}' sigign) && [ \$((0x\$m & 2)) != 0 ]"
else
	set -m
	"$GX_BIN" record -q -o r3 -e cpu-clock -- "$WL/wl-spin" 20000 >/dev/null 2>&1 &
	pid=$!
	sleep 0.6
	kill -INT $pid
	wait $pid
	rc=$?
	set +m
	is "$rc" 130 "SIGINT mid-run: the workload dies of it, gexplore exits 130"
	check "SIGINT: meta.json written" sh -c "jq -e '.workload.term_signal == 2' r3/meta.json"
	n=$(gx_samples r3)
	check "SIGINT: samples kept ($n)" test "${n:-0}" -gt 20
	check "SIGINT: report has no warnings" sh -c "! '$GX_BIN' report r3 | grep -q '^Warnings'"
	if [ -n "$PERF" ]; then
		check "SIGINT: perf reads the result" sh -c "'$PERF' report -i r3/perf.data --stdio >/dev/null 2>perr && ! grep -qi 'warn\|fail' perr"
	else
		skip 1 "perf is absent (Debian package linux-perf)"
	fi
fi

# A killed gexplore (SIGKILL: no chance to finish) leaves the records flushed so far.
"$GX_BIN" record -q -o r4 -e cpu-clock -- "$WL/wl-spin" 3000 >/dev/null 2>&1 &
pid=$!
sleep 1
kill -KILL $pid
wait $pid 2>/dev/null
pkill -f "wl-spin 3000" 2>/dev/null
"$GX_BIN" report r4 >rep4 2>err4
ok $? "SIGKILLed recording: report still reads it"
n=$(grep -m1 '^  samples' rep4 | awk '{gsub(",","",$2); print $2}')
check "SIGKILLed recording: samples kept (${n:-0})" test "${n:-0}" -gt 50

# A full disk: the file size limit makes writes fail like ENOSPC would.
(
	trap '' XFSZ
	ulimit -f 64	# 64 KiB
	exec "$GX_BIN" record -q -o r5 -e cpu-clock -c 10000 -- "$WL/wl-spin" 1500
) >/dev/null 2>err5
rc=$?
check "full disk: non-zero exit ($rc)" test "$rc" -ne 0
is "$(grep -c . err5)" 1 "full disk: one line on stderr"
check "full disk: the error names the file" grep -q 'perf.data' err5
"$GX_BIN" report r5 >rep5 2>&1
ok $? "full disk: what was written is readable"
n=$(grep -m1 '^  samples' rep5 | awk '{gsub(",","",$2); print $2}')
check "full disk: samples kept (${n:-0})" test "${n:-0}" -gt 10
done_testing
