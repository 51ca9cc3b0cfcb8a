#!/bin/bash
# Where the loads wait (issue 43): memory-access samples written with known
# data sources, weights and data addresses (tests/gen/gen-memdata, as
# Intel's load-latency event records them) read by report: the total
# weight, and the samples and weight of every data source, are perf's
# (perf script's per-sample fields summed, perf mem report's rows); the
# data addresses land on wl-memobj's variables; the cache line two
# threads' HITM loads share is named; a weight_struct's parts are summed.
# A copy perf itself wrote (perf inject) reads the same.
. "${GX_SRCDIR}/tests/e2e/lib.sh"
command -v jq >/dev/null || skip_all "jq is absent (Debian package jq)"
GENM="$GX_BUILDDIR/tests/gen/gen-memdata"
BIN="$WL/wl-memobj"

# data_src of Intel's load-latency records (op, level, snoop, TLB)
L1=0x68100142 LFB=0x68100242 L2=0x68100442 L3=0x68100842 L3HITM=0x68800842
RAM=0x90401042 RHITM=0x68808042
cat >spec <<SPEC
process 4242 wl-memobj
map 555555a00000 21000 3 [heap]
map 7ffffffde000 21000 3 [stack]
sample mo_sum &mo_table 12 $L1 x40
sample mo_sum+4 &mo_table+4096 40 $LFB x6
sample mo_sum+8 &mo_static+64 17 $L2 x9
sample mo_sum+8 &mo_static+8192 55 $L3 x5
sample mo_sum+12 &mo_table+20000 310 $RAM x3
sample main 0x555555a00100 14 $L1 x4
sample main 0x7ffffffde800 9 $L1 x2
thread 4243
sample mo_bump_a &mo_pair 90 $L3HITM x7
thread 4244
sample mo_bump_b &mo_pair+8 95 $L3HITM x5
sample mo_bump_b &mo_pair+8 240 $RHITM x2
SPEC
"$GENM" -o mem.data -b "$BIN" <spec
ok $? "memory samples written"
"$GX_BIN" report --json mem.data >r.json 2>err
ok $? "report reads them"
check "report is silent on stderr" test ! -s err

# ---- the totals and each data source against perf's
total=$(( 40*12 + 6*40 + 9*17 + 5*55 + 3*310 + 4*14 + 2*9 + 7*90 + 5*95 + 2*240 ))
is "$(jq .memory.weight r.json)" "$total" "total weight: the samples' latencies summed"
is "$(jq .memory.samples r.json)" 83 "every sample counted"
is "$(jq .memory.hitm r.json)" 14 "HITM loads: local and remote"
# gexplore's sources as "text|samples|weight", sorted
jq -r '.data_sources[] | "\(.source)|\(.samples)|\(.weight)"' r.json | sort >gx.src
is "$(wc -l <gx.src)" 6 "six data sources"
if command -v perf >/dev/null && perf script -i mem.data -F weight,data_src >ps 2>/dev/null &&
   [ -s ps ]; then
	# perf script: "DATA_SRC |OP LOAD|LVL L1 hit|SNP ...|BLK  N/A  WEIGHT" a sample
	awk -F'|' '{ k = split($NF, a, " "); lvl = substr($3, 5); n[lvl]++; w[lvl] += a[k] }
		END { for (l in n) printf "%s|%d|%d\n", l, n[l], w[l] }' ps | sort >perf.src
	is "$(cat gx.src)" "$(cat perf.src)" "each source's samples and weight: perf script's summed"
	perf mem report -i mem.data --stdio --sort mem >pm 2>/dev/null
	is "$(sed -n 's/^# Total weight : //p' pm)" "$total" "perf mem report's total weight"
	# perf mem report's rows: overhead (the weight's share), samples, access
	sed -n 's/^ *\([0-9.]*\)% *\([0-9]*\)  \(.*[^ ]\) *$/\3|\2|\1/p' pm | sort >pm.rows
	jq -r --argjson t "$total" \
		'.data_sources[] | "\(.source)|\(.samples)|\(.weight * 10000 / $t | round / 100)"' \
		r.json | awk -F'|' '{ printf "%s|%s|%.2f\n", $1, $2, $3 }' | sort >gx.rows
	is "$(cat gx.rows)" "$(cat pm.rows)" "perf mem report's rows: samples and weight share"
	# a file perf wrote (no load-latency hardware here: perf inject
	# rewrites ours, its own header, attrs and features): read alike
	if perf inject -i mem.data -o mem-perf.data 2>/dev/null; then
		"$GX_BIN" report --json mem-perf.data >rp.json 2>/dev/null
		jq -r '.data_sources[] | "\(.source)|\(.samples)|\(.weight)"' rp.json | sort >gxp.src
		is "$(cat gxp.src)" "$(cat gx.src)" "a perf-written copy (perf inject): the same sources"
		is "$(perf mem report -i mem-perf.data --stdio --sort mem 2>/dev/null |
			sed -n 's/^# Total weight : //p')|$(jq .memory.weight rp.json)" "$total|$total" \
			"... and perf mem report's total weight, gexplore's"
	else
		skip 2 "perf inject could not rewrite the file"
	fi
	# the variables perf names (it leaves .bss past the file's pages
	# unnamed, 0x...): the samples of each, summed over its offsets
	perf report -i mem.data --stdio --mem-mode --sort symbol_daddr -F sample,symbol_daddr \
		2>/dev/null | awk '$2 == "[.]" && $3 ~ /\+0x/ { sub(/\+0x.*/, "", $3); n[$3] += $1 }
		END { for (s in n) print s "|" n[s] }' | sort >perf.obj
	jq -r --slurpfile p <(cut -d'|' -f1 perf.obj | jq -R . | jq -s .) \
		'.memory.data_objects[] | select(.object as $o | $p[0] | index($o)) |
		"\(.object)|\(.samples)"' r.json | sort >gx.obj
	is "$(grep -v mo_static gx.obj)" "$(grep -v mo_static perf.obj)" \
		"mo_table and mo_pair: perf's samples"
	# mo_static: perf names the 9 in the file's last page, not the 5 in
	# the anonymous map past it (0x...); gexplore names all 14
	is "$(grep mo_static perf.obj)" "mo_static|9" "perf names 9 of mo_static's"
	is "$(grep mo_static gx.obj)" "mo_static|14" "gexplore all 14, the .bss past the file too"
