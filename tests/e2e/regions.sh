#!/bin/bash
# Regions (gexplore-regions(3)): markers of a program recorded into
# regions.bin and read back per region. wl-regions marks regions on its
# main thread (nested), on two threads and in a forked child, each around
# its own spin function, and pauses around spin_paused: every region's
# samples must be its own function's (markers and samples on one clock,
# per thread), nothing sampled while paused. examples/phases' three phases
# in report and check; --control and --delay with perf's protocol;
# perf reads the perf.data of a result with regions.
. "${GX_SRCDIR}/tests/e2e/lib.sh"
command -v jq >/dev/null || skip_all "jq is absent (Debian package jq)"
can_sample || skip_all "cannot sample cpu-clock here (perf_event_paranoid or seccomp)"
X="$GX_BIN"
PH="$GX_BUILDDIR/examples/phases"
rc() { "$@" >out 2>err; echo $?; }
# share of function $2 among the hot functions of region $1 in report.json
hot() { jq -r --arg r "$1" --arg f "$2" \
	'[.regions[] | select(.name == $r) | .hot[] | select(.function == $f) | .pct][0] // 0' report.json; }
ge() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 >= b + 0) }'; }

# ---- outside gexplore: the library does nothing
is "$(rc "$WL/wl-regions" pause)" 0 "wl-regions runs outside gexplore (markers off)"

# ---- threads, forks, nesting, pause
is "$(rc "$X" record -q -o r -e cpu-clock -F 4000 -- "$WL/wl-regions" pause)" 0 "record wl-regions"
check "regions.bin is in the result" test -s r/regions.bin
check "magic GXREGNS1" sh -c "head -c 8 r/regions.bin | grep -q GXREGNS1"
"$X" report r --json >report.json 2>/dev/null
is "$(jq -r '[.regions[].name] | join(",")' report.json)" "outer,inner,worker,child" \
	"four regions, in order of first begin"
# regions.bin is made at the first marker: a workload without any (nearly
# all) leaves none, and one recorded over with -f takes the earlier away
cp -r r r-over
is "$(rc "$X" record -q -f -o r-over -e cpu-clock -- /bin/true)" 0 "record -f /bin/true over it"
check "... no markers: no regions.bin, the earlier one gone" test ! -e r-over/regions.bin
check "... and meta.json says no regions" jq -e '.regions == null' r-over/meta.json
is "$(jq -r '.markers.count' report.json)" 13 "13 markers (5 regions x 2, a mark, pause, resume)"
is "$(jq -r '.markers.lost' report.json)" 0 "none lost"
is "$(jq -r '.regions[] | select(.name == "worker") | "\(.instances) \(.threads)"' report.json)" "2 2" \
	"worker: two instances on two threads"
# A misplaced region shows its function under half. What else a region
# holds is the kernel's time in it (timer and hypervisor interrupts,
# pvm_irq_enable on this VM): 1-2% on a quiet machine, 10% once under
# load, which failed the 90% these asked for (89.8).
ge "$(hot inner spin_inner)" 80 && ok 0 "inner: spin_inner >= 80%" || ok 1 "inner: spin_inner ($(hot inner spin_inner)%)"
ge "$(hot worker spin_worker)" 80 && ok 0 "threads line up: worker is spin_worker" ||
	ok 1 "worker: spin_worker ($(hot worker spin_worker)%)"
# the child's region also holds its fork and exit, which a loaded machine
# stretches: a misplaced region would show under half
ge "$(hot child spin_child)" 75 && ok 0 "a forked child lines up: child is spin_child" ||
	ok 1 "child: spin_child ($(hot child spin_child)%)"
o=$(hot outer spin_outer); i=$(hot outer spin_inner)
ge "$(awk -v a="$o" -v b="$i" 'BEGIN { print a + b }')" 80 && ok 0 "nesting: outer holds inner's samples too" ||
	ok 1 "outer: spin_outer $o% + spin_inner $i%"
"$X" report r --json --by function --limit 0 >all.json 2>/dev/null
paused=$(jq -r '[.functions[] | select(.function == "spin_paused") | .samples[0]][0] // 0' all.json)
free=$(jq -r '[.functions[] | select(.function == "spin_free") | .samples[0]][0] // 0' all.json)
[ "$paused" -le $(( free / 10 + 2 )) ] && ok 0 "gx_pause: spin_paused not sampled ($paused vs $free)" ||
	ok 1 "gx_pause: spin_paused has $paused samples (spin_free $free)"
