#!/bin/bash
# Interrupts during the wrap-up of a record (issue 30, part 4): after the
# run (the workload ended, or the first SIGINT), build-ids, the archive and
# meta.json survive a second SIGINT; a third says what it does in one line
# and leaves a result that report reads, with status incomplete. The
# wrap-up is slowed with GX_TEST_WRAPUP_DELAY_MS (HACKING.md, tests only)
# so that each interrupt lands in it.
. "${GX_SRCDIR}/tests/e2e/lib.sh"
command -v jq >/dev/null || skip_all "jq is absent (Debian package jq)"
can_sample || skip_all "perf_event_open of cpu-clock is not permitted here"
if why=$(signal_ignored INT); then
	skip_all "$why"
fi
X="$GX_BIN"
set -m	# job control: the background record gets SIGINT as this shell has it

wait_for() {	# wait_for FILE: up to 20 s
	for _ in $(seq 200); do
		[ -e "$1" ] && return 0
		sleep 0.1
	done
	return 1
}

# rec NAME N M: a record whose workload ignores SIGINT and ends by itself;
# N SIGINTs while it runs, M in the wrap-up. Sets rc.
rec() {
	local name=$1 nrun=$2 nwrap=$3 pid
	rm -f started done
	GX_TEST_WRAPUP_DELAY_MS=4000 "$X" record -q -o "$name" -e cpu-clock -- \
		sh -c "trap '' INT; touch started; sleep 0.5; touch done" >/dev/null 2>"$name.err" &
	pid=$!
	wait_for started || diag "$name: the workload did not start"
	for _ in $(seq "$nrun"); do
		kill -INT $pid
		sleep 0.05
	done
	wait_for done || diag "$name: the workload did not end"
	sleep 0.5	# the run has seen it end: the wrap-up has begun
	for _ in $(seq "$nwrap"); do
		kill -INT $pid
		sleep 0.2
	done
	wait $pid
	rc=$?
}

status_of() { jq -r .status "$1/meta.json" 2>&1; }

# 1: the run's SIGINT, 2: one in the wrap-up: survived, the result whole.
rec two 1 1
is "$rc" 0 "second interrupt (in the wrap-up): record ends as its workload did"
check "... saying that it finishes the result first" \
	grep -q '^gexplore: warning: second interrupt: finishing two first (build-ids, archive, meta.json); a third leaves it incomplete$' two.err
is "$(status_of two)" interrupted "... meta.json written, status interrupted (the run's SIGINT)"
check "... the archive made" test -d two/.build-id
"$X" report two >rep 2>&1
ok $? "... report reads it"

# The third interrupt: one line, exit 130, status incomplete, readable.
rec three 1 2
is "$rc" 130 "third interrupt: record exits 128+SIGINT"
is "$(grep -c . three.err)" 2 "... two lines: the second interrupt's and the third's"
check "... the third's line says what it does" \
	grep -qx 'gexplore: third interrupt: leaving three incomplete (status: incomplete) and exiting' three.err
is "$(status_of three)" incomplete "... meta.json written, status incomplete"
"$X" report three >rep 2>&1
ok $? "... report reads it"
check "... and says it is incomplete" grep -q '^gexplore report: three (INCOMPLETE: left incomplete' rep
"$X" check three --max cpi=100 >/dev/null 2>&1
is "$?" 2 "... check says so (exit 2)"

# The workload ended by itself: the first interrupt is in the wrap-up.
rec one 0 1
is "$rc" 0 "an interrupt in the wrap-up only: record ends as its workload did"
check "... saying that it finishes the result first" \
	grep -q 'warning: interrupt: finishing one first' one.err
is "$(status_of one)" complete "... status complete: the run was whole"
rec wrap3 0 3
is "$rc" 130 "three interrupts in the wrap-up: the third stops it"
is "$(status_of wrap3)" incomplete "... status incomplete"
"$X" report wrap3 >/dev/null 2>&1
ok $? "... report reads it"
set +m
done_testing
