#!/bin/bash
# SIGINT and a workload that does not stop on it (gexplore-record(1),
# SIGNALS): at the second SIGINT gexplore says that SIGTERM stops it, and
# SIGTERM does; started with SIGINT ignored (a background job of a script)
# gexplore and the workload ignore SIGINT, and SIGTERM still stops them.
. "${GX_SRCDIR}/tests/e2e/lib.sh"
can_sample || skip_all "perf_event_open of cpu-clock is not permitted here"

M="$GX_SRCDIR/man/gexplore-record.1"
check "gexplore-record(1) has a SIGNALS section on the background job and SIGTERM" \
	sh -c "sed -n '/^\.Sh SIGNALS/,/^\.Sh /p' '$M' | tr '\n' ' ' | grep -q 'background job.*SIGINT ignored.*stop it with SIGTERM'"

# A background job of this (non-interactive) shell: SIGINT ignored.
"$GX_BIN" record -q -o bg -e cpu-clock -- "$WL/wl-spin" 20000 >/dev/null 2>bg.err &
pid=$!
sleep 0.5
kill -INT $pid
kill -INT $pid
sleep 0.3
check "SIGINT ignored at start: gexplore keeps recording" kill -0 $pid
kill -TERM $pid
wait $pid
is "$?" 143 "SIGINT ignored at start: SIGTERM stops the workload (exit 128+15)"
check "SIGINT ignored at start: the result is complete" grep -q '"term_signal": 15' bg/meta.json

if why=$(signal_ignored INT); then
	skip 6 "$why"
	done_testing
	exit
fi
# Job control on: the job gets SIGINT as this shell has it (status.sh).
set -m
"$GX_BIN" record -q -o ign -e cpu-clock -- sh -c "trap '' INT; exec '$WL/wl-spin' 20000" \
	>/dev/null 2>ign.err &
pid=$!
sleep 0.5
kill -INT $pid
sleep 0.3
check "one SIGINT: no hint yet" sh -c "! grep -q SIGTERM ign.err"
kill -INT $pid
sleep 0.3
check "a workload that ignores SIGINT keeps running" kill -0 $pid
check "second SIGINT: the hint says the workload ignores SIGINT" \
	grep -q 'warning: the workload (pid [0-9]*) ignores SIGINT: stop it with SIGTERM' ign.err
check "the hint names gexplore's pid for kill" grep -q "(\`kill $pid\`; gexplore passes it on)" ign.err
kill -TERM $pid
wait $pid
is "$?" 143 "SIGTERM stops it as the hint says"
set +m
[ "$(grep -c SIGTERM ign.err)" = 1 ] || diag "stderr: $(cat ign.err)"
is "$(grep -c 'ignores SIGINT' ign.err)" 1 "the hint is said once"
check "and the result says it was interrupted" grep -q 'ign is incomplete (interrupted' ign.err
done_testing
