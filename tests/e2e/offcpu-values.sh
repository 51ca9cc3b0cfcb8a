#!/bin/bash
# One profile, many values (issue 45): off-CPU time is values of the
# profile beside the events, "off-cpu" (ns) and one per reason, carried by
# every row and read by name. wl-offcpu (a sleeper, a reader of a pipe, a
# waiter on a mutex held by main, two spinners on one CPU, main joining
# them) recorded as root with -g, so that every wait is sampled at its
# switch-out: report --json's off-cpu event, its per-function values in
# the same arrays as cpu-clock's, report --event off-cpu with the waits'
# self on user functions, the TUI grid's row and OffCPU column of the
# mutex wait (no cpu sample of its own) after a time range, --folded
# weighed by the wait, diff --json comparing off-cpu, check by name,
# --call-graph dwarf's waits on their functions, and the reasons joins and
# children read from the user frames. Each figure is checked against the
# workload's own truth (wall time less CPU time, within 25% or 60 ms).
. "${GX_SRCDIR}/tests/e2e/lib.sh"
command -v jq >/dev/null || skip_all "jq is absent (Debian package jq)"
[ "$(id -u)" = 0 ] || skip_all "not root: a sample at each switch-out needs it (offcpu.sh covers the unprivileged run)"
can_sample || skip_all "cannot sample cpu-clock here (perf_event_paranoid or seccomp)"
X="$GX_BIN"
W="$WL/wl-offcpu"

# within(GOT, WANT): |GOT - WANT| <= max(25% of WANT, 0.060)
within() { awk -v g="$1" -v w="$2" 'BEGIN { d = g - w; if (d < 0) d = -d;
	b = 0.25 * w; if (b < 0.060) b = 0.060; exit !(g != "" && d <= b) }'; }
# truth NAME FILE: the thread's own off-CPU seconds
truth() { awk -v n="$1" '$1 == "truth" && $2 == n { printf "%.4f", $3 / 1000 }' "$2"; }
# idx JSON NAME: the index of event NAME in the report's events (and arrays)
idx() { jq --arg n "$2" '[.events[].name] | index($n)' "$1"; }

record() {	# record DIR OPTIONS...: wl-offcpu recorded with --off-cpu
	local d=$1
	shift
	"$X" record -q -o "$d" --off-cpu "$@" -- "$W" >"$d.out" 2>"$d.err"
}

