#!/bin/bash
# record --model's threads, processes and call graph (issue 39, parts 4
# and 5). tests/workloads/wl-model-graph: three threads alive at once, a
# child forked without exec, then main -> a -> b -> work and rec, which
# calls itself 4 times. Without -g: a thread row each (4 in the parent, one
# in the child) and a process row each, named by their command line (sh
# and true too, run by a shell);
# the child's counts its own (not the copy of its parent's Valgrind gives
# it); `check --per thread` checks each thread. With -g: main's inclusive
# share its self share and its callees' totals, a's total its own and b's, `--by callpath`
# and `--folded` show main;a;b, rec once a stack (its total its self).
. "$GX_SRCDIR/tests/e2e/lib.sh"

WLG="$WL/wl-model-graph"
need_model
[ -x "$WLG" ] || skip_all "no $WLG (make check builds it)"

# ---- threads and processes
"$GX_BIN" record -q --model -o r -- "$WLG" >r.out 2>&1
is "$?" 0 "record --model: exit 0"
grep -q '"callgraph": "none"' r/meta.json
ok $? "meta.json: no call graph recorded without -g"
"$GX_BIN" report r --by thread --csv --event instructions:exact >thr.csv 2>/dev/null
"$GX_BIN" report r --by process --csv --event instructions:exact >proc.csv 2>/dev/null
ppid=$(awk -F, 'NR == 2 { print $1 }' proc.csv)
cpid=$(awk -F, 'NR == 3 { print $1 }' proc.csv)
is "$(awk -F, 'NR > 1' proc.csv | wc -l)" 2 "two process rows (the parent and its forked child)"
is "$(awk -F, 'NR > 1 && $2 == "wl-model-graph"' proc.csv | wc -l)" 2 \
	"... each named by its command line (wl-model-graph)"
is "$(awk -F, -v p="$ppid" 'NR > 1 && $2 == p' thr.csv | wc -l)" 4 \
	"the parent: 4 thread rows (main and its 3 threads)"
is "$(awk -F, 'NR > 1 { print $1 }' thr.csv | sort -u | wc -l)" 5 "5 thread rows, 5 tids"
is "$(awk -F, -v p="$cpid" 'NR > 1 && $2 == p' thr.csv | wc -l)" 1 "the child: one thread row"
# the child ran child_work (80,000 iterations of work's 6 instructions) and
# its exit; the copy of its parent's 130 K instructions of start-up and the
# threads' 900 K is not its own
child=$(awk -F, -v p="$cpid" 'NR > 1 && $2 == p { print $6 }' thr.csv)
[ "${child:-0}" -gt 400000 ] && [ "${child:-0}" -lt 600000 ]
ok $? "the child's instructions its own: $child (child_work's 480 K and its exit)"
worker=$(awk -F, -v p="$ppid" 'NR > 1 && $2 == p && $1 != p { print $6 }' thr.csv)
[ "$(printf '%s\n' "$worker" | wc -l)" = 3 ] &&
	printf '%s\n' "$worker" | awk '$1 < 290000 || $1 > 320000 { bad = 1 } END { exit bad }'
ok $? "each worker thread: its 50,000 iterations (300 K instructions): $(echo $worker)"
grep -q 'the workload ran 5 threads (processes included)' r/meta.json
ok $? "meta.json: 5 threads ran"
"$GX_BIN" check r --per thread --top 5 --max CPI=1000 >chk.out 2>&1
is "$?" 0 "check --per thread: exit 0"
is "$(grep -c '^PASS  CPI of thread wl-model-graph' chk.out)" 5 "... a check each of the 5 threads"
[ "$(grep '^PASS' chk.out | awk '{ print $7 }' | sort -u | wc -l)" -ge 2 ]
ok $? "... each thread its own CPI, not the first's: $(grep '^PASS' chk.out | awk '{ print $7 }' | tr '\n' ' ')"
"$GX_BIN" check r --per process --max CPI=1000 >chkp.out 2>&1
is "$?" 0 "check --per process: exit 0"

