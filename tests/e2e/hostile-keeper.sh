#!/bin/bash
# The keeper (issue 30, part 5): the process between gexplore and its
# workload has a name of its own (comm gx-keeper, command line "gx-keeper:
# keeper of PID N for PID M"), so a mass kill of gexplore by name, exact
# name or command line spares it, and it kills the workload and what the
# workload started; the result keeps what was written. The keeper killed
# alone: the workload dies with it (PDEATHSIG), gexplore writes the result.
# Each record runs in a session of its own (setsid) and pkill is limited
# to it (-s): other gexplore processes on the machine are never touched.
# Both keepers: gx-keeper, the program gexplore executes (issue 26, part
# 4), and the fork of gexplore it falls back to where there is none
# (GX_TEST_KEEPER=fork).
. "${GX_SRCDIR}/tests/e2e/lib.sh"
can_sample || skip_all "perf_event_open of cpu-clock is not permitted here"
command -v setsid >/dev/null && command -v pkill >/dev/null ||
	skip_all "setsid or pkill is absent (Debian packages util-linux, procps)"
X="$GX_BIN"

gone() {	# gone PID...: none of them alive within 5 s
	for _ in $(seq 50); do
		local alive=0
		for p in "$@"; do
			# a zombie (not reaped by this container's init) is dead
			[ -n "$p" ] && kill -0 "$p" 2>/dev/null &&
				[ "$(ps -o stat= -p "$p" 2>/dev/null | cut -c1)" != Z ] && alive=1
		done
		[ $alive = 0 ] && return 0
		sleep 0.1
	done
	return 1
}

# start NAME: record a workload that starts a child of its own, in a new
# session; sets gx (gexplore's pid, the session's id), wl, kid, keeper.
start() {
	rm -f wl.pid kid.pid
	setsid "$X" record -q -o "$1" -e cpu-clock -- \
		sh -c 'sleep 300 & echo $! >kid.pid; echo $$ >wl.pid; exec sleep 300' \
		>/dev/null 2>"$1.err" &
	gx=$!
	for _ in $(seq 100); do
		[ -s wl.pid ] && [ -s kid.pid ] && break
		sleep 0.1
	done
	sleep 0.3	# the workload has exec'd its sleep
	wl=$(cat wl.pid) kid=$(cat kid.pid)
	keeper=$(pgrep -s "$gx" -x gx-keeper)
}

suite() {	# suite KIND: the checks with the keeper KIND (exec or fork)
	local kind=$1
	if [ "$kind" = fork ]; then export GX_TEST_KEEPER=fork; else unset GX_TEST_KEEPER; fi
	start k1-$kind
	check "$kind: the keeper's comm is gx-keeper" test -n "$keeper"
	if [ "$kind" = fork ]; then
		check "fork: the keeper is a copy of gexplore" \
			sh -c "readlink /proc/${keeper:-1}/exe | grep -q 'gexplore\$'"
	else
		check "exec: the keeper is gx-keeper, the program" \
			sh -c "readlink /proc/${keeper:-1}/exe | grep -q '/gx-keeper\$'"
	fi
	is "$(ps -o args= -p "${keeper:-1}" | sed 's/ *$//')" "gx-keeper: keeper of PID $wl for PID $gx" \
		"its command line says whose keeper it is"
	is "$(pgrep -s "$gx" gexplore | tr '\n' ' ')" "$gx " "pgrep gexplore finds gexplore alone"
	pkill -9 -s "$gx" gexplore
	check "pkill -9 gexplore: the workload and its child are killed (by the keeper)" gone "$wl" "$kid"
	check "... and the keeper exits" gone "$keeper"
	"$X" report k1-$kind >rep 2>&1
	ok $? "... the result keeps what was written: report reads it"
	check "... cut short, with its samples" \
		sh -c "grep -q 'INCOMPLETE: cut short' rep && ! grep -q '^  samples   0,' rep"

	start k2-$kind
	pkill -9 -s "$gx" -x gexplore
	check "pkill -9 -x gexplore: the workload and its child are killed" gone "$wl" "$kid" "$keeper"

	start k3-$kind
	pkill -9 -s "$gx" -f gexplore
	check "pkill -9 -f gexplore: the workload and its child are killed" gone "$wl" "$kid" "$keeper"

	# The keeper killed alone: PDEATHSIG takes the workload; its child is left
	# (gexplore-record(1), SIGNALS); gexplore finishes the result.
	start k4-$kind
	pkill -9 -s "$gx" -x gx-keeper
	check "the keeper killed: the workload dies with it (PDEATHSIG)" gone "$wl"
	wait "$gx"
	rc=$?
	check "... gexplore ends the recording (rc $rc, not 141: no SIGPIPE)" test "$rc" -lt 128
	check "... and writes meta.json" test -s k4-$kind/meta.json
	check "... whose warning says the keeper died and the exit status is unknown" \
		grep -q 'the keeper (gx-keeper) died before the workload ended.*exit status is unknown' \
		k4-$kind/meta.json
	"$X" report k4-$kind >k4.rep 2>&1
	ok $? "... report reads it"
	is "$(jq -r .status k4-$kind/meta.json)" keeper-killed "... its status keeper-killed (issue 41: it said complete)"
	check "... the report says it is incomplete" grep -q 'INCOMPLETE: cut short: the keeper (gx-keeper) was killed' k4.rep
	"$X" check k4-$kind --max cpu-clock=1e15 >/dev/null 2>&1
	is "$?" 2 "... and check passes no gate on it (exit 2)"
	check "... the workload's child is left running, as documented" kill -0 "$kid"
	kill -9 "$kid" 2>/dev/null
	unset GX_TEST_KEEPER
}

if "$X" version --build-options 2>/dev/null | grep -q 'keeper=yes'; then
	suite exec
else
	skip 16 "gx-keeper is not built here (keeper=no: an architecture without its system calls)"
fi
suite fork
done_testing
