#!/bin/bash
# gexplore tui on a real recording, headless (--keys/--dump), and its
# fallbacks: the text report when stdout is not a terminal, a clear error
# for a result that cannot be read, no crash on an empty result.
. "${GX_SRCDIR}/tests/e2e/lib.sh"
can_sample || skip_all "perf_event_open of cpu-clock is not permitted here"

# tui_hot_line RESULT FUNCTION "LINES" WHAT: the report's hottest line of
# FUNCTION is one of LINES (those of its hot loop), and the source view
# (g Enter: the hottest function) opens with the cursor on that very line.
tui_hot_line() {
	local hl
	hl=$("$GX_BIN" report --json --limit 0 "$1" 2>/dev/null |
		jq -r --arg f "$2" '.functions[] | select(.function == $f) | .line')
	check "$4: the hottest line ($hl) is one of the loop's ($3)" sh -c "echo ' $3 ' | grep -q ' ${hl:-none} '"
	"$GX_BIN" tui --keys "g Enter" "$1" >scr 2>err
	check "$4: the source view opens on it" grep -Eq "^>.*%.* ${hl:-none}\$" scr
}

"$GX_BIN" record -q -o r1 -e cpu-clock -- "$WL/wl-spin" 300 >/dev/null 2>&1
ok $? "record the spin workload"

"$GX_BIN" tui --keys "" --dump 100x40 r1 >scr 2>err
ok $? "tui --keys: exit 0"
check "summary: the command" grep -q 'Command .*wl-spin 300' scr
check "summary: no PMU said, MUX n/a" sh -c "grep -q 'PMU no' scr && grep -q 'MUX .*reliability' scr"
check "summary: the skid hint names the precise level" grep -q 'precise_ip=0' scr
# without a PMU the summary still says where the time went
hotfn=$("$GX_BIN" report --json --by function --limit 1 r1 | jq -r '.functions[0].function')
check "summary: hot functions without a PMU" grep -q 'Hot functions (by cpu-clock, self)' scr
check "summary: the report's hottest function ($hotfn) leads them" \
	sh -c "grep -A1 'Hot functions' scr | tail -1 | grep -q '% *$hotfn '"

"$GX_BIN" tui --keys "g" r1 >scr 2>err
check "grid: the workload's code on top" sh -c "sed -n 3p scr | grep -Eq 'hot_|wl-spin'"

"$GX_BIN" tui --keys "g v v v" --dump 40x12 r1 >scr 2>err
ok $? "grid at 40x12"
check "40x12: nothing wider than 40 columns" sh -c "! awk 'length > 40' scr | grep -q ."

"$GX_BIN" tui --keys "t l l l l l l l l l l Space l l l l l l l l l l Space" r1 >scr 2>err
check "timeline: a range filters the views" grep -q 'views filtered to' scr
"$GX_BIN" tui --keys "t l l l l l l l l l l Space l l l l l l l l l l Space Left g" r1 >scr 2>err
check "grid: the status names the time range" grep -q 'time 0\.' scr

"$GX_BIN" tui --keys "q" r1 >scr
ok $? "q quits"

"$GX_BIN" tui --keys "Bogus" r1 >/dev/null 2>err
is "$?" 2 "an unknown key name is a usage error"

# Not a terminal: the text report instead, said once on stderr.
"$GX_BIN" tui r1 </dev/null >rep 2>err
ok $? "tui on a pipe exits 0"
check "... prints the text report" grep -q 'wl-spin' rep
check "... says why on stderr" grep -q 'not a terminal' err

"$GX_BIN" --no-tui -- "$WL/wl-spin" 50 >rep 2>err
ok $? "gexplore --no-tui -- CMD"
check "... prints the text summary on stderr" grep -q 'wl-spin' err
check "... and nothing on CMD's stdout but CMD's" sh -c "! grep -q 'Processes' rep"