else
	skip 8 "perf (linux-perf) cannot read perf.data here"
fi
"$GX_BIN" report mem.data --by data-source >t.txt 2>&1
ok $? "report --by data-source"
check "the text names perf's Memory access, with mean latency" \
	grep -Eq '^ +36\.9% +17 +1,380 +81\.2  L3 hit$' t.txt
grep 'L3 hit' t.txt | sed 's/^/# /'
check "text: functions by their loads' latency, with where most was served" \
	grep -Eq '^ +7 +955 +136\.4  Remote Cache \(1 hop\) hit +mo_bump_b$' t.txt
sed -n '/^Functions by/,/^$/p' t.txt | sed 's/^/# /'

# ---- per function: its own sources
is "$(jq -c '[.functions[] | select(.function == "mo_bump_b") | .data_sources[] |
	[.source, .samples, .weight]][]' r.json | tr '\n' ' ')" \
	'["Remote Cache (1 hop) hit",2,480] ["L3 hit",5,475] ' "mo_bump_b's sources"
is "$(jq -c '[.functions[] | select(.function == "mo_sum") | .data_sources[].samples] | add' \
	r.json)" 63 "mo_sum's loads"

# ---- the weight is a value of the profile (issue 45): EVENT:weight, in
# the same arrays as the event's, each function's its sources' weights
is "$(jq -c '.events[] | select(.name == "mem-loads:weight") | [.unit, .source, .kind, .estimated]' \
	r.json)" "[\"cycles\",\"weight\",\"sampled\",$total]" \
	"the value mem-loads:weight: cycles, the total weight (perf mem report's)"
wi=$(jq '[.events[].name] | index("mem-loads:weight")' r.json)
jq -r --argjson i "$wi" '.functions[] |
	"\(.function) \(.estimated[$i]) \([.data_sources[].weight] | add)"' r.json >fw
is "$(wc -l <fw)" 4 "four functions with weights"
is "$(awk '$2 != $3' fw)" "" "each function's weight value: its data sources' weights summed"
is "$(awk '{ s += $2 } END { print s }' fw)" "$total" "the functions' weights add up to the total"
"$GX_BIN" report --folded --event mem-loads:weight mem.data >f.txt 2>/dev/null
is "$(awk '{ s += $NF } END { print s }' f.txt)" "$total" \
	"--folded --event mem-loads:weight: the stacks weigh the total weight"
