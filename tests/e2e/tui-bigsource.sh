#!/bin/bash
# The source view of a big function in a big file opens in seconds, under
# ASan too (CI runs the suite under ASan, and the TUI's key fuzzing with
# it): reading the file grew its array of lines by one per line (a copy of
# the whole array per line where realloc moves, as ASan's always does: 139 s
# for sqlite3.c), and the skid hints scanned every instruction for every
# line. A generated switch of 1,500 cases (7,500 lines, 20,000
# instructions) after 200,000 lines of comment; the view must show the
# hot lines with their skid hints and take under 30 s a key.
. "${GX_SRCDIR}/tests/e2e/lib.sh"
can_sample || skip_all "perf_event_open of cpu-clock is not permitted here"
command -v "${CC:-cc}" >/dev/null || skip_all "no C compiler"

awk 'BEGIN {
	for (i = 0; i < 200000; i++)
		print "/* padding: the function below starts far into the file */"
	print "#include <stdlib.h>"
	print "volatile long sink;"
	print "__attribute__((noinline)) long big(long *v, long iters)"
	print "{"
	print "	long acc = 0;"
	print "	for (long it = 0; it < iters; it++) {"
	print "		switch ((int)((it * 2654435761u) % 1500)) {"
	for (i = 0; i < 1500; i++) {
		printf "		case %d:\n", i
		printf "			acc += v[%d] * %d;\n", i % 64, i % 97 + 1
		printf "			v[(%d + acc) & 63] ^= acc >> %d;\n", i, i % 13 + 1
		printf "			if (acc & %d) acc -= v[%d];\n", 2 ^ (i % 16), (i * 7) % 64
		print "			break;"
	}
	print "		}"
	print "	}"
	print "	return acc;"
	print "}"
	print "int main(int argc, char **argv)"
	print "{"
	print "	long v[64];"
	print "	for (int i = 0; i < 64; i++)"
	print "		v[i] = i * 3 + 1;"
	print "	sink = big(v, argc > 1 ? atol(argv[1]) : 20000000);"
	print "	return 0;"
	print "}"
}' >big.c
"${CC:-cc}" -O2 -g -o big big.c
ok $? "a generated 200,000-line file with a 7,500-line function, built with -g"
"$GX_BIN" record -q -o r -e cpu-clock -- ./big >/dev/null 2>&1
ok $? "record it"

"$GX_BIN" tui --keys "g Enter" --timing --dump 120x30 r >scr 2>err
ok $? "the source view of big opens"
check "... on big.c" grep -q '^big  .*big\.c' scr
check "... with its sampled lines past line 200,000" grep -Eq '^>? *[0-9.]+%.* 2[0-9]{5}' scr
worst=$(sed -n 's/.*worst \([0-9.]*\) ms.*/\1/p' err)
check "... in under 30 s a key (worst ${worst:-?} ms)" awk -v w="${worst:-1e9}" 'BEGIN { exit !(w < 30000) }'
# the skid hints are still there (cpu-clock is imprecise): some line names another
"$GX_BIN" tui --keys "g Enter Tab Tab Tab Tab Tab Tab Tab Tab" --dump 120x30 r >scr2 2>/dev/null
check "skid hints shown (cpu-clock samples skid)" grep -q 'skid' scr2
# the cursor's line (the hottest, on opening) with code above it, not on
# the last row: at 120x30 the selected row is one of the first 15
sel=$(grep -n '^>' scr | head -1 | cut -d: -f1)
check "the hottest line opens in the upper half, not the last row (row ${sel:-?} of 30)" \
	test "${sel:-99}" -le 15
done_testing
