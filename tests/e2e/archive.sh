#!/bin/bash
# Self-contained results: record copies the sampled binaries into the
# result by build-id; a report after a rebuild names the recorded
# functions from that copy; without it, a warning naming both build-ids and
# [unknown] rows, never the new binary's names. `gexplore archive` does the
# same for a result recorded with --no-archive and for perf's perf.data.
. "${GX_SRCDIR}/tests/e2e/lib.sh"
can_sample || skip_all "perf_event_open of cpu-clock is not permitted here"
command -v jq >/dev/null || skip_all "jq is absent"
command -v readelf >/dev/null || skip_all "readelf is absent (Debian package binutils)"
CC=${CC:-cc}
command -v "$CC" >/dev/null || skip_all "no C compiler ($CC)"

cat >prog.c <<'SRC'
#include <stdio.h>
volatile unsigned long sink;
__attribute__((noinline)) void FN(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i * i;
}
int main(void) { FN(200000000UL); printf("%lu\n", sink); return 0; }
SRC
build() { "$CC" -O1 -g -Wl,--build-id -DFN="$1" -o prog prog.c; }
bid() { readelf -n prog | sed -n 's/.*Build ID: *//p'; }
top() { jq -r '.functions[0].function' "$1"; }

build spin_recorded
old=$(bid)
"$GX_BIN" record -q -o r1 -e cpu-clock -- ./prog >/dev/null
ok $? "recorded"
check "the program is archived by build-id (.build-id/xx/rest/elf)" \
	test -f "r1/.build-id/${old:0:2}/${old:2}/elf"
"$GX_BIN" report --json --by function r1 >a.json
is "$(top a.json)" spin_recorded "before the rebuild: the recorded function"

build spin_rebuilt
new=$(bid)
check "the rebuild changed the build-id" test "$old" != "$new"
"$GX_BIN" report --json --by function r1 >b.json 2>b.err
is "$(top b.json)" spin_recorded "after the rebuild: the archived copy names the function"
check "no warning with the archive" test ! -s b.err
check "the new binary's names nowhere" sh -c "! grep -q spin_rebuilt b.json"

rm -rf r1/.build-id
"$GX_BIN" report --json --by function r1 >c.json 2>c.err
is "$(top c.json)" "[unknown]" "archive deleted: [unknown], not the new binary's names"
check "no spin_rebuilt row" sh -c "! grep -q spin_rebuilt c.json"
check "a warning names the file" grep -q "$TMP/prog" c.err
check "... and both build-ids" sh -c "grep -q '$old' c.err && grep -q '$new' c.err"
"$GX_BIN" report --by function r1 >c.txt 2>&1
check "the text report warns too" grep -q "build-id mismatch: $new on disk, $old in the recording" c.txt

# --no-archive, then `gexplore archive` on the result
"$GX_BIN" record -q --no-archive -o r2 -e cpu-clock -- ./prog >/dev/null
check "--no-archive: no .build-id" test ! -e r2/.build-id
"$GX_BIN" archive r2 2>arc.err
ok $? "gexplore archive DIR"
check "it archived the program" test -f "r2/.build-id/${new:0:2}/${new:2}/elf"
check "it said so" grep -q "archived" arc.err
build spin_third
"$GX_BIN" report --json --by function r2 >d.json
is "$(top d.json)" spin_rebuilt "gexplore archive's copy names the function after a rebuild"

# a build overwritten in place (`cp` keeps the inode): the archived copy
# is a copy, not a link to the same file, so it still names the recording
cp prog prog.before
build spin_inplace
"$GX_BIN" record -q -o r5 -e cpu-clock -- ./prog >/dev/null
keep=$(bid)
ino=$(stat -c %i prog)
# (the new build into another file, then copied over prog's own inode: a
# linker may unlink its output first, or write it in place)
"$CC" -O1 -g -Wl,--build-id -DFN=spin_overwrite -o prog.new prog.c && cat prog.new >prog
check "the rebuild was written in place (same inode)" test "$(stat -c %i prog)" = "$ino"
arch5="r5/.build-id/${keep:0:2}/${keep:2}/elf"
check "the user's program was copied into the archive, not hard-linked" \
	sh -c "test -f '$arch5' && test \"\$(stat -c %i '$arch5')\" != '$ino'"
"$GX_BIN" report --json --by function r5 >f.json 2>f.err
is "$(top f.json)" spin_inplace "overwritten in place: the archive still names the recorded function"
check "... and no build-id warning" sh -c "! grep -q mismatch f.err"
# a root-owned package file (libc, whose memset the program below runs)
# is hard-linked: nobody rewrites it in place
cat >libc.c <<'SRC'
#include <string.h>
static char buf[1 << 20];
int main(void) { for (int i = 0; i < 4000; i++) memset(buf, i, sizeof(buf)); return buf[7] == 1; }
SRC
"$CC" -O1 -g -o libcprog libc.c && "$GX_BIN" record -q -o r6 -e cpu-clock -- ./libcprog >/dev/null
libc=$(ldd libcprog | sed -n 's/.*=> \(\/[^ ]*libc\.so[^ ]*\).*/\1/p' | head -1)
if [ -n "$libc" ] && [ "$(stat -c %u "$(readlink -f "$libc")")" = 0 ] &&
	[ "$(stat -c %d "$(readlink -f "$libc")")" = "$(stat -c %d r6)" ]; then
	lbid=$(readelf -n "$(readlink -f "$libc")" | sed -n 's/.*Build ID: *//p')
	if [ -e "r6/.build-id/${lbid:0:2}/${lbid:2}/elf" ]; then
		check "libc (root's, a package's file) is hard-linked" \
			test "$(stat -c %i "r6/.build-id/${lbid:0:2}/${lbid:2}/elf")" = \
			"$(stat -c %i "$(readlink -f "$libc")")"
	else
		skip 1 "no sample landed in libc"
	fi
else
	skip 1 "libc is not root's or on another file system than the result"
fi
cp prog.before prog

# the cap
"$GX_BIN" record -q --archive-max 1K -o r3 -e cpu-clock -- ./prog >/dev/null
check "--archive-max 1K: the program is not archived" test ! -e "r3/.build-id/$(bid | cut -c1-2)"
check "... and meta.json says why" sh -c "jq -r '.warnings[]' r3/meta.json | grep -q 'archive-max'"
"$GX_BIN" record -o r3b --archive-max 1K -e cpu-clock -- ./prog >/dev/null 2>r3b.err
check "... and record says so on stderr too, not only in meta.json" \
	grep -q '^gexplore: warning: archive: .*not archived, over the 0 MiB cap (--archive-max)' r3b.err
"$GX_BIN" record -q --archive-max lots -o r4 -e cpu-clock -- ./prog >/dev/null 2>&1
is $? 2 "--archive-max lots: a usage error"

# perf's own perf.data
if [ -n "${PERF:-}" ] && "$PERF" record -q -o perf.data -e cpu-clock -- ./prog >/dev/null 2>&1; then
	cur=$(bid)
	"$GX_BIN" archive perf.data 2>/dev/null
	ok $? "gexplore archive perf.data (perf's)"
	check "archived beside it" test -f ".build-id/${cur:0:2}/${cur:2}/elf"
	build spin_fourth
	"$GX_BIN" report --json --by function perf.data >e.json 2>/dev/null
	is "$(top e.json)" spin_third "perf's recording after a rebuild: the archived copy's name"
else
	skip 3 "perf record does not work here"
fi
done_testing
