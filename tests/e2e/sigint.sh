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

# SIGTERM to the workload from elsewhere is the workload's exit: the
# result is complete, check judges it
"$GX_BIN" record -q -o wterm -e cpu-clock -- "$WL/wl-spin" 20017 >/dev/null 2>wterm.err &
pid=$!
for i in $(seq 50); do
	wl=$(pgrep -f "wl-spin 20017" | grep -vx "$pid" | head -1)
	[ -n "$wl" ] && [ "$(cat /proc/$wl/comm 2>/dev/null)" = wl-spin ] && break
	sleep 0.1
done
sleep 0.3
kill -TERM "$wl"
wait $pid
is "$(jq -r '[.status, (.workload.term_signal | tostring)] | join(" ")' wterm/meta.json)" "complete 15" \
	"SIGTERM to the workload itself: its exit (term_signal 15), the result complete"
"$GX_BIN" check wterm --max cpu-clock=1e15 >/dev/null 2>&1
is "$?" 0 "... and check judges it"

if why=$(signal_ignored INT); then
	skip 14 "$why"
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
is "$(jq -r .status ign/meta.json)" interrupted "the result says the user stopped it (status interrupted)"

# One Ctrl-C ends a recording as perf users end one: the result is whole up
# to the stop, report says it was stopped, check judges it (0 or 1, never
# 2, the exit of an incomplete result)
set -m
"$GX_BIN" record -o one -e cpu-clock -- "$WL/wl-spin" 20000 >/dev/null 2>one.err &
pid=$!
sleep 0.5
kill -INT $pid
wait $pid
set +m
check "one SIGINT: record says the result was stopped, not incomplete" \
	sh -c "grep -q 'recorded one (stopped with Ctrl-C (SIGINT))' one.err && ! grep -q incomplete one.err"
"$GX_BIN" report one >one.rep 2>/dev/null
check "report's first line: stopped with Ctrl-C, not INCOMPLETE" \
	sh -c "head -1 one.rep | grep -qx 'gexplore report: one (stopped with Ctrl-C (SIGINT))'"
"$GX_BIN" report --json one >one.json 2>/dev/null
is "$(jq -r '[.status, (.incomplete | tostring), .stopped] | join(" ")' one.json)" \
	"interrupted null stopped with Ctrl-C (SIGINT)" "report --json: status interrupted, not incomplete, stopped"
"$GX_BIN" check one --max cpu-clock=1e15 >one.out 2>one.cerr
is "$?" 0 "check of a run stopped with Ctrl-C: judged, passes (exit 0)"
check "... saying it was stopped" grep -q 'one was stopped with Ctrl-C (SIGINT): checked over what it ran' one.cerr
"$GX_BIN" check one --max cpu-clock=1 >/dev/null 2>&1
is "$?" 1 "... and fails a limit it exceeds (exit 1)"
check "... not INCOMPLETE" sh -c "! grep -q INCOMPLETE one.out"
done_testing