# ---- one recording, checked; retried once on a busy machine
run_checks() {	# run_checks DIR: the failures, one a line
	local d=$1 oi ci lock got all user
	"$X" report "$d" --json --limit 0 >"$d.json" 2>/dev/null || { echo "report --json failed"; return; }
	oi=$(idx "$d.json" off-cpu)
	ci=$(idx "$d.json" cpu-clock)
	lock=$(truth locker "$d.out")
	[ "$oi" != null ] || { echo "no off-cpu event"; return; }
	jq -e '.events[] | select(.name == "off-cpu") | .unit == "ns" and .source == "off-cpu"' \
		"$d.json" >/dev/null || echo "off-cpu: not in ns from the switch records"
	got=$(jq -r --argjson i "$oi" '.functions[] | select(.function == "wait_lock") |
		.total_estimated[$i] / 1e9' "$d.json")
	within "$got" "$lock" || echo "wait_lock: off-cpu total $got s in the functions' arrays, truth $lock"
	got=$(jq -r --argjson i "$ci" '.functions[] | select(.function == "wait_lock") |
		.samples[$i]' "$d.json")
	[ "${got:-9}" -le 1 ] || echo "wait_lock: $got cpu-clock samples (a mutex wait runs little)"
	got=$(jq -r '.events[] | select(.name == "off-cpu:lock") | .estimated / 1e9' "$d.json")
	within "$got" "$lock" || echo "off-cpu:lock $got s, truth $lock (the joins are not locks)"
	got=$(jq -r '.events[] | select(.name == "off-cpu:join") | .estimated' "$d.json")
	[ "${got:-0}" -gt 0 ] || echo "off-cpu:join: $got ns (main joins its threads)"
	# --event off-cpu: the waits' self on user functions, not schedule()
	"$X" report "$d" --json --limit 0 --event off-cpu >"$d.ev.json" 2>/dev/null
	all=$(jq --argjson i "$oi" '[.functions[].estimated[$i]] | add' "$d.ev.json")
	user=$(jq --argjson i "$oi" '[.functions[] | select(.module | test("kernel") | not) |
		.estimated[$i]] | add' "$d.ev.json")
	awk -v a="$all" -v u="$user" 'BEGIN { exit !(a > 0 && u >= 0.95 * a) }' ||
		echo "--event off-cpu: $user of $all ns of self on user functions"
	[ "$(jq -r .sort_event "$d.ev.json")" = "$oi" ] || echo "--event off-cpu: not the sort event"
	# --folded --event off-cpu: the waiting thread's stack weighed by its wait
	"$X" report "$d" --folded --event off-cpu >"$d.folded" 2>/dev/null
	got=$(awk '/^locker;.*;wait_lock(;|$)/ { s += $NF } END { printf "%.4f", s / 1e9 }' "$d.folded")
	within "$got" "$lock" || echo "--folded --event off-cpu: locker's wait_lock stacks weigh $got s, truth $lock"
}

record r1 -g
is "$?" 0 "record --off-cpu -g wl-offcpu (root)"
fails=$(run_checks r1)
if [ -n "$fails" ]; then
	diag "first run: $(echo "$fails" | tr '\n' ';')"
	rm -rf r1
	record r1 -g
	fails=$(run_checks r1)
fi
is "$fails" "" "report: off-cpu in the events and the rows' arrays; --event, --folded by it; joins apart from locks"

# ---- the TUI: the mutex wait's row (no cpu sample) and its OffCPU after a range
"$X" tui --keys "g" --dump 160x120 r1 >scr 2>err
check "tui grid: the function that only waited has its row with its OffCPU time" \
	grep -Eq ' [0-9]+\.[0-9]{3}s +wl-offcpu +wait_lock *$' scr
"$X" tui --keys "t Home Space End Left Space Left g" --dump 160x120 r1 >scr 2>err
check "tui grid after a time range: filtered to it" grep -q 'time 0\.' scr
got=$(grep -E ' wl-offcpu +wait_lock *$' scr | grep -Eo '[0-9]+\.[0-9]{3}s' | tr -d s)
within "$got" "$(truth locker r1.out)"
ok $? "tui grid after a time range: wait_lock's OffCPU is a number ($got s), not n/a"

# ---- diff and check by name
record r2 -g
"$X" diff --json r1 r2 >d.json 2>/dev/null
check "diff --json compares off-cpu" \
	jq -e '[.entries[] | select(.metric == "off-cpu" and .scope == "run" and .a > 0 and .b > 0)] | length == 1' d.json
check "diff --json compares a function that only waited" \
	jq -e '[.entries[] | select(.metric == "off-cpu" and .scope == "function")] | length > 0' d.json
"$X" check --max off-cpu:lock=0.1s r1 >chk 2>&1
is "$?" 1 "check --max off-cpu:lock=0.1s fails a run with a 0.4 s lock wait"
check "... naming the value" grep -q 'FAIL  off-cpu:lock of the run' chk
"$X" check --max off-cpu:lock=2s r1 >chk 2>&1
is "$?" 0 "check --max off-cpu:lock=2s passes it"

# ---- pprof: the values are its sample types, in nanoseconds
if "$X" version --build-options 2>/dev/null | grep -q 'pprof=yes' &&
	command -v protoc >/dev/null && command -v python3 >/dev/null; then
	PROTO_DIR=/usr/share/gocode/src/github.com/google/pprof/proto
	[ -f "$PROTO_DIR/profile.proto" ] || PROTO_DIR="$GX_SRCDIR/src/export"
	"$X" report r1 --format pprof -o r1.pb.gz >/dev/null 2>&1
	python3 "$GX_SRCDIR/tests/e2e/pprof-decode.py" r1.pb.gz "$PROTO_DIR" >pb.json 2>/dev/null
	got=$(jq -r '.totals[.types | index("off-cpu:lock/nanoseconds")] / 1e9' pb.json)
	within "$got" "$(truth locker r1.out)"
	ok $? "pprof: sample type off-cpu:lock/nanoseconds ($got s)"
else
	skip 1 "no pprof export or no protoc and python3 to decode it"
fi

# ---- --call-graph dwarf: the waits on their functions too
record r3 --call-graph dwarf
is "$?" 0 "record --off-cpu --call-graph dwarf"
"$X" report r3 --json --limit 0 >r3.json 2>/dev/null
oi=$(idx r3.json off-cpu)
for fn in wait_lock wait_pipe wait_sleep; do
	case $fn in wait_lock) t=locker ;; wait_pipe) t=piper ;; *) t=sleeper ;; esac
	got=$(jq -r --arg f "$fn" --argjson i "$oi" '.functions[] | select(.function == $f) |
		.total_estimated[$i] / 1e9' r3.json)
	within "$got" "$(truth $t r3.out)"
	ok $? "dwarf: $fn carries its wait ($got s, truth $(truth $t r3.out))"
done
user=$(jq --argjson i "$oi" '[.functions[] | select(.module | test("kernel")) | .estimated[$i]] | add // 0' r3.json)
all=$(jq --argjson i "$oi" '[.functions[].estimated[$i]] | add' r3.json)
awk -v a="$all" -v k="$user" 'BEGIN { exit !(a > 0 && k <= 0.05 * a) }'
ok $? "dwarf: the waits' self on user frames ($user of $all ns on the kernel's)"

# ---- a switch record's time checked as a period is: a mutated one is
# dropped and said, never a 146-year life nor over 100% off the CPU
if command -v python3 >/dev/null; then
	cp -r r1 rm
	python3 - rm/perf.data <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
off, size = struct.unpack_from('<QQ', b, 40)	# the data section
end, n = off + size, 0
while off < end:
    t, misc, sz = struct.unpack_from('<IHH', b, off)
    if sz == 0:
        break
    if t == 14 and not misc & 0x2000:	# PERF_RECORD_SWITCH, a switch in
        n += 1
        if n == 5:	# its sample_id_all trailer: pid/tid, then the time
            struct.pack_into('<Q', b, off + 16, (1 << 62) + 12345)
    off += sz
open(sys.argv[1], 'wb').write(b)
PY
	"$X" report rm --json >rm.json 2>rm.err
	check "a mutated switch time: dropped and said" grep -q 'record dropped: its time lies outside' rm.err
	check "... the threads' life and share as recorded" \
		jq -e --argjson l "$(jq .off_cpu.life_s r1.json)" \
		'.off_cpu.off_cpu_share <= 1 and (.off_cpu.life_s - $l | fabs) < 0.001' rm.json
	# a bare perf.data has no meta.json's times: past the last sample's
	cp rm/perf.data bare.data
	"$X" report bare.data --json >bare.json 2>bare.err
	check "... the same in a bare perf.data (no meta.json)" sh -c \
		"grep -q 'record dropped' bare.err && jq -e '.off_cpu.life_s < 100' bare.json"
else
	skip 3 "python3 is absent (Debian package python3)"
fi

# ---- a shell waiting for its command: child, not other
"$X" record -q -o r4 --off-cpu -g -- sh -c 'sleep 0.3; true' >/dev/null 2>&1
got=$("$X" report r4 --json | jq -r '.events[] | select(.name == "off-cpu:child") | .estimated / 1e9')
within "$got" 0.3
ok $? "a shell's wait4 for its command is off-cpu:child ($got s)"

done_testing