check "folded: mo_bump_b's stack weighs its 955 cycles" grep -qx 'wl-memobj;mo_bump_b 955' f.txt
"$GX_BIN" check --max "mem-loads:weight=$((total + 1))" mem.data >ck1 2>&1
ok $? "check --max mem-loads:weight just above the total: passes"
"$GX_BIN" check --max "mem-loads:weight=$((total - 1))" mem.data >ck2 2>&1
is $? 1 "check --max mem-loads:weight just below it: fails"
check "check names the value and its total" grep -q "FAIL  mem-loads:weight of the run = 3.737 k" ck2
# a second recording: mo_sum's RAM loads doubled, the threads gone
cat >spec4 <<SPEC
process 4242 wl-memobj
sample mo_sum &mo_table 12 $L1 x40
sample mo_sum+12 &mo_table+20000 310 $RAM x6
sample main 0x555555a00100 14 $L1 x4
SPEC
"$GENM" -o mem2.data -b "$BIN" <spec4
"$GX_BIN" diff --json mem.data mem2.data >d.json 2>/dev/null
ok $? "diff of two memory recordings"
dw() { jq -c --arg s "$1" --arg r "$2" '.entries[] | select(.scope == $s and .row == $r and
	.metric == "mem-loads:weight") | [.a, .b]' d.json; }
is "$(dw run '')" "[$total,2396]" "diff: the run's weight value, a and b"
is "$(dw function mo_sum)" "[2078,2340]" "diff: mo_sum's weight value"
if "$GX_BIN" version --build-options 2>/dev/null | grep -q 'pprof=yes' &&
	command -v protoc >/dev/null && command -v python3 >/dev/null; then
	PROTO_DIR=/usr/share/gocode/src/github.com/google/pprof/proto
	[ -f "$PROTO_DIR/profile.proto" ] || PROTO_DIR="$GX_SRCDIR/src/export"
	"$GX_BIN" report --format pprof -o p.pb.gz mem.data 2>/dev/null
	python3 "$GX_SRCDIR/tests/e2e/pprof-decode.py" p.pb.gz "$PROTO_DIR" >pb.json 2>/dev/null
	is "$(jq -r '.totals[.types | index("mem-loads:weight/count")]' pb.json)" "$total" \
		"pprof: the sample type mem-loads:weight sums to the total weight"
else
	skip 1 "no pprof export or no protoc and python3 to decode it"
fi

# ---- data objects: the variables the addresses fall in
obj() { jq -r --arg o "$1" '.memory.data_objects[] | select(.object == $o) |
	"\(.kind) \(.samples) \(.weight)"' r.json; }
is "$(obj mo_table)" "global 49 1650" "mo_table: its samples, a global"
is "$(obj mo_static)" "static 14 428" "mo_static (in .bss, past the file's pages): a static"
is "$(obj mo_pair)" "global 14 1585" "mo_pair"
is "$(obj '[heap]')" "heap 4 56" "the [heap] mapping"
is "$(obj '[stack]')" "stack 2 18" "the [stack] mapping"
pair=$(nm "$BIN" | awk '$3 == "mo_pair" { print $1 }')
is "$(jq -r '.memory.data_objects[] | select(.object == "mo_pair") | .address' r.json)" \
	"$(( 0x555555554000 + 0x$pair ))" "mo_pair's address: the symbol's, loaded"

# ---- the cache line two threads' HITM loads share (false sharing)
is "$(jq -c '.memory.cache_lines[0] | [.object, .shared, .hitm_threads, .offsets, .tids,
	.hitm_local, .hitm_remote]' r.json)" '["mo_pair",true,2,[0,8],[4243,4244],12,2]' \
	"the first cache line: mo_pair's, HITMs from two threads on different words"
is "$(jq '.memory.cache_lines[0].address' r.json)" "$(( (0x555555554000 + 0x$pair) & ~63 ))" \
	"its address"
is "$(jq '[.memory.cache_lines[] | select(.shared)] | length' r.json)" 1 "one shared line"
"$GX_BIN" report mem.data --by cacheline >c.txt 2>&1
check "text: the line is SHARED, named by its object" grep -q 'mo_pair  SHARED$' c.txt
"$GX_BIN" report mem.data --by data-object >o.txt 2>&1
check "text: data objects with their kind" grep -Eq 'static +mo_static +\(wl-memobj\)' o.txt

