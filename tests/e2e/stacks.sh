#!/bin/bash
# --call-graph dwarf stacks unwound on several threads give what one
# thread gives, byte for byte (threads, processes, a perf-written file),
# libdw's CFI steps give libunwind's paths, and the inclusive shares of a
# perf-written recording are perf report --children's within one point.
. "${GX_SRCDIR}/tests/e2e/lib.sh"
can_sample || skip_all "perf_event_open of cpu-clock is not permitted here"
"$GX_BIN" version --build-options | grep -q 'libunwind=yes' || skip_all "built without libunwind"

# same RESULT: every output of --jobs 1 and --jobs N (2, 3) the same
same() {
	local r=$1 j fmt
	for fmt in "" --folded "--json --limit 0 --by callpath" "--csv --limit 0 --by line"; do
		# shellcheck disable=SC2086
		"$GX_BIN" report --jobs 1 $fmt "$r" >"$r.j1" 2>"$r.e1"
		for j in 2 3; do
			# shellcheck disable=SC2086
			"$GX_BIN" report --jobs $j $fmt "$r" >"$r.j$j" 2>"$r.e$j"
			check "$r: report ${fmt:-text} --jobs $j is --jobs 1's, byte for byte" \
				cmp -s "$r.j1" "$r.j$j"
		done
	done
	check "$r: its folded stacks are not empty" test -s "$r.j1"
}

"$GX_BIN" record -q -o thr -e cpu-clock --call-graph dwarf,4096 -- "$WL/wl-hot-threads" 300 \
	>/dev/null 2>&1
ok $? "record --call-graph dwarf of three threads"
same thr
"$GX_BIN" record -q -o frk -e cpu-clock --call-graph dwarf,4096 -- "$WL/wl-fork" 3 150 \
	>/dev/null 2>&1
ok $? "record --call-graph dwarf of four processes"
same frk
"$GX_BIN" report --folded frk >frk.folded
check "frk: the children's stacks are unwound (child_spin under main)" \
	grep -q '^wl-fork-[0-9];_start;.*;main;child_spin [0-9]*$' frk.folded

# libunwind's stepper (GX_UNWIND=libunwind) and libdw's CFI: the same paths
# on at least 98% of the samples
"$GX_BIN" report --jobs 1 --folded thr | sort >thr.cfi
GX_UNWIND=libunwind "$GX_BIN" report --jobs 1 --folded thr | sort >thr.lu
n=$(awk '{s += $NF} END {print s + 0}' thr.lu)
common=$(join -j1 <(sed 's/ \([0-9]*\)$/\t\1/' thr.cfi | sort -t"$(printf '\t')" -k1,1) \
	<(sed 's/ \([0-9]*\)$/\t\1/' thr.lu | sort -t"$(printf '\t')" -k1,1) -t"$(printf '\t')" |
	awk -F'\t' '{s += ($2 < $3 ? $2 : $3)} END {print s + 0}')
diag "thr: $common of $n samples on the same path with both steppers"
check "thr: libdw's CFI steps and libunwind's give the same path on 98% of samples ($common of $n)" \
	test $((common * 100)) -ge $((n * 98)) -a "$n" -gt 0

# perf's own recording and report
if [ -z "$PERF" ]; then
	skip 12 "perf is absent (Debian package linux-perf)"
elif ! "$PERF" record -q -o perf.data --call-graph dwarf,8192 -F 2000 -- "$WL/wl-deep-calls" 400 \
	>/dev/null 2>perf.err || [ ! -s perf.data ]; then
	skip 12 "perf cannot record here: $(head -1 perf.err)"
else
	ok 0 "perf record --call-graph dwarf of wl-deep-calls"
	same perf.data
	# perf's children share of each function, then gexplore's total share
	# of the out-of-line function (perf's symbol view)
	"$PERF" report -i perf.data --children --stdio -g none --sort sym 2>/dev/null |
		awk '$3 == "[.]" && $4 ~ /^(main|deep_[0-9]|deep_rec|deep_leaf)$/ {
			sub(/%/, "", $1); print $4, $1 }' | sort >perf.kids
	"$GX_BIN" report --no-inline --csv --limit 0 --sort total perf.data |
		awk -F, 'NR > 1 && $1 ~ /^(main|deep_[0-9]|deep_rec|deep_leaf)$/ { print $1, $4 }' |
		sort >gx.kids
	sed 's/^/#   perf /' perf.kids
	sed 's/^/#   gexplore /' gx.kids
	bad=$(join perf.kids gx.kids | awk '{ d = $2 - $3; if (d < 0) d = -d; if (d > 1) print $1 }')
	nj=$(join perf.kids gx.kids | wc -l)
	check "perf.data: perf and gexplore both show the 9 functions of the chain ($nj)" test "$nj" -eq 9
	check "perf.data: every inclusive share within one point of perf --children's (${bad:-all})" \
		test -z "$bad"
fi
done_testing
