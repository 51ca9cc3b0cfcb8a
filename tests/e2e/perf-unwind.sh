#!/bin/bash
# Linux perf unwinds the call stacks gexplore records: with --call-graph
# dwarf (the workload has no frame pointers), launched and attached (-p),
# and with -g; perf script shows the paths gexplore's own report shows, and
# perf report --children gives main the whole run. hotspot's perfparser
# reads the dwarf stacks too where it is installed.
. "${GX_SRCDIR}/tests/e2e/lib.sh"
[ -n "$PERF" ] || skip_all "perf is absent (Debian package linux-perf)"
can_sample || skip_all "perf_event_open of cpu-clock is not permitted here"
"$GX_BIN" version --build-options | grep -q 'libunwind=yes' || skip_all "built without libunwind"

# perf_paths RESULT: perf script's call paths, caller first, from main down,
# one line per sample ("main;chain_a;..."); samples outside main left out.
perf_paths() {
	"$PERF" script -i "$1/perf.data" -F ip,sym 2>"$1.perf-err" | awk '
		function flush(i, s) {
			if (!n)
				return
			s = f[n]
			for (i = n - 1; i >= 1; i--)
				s = s ";" f[i]
			print s
			n = 0
		}
		/^[[:space:]]*$/ { flush(); next }
		{ sub(/^[[:space:]]*[0-9a-f]+[[:space:]]+/, ""); f[++n] = $0 }
		END { flush() }' | sed -n 's/^\(.*;\)\{0,1\}\(main\(;.*\)\{0,1\}\)$/\2/p'
}

# gx_paths RESULT: gexplore's own call paths from main down, "COUNT PATH",
# heaviest first.
gx_paths() {
	"$GX_BIN" report --folded "$1" | sed -n 's/^\(.*;\)\{0,1\}\(main\(;.*\)\{0,1\}\) \([0-9]*\)$/\4 \2/p' |
		sort -rn
}

# perf_children RESULT: perf report's children share of main, in percent.
perf_children() {
	"$PERF" report -i "$1/perf.data" --children --stdio -g none --sort sym 2>/dev/null |
		awk '$NF == "main" && $(NF - 1) == "[.]" { sub(/%/, "", $1); print int($1); exit }'
}

# compare NAME WANT: perf's paths of result NAME against gexplore's; WANT
# matches (grep -E) the path from main to the hot leaf.
compare() {
	local r=$1 want=$2 n gtop gcount pcount tol kids path missing=0
	n=$(gx_samples "$r")
	gx_paths "$r" >"$r.gx"
	perf_paths "$r" >"$r.perf"
	# a chunk the ring lost on a busy machine is perf's rightful warning, no
	# unwinding error: drop that block and look at the rest
	sed -E '/^Warning:$/d; /^Processed [0-9]+ events and lost [0-9]+ chunks!$/d;
		/^Check IO\/CPU overload!$/d; /^[[:space:]]*$/d' "$r.perf-err" >"$r.perf-err2"
	check "$r: perf script reads it without a word on stderr (but lost chunks)" \
		test ! -s "$r.perf-err2"
	sed 's/^/#   /' "$r.perf-err" | head -5
	read -r gcount gtop <"$r.gx"
	check "$r: gexplore's heaviest path from main is $want ($gtop)" \
		sh -c 'printf "%s\n" "$1" | grep -qxE "$2"' sh "$gtop" "$want"
	pcount=$(grep -cxF -- "$gtop" "$r.perf")
	diag "$r: $n samples; $gcount on $gtop by gexplore, $pcount by perf"
	check "$r: perf script shows that path on most samples ($pcount of $n)" \
		test $((pcount * 10)) -ge $((n * 8))
	# two unwinders of the same stack copies: the same paths, give or take
	# a sample caught in a prologue
	tol=$((n / 50 + 2))
	check "$r: perf and gexplore agree on that path's samples ($pcount vs $gcount, within $tol)" \
		test $((pcount - gcount)) -le "$tol" -a $((gcount - pcount)) -le "$tol"
	# every path perf saw at least 5% of the time is one of gexplore's
	sort "$r.perf" | uniq -c | sort -rn | awk -v n="$n" '$1 * 20 >= n { $1 = ""; sub(/^ /, ""); print }' \
		>"$r.perf-top"
	cut -d' ' -f2- "$r.gx" >"$r.gx-paths"
	while IFS= read -r path; do
		grep -qxF -- "$path" "$r.gx-paths" || { missing=$((missing + 1)); diag "$r: perf's $path"; }
	done <"$r.perf-top"
	is "$missing" 0 "$r: every path perf shows on 5% of samples is one of gexplore's"
	# main's inclusive share by perf and by gexplore, of the same file:
	# the samples outside main (the loader, the exit, the kernel's own
	# time, more of it under load: 81% once) are outside for both
	kids=$(perf_children "$r")
	gkids=$("$GX_BIN" report --json --limit 0 "$r" 2>/dev/null |
		jq '[.functions[] | select(.function == "main") | .total_share][0] // 0 | . * 100 | floor')
	check "$r: perf report --children gives main ${kids:-no share}%, gexplore $gkids% (within 3, over 50)" \
		awk -v p="${kids:-0}" -v g="${gkids:-0}" 'BEGIN { d = p - g; exit !(p >= 50 && d <= 3 && d >= -3) }'
}

NOFP_PATH="main;chain_a;chain_b;chain_c"

"$GX_BIN" record -q -o dwarf -e cpu-clock --call-graph dwarf -- "$WL/wl-nofp-chain" 300 >/dev/null 2>&1
ok $? "record --call-graph dwarf"
compare dwarf "$NOFP_PATH"

# attached: the maps are read from /proc, not reported by the kernel; the
# recording ends when the workload does
"$WL/wl-nofp-chain" 1200 &
pid=$!
sleep 0.3
timeout 30 "$GX_BIN" record -q -o attach -e cpu-clock --call-graph dwarf -p "$pid" >/dev/null 2>&1
ok $? "record --call-graph dwarf -p"
wait "$pid"
compare attach "$NOFP_PATH"

# frame pointers: the kernel's chains, which perf needs no unwinding for
"$GX_BIN" record -q -o fp -e cpu-clock -g -- "$WL/wl-deep-calls" 300 >/dev/null 2>&1
ok $? "record -g"
compare fp "main;deep_1;deep_2;deep_3;deep_4;deep_5;deep_6(;deep_rec){12,13};deep_leaf"

# hotspot's perfparser unwinds on its own (elfutils): it names the functions
# it found on the stacks in its output stream
pp=$(command -v hotspot-perfparser || ls /usr/lib/*/libexec/hotspot-perfparser \
	/usr/libexec/hotspot-perfparser /usr/lib/hotspot/hotspot-perfparser 2>/dev/null | head -1)
if [ -n "$pp" ]; then
	"$pp" --input dwarf/perf.data --output pp.out >/dev/null 2>&1
	ok $? "hotspot-perfparser reads the dwarf result"
	check "hotspot-perfparser unwinds to main through chain_a and chain_b" \
		sh -c "grep -aq chain_a pp.out && grep -aq chain_b pp.out && grep -aqw main pp.out"
else
	skip 2 "hotspot-perfparser is absent (Debian package hotspot)"
fi
done_testing