# a shell running the workload and true: each process its own row, named
# by its own command line
"$GX_BIN" record -q --model -o s -- sh -c '"$0"; /bin/true; :' "$WLG" >s.out 2>&1
is "$?" 0 "record --model of sh -c: exit 0"
"$GX_BIN" report s --by process --csv >sproc.csv 2>/dev/null
is "$(awk -F, 'NR > 1 { print $2 }' sproc.csv | sort | tr '\n' ' ')" \
	"sh true wl-model-graph wl-model-graph " "sh, the workload, its child and true: a process row each"

# ---- -g: the call graph from callgrind's calls
"$GX_BIN" record -q --model -g -o g -- "$WLG" >g.out 2>&1
is "$?" 0 "record --model -g: exit 0"
grep -q '"callgraph": "callgrind"' g/meta.json
ok $? "meta.json: the call graph callgrind's"
"$GX_BIN" report g --csv --limit 0 --sort total >g.csv 2>/dev/null
# function,module,self_pct,total_pct,...
row() { awk -F, -v f="$1" '$1 == f { print $3, $4; exit }' g.csv; }
read -r mself mtotal <<<"$(row main)"
read -r aself atotal <<<"$(row a)"
read -r bself btotal <<<"$(row b)"
read -r rself rtotal <<<"$(row rec)"
# its callees' totals are in its own (the loader's startup, outside main,
# takes a share that moves with the pricing of its cold misses)
awk -v s="${mself:-0}" -v t="${mtotal:-0}" -v at="${atotal:-0}" -v rt="${rtotal:-0}" \
	'BEGIN { exit !(at > 0 && rt > 0 && t >= s + at + rt - 0.01 && t > s + 10) }'
ok $? "main: inclusive $mtotal% above its self $mself%, a's total $atotal% and rec's $rtotal% in it"
awk -v a="${aself:-0}" -v at="${atotal:-0}" -v bt="${btotal:-0}" \
	'BEGIN { d = a + bt - at; exit !(at > a && d < 0.01 && d > -0.01) }'
ok $? "a's total ($atotal%) its self ($aself%) and b's total ($btotal%)"
[ -n "$rself" ] && [ "$rself" = "$rtotal" ]
ok $? "rec, recursive: counted once a stack (total $rtotal% = self $rself%)"
[ "$(awk -F, 'NR == 2 { print $1 }' g.csv)" != work ]
ok $? "--sort total: a caller first, not the self-heaviest function"
"$GX_BIN" report g --by callpath --limit 0 >cp.txt 2>/dev/null
grep -q ';main;a;b;work$' cp.txt
ok $? "--by callpath: main;a;b;work"
grep -q ';start_thread;worker;work$' cp.txt
ok $? "--by callpath: the threads' start_thread;worker;work"
"$GX_BIN" report g --folded >g.folded 2>/dev/null
grep -qE ';main;a;b;work [0-9]+$' g.folded
ok $? "--folded: main;a;b;work"
grep -qE ';main;rec [0-9]+$' g.folded && ! grep -q 'rec;rec' g.folded
ok $? "--folded: rec once a stack"
# folded counts are the modelled cycles: b's work is 3 times a's own
w=$(awk '/;main;a;b;work / { print $NF }' g.folded)
a=$(awk '/;main;a / { print $NF }' g.folded)
awk -v w="${w:-0}" -v a="${a:-1}" 'BEGIN { r = w / a; exit !(r > 2.7 && r < 3.3) }'
ok $? "--folded counts cycles: work under b $w, a's own $a (3:1)"
# perf reads what the model wrote: every thread named (each has its own
# COMM), its call stacks with it
if [ -n "${PERF:-}" ] && "$PERF" script -i g/perf.data -F comm,tid >ps.txt 2>/dev/null; then
	check "perf script: every thread of the modelled result has its name" \
		sh -c "test \$(awk '{ print \$2 }' ps.txt | sort -u | wc -l) -ge 4 && ! grep -q '^ *:' ps.txt"
	check "perf script: the samples carry their call stacks (main among the frames)" \
		sh -c "'$PERF' script -i g/perf.data 2>/dev/null | grep -q ' main+0x'"
else
	skip 2 "perf is absent or cannot read the result"
fi
done_testing
