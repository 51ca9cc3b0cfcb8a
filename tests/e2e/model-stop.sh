#!/bin/bash
# record --model's files and its stop path (issue 39, parts 1-3, 6).
# Valgrind and llvm's tools write in a private directory of the result
# named by its absolute path: a workload that changes directory keeps its
# instructions; as root, links another user planted where the workload
# goes write nothing through them; Valgrind's raw files are removed once
# read (kept 0600 with --keep-valgrind); nothing is left in TMPDIR.
# SIGINT and SIGTERM to gexplore stop Valgrind and its children into an
# interrupted (killed) result that report reads; SIGKILL leaves no
# Valgrind and no llvm tool running after 5 s; --duration stops a program
# that never exits. An instruction Valgrind cannot run (SHA-NI) fails the
# record naming it. An argument with a newline survives both passes.
. "$GX_SRCDIR/tests/e2e/lib.sh"

WLM="$WL/wl-model"
SPIN="$WL/wl-spin"
need_model
command -v jq >/dev/null 2>&1 || skip_all "jq is absent (Debian package jq)"
[ -x "$WLM" ] && [ -x "$SPIN" ] || skip_all "no $WLM or $SPIN (make check builds them)"
mkdir -p tmpd
export TMPDIR=$TMP/tmpd	# gexplore's: must stay empty
set -m	# job control: a background record gets SIGINT as this shell has it

insns() { jq '.events[] | select(.name == "instructions:exact") | .count' "$1/meta.json"; }
status_of() { jq -r .status "$1/meta.json" 2>&1; }
# Valgrind processes of this test: their command lines name $TMP
valgrinds() { pgrep -f "valgrind.*$TMP/" 2>/dev/null | wc -l; }
wait_for() {	# wait_for COMMAND...: up to 30 s for it to succeed
	for _ in $(seq 300); do
		"$@" && return 0
		sleep 0.1
	done
	return 1
}
none_left() {	# none_left: no Valgrind of this test after 5 s
	for _ in $(seq 50); do
		[ "$(valgrinds)" = 0 ] && return 0
		sleep 0.1
	done
	diag "left: $(pgrep -af "valgrind.*$TMP/" | cut -c1-200)"
	return 1
}
running() { [ "$(valgrinds)" -ge "$1" ]; }
# spun: this test's Valgrinds have used 1.5 s of CPU between them, past
# their start (a second of wall time is not, on a machine busy elsewhere)
spun() {
	local t=0 p
	for p in $(pgrep -f "valgrind.*$TMP/" 2>/dev/null); do
		t=$((t + $(awk '{ print $14 + $15 }' "/proc/$p/stat" 2>/dev/null || echo 0)))
	done
	[ "$t" -ge $(($(getconf CLK_TCK) * 3 / 2)) ]
}

# a workload that changes directory: all its instructions (within 1% of
# the same run without the cd; the shell's own differ a little)
mkdir -p away
"$GX_BIN" record -q --model -o rcd -- sh -c "cd '$TMP/away' && exec '$WLM' lat_chain" \
	>/dev/null 2>&1
is "$?" 0 "a workload that changes directory: recorded"
"$GX_BIN" record -q --model -o rnocd -- sh -c "exec '$WLM' lat_chain" >/dev/null 2>&1
a=$(insns rcd) b=$(insns rnocd)
python3 -c 'import sys; a, b = int(sys.argv[1]), int(sys.argv[2]); sys.exit(0 if b > 1000000 and abs(a - b) <= b / 100 else 1)' "$a" "$b"
ok $? "... all its instructions ($a, $b without the cd)"
is "$(ls -A away | wc -l)" 0 "... nothing written where it went"