"$X" report r --region worker --json >w.json 2>/dev/null
is "$(jq -r '.region' w.json)" worker "--region: the JSON names the region"
is "$(jq -r '.functions[0].function' w.json)" spin_worker "--region worker: hottest function spin_worker"
is "$(rc "$X" report r --region nope)" 2 "--region of an unknown name: usage error"
check "... listing the regions" grep -q 'regions: outer, inner, worker, child' err

# ---- the TUI: regions on the timeline, narrowed views
if "$X" tui --keys "" r >/dev/null 2>&1; then
	"$X" tui r --keys t --dump 120x30 >tl.txt 2>&1
	check "tui timeline: a thread's regions as spans, the innermost" grep -q '\[inner-*\]outer' tl.txt
	check "... the worker threads' too" grep -q '\[worker' tl.txt
	"$X" tui r --region worker --keys g --dump 120x30 >tg.txt 2>&1
	check "tui --region worker: the grid is narrowed" grep -q 'region worker' tg.txt
	check "... its hottest row is spin_worker" grep -Eq '^>.* spin_worker' tg.txt
	"$X" tui r --region worker --keys t --dump 120x30 >tw.txt 2>&1
	check "... the timeline's ruler names the region" grep -q '^region worker' tw.txt
	is "$(rc "$X" tui r --region nope --keys t)" 2 "tui --region of an unknown name: usage error"
	check "... listing the regions" grep -q 'regions: outer, inner, worker, child' err
else
	skip 6 "this gexplore has no TUI"
fi

# ---- lost markers: a flood overflows the ring between two drains
is "$(rc "$X" record -q -o fl -e cpu-clock -- "$WL/wl-regions" flood 200000)" 0 "record a flood of 200000 markers"
"$X" report fl --json >fl.json 2>/dev/null
n=$(jq -r '.markers.count' fl.json); l=$(jq -r '.markers.lost' fl.json)
[ "$l" -gt 0 ] && ok 0 "the ring overflowed: $l markers lost" || ok 1 "no marker lost ($n kept)"
is "$((n + l))" 200000 "kept + lost = sent ($n + $l)"
is "$(jq -r '.regions.lost' fl/meta.json)" "$l" "meta.json: regions.lost"
is "$(jq -r '.regions.markers' fl/meta.json)" "$n" "meta.json: regions.markers"
"$X" report fl >fl.txt 2>&1
check "the report's first lines say markers were lost" sh -c "head -12 fl.txt | grep -q '^  markers .*, lost [0-9,]* (the program.s ring was full'"

