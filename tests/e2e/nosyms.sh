#!/bin/bash
# Binaries without symbols (issue 15, part 6): code no symbol covers is one
# row per function (its FDE), `module+0xADDR`, with its disassembly; names
# come back from MiniDebugInfo (.gnu_debugdata, read by libdwfl), from a
# .gnu_debuglink file, and from a debug file by build-id under
# --search-path; record archives the debug file with the binary.
. "${GX_SRCDIR}/tests/e2e/lib.sh"
can_sample || skip_all "perf_event_open of cpu-clock is not permitted here"
command -v jq >/dev/null || skip_all "jq is absent"
for t in objcopy strip readelf nm; do
	command -v $t >/dev/null || skip_all "$t is absent (Debian package binutils)"
done
CC=${CC:-cc}
command -v "$CC" >/dev/null || skip_all "no C compiler ($CC)"

cat >prog.c <<'SRC'
#include <stdio.h>
volatile unsigned long sink;
__attribute__((noinline)) void spin_nosym(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i * i;
}
int main(void) { spin_nosym(150000000UL); printf("%lu\n", sink); return 0; }
SRC
"$CC" -O1 -g -Wl,--build-id -o full prog.c || skip_all "cannot build"
top() { jq -r '.functions[0].function' "$1"; }
rec() { "$GX_BIN" record -q "$@" -e cpu-clock -- "./$exe" >/dev/null 2>&1; }

# stripped: module+0xADDR, the ELF address where its function starts
exe=bare; cp full bare && strip --strip-all bare
rec -o r1
"$GX_BIN" report --json --by function r1 >a.json
name=$(top a.json)
check "stripped: the hot row is bare+0xADDR ($name)" sh -c "echo '$name' | grep -Eq '^bare\\+0x[0-9a-f]+\$'"
fn=$(nm full | sed -n 's/^0*\([0-9a-f]*\) T spin_nosym$/\1/p')
addr=${name#bare+0x}
is "$addr" "$fn" "its address is spin_nosym's (nm of the unstripped copy)"
"$GX_BIN" tui --keys "g d" r1 >scr 2>err
check "the TUI disassembles the range" sh -c "head -1 scr | grep -q 'disassembly: $name' && grep -Eq '^[> ] *[0-9.]+%' scr"

# MiniDebugInfo: the symbol table, xz-compressed in .gnu_debugdata
if command -v xz >/dev/null; then
	exe=mini; cp full mini
	nm full --format=posix --defined-only | awk '$2 ~ /[Tt]/ { print $1 }' | sort >keep
	objcopy -S --remove-section .comment --keep-symbols=keep full mini.dbg &&
		xz -f mini.dbg && strip --strip-all mini &&
		objcopy --add-section .gnu_debugdata=mini.dbg.xz mini
	ok $? "a MiniDebugInfo binary"
	check "it has no .symtab" sh -c "! readelf -S mini | grep -q ' .symtab'"
	rec -o r2
	"$GX_BIN" report --json --by function r2 >b.json
	is "$(top b.json)" spin_nosym "MiniDebugInfo names the function"
else
	skip 3 "xz is absent (Debian package xz-utils)"
fi

# .gnu_debuglink: the debug file beside the binary; archived by record
exe=linked; cp full linked
objcopy --only-keep-debug linked linked.debug && strip --strip-all linked &&
	objcopy --add-gnu-debuglink=linked.debug linked
ok $? "a stripped binary with a .gnu_debuglink"
rec -o r3
"$GX_BIN" report --json --by function r3 >c.json
is "$(top c.json)" spin_nosym "debuglink: named from the debug file"
bid=$(readelf -n linked | sed -n 's/.*Build ID: *//p')
check "record archived the debug file (.build-id/xx/rest/debug)" \
	test -f "r3/.build-id/${bid:0:2}/${bid:2}/debug"
mv linked.debug elsewhere.debug
"$GX_BIN" report --json --by function r3 >d.json
is "$(top d.json)" spin_nosym "debug file gone: the archived one names it"
rm -rf r3/.build-id
"$GX_BIN" report --json --by function r3 >e.json
check "no archive, no debug file: a linked+0x row" sh -c "jq -r '.functions[0].function' e.json | grep -q '^linked+0x'"

# a debug file by build-id under --search-path (DIR/.build-id/xx/rest.debug)
mkdir -p "dbg/.build-id/${bid:0:2}" && cp elsewhere.debug "dbg/.build-id/${bid:0:2}/${bid:2}.debug"
"$GX_BIN" report --json --by function --search-path "$TMP/dbg" r3 >f.json
is "$(top f.json)" spin_nosym "--search-path: the debug file by build-id names it"
done_testing