# the raw files: removed once read, kept 0600 with --keep-valgrind; no
# private directory left; nothing in TMPDIR
ls -A rcd | grep -q 'grind\|^\.gx-model'
ok $((! $?)) "Valgrind's files and the private directory are gone by default"
"$GX_BIN" record -q --model --keep-valgrind -o rkeep -- "$WLM" lat_chain >/dev/null 2>&1
ls rkeep/callgrind.out.* rkeep/callgrind.log.* >/dev/null 2>&1 &&
	[ -z "$(find rkeep -maxdepth 1 -name '*grind*' ! -perm 0600)" ]
ok $? "--keep-valgrind: its profiles and logs kept, each 0600"
"$GX_BIN" record -q --keep-valgrind -o rkn -- true >/dev/null 2>rkn.err
is "$?" 2 "--keep-valgrind without --model: a usage error ($(cat rkn.err))"

# an argument with a newline: the second pass (cachegrind's cmd: line) reads
GX_MODEL_FIRST=callgrind GX_MODEL_PASSES=2 GX_MODEL_SECOND=cachegrind "$GX_BIN" record -q \
	--model -o rnl -- \
	sh -c 'exec "$1" lat_chain' "a
12 b" "$WLM" >/dev/null 2>&1
is "$?" 0 "an argument with a newline: recorded"
grep -q 'second pass ran under cachegrind' rnl/meta.json
ok $? "... and its second pass was read"
is "$(jq -r '.workload.argv[3]' rnl/meta.json)" "a
12 b" "... meta.json keeps the argument"

# as root: links another user planted where root's workload goes (the
# result's relative name and Valgrind's %p names, over the coming pids)
# write nothing through them: a sentinel of root's is unchanged
if [ "$(id -u)" != 0 ] || ! id nobody >/dev/null 2>&1 || ! command -v setpriv >/dev/null; then
	skip 3 "needs root, a user nobody and setpriv"
else
	chmod 711 "$TMP"
	mkdir -p plant && chown nobody plant
	echo "root's secret" >sentinel && chmod 600 sentinel
	sum0=$(sha256sum <sentinel)
	last=$(cat /proc/sys/kernel/ns_last_pid)
	setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups sh -c '
		cd "$1" && mkdir -p res && for n in $(seq "$2" "$(($2 + 3000))"); do
			for f in callgrind.log callgrind-l2.log cachegrind-l2.log gxgrind-l2.log; do
				ln -s "$3" "res/$f.$n"
			done
			ln -s "$3" "res/callgrind.out.$n-01"
			ln -s "$3" "res/cachegrind-l2.out.$n"
			ln -s "$3" "res/gxgrind-l2.out.$n"
		done' sh "$TMP/plant" "$last" "$TMP/sentinel"
	GX_MODEL_PASSES=2 "$GX_BIN" record -q --model -o res -- \
		sh -c "cd '$TMP/plant' && exec '$WLM' lat_chain" >/dev/null 2>&1
	is "$?" 0 "root, into links another user planted: recorded"
	is "$(sha256sum <sentinel)" "$sum0" "... the sentinel is unchanged"
	[ -z "$(find plant -newer sentinel ! -type l ! -path plant ! -path plant/res)" ] &&
		[ "$(insns res)" -gt 1000000 ]
	ok $? "... nothing written in the planted directory, the instructions all in the result"
fi

# stopped: SIGINT, SIGTERM (what timeout and a cancelled CI job send) to
# gexplore while a program that never exits runs, its children under
# Valgrind too: no Valgrind after 5 s, a result that report reads
sigs="INT TERM"
if why=$(signal_ignored INT); then
	skip 4 "$why"
	sigs=TERM