# Call stacks (-g): the call tree, the flame graph and the callers show
# the call paths of `report --folded`, with the same shares.
"$GX_BIN" record -q -g -o rcg -e cpu-clock -- "$WL/wl-spin" 300 >/dev/null 2>&1
ok $? "record the spin workload with -g"
"$GX_BIN" report --folded rcg >folded 2>err
# the hottest call path, its leaf and caller, and the share of the run
# under that path (a tree node's total: samples deeper below it, such as
# kernel frames of an interrupt, count too)
read -r leaf caller share < <(awk '{ n = $NF; t += n; sub(/ [0-9]+$/, ""); c[$0] += n }
	END { for (x in c) if (c[x] > best) { best = c[x]; b = x }
		k = split(b, f, ";"); for (x in c) if (x == b || index(x, b ";") == 1) s += c[x]
		printf "%s %s %.1f\n", f[k], f[k - 1], 100 * s / t }' folded)
check "folded: a hot leaf ($leaf, called by $caller, $share%)" test -n "$leaf" -a -n "$caller"
"$GX_BIN" tui --keys "T" --dump 120x30 rcg >scr 2>err
ok $? "call tree on a live -g recording"
check "call tree: the command and main on the hot path" sh -c "grep -q -- '- wl-spin' scr && grep -q -- '- main' scr"
check "call tree: $leaf with self and total" grep -Eq "^ +[0-9.]+%\*? +[0-9.]+% +[-+ ] $leaf " scr
tree_share=$(grep -E " [-+ ] $leaf " scr | head -1 | awk '{ sub(/%.*/, "", $2); print $2 }')
check "call tree: $leaf's total ($tree_share%) is the folded share ($share%) within 2 points" \
	awk -v a="${tree_share:-0}" -v b="$share" 'BEGIN { d = a - b; exit !(d < 2 && d > -2) }'
check "call tree: $leaf indented below its caller" awk -v l="$leaf" -v c="$caller" '
	$0 ~ " " c " " && !cc { cc = index($0, c) } $0 ~ " " l " " && cc { exit !(index($0, l) > cc) }' scr
"$GX_BIN" tui --keys "f" --dump 120x30 rcg >scr 2>err
ok $? "flame graph on a live -g recording"
check "flame: a bar for $leaf below a bar for $caller" sh -c "grep -n '|$caller' scr | head -1 | cut -d: -f1 >a && grep -n '|$leaf' scr | head -1 | cut -d: -f1 >b && [ \$(cat b) -gt \$(cat a) ]"
"$GX_BIN" tui --keys "g / $(echo "$leaf" | sed 's/./& /g')Enter c" --dump 120x30 rcg >scr 2>err
check "callers of $leaf: $caller first" sh -c "grep -A1 'Callers (calling it)' scr | grep -q ' $caller'"
"$GX_BIN" tui --keys "g" --dump 120x30 rcg >scr 2>err
check "grid: Total% and Module columns with call stacks" sh -c "sed -n 2p scr | grep -q 'Total%' && sed -n 2p scr | grep -q Module"
for k in T f "g c"; do
	"$GX_BIN" tui --keys "$k" --dump 40x12 rcg >scr 2>err
	check "40x12 '$k': nothing wider than 40 cells" sh -c "! LC_ALL=C.UTF-8 awk 'length > 40' scr | grep -q ."
done

# A time range applied, then cleared, under every view (issue 32): each
# stays on its function, or closes saying so; nothing reads freed rows
# (CI runs this under ASan).
L40=$(printf 'l %.0s' $(seq 40))
RANGE="t $L40 Space $L40 Space q"
for v in "g Enter:source" "g Enter Enter:disassembly" "g c:callers/callees" \
	"T Down Down:call tree" "f Down Down Enter:flame graph" "t Enter:of thread" \
	"g Down:bottom-up"; do
	k=${v%%:*} want=${v#*:}
	for after in "$RANGE" "$RANGE t x q"; do
		"$GX_BIN" tui --keys "$k $after" --dump 120x8 rcg >scr 2>err
		rc=$?
		title=$(sed -n 1p scr)
		fn=$(echo "$title" | sed -n 's/^gexplore [a-z/]*: \([^ ]*\) .*/\1/p')
		check "[$k] then a range${after#"$RANGE"}: exit 0, the view still open ($want) or closed saying so" \
			sh -c "[ $rc = 0 ] && { grep -q '$want' scr || grep -q 'closed .*no samples' scr; }"
		case $want in source|disassembly|callers/callees)
			check "[$k] then a range${after#"$RANGE"}: the header shows the title's function ($fn)" \
				sh -c "[ -n '$fn' ] && sed -n 2p scr | grep -qF -- '$fn'" ;;
		esac
	done
done

# Enter on a timeline thread: that thread's grid, its own samples (the
# workload's three threads share the work).
"$GX_BIN" record -q -o rth -e cpu-clock -- "$WL/wl-hot-threads" 300 >/dev/null 2>&1
samples_of() { awk '$NF == "hot_div" { print $(NF - 2); exit }' "$1"; }
"$GX_BIN" tui --keys "g" --dump 100x12 rth >all 2>err
"$GX_BIN" tui --keys "t Down Enter" --dump 100x12 rth >one 2>err
tid=$(sed -n 1p one | sed -n 's/.*of thread .* \([0-9][0-9]*\) .*/\1/p')
check "timeline Enter: the grid of the selected thread ($tid)" sh -c "[ -n '$tid' ] && tail -1 one | grep -q 'thread $tid'"
a=$(samples_of all) o=$(samples_of one)
check "... its own samples of hot_div ($o of the run's $a)" \
	sh -c "[ -n '$o' ] && [ -n '$a' ] && [ '$o' -gt 0 ] && [ '$o' -lt '$a' ]"

# Random keys on a real recording with call stacks, ranges among them.
keys="Up Down PgUp PgDn Home End Enter Left Right Esc q ? n N < > Tab H g v c d s h l L Space Space x + - T f a t t C-l"
for seed in 1 2 3 4 5 6 7 8; do
	script=$(echo "$keys" | awk -v s=$seed '{ srand(s); for (i = 0; i < 80; i++) printf "%s ", $(1 + int(rand() * NF)) }')
	"$GX_BIN" tui --keys "$script" --dump 100x20 rcg >scr 2>err
	check "random keys (seed $seed): exit 0, a screen" sh -c "[ $? = 0 ] && [ -s scr ]"
done

# Multiplexed by gexplore: reliability, intervals and a MUX grid column.
"$GX_BIN" record -q -c 1000000 -o rm -e "cpu-clock,{page-faults,minor-faults},{context-switches,task-clock}" \
	-- "$WL/wl-mux-steady" 3000 >/dev/null 2>&1
if [ -s rm/meta.json ] && grep -q '"slice_log"' rm/meta.json; then
	"$GX_BIN" tui --keys "" rm >scr 2>err
	check "mux: the summary shows the run's reliability" grep -Eq 'MUX +reliability [0-9.]+ \(' scr
	check "mux: estimates with 95% intervals" grep -Eq 'page-faults .*\[.*-.*\] x' scr
	"$GX_BIN" tui --keys "g v v v" rm >scr 2>err
	check "mux: the grid has a MUX column" sh -c "sed -n 2p scr | grep -q MUX"
else
	skip 3 "this recording was not multiplexed by gexplore"
fi

# A stripped binary: no names (stripped+0xADDR rows), no lines (said), and
# the disassembly of the symbol-less range.
cp "$WL/wl-spin" stripped && strip stripped
"$GX_BIN" record -q -o rs -e cpu-clock -- ./stripped 200 >/dev/null 2>&1
"$GX_BIN" tui --keys "g Enter" rs >scr 2>err
ok $? "stripped: drill-down does not crash"
check "stripped: no line information said" grep -q 'no line information' scr
"$GX_BIN" tui --keys "g d" rs >scr 2>err
check "stripped: the range's disassembly, with samples" \
	sh -c "head -1 scr | grep -q 'disassembly: stripped+0x' && grep -Eq '^[> ] *[0-9.]+%.* [0-9a-f]+ ' scr"

# Source moved away after the build: said, with the sampled lines kept.
if command -v cc >/dev/null; then
	mkdir src && cat >src/gone.c <<'SRC'
volatile unsigned long sink;
__attribute__((noinline)) void spin_gone(void)
{
	for (unsigned long i = 0; i < 150000000ul; i++)
		sink += i;
}
int main(void) { spin_gone(); return 0; }
SRC
	cc -g -O1 -o gone src/gone.c && rm -r src
	"$GX_BIN" record -q -o rg -e cpu-clock -- ./gone >/dev/null 2>&1
	"$GX_BIN" tui --keys "g Enter" rg >scr 2>err
	check "missing source: said in the view" grep -q 'not on this machine' scr
	# Which line of the loop (4: control, 5: body) gets the samples is the
	# CPU's and compiler's business (skid); the view must open on the
	# line the recording has most samples on, whichever it is.
	tui_hot_line rg spin_gone "4 5" "missing source"
	# The same with every sample placed on the loop's control line: a
	# synthetic recording at the address of spin_gone's increment.
	if command -v nm >/dev/null && command -v addr2line >/dev/null; then
		read -r a n < <(nm -S gone | awk '$4 == "spin_gone" { print $1, $2 }')
		off=$(for i in $(seq 0 $((16#$n - 1))); do printf '0x%x\n' $((16#$a + i)); done |
			addr2line -e gone | awk -F: '{ sub(/ .*/, "", $2) } $2 == 5 { body = 1 }
				body && $2 == 4 { print NR - 1; exit }')
		"$GEN" -o rgc -b "$PWD/gone" <<EOF_S
model skl
smt off
process 1000 gone
function spin_gone+${off:-0}
CPU_CLK_UNHALTED.THREAD 100000000
EOF_S
		tui_hot_line rgc spin_gone "4" "samples on the control line"
	else
		skip 2 "nm or addr2line is absent (Debian package binutils)"
	fi
else
	skip 5 "no C compiler (Debian package gcc)"
fi

# An aarch64 binary (cross-built), in a synthetic Neoverse N1 result: its
# disassembly is A64.
if command -v aarch64-linux-gnu-gcc >/dev/null; then
	cat >a64.c <<'EOF_C'
__attribute__((noinline)) long hot_loop(const long *p, long n)
{
	long s = 0;

	for (long i = 0; i < n; i++)
		s += p[i] * 3;
	return s;
}

int main(void)
{
	static long a[1000];

	return (int)hot_loop(a, 1000);
}
EOF_C
	aarch64-linux-gnu-gcc -O2 -g -no-pie -o a64 a64.c
	"$GEN" -o a64r -b "$PWD/a64" <<'EOF_S'
model n1
smt off
process 1000 a64
function hot_loop
CPU_CYCLES 600000000
INST_RETIRED 400000000
EOF_S
	ok $? "a synthetic aarch64 result"
	"$GX_BIN" tui --keys "g Enter Enter" --dump 100x24 a64r >scr 2>err
	check "aarch64 disassembly: the loop's load" grep -Eq ' ldr x[0-9]+, \[x[0-9]+\]' scr
	check "... its branch back and the return" sh -c "grep -Eq ' b\.(ne|lt|gt|le|ge|hi|lo|cc|cs)? ?#0x' scr && grep -q ' ret\$' scr"
	check "... with source lines" grep -Eq '[0-9a-f]{6} +[0-9]+ ldr x' scr
else
	skip 4 "no aarch64 cross compiler (Debian package gcc-aarch64-linux-gnu)"
fi

# --baseline: two synthetic Skylake results, hot_inner's CPI 1.5 -> 1.2
gen_skl_funcs old 400000000 && gen_skl_funcs new 500000000
ok $? "two synthetic results to compare"
"$GX_BIN" tui --baseline old --keys "g" --dump 100x10 new >scr 2>err
ok $? "tui --baseline"
check "the grid has delta columns" grep -Eq 'dCycles% +CPI +dCPI' scr
check "hot_inner: CPI 1.20, 0.30 below the baseline" grep -Eq ' 1\.20 +-0\.30 .* hot_inner$' scr
check "hot_outer: unchanged" grep -Eq ' 1\.00 +\+0\.00 .* hot_outer$' scr
"$GX_BIN" tui --baseline old --keys "" --dump 100x10 new >scr 2>err
check "the summary names the baseline and the run's CPI change" grep -q 'CPI 1.11, baseline 1.25 (-11.1%)' scr
"$GX_BIN" tui --baseline no-such-result --keys "" --dump 80x10 new >scr 2>err
is $? 2 "a baseline that cannot be read: exit 2"
check "... saying so" grep -q 'baseline' err

# --baseline of the same program in another directory: rows match by file name
if can_sample; then
	mkdir -p dir-a dir-b && cp "$WL/wl-spin" dir-a/ && cp "$WL/wl-spin" dir-b/
	"$GX_BIN" record -q -o ba -e cpu-clock -- "$TMP/dir-a/wl-spin" 150 >/dev/null 2>&1
	"$GX_BIN" record -q -o bb -e cpu-clock -- "$TMP/dir-b/wl-spin" 150 >/dev/null 2>&1
	"$GX_BIN" tui --baseline ba --keys "g" --dump 100x10 bb >scr 2>err
	check "another directory: hot_inner has a change, not 'new'" sh -c "grep ' hot_inner\$' scr | grep -vq ' new '"
else
	skip 1 "perf_event_open of cpu-clock is not permitted here"
fi

# Inlined code: the summary says how it is credited, only where some took samples.
"$GX_BIN" record -q -o inl -e cpu-clock -- "$WL/wl-sym-inline" 200000000 >/dev/null 2>&1
"$GX_BIN" tui --keys "" --dump 100x40 inl >scr 2>err
check "summary: inlined code took samples: the hint says so, with --no-inline" \
	sh -c "tr -s ' \n' ' ' <scr | grep -q 'Inlined code is credited to the inlined function ([0-9.]*% of cpu-clock here); --no-inline credits the function it was inlined into'"
"$GX_BIN" tui --no-inline --keys "" --dump 100x40 inl >scr 2>err
check "summary with --no-inline: no such hint" sh -c "! grep -q 'Inlined code' scr"
gen_skl_funcs fn 400000000 >/dev/null	# samples in two out-of-line functions only
"$GX_BIN" tui --keys "" --dump 100x40 fn >scr 2>err
check "summary with no sample in inlined code: no such hint" sh -c "! grep -q 'Inlined code' scr"

# An empty result and a broken one.
"$GX_BIN" record -q -o empty -e cpu-clock -c 1000000000 -- true >/dev/null 2>&1
"$GX_BIN" tui --keys "g Enter d t" empty >scr 2>err
ok $? "empty result: no crash"
check "empty result: a message" grep -Eq 'no rows|no sample|no function rows|no samples' scr
# what a newcomer hit (issue 41): one thread is "1 thread"; a key of another
# view says so; the module column as wide as its names on a wide screen
"$GX_BIN" tui --keys "t" --dump 100x20 r1 >scr 2>/dev/null
check "timeline of one thread: '1 thread', not '1 threads'" \
	sh -c "head -1 scr | grep -q 'timeline: 1 thread ' && ! grep -q '1 threads' scr"
"$GX_BIN" tui --keys "g d c" --dump 100x20 r1 >scr 2>/dev/null
check "c in the disassembly: says it does nothing there" \
	sh -c "tail -1 scr | grep -q 'c does nothing in the disassembly view'"
"$GX_BIN" tui --keys "g" --dump 160x20 r1 >scr 2>/dev/null
check "grid at 160 columns: ld-linux-x86-64.so.2 whole in the module column" \
	sh -c "! grep -q 'ld-linux' scr || grep -q 'ld-linux-x86-64.so.2 ' scr"
"$GX_BIN" tui --keys "?" --dump 80x20 r1 >scr 2>/dev/null
check "help cut at 80x20: the status line says there is more" \
	sh -c "tail -1 scr | grep -Eq 'rows 1-[0-9]+ of [0-9]+: Down more, q closes'"

# a thread that exec'd is one row (issue 45: sh then wl-spin were two rows
# of one tid, and its samples drawn on the first)
"$GX_BIN" record -q -o ex -e cpu-clock -- sh -c "'$WL/wl-spin' 60 >/dev/null; exec '$WL/wl-spin' 60" \
	>/dev/null 2>&1
"$GX_BIN" tui --keys "t" --dump 120x12 ex >scr 2>/dev/null
check "timeline: sh and the program it exec'd, one row (2 threads, not 3)" \
	sh -c "head -1 scr | grep -q 'timeline: 2 threads'"
# (its name is both only where sh took a sample before its exec: not asserted)

mkdir bad && echo garbage >bad/perf.data
"$GX_BIN" tui --keys "" bad >scr 2>err
is "$?" 2 "unreadable result: exit 2"
check "... with a message" grep -q 'gexplore:' err
done_testing
