#!/bin/bash
# bench/ from a fresh checkout: every make target the bench scripts and
# README's Development section name exists, README shows `make bench`, and
# each script runs alone, from another directory, with no environment set
# (tiny sizes here: the figures are not the point, finding gexplore is).
. "${GX_SRCDIR}/tests/e2e/lib.sh"
B="$GX_SRCDIR/bench"
R="$GX_SRCDIR/README.md"
MK="$GX_BUILDDIR/Makefile"

# `make TARGET` in bench/ and in README's Development section
sed -n '/^## Development/,/^## [^D]/p' "$R" >dev
cat "$B"/overhead "$B"/report "$B"/tui "$B"/peak dev |
	grep -o 'make [a-z][a-z-]*' | sort -u | awk '{ print $2 }' >targets
check "bench/ and README name some make targets" test -s targets
while read -r t; do
	check "\`make $t\` is a target" grep -q "^$t:" "$MK"
done <targets
check "README's Development section shows \`make bench\`" grep -q '`make bench`' dev
for s in overhead report tui peak; do
	check "README's Development section names bench/$s" grep -q "bench/$s" dev
done

# Alone, with no environment: only an in-tree build has gexplore where the
# scripts look (next to bench/).
if [ "$(cd "$GX_SRCDIR" && pwd -P)" != "$(cd "$GX_BUILDDIR" && pwd -P)" ]; then
	skip 6 "a VPATH build: bench/ finds gexplore in the source tree only"
	done_testing
	exit
fi
alone() {	# alone NAME [VAR=VALUE...] ARGS...: bench/NAME with an empty environment
	local n=$1 v=()
	shift
	while [[ ${1:-} == *=* ]]; do v+=("$1"); shift; done
	env -i PATH="$PATH" HOME="${HOME:-/}" "${v[@]}" bash "$B/$n" "$@" >"$n.out" 2>"$n.err"
}
alone tui 2000
ok $? "bench/tui runs alone"
check "bench/tui: opened the result and timed the keys" grep -q 'result: 2000 samples' tui.out
alone peak PEAK_TESTS=int.add 1
ok $? "bench/peak runs alone"
if can_sample; then
	alone overhead -n 1 -- "$WL/wl-spin" 100
	ok $? "bench/overhead runs alone"
else
	skip 1 "perf_event_open of cpu-clock is not permitted here"
fi
# the model's predictor against this core's (bench/predictor): gxgrind's
# tagged predictor learns a pattern of 1 Ki outcomes and not random bits
if [ -x "$GX_BUILDDIR/grind/gxgrind-amd64-linux" ] && command -v valgrind >/dev/null &&
	command -v llvm-mca >/dev/null; then
	alone predictor -n 1
	ok $? "bench/predictor runs alone"
	awk '$1 == "pattern" && $5 + 0 <= 2 { a = 1 } $1 == "branchy" && $5 + 0 >= 35 { b = 1 }
	     END { exit !(a && b) }' predictor.out
	r=$?
	ok $r "bench/predictor: the 1 Ki pattern learnt, random bits missed one in two"
	[ $r = 0 ] || sed 's/^/# /' predictor.out predictor.err
else
	skip 2 "no gxgrind, valgrind or llvm-mca here"
fi
for n in tui peak overhead predictor; do
	[ -s "$n.err" ] && grep -i 'set GX\|not found\|no such' "$n.err" | sed 's/^/# /'
done
done_testing