# ---- CSV
"$GX_BIN" report --csv --by data-source mem.data >s.csv 2>/dev/null
is "$(sed -n '1p;/^L3 hit,/p' s.csv | tr '\n' ' ')" \
	"source,samples,weight,mean L3 hit,17,1380,81.1765 " "CSV: the data sources"
"$GX_BIN" report --csv --by cacheline mem.data >l.csv 2>/dev/null
is "$(sed -n 2p l.csv | cut -d, -f3,8-)" "mo_pair,12,2,2,1" \
	"CSV: the shared line first (object, HITMs local and remote, threads, shared)"

# ---- the TUI's source view: each line's mean latency and data source
cat >spec3 <<SPEC
process 4242 wl-memobj
sample mo_sum &mo_table 12 $L1 x40
sample mo_sum+8 &mo_static+64 55 $L3 x5
SPEC
"$GENM" -o tui.data -b "$BIN" <spec3
"$GX_BIN" tui --keys "g Enter" --dump 110x24 tui.data >scr 2>/dev/null
check "tui source: the hottest line's loads, 12 cycles from L1" grep -Eq '^>.* 12c L1 hit +[0-9]+ ' scr
check "tui source: another line's, 55 cycles from L3" grep -Eq ' 55c L3 hit +[0-9]+ ' scr
"$GX_BIN" tui --keys "g Enter Enter" --dump 110x24 tui.data >scr3 2>/dev/null
check "tui disassembly: the sampled instruction's mean latency" grep -Eq '^>.* 12c [a-z]' scr3
"$GX_BIN" tui --keys "g Enter" --dump 80x24 tui.data >scr2 2>/dev/null
check "tui source: no room under 100 columns, no column" sh -c '! grep -q "c L1 hit" scr2'

# ---- the TUI grid's Weight column is the value: a time range narrows it
# (the run's first samples are mo_sum's 12-cycle loads from L1)
"$GX_BIN" tui --keys "g" --dump 100x8 mem.data >g1 2>/dev/null
check "tui grid: mo_sum's Weight, its loads' latency" grep -Eq '^> .* 63 +2078c +wl-memobj +mo_sum$' g1
L20=$(printf 'l %.0s' $(seq 20))
"$GX_BIN" tui --keys "t $L20 Space $L20 Space Left g" --dump 100x8 mem.data >g2 2>/dev/null
check "tui grid after a time range: the Weight of its samples alone, 12 cycles each" \
	sh -c "awk '/ mo_sum\$/ && \$3 > 0 && \$3 < 63 && \$4 == 12 * \$3 \"c\"' g2 | grep -q ."
sed -n 3p g2 | sed 's/^/# /'

# ---- weight_struct: the latency is var1; var2 and var3 are summed apart
cat >spec2 <<SPEC
process 4300 wl-memobj
sample mo_sum &mo_table 30 $L1 5 7 x3
sample mo_sum &mo_table+64 200 $RAM 250 11 x2
SPEC
"$GENM" -s -o ws.data -b "$BIN" <spec2
"$GX_BIN" report --json ws.data >ws.json 2>/dev/null
is "$(jq -c '.memory | [.weight, .ins_lat, .retire_lat]' ws.json)" '[490,515,43]' \
	"WEIGHT_STRUCT: latency, ins_lat and retire_lat summed apart"
is "$(jq '.events[] | select(.name == "mem-loads:weight") | .estimated' ws.json)" 490 \
	"WEIGHT_STRUCT: the weight value is the latency (var1) alone"
if command -v perf >/dev/null && perf script -i ws.data -F weight >pw 2>/dev/null && [ -s pw ]; then
	is "$(awk '{ s += $1 } END { print s }' pw)" 490 "perf script's weight: var1 alone"
else
	skip 1 "perf cannot read perf.data here"
fi

# ---- no memory samples: the report says how to get them
"$GX_BIN" report "$GX_FIXTURES/lpd-sleep.perf.data" --by data-source >n.txt 2>&1 ||
	echo "# fixture absent" >n.txt
if grep -q 'fixture absent' n.txt; then
	skip 1 "the fixtures are absent"
else
	check "none: says record --mem or --model" grep -q 'record --mem.*--model' n.txt
fi
done_testing