# ---- the ring is an inherited memfd: nothing named in /dev/shm or /tmp
"$X" record -q -o k -e cpu-clock -- "$WL/wl-spin" 3000 >/dev/null 2>&1 &
rp=$!
wp=
for _ in $(seq 50); do
	# the workload is the child of gexplore's keeper (src/collect/workload.c)
	wp=$(for c in $(cat /proc/$rp/task/*/children 2>/dev/null); do
		cat /proc/"$c"/task/*/children 2>/dev/null; done | awk '{ print $1 }')
	[ -n "$wp" ] && [ "$(readlink /proc/$wp/exe 2>/dev/null)" = "$(readlink -f "$WL/wl-spin")" ] && break
	sleep 0.1
done
env=$(tr '\0' '\n' </proc/$wp/environ 2>/dev/null | sed -n 's/^GEXPLORE_REGIONS=//p')
case "$env" in
fd:*) ok 0 "GEXPLORE_REGIONS names inherited descriptors ($env)" ;;
*) ok 1 "GEXPLORE_REGIONS is '$env'" ;;
esac
rfd=${env#fd:}; rfd=${rfd%%,*}
check "... the ring is a memfd, in no file system" sh -c "readlink /proc/$wp/fd/$rfd | grep -q '^/memfd:gexplore-regions'"
check "... and the workload holds nothing under /dev/shm or /tmp (a SIGKILL leaves nothing)" \
	sh -c "! ls -l /proc/$wp/fd/ | grep -Eq ' /(dev/shm|tmp)/'"
kill -KILL $rp 2>/dev/null; wait $rp 2>/dev/null
[ -n "$wp" ] && kill -KILL "$wp" 2>/dev/null

# ---- three phases: report and check
is "$(rc "$X" record -q -o p -e cpu-clock -F 2000 -- "$PH" 2)" 0 "record examples/phases"
"$X" report p --by region >text 2>&1
for ph in load:fill_table solve:relax write:checksum; do
	grep -Eq "^  ${ph%%:*} +2 +1 .*%  ${ph#*:} " text && ok 0 "report --by region: ${ph%%:*} is ${ph#*:}" ||
		{ ok 1 "report --by region: ${ph%%:*} is ${ph#*:}"; sed 's/^/#   /' text; }
done
"$X" report p --by region --csv >csv 2>/dev/null
is "$(head -1 csv)" "region,instances,threads,time_s,share_pct,samples,estimated,hot_function,hot_pct" \
	"CSV header"
is "$(cut -d, -f1,8 csv | tail -n +2 | tr '\n' ' ')" "load,fill_table solve,relax write,checksum " \
	"CSV: one row per phase with its hot function"
share=$(awk -F, '$1 == "solve" { print $5 / 100 }' csv)
is "$(rc "$X" check p --region solve --function relax --min share=0.8)" 0 \
	"check --region solve: relax holds >= 80% of it"
is "$(rc "$X" check p --region solve --max share=0.99)" 0 "check --region solve --max share=0.99 passes"
check "... with the region's share of the run ($share)" grep -q "share of the run = " out
is "$(rc "$X" check p --region solve --max share=0.01)" 1 "check --region solve --max share=0.01 fails"
is "$(rc "$X" diff p p --region load --json)" 0 "diff --region load"
is "$(jq -r ".entries | length > 0" out)" true "... compares the region's rows"

# ---- perf reads it
if [ -n "${PERF:-}" ] && [ -x "$PERF" ]; then
	"$PERF" report -i p/perf.data --stdio --sort sym >perf.txt 2>&1
	check "perf report reads a result with regions" grep -q relax perf.txt
else
	skip 1 "perf is absent"
fi

# ---- --control and --delay
mkfifo ctl ack
("$X" record -q -o c -e cpu-clock --control fifo:ctl,ack --delay -1 -- "$WL/wl-spin" 600 \
	>rec.out 2>&1; echo $? >rec.rc) &
exec 3<>ctl 4<>ack
sleep 0.3
echo enable >&3
ack=$(timeout 5 head -c 4 <&4 | tr -d '\n')
printf 'snapshot\nbogus\nbogus\nping\n' >&3
ack2=$(timeout 5 head -c 4 <&4 | tr -d '\n')
wait
is "$ack" ack "--control: 'enable' is acknowledged with ack"
is "$ack2" ack "--control: 'ping' is acknowledged, perf's snapshot and unknown lines are not"
is "$(cat rec.rc)" 0 "record --delay -1 --control exits 0"
is "$(jq -r '[.warnings[] | select(test("^--control: .snapshot. is perf.s, not gexplore.s"))] | length' c/meta.json)" 1 \
	"--control: perf's snapshot is said once in meta.json's warnings"
is "$(jq -r '[.warnings[] | select(test("^--control: .bogus. is not a command"))] | length' c/meta.json)" 1 \
	"--control: an unknown command is said once, however often sent"
"$X" report c --json >c.json 2>/dev/null
n=$(jq -r '.events[0].samples' c.json)
[ "$n" -gt 0 ] && ok 0 "samples after enable ($n)" || ok 1 "no samples after enable"
dur=$(jq -r '.events[0].estimated' c.json)
ge 500000000 "$dur" && ok 0 "... and none before it (cpu-clock $dur ns < 0.5 s of 0.6)" ||
	ok 1 "sampled before enable: $dur ns"
is "$(rc "$X" record -q -o d -e cpu-clock --delay 300 -- "$WL/wl-spin" 600)" 0 "record --delay 300"
dur=$("$X" report d --json 2>/dev/null | jq -r '.events[0].estimated')
ge 450000000 "$dur" && ok 0 "--delay 300: the first 0.3 s not sampled ($dur ns)" ||
	ok 1 "--delay 300: $dur ns sampled"
is "$(rc "$X" record -q -o e --control pipe:x -- true)" 2 "--control: perf's spellings only"
exec 3>&- 4>&-
done_testing