fi
for sig in $sigs; do
	"$GX_BIN" record -q --model -o "r$sig" -- sh -c "'$SPIN' 3600000 & exec '$SPIN' 3600000" \
		>/dev/null 2>"r$sig.err" &
	pid=$!
	wait_for running 2 || diag "SIG$sig: Valgrind did not start"
	wait_for spun || diag "SIG$sig: Valgrind used under 1.5 s of CPU in 30 s"
	kill -$sig $pid
	none_left
	ok $? "SIG$sig: no Valgrind left after 5 s"
	wait $pid
	rc=$?
	want=interrupted
	[ $sig = TERM ] && want=killed
	is "$(status_of "r$sig")" $want "SIG$sig: a result with status $want (exit $rc)"
	"$GX_BIN" report "r$sig" >"r$sig.txt" 2>&1 && grep -q 'hot_inner' "r$sig.txt"
	ok $? "SIG$sig: report reads it, the spin's functions in it"
	ls -A "r$sig" | grep -q '^\.gx-model'
	ok $((! $?)) "SIG$sig: no private directory left"
done

# --duration: a program that never exits, modelled for that long
"$GX_BIN" record -q --model --duration 2 -o rdur -- "$SPIN" 3600000 >/dev/null 2>&1
# (a loaded machine spends most of the 2 s starting Valgrind: 658184
# instructions ran in one such run, billions on a quiet one)
[ "$(status_of rdur)" = interrupted ] && [ "$(insns rdur)" -gt 10000 ]
ok $? "--duration 2: an interrupted result of what ran ($(status_of rdur), $(insns rdur) instructions)"

# SIGKILL: the keeper kills Valgrind and its children
"$GX_BIN" record -q --model -o rkill -- sh -c "'$SPIN' 3600000 & exec '$SPIN' 3600000" \
	>/dev/null 2>&1 &
pid=$!
wait_for running 2 || diag "SIGKILL: Valgrind did not start"
kill -KILL $pid
none_left
ok $? "SIGKILL: no Valgrind left after 5 s"
wait $pid 2>/dev/null

# SIGKILL and SIGTERM while llvm-objdump runs (a wrapper that waits): it
# dies with gexplore; after SIGTERM the result is written and the private
# directory removed. x86-64 code is read in process (disasm.c):
# GX_MODEL_DISASM=objdump runs the tool, as other machines' code does
mkdir -p wrap
cat >wrap/llvm-objdump <<EOF
#!/bin/sh
echo \$\$ >"$TMP/objdump.pid"
sleep 2
exec "$(command -v llvm-objdump)" "\$@"
EOF
chmod +x wrap/llvm-objdump
for sig in KILL TERM; do
	rm -f objdump.pid
	PATH="$TMP/wrap:$PATH" GX_MODEL_DISASM=objdump "$GX_BIN" record -q --model \
		-o "rmodel$sig" -- "$WLM" lat_chain \
		>/dev/null 2>&1 &
	pid=$!
	wait_for test -s objdump.pid || diag "SIG$sig: llvm-objdump did not start"
	kill -$sig $pid
	wait $pid 2>/dev/null
	opid=$(cat objdump.pid)
	wait_for sh -c "! kill -0 $opid 2>/dev/null"
	ok $? "SIG$sig in the model phase: llvm-objdump does not outlive gexplore"
done
is "$(status_of rmodelTERM)" killed "SIGTERM in the model phase: the result is written"
ls -A rmodelTERM | grep -q '^\.gx-model'
ok $((! $?)) "... and its private directory removed"

# a third signal (in the run, or in the model phase after it: llvm-objdump
# waits): no result, nothing left running
PATH="$TMP/wrap:$PATH" GX_MODEL_DISASM=objdump "$GX_BIN" record -q --model -o rthird -- \
	"$SPIN" 3600000 \
	>/dev/null 2>rthird.err &
pid=$!
wait_for running 1 || diag "third: Valgrind did not start"
sleep 1
for _ in 1 2 3; do	# apart: two pending at once are one
	kill -TERM $pid
	sleep 0.2
done
none_left
ok $? "three SIGTERMs: no Valgrind left after 5 s"
wait $pid
rc=$?
[ $rc != 0 ] && [ ! -e rthird/meta.json ] && [ "$(wc -l <rthird.err)" = 1 ]
ok $? "... exit $rc, no result, one line ($(cat rthird.err))"
is "$(ls -A tmpd | wc -l)" 0 "nothing was written in TMPDIR"

