#!/bin/bash
# record -d and --mem (issue 43) on this machine: page faults sampled with
# their data address land on wl-memobj's variables at the addresses the
# program printed (its .bss array mo_static, a static, faults in page by
# page); --mem says what this CPU has, or points to --model where it has
# none (a VM).
. "${GX_SRCDIR}/tests/e2e/lib.sh"
command -v jq >/dev/null || skip_all "jq is absent (Debian package jq)"
can_sample || skip_all "cannot sample here (perf_event_paranoid, seccomp)"

"$GX_BIN" record -q -e page-faults -c 1 -d -o pf -- "$WL/wl-memobj" 1 >out 2>err
ok $? "record -d of page faults"
"$GX_BIN" report --json pf >pf.json 2>/dev/null
ok $? "report reads it"
static=$(sed -n 's/.*mo_static \(0x[0-9a-f]*\).*/\1/p' out)
obj() { jq -r --arg o "$1" '.memory.data_objects[] | select(.object == $o) | '"$2" pf.json; }
is "$(obj mo_static '"\(.kind) \(.size)"')" "static 32768" \
	"the faults in mo_static land on it: a static of 32 KiB"
is "$(obj mo_static .address)" "$((static))" "at the address the program printed"
n=$(obj mo_static .samples)
ok "$([ "${n:-0}" -ge 4 ]; echo $?)" "one fault a page it touched first ($n of 8 pages)"
check "data addresses counted" test "$(jq .memory.samples pf.json)" -gt 0
check "no data source without --mem" test "$(jq '.data_sources | length' pf.json)" = 0

# --mem: what this CPU offers
"$GX_BIN" record --mem -q -o mem -- true >mo 2>me
rc=$?
if [ -d /sys/bus/event_source/devices/cpu/events ] &&
   [ -e /sys/bus/event_source/devices/cpu/events/mem-loads ]; then
	skip 2 "this CPU has Intel's load-latency event (tested by hand, not here)"
elif [ -e /sys/bus/event_source/devices/ibs_op ] ||
     ls -d /sys/bus/event_source/devices/arm_spe_* >/dev/null 2>&1; then
	skip 2 "this CPU has IBS or SPE (tested by hand, not here)"
else
	is "$rc" 1 "--mem without memory sampling fails"
	check "in one line that points to --model" \
		grep -q 'no memory-access sampling here.*record --model' me
fi
check "and leaves no result behind" test ! -e mem
"$GX_BIN" record --ldlat 50 -o ld -- true >/dev/null 2>le
is "$?" 2 "--ldlat without --mem: a usage error"
check "that says so" grep -q -- '--ldlat goes with --mem' le
done_testing
