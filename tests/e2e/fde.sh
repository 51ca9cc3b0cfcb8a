#!/bin/bash
# Stripped code gets one row per function (issue 26, part 5): with no
# symbol, .eh_frame's FDEs tell where each function starts and ends, and
# the row is `module+0xSTART` with START the function's address as the
# unstripped copy's symbol table has it (nm). Recorded by gexplore and by
# perf; a stripped executable, and a stripped shared object whose exported
# function keeps its .dynsym name while its static ones are named by FDE.
. "${GX_SRCDIR}/tests/e2e/lib.sh"
can_sample || skip_all "perf_event_open of cpu-clock is not permitted here"
command -v jq >/dev/null || skip_all "jq is absent (Debian package jq)"
for t in strip nm readelf; do
	command -v $t >/dev/null || skip_all "$t is absent (Debian package binutils)"
done
CC=${CC:-cc}

strip -o wls "$WL/wl-fde"
check "wls has no symbol table" sh -c "! readelf -S wls | grep -q ' .symtab'"
addr() { nm "$1" | sed -n "s/^0*\\([0-9a-f]*\\) [Tt] $2\$/\\1/p"; }
# rows FILE: "function share line" per function row
rows() { jq -r '.functions[] | "\(.function) \(.share) \(.line)"' "$1"; }
share() { awk -v f="$2" '$1 == f { s += $2 } END { printf "%.4f\n", s + 0 }' "$1"; }

# expect ROWS MODULE UNSTRIPPED FUNCTION...: each function is one row
# MODULE+0xADDR (ADDR from nm) with a share of at least 2% and no line;
# together they hold at least 80% of MODULE's samples
expect() {
	local rf=$1 mod=$2 full=$3 fn a sum=0 n=0
	shift 3
	for fn in "$@"; do
		a=$(addr "$full" "$fn")
		if [ -z "$a" ]; then
			ok 1 "$mod: nm finds $fn in the unstripped copy"
			continue
		fi
		s=$(share "$rf" "$mod+0x$a")
		check "$mod: $fn is its own row $mod+0x$a ($s)" awk -v s="$s" 'BEGIN { exit !(s >= 0.02) }'
		is "$(awk -v f="$mod+0x$a" '$1 == f { print $3 }' "$rf")" null "$mod+0x$a: no line"
		sum=$(awk -v a="$sum" -v b="$s" 'BEGIN { print a + b }')
		n=$((n + 1))
	done
	all=$(awk -v m="$mod" 'index($1, m "+0x") == 1 { s += $2 } END { printf "%.4f\n", s + 0 }' "$rf")
	check "$mod: its $n functions hold most of its symbol-less samples ($sum of $all)" \
		awk -v a="$sum" -v b="$all" 'BEGIN { exit !(b > 0 && a >= 0.8 * b) }'
}

"$GX_BIN" record -q -o r -e cpu-clock -- ./wls 600 >/dev/null 2>&1
ok $? "record the stripped wls"
"$GX_BIN" report --json --limit 0 --by function r >r.json && rows r.json >r.rows
expect r.rows wls "$WL/wl-fde" fde_one fde_two fde_three
n=$(awk '$1 ~ /^wls\+0x/ && $2 >= 0.02' r.rows | wc -l)
is "$n" 3 "three wls rows above 2%, one per hot function"
"$GX_BIN" report r >r.txt 2>&1
fa=$(addr "$WL/wl-fde" fde_three)
check "the text report names wls+0x$fa" grep -q "wls+0x$fa " r.txt

# a stripped shared object: .dynsym names the exported function
if "$CC" -g -O1 -fno-inline -fPIC -shared -o libwlfde-full.so \
	"$GX_SRCDIR/tests/workloads/wl-fde-lib.c" 2>cc.err; then
	strip -o libwlfde.so libwlfde-full.so
	"$GX_BIN" record -q -o l -e cpu-clock -- ./wls 300 "$TMP/libwlfde.so" >/dev/null 2>&1
	ok $? "record wls with the stripped libwlfde.so"
	"$GX_BIN" report --json --limit 0 --by function l >l.json && rows l.json >l.rows
	expect l.rows libwlfde.so libwlfde-full.so lib_hot_a lib_hot_b
	check "libwlfde.so: no row named 4 KiB page-like ranges beyond the functions" \
		sh -c "[ \$(awk '\$1 ~ /^libwlfde\\.so\\+0x/ && \$2 >= 0.02' l.rows | wc -l) -eq 2 ]"
	run=$(addr libwlfde-full.so wl_fde_lib_run)
	check "wl_fde_lib_run keeps its .dynsym name" \
		awk '$1 == "wl_fde_lib_run" && $2 >= 0.02 { f = 1 } END { exit !f }' l.rows
	check "... and is no wls+0x or libwlfde.so+0x$run row" \
		sh -c "! grep -q '^libwlfde.so+0x$run ' l.rows"
else
	diag "$(head -3 cc.err)"
	skip 9 "cannot build a shared object with $CC"
fi

# a perf-written perf.data of the stripped binary reads through the same path
if [ -n "${PERF:-}" ] && "$PERF" record -q -o p.data -e cpu-clock -- ./wls 600 >/dev/null 2>&1 &&
	[ -s p.data ]; then
	mkdir -p pr && mv p.data pr/perf.data
	"$GX_BIN" report --json --limit 0 --by function pr >p.json && rows p.json >p.rows
	expect p.rows wls "$WL/wl-fde" fde_one fde_two fde_three
else
	skip 7 "perf is absent or perf record failed here"
fi
done_testing
