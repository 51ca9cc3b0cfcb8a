#!/bin/bash
# Faults and other users (issue 17): a SIGKILLed gexplore takes its workload
# and every process it started with it; -o must be new or empty, is locked for the run, refuses a file;
# results are 0600 in a 0700 directory and no symlink planted in them is
# followed; a failed record leaves nothing behind; a full disk is said so,
# with the records dropped counted; meta.json says how a recording ended.
. "${GX_SRCDIR}/tests/e2e/lib.sh"
can_sample || skip_all "perf_event_open of cpu-clock is not permitted here"
command -v jq >/dev/null || skip_all "jq is absent (Debian package jq)"
X="$GX_BIN"

# wait_gone PID: up to 5 s for PID to disappear (a zombie counts as gone)
wait_gone() {
	local i
	for i in $(seq 50); do
		[ -e "/proc/$1" ] || return 0
		grep -q '^State:[[:space:]]*Z' "/proc/$1/status" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}
# child_of PID: the first child of PID, waiting up to 5 s for it
child_of() {
	local i c
	for i in $(seq 50); do
		c=$(cat /proc/"$1"/task/*/children 2>/dev/null | awk '{print $1; exit}')
		[ -n "$c" ] && { echo "$c"; return 0; }
		sleep 0.1
	done
	return 1
}

# SIGKILL of gexplore: the workload goes too. Its parent is gexplore's
# keeper (src/collect/workload.c), which sees gexplore gone.
"$X" record -q -o k1 -e cpu-clock -- "$WL/wl-spin" 20000 >/dev/null 2>&1 &
gx=$!
keeper=$(child_of $gx) && wl=$(child_of "$keeper")
ok $? "the workload started (pid ${wl:-none}, keeper ${keeper:-none})"
for i in $(seq 50); do [ "$(stat -c %s k1/perf.data 2>/dev/null || echo 0)" -gt 8192 ] && break; sleep 0.1; done
kill -KILL $gx
wait $gx 2>/dev/null
if [ -n "$wl" ]; then
	wait_gone "$wl"
	ok $? "SIGKILL of gexplore: the workload is gone within 5 s"
	kill -KILL "$wl" 2>/dev/null
else
	ok 1 "SIGKILL of gexplore: no workload seen"
fi
# ... and so does every process the workload started, a daemon that
# left its parent (double fork) included; the keeper goes last.
"$X" record -q -o k2 -e cpu-clock -- sh -c \
	"'$WL/wl-spin' 20000 & echo \$! >spin.pid; (sh -c 'sleep 300 & echo \$! >sleep.pid') & wait" \
	>/dev/null 2>&1 &
gx=$!
for i in $(seq 50); do [ -s spin.pid ] && [ -s sleep.pid ] && break; sleep 0.1; done
keeper=$(child_of $gx)
spin=$(cat spin.pid 2>/dev/null) slp=$(cat sleep.pid 2>/dev/null)
check "a workload with a child and an orphaned grandchild (${spin:-none}, ${slp:-none})" \
	test -n "$spin" -a -n "$slp" -a -e "/proc/$slp"
kill -KILL $gx
wait $gx 2>/dev/null
wait_gone "$spin"
ok $? "SIGKILL of gexplore: the workload's child is gone within 5 s"
wait_gone "$slp"
ok $? "... and its orphaned grandchild"
wait_gone "$keeper"
ok $? "... and the keeper"
kill -KILL "$spin" "$slp" 2>/dev/null
# After a normal end, what the workload left running is left alone (perf's way).
"$X" record -q -o k3 -e cpu-clock -- sh -c "sleep 300 & echo \$! >left.pid" >/dev/null 2>&1
ok $? "a workload that leaves a process behind"
left=$(cat left.pid 2>/dev/null)
check "... which still runs after gexplore ended (${left:-none})" test -n "$left" -a -e "/proc/$left"
kill -KILL "$left" 2>/dev/null

"$X" report k1 >kr 2>kerr
check "the cut-short result says so on its first line" \
	sh -c "head -1 kr | grep -q 'k1 (INCOMPLETE: cut short (no meta.json))'"
[ -s kerr ] && diag "$(cat kerr)"

# -o: modes, lock, refusals.
"$X" record -q -o r1 -e cpu-clock -- "$WL/wl-spin" 50 >/dev/null 2>&1
ok $? "record -o r1"
is "$(stat -c %a r1)" 700 "the result directory is 0700"
is "$(stat -c %a r1/perf.data r1/meta.json | sort -u)" 600 "perf.data and meta.json are 0600"
is "$(jq -r '.status + " " + (.dropped_records|tostring)' r1/meta.json)" "complete 0" \
	"meta.json: status complete, 0 records dropped"
touch afile
"$X" record -q -o afile -e cpu-clock -- true >/dev/null 2>err
ok $([ $? = 1 ]; echo $?) "-o naming a regular file fails"
check "... saying it is not a directory" grep -q 'afile exists and is not a directory' err
"$X" record -q -o r2 -e cpu-clock -- "$WL/wl-spin" 1500 >/dev/null 2>&1 &
first=$!
for i in $(seq 50); do [ -f r2/perf.data ] && break; sleep 0.1; done
"$X" record -q -o r2 -e cpu-clock -- true >/dev/null 2>err
ok $([ $? = 1 ]; echo $?) "a second run with the same -o fails"
check "... saying another gexplore writes there" grep -q 'being written by another gexplore' err
# a symlink planted in the result while it is recorded is not followed
echo precious >victim
ln -s "$PWD/victim" r2/.meta.json.tmp
wait $first
ok $? "the first run finishes"
is "$(cat victim)" precious "a planted .meta.json.tmp symlink: its target is untouched"
check "... and meta.json was written" jq -e '.status == "complete"' r2/meta.json
mkdir -m 0755 empty
"$X" record -q -o empty -e cpu-clock -- true >/dev/null 2>&1
ok $? "an existing empty directory is accepted"
is "$(stat -c %a empty)" 700 "... and made private: 0755 became 0700"
# with markers and rotation: regions.bin and slices.bin are 0600 too
"$X" record -q -o r3 --slice 5 -e '{cpu-clock},{task-clock}' -- "$WL/wl-spin" 50 \
	>/dev/null 2>&1
ok $? "record -o r3 with two rotating groups"
is "$(stat -c %a r3/slices.bin)" 600 "slices.bin is 0600"

# A failed record leaves nothing behind; 'report' still opens the newest.
mkdir p && cd p || exit 99
"$X" record -q -e cpu-clock -- "$WL/wl-spin" 20 >/dev/null 2>&1
"$X" record -q -e cpu-clock -- ./no-such-command >/dev/null 2>&1
check "a record whose command cannot run leaves no gx002" test ! -e gx002
check "report without RESULT opens gx001" sh -c "'$X' report --json | jq -e '.result == \"gx001\"'"
mkdir gx003 && cp -r gx001 gx004 && rm gx004/meta.json
"$X" report --json >rj 2>rerr
check "the newest default skips an empty gx003 and a gx004 cut short" jq -e '.result == "gx001"' rj
check "... with a note naming them" \
	grep -q 'skipped gx004 (no readable meta.json: cut short?), gx003 (no perf.data)' rerr
cd .. || exit 99

# Stopped by SIGTERM: recorded, but marked.
"$X" record -q -o t1 -e cpu-clock -- "$WL/wl-spin" 5000 >/dev/null 2>terr &
gx=$!
for i in $(seq 50); do [ -f t1/perf.data ] && break; sleep 0.1; done
sleep 0.3
kill -TERM $gx
wait $gx
is "$(jq -r .status t1/meta.json)" killed "SIGTERM: meta.json status killed"
check "... and record says the result is incomplete" grep -q 't1 is incomplete (stopped by SIGTERM' terr
check "report says so on its first line" \
	sh -c "'$X' report t1 | head -1 | grep -q 'INCOMPLETE: stopped by SIGTERM or SIGHUP'"
check "check says so on its first line" \
	sh -c "'$X' check t1 --max cpi=1000 | head -1 | grep -q 't1 is INCOMPLETE: stopped by SIGTERM'"

# A full disk (a 64 KiB tmpfs; needs root and mount).
mkdir full
if [ "$(id -u)" = 0 ] && mount -t tmpfs -o size=64k gx-e2e-full full 2>/dev/null; then
	(cd full && "$X" record -e cpu-clock -F 10000 -- "$WL/wl-spin" 1500 >/dev/null 2>../ferr)
	is "$?" 1 "full disk: record exits 1"
	check "full disk: no 'recorded ... lost' line" sh -c "! grep -q 'recorded gx' ferr"
	check "full disk: the records dropped are counted" \
		grep -qE 'No space left on device; the result keeps the records written so far: [0-9]+ written, [1-9][0-9]* dropped' ferr
	if [ -f full/gx001/meta.json ]; then
		check "full disk: meta.json says no-space" jq -e '.status == "no-space" and .dropped_records > 0' full/gx001/meta.json
	else
		check "full disk: no room for meta.json; report says cut short" \
			sh -c "cd full && '$X' report gx001 | head -1 | grep -q 'INCOMPLETE: cut short'"
	fi
	umount full
else
	skip 4 "needs root and a tmpfs mount"
fi
done_testing