# an instruction Valgrind 3.19 cannot run, which this CPU runs: SHA-NI
cat >sha.c <<'EOF'
#include <immintrin.h>
__attribute__((target("sha,sse4.1"))) int main(void)
{
	__m128i a = _mm_set1_epi32(1), b = _mm_set1_epi32(2), k = _mm_set1_epi32(3);

	return _mm_cvtsi128_si32(_mm_sha256rnds2_epu32(a, b, k)) == 12345;
}
EOF
if ! grep -qw sha_ni /proc/cpuinfo; then
	skip 3 "this CPU has no SHA-NI (sha_ni in /proc/cpuinfo)"
elif ! cc -O1 -o sha sha.c 2>/dev/null || ! ./sha; then
	skip 3 "no compiler for SHA-NI here, or its program fails natively"
elif valgrind -q --tool=none ./sha >/dev/null 2>&1; then
	skip 3 "this Valgrind runs SHA-NI"
else
	out=$("$GX_BIN" record -q --model -o rsha -- ./sha 2>&1)
	rc=$?
	[ $rc != 0 ]
	ok $? "SHA-NI under Valgrind: record fails (exit $rc)"
	[ "$(printf '%s\n' "$out" | wc -l)" = 1 ] &&
		printf '%s\n' "$out" | grep -q "instruction 'sha256rnds2' at 0x[0-9a-f]* in main"
	ok $? "... in one line naming the instruction and its address ($out)"
	[ ! -e rsha/meta.json ]
	ok $? "... and no result claims to be complete"
fi

# SIGINT while the native run counts first touches (a description that
# prices them): collect passes it to the workload, the native run stops,
# and the result is the Valgrind pass's, interrupted, its first touches
# unpriced; no native process left. The native run's sleep is the one
# whose whole command line is "sleep 2.PID" (Valgrind's names Valgrind;
# this shell's PID: another test's sleep is not this one's).
# GX_MODEL_FAULTS=native: under gxgrind its cache of pages counts them,
# and no native run is made.
python3 - "$GX_SRCDIR/machines/generic.json" pf.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["name"] = "pf"
d["prices"]["page_fault"] = {"value": 5000, "source": "measured by tests/e2e/model-stop.sh"}
json.dump(d, open(sys.argv[2], "w"))
PY
if why=$(signal_ignored INT); then
	# gexplore keeps an ignored SIGINT ignored: nothing to send
	skip 5 "$why"
	done_testing
	exit
fi
GX_MODEL_FAULTS=native "$GX_BIN" record -q --model=pf.json -o rnat -- sh -c "sleep 2.$$; echo slept" \
	</dev/null >rnat.out 2>&1 &
pid=$!
if wait_for pgrep -x -f "sleep 2.$$" >/dev/null || wait_for pgrep -x -f "sleep 2.$$" >/dev/null ||
	wait_for pgrep -x -f "sleep 2.$$" >/dev/null; then	# 90 s: Valgrind first, slow when loaded
	kill -INT "$pid"
	wait "$pid"
	rc=$?
	is "$rc" 0 "SIGINT in the native run: record exits 0 ($rc)"
	is "$(status_of rnat)" interrupted "... an interrupted result"
	[ "$(insns rnat)" -gt 0 ] 2>/dev/null
	ok $? "... with the Valgrind pass's instructions ($(insns rnat))"
	grep -q 'stopped the run' rnat/meta.json && ! grep -q 'in a native run' rnat/meta.json
	ok $? "... which says it was stopped, and no first touch from the native run"
	sleep 0.5
	[ -z "$(pgrep -x -f "sleep 2.$$")" ]
	ok $? "... and no native process left"
else
	kill -9 "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	skip 5 "the native run was not seen"
fi

done_testing
