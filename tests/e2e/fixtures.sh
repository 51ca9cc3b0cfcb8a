#!/bin/bash
# Real recordings from real CPUs (../shared/fixtures/perf-data): report
# parses every one; the v1 format is refused in one line.
. "${GX_SRCDIR}/tests/e2e/lib.sh"
[ -d "$GX_FIXTURES" ] || skip_all "fixtures absent ($GX_FIXTURES)"
command -v jq >/dev/null || skip_all "jq is absent (Debian package jq)"
F=$GX_FIXTURES

for f in quipper-busy.1-3.4.perf.data quipper-callgraph-3.8.perf.data \
	quipper-lost_samples-4.4.perf.data quipper-group_desc-4.14.perf.data \
	lpd-sleep.perf.data hotspot-true.v2.perf.data vector_static_gcc/perf.data; do
	"$GX_BIN" report "$F/$f" >out 2>err
	ok $? "report $f"
	# files of another machine: a warning per rebuilt module, nothing else
	check "report $f: nothing on stderr but build-id mismatches" sh -c "! grep -v 'build-id mismatch' err"
done
is "$("$GX_BIN" report --json "$F/vector_static_gcc/perf.data" | jq .samples)" 45 "vector_static_gcc: 45 samples"
is "$("$GX_BIN" report --json "$F/hotspot-true.v2.perf.data" | jq .samples)" 1 "hotspot-true.v2: 1 sample"
check "quipper-busy: six hardware events" \
	sh -c "'$GX_BIN' report --json '$F/quipper-busy.1-3.4.perf.data' | jq -e '[.events[].name] | index(\"cycles\") != null and length == 6'"
check "quipper-lost_samples: lost events reported" \
	sh -c "'$GX_BIN' report --json '$F/quipper-lost_samples-4.4.perf.data' | jq -e '.lost.events == 2'"
"$GX_BIN" report -i - <"$F/quipper-piped.header_features-4.16.perf.data" >out 2>err
ok $? "pipe-mode file from stdin"
if "$GX_BIN" version --build-options | grep -q 'zstd=yes'; then
	"$GX_BIN" report "$F/lpd-sleep.compressed.perf.data" >out 2>err
	ok $? "zstd-compressed records"
else
	"$GX_BIN" report "$F/lpd-sleep.compressed.perf.data" >out 2>err
	is "$?" 2 "zstd-compressed records without libzstd: refused"
fi
"$GX_BIN" report "$F/hotspot-true.v1.perf.data" >out 2>err
is "$?" 2 "PERFFILE v1 is refused with exit 2"
is "$(wc -l <err)" 1 "v1: one line"
check "v1: says it is the old format" grep -qi 'v1\|old\|PERFFILE' err
head -c 3000 "$F/quipper-busy.1-3.4.perf.data" >trunc.data
"$GX_BIN" report trunc.data >out 2>err
rc=$?
check "a truncated file: no crash (rc $rc)" test "$rc" -lt 128
head -c 50 "$F/quipper-busy.1-3.4.perf.data" >tiny.data
"$GX_BIN" report tiny.data >out 2>err
is "$?" 2 "a 50-byte file is refused"
check "the message names a byte offset or the size" grep -qi 'byte\|size\|truncat' err
# A recording from another machine: its kernel addresses are one row that
# says why they have no names and how to get them, unless a copy of that
# machine's kallsyms is given (names made up here).
busy="$F/quipper-busy.1-3.4.perf.data"
"$GX_BIN" report --by function --limit 3 "$busy" >k0.txt 2>&1
check "foreign kernel addresses: a row saying why and how to fix" grep -qE '^ +[0-9.]+% +[0-9,]+ +([0-9.]+ +|- +)?\[kernel: recorded on another machine, report --kallsyms FILE' k0.txt
printf 'ffffffff81019700 T busy_fn\nffffffff811c4700 t walk_fn\n' >ks.txt
"$GX_BIN" report --by function --limit 3 --kallsyms ks.txt "$busy" >k1.txt 2>&1
check "--kallsyms names them" grep -qE '^ +[0-9.]+% +[0-9,]+ +([0-9.]+ +|- +)?busy_fn +\[kernel.kallsyms\]' k1.txt
check "... every one it covers" grep -qE ' walk_fn ' k1.txt
"$GX_BIN" report --kallsyms no-such-file "$busy" >/dev/null 2>k2.txt
is $? 2 "--kallsyms with a missing file: usage error"
check "... in one line" test "$(wc -l <k2.txt)" = 1
done_testing
