#!/bin/bash
# JIT code: samples in anonymous executable memory are named from
# /tmp/perf-PID.map (perf's convention), and only from a file that may be
# trusted.
. "${GX_SRCDIR}/tests/e2e/lib.sh"
can_sample || skip_all "perf_event_open of cpu-clock is not permitted here"
command -v jq >/dev/null || skip_all "jq is absent"

"$GX_BIN" record -q -o j -e cpu-clock -- "$WL/wl-jit" 400000000 >out 2>&1
ok $? "the JIT workload recorded"
pid=$(tail -1 out)
map=/tmp/perf-$pid.map
check "it wrote $map" test -s "$map"
mkdir -p symfs/tmp && cp "$map" symfs/tmp/	# for the --symfs case below
"$GX_BIN" report --json --by function --limit 5 j >j.json
is "$(jq -r '.functions[0].function' j.json)" jit_count_down "the hottest function is the JIT's, by its map name"
is "$(jq -r '.functions[0].module' j.json)" "$map" "its module is the map file"
check "it has most of the samples" sh -c "jq -e '.functions[0].share > 0.5' j.json"

# An untrusted map: a symlink is not followed, a FIFO in its place is not
# opened (no hang); the code stays [unknown].
rm -f "$map"
ln -s "$TMP/symfs/tmp/perf-$pid.map" "$map"
"$GX_BIN" report --json --by function --limit 5 j >l.json
check "a symlink as the map: not followed" sh -c "jq -e '.functions[0].function != \"jit_count_down\"' l.json"

# An untrusted map: a FIFO in its place is not opened (no hang), and the
# code stays [unknown].
rm -f "$map"
mkfifo "$map"
timeout 60 "$GX_BIN" report --json --by function --limit 5 j >f.json
ok $? "a FIFO as the map: the report still ends"
isnt_jit=$(jq -r '.functions[0].function' f.json)
check "a FIFO as the map: no JIT name ($isnt_jit)" test "$isnt_jit" != jit_count_down
rm -f "$map"

# --symfs: the map of a recording made elsewhere, under the symfs root
"$GX_BIN" report --json --by function --limit 5 --symfs "$TMP/symfs" j >s.json
is "$(jq -r '.functions[0].function' s.json)" jit_count_down "--symfs: the map under the symfs root"

# jitdump: perf's jit-PID.dump, which the JIT maps so the recording names
# it; its code load records name the code and carry its bytes, so the TUI
# disassembles it. No perf map is written in this mode.
mkdir jd
"$GX_BIN" record -q -o d -e cpu-clock -- "$WL/wl-jit" --jitdump "$TMP/jd" 400000000 >dout 2>&1
ok $? "the JIT workload recorded with a jitdump"
pid=$(tail -1 dout)
dump="$TMP/jd/jit-$pid.dump"
check "it wrote $dump" test -s "$dump"
check "and no perf map" test ! -e "/tmp/perf-$pid.map"
"$GX_BIN" report --json --by function --limit 5 d >d.json
is "$(jq -r '.functions[0].function' d.json)" jit_dump_count_down "jitdump: the hottest function named by its code load record"
is "$(jq -r '.functions[0].module' d.json)" "$dump" "jitdump: its module is the dump"
"$GX_BIN" tui --keys "g d" d >scr 2>err
check "jitdump: the TUI disassembles the code from the dump" \
	sh -c "head -1 scr | grep -q 'disassembly: jit_dump_count_down' && grep -Eq '^[> ] *[0-9.]+%.* (jne|b\.ne) ' scr"
# a torn dump: no name, no crash
truncate -s 60 "$dump"
"$GX_BIN" report --json --by function --limit 5 d >t.json
ok $? "a truncated jitdump: the report still works"
check "... and names nothing from it" sh -c "jq -e '.functions[0].function != \"jit_dump_count_down\"' t.json"
rm -f "$dump"
# A real JIT: Debian's node with --perf-basic-prof writes /tmp/perf-PID.map
if command -v node >/dev/null; then
	cat >hot.js <<'JS'
function spinHot(n) { let s = 0; for (let i = 0; i < n; i++) s = (s + i * 7) % 1000003; return s; }
let t = 0; const end = Date.now() + 600; while (Date.now() < end) t += spinHot(200000);
console.log(process.pid);
JS
	"$GX_BIN" record -q -o node -e cpu-clock -- node --perf-basic-prof hot.js >node.out 2>&1
	ok $? "node --perf-basic-prof recorded"
	npid=$(tail -1 node.out)
	"$GX_BIN" report --json --by function --limit 3 node >node.json
	check "node: the hot JavaScript function is named from node's map" \
		sh -c "jq -r '.functions[0].function' node.json | grep -q 'spinHot .*hot.js'"
	check "node: its module is the map" sh -c "jq -r '.functions[0].module' node.json | grep -q 'perf-$npid.map'"
	rm -f "/tmp/perf-$npid.map"
else
	skip 3 "node is absent (Debian package nodejs)"
fi
done_testing
