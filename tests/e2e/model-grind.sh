#!/bin/bash
# gxgrind (src/grind/), gexplore's Valgrind tool: the model's
# one pass, in place of callgrind's first and a second pass. The truth is
# callgrind itself: the same workload recorded both ways (GX_MODEL_FIRST,
# the callgrind way with its second pass under callgrind, with a second
# variable that makes the two environments one length, so that the
# workloads run the same) and kept (--keep-valgrind):
# - every instruction of the workload's own program has callgrind's
#   counts (Ir Dr Dw, the caches', the branches' and their mispredicts)
#   in gxgrind's files as in callgrind's first pass's (a PLT stub's work
#   counted, as callgrind's --skip-plt counts it, at the instruction that
#   reached it), its jumps (jump=, jcnd=) to the same targets as often,
#   its calls to the same functions as often at the same inclusive cost;
# - and its L2 misses and last-level misses (first touches, or the TLB's)
#   in gxgrind's second hierarchy as in callgrind's second pass.
# Callgrind counts less of the loader's start than Valgrind's other
# tools: the whole run's counts are held to 0.1%. The modelled cycles are
# held to 0.5%: callgrind counts a conditional jump's executions by
# calling context, and leaves out those of contexts where it was never
# taken (a recursive function's); gxgrind counts all of them.
. "$GX_SRCDIR/tests/e2e/lib.sh"

WLM="$WL/wl-model"
need_model
[ -x "$WLM" ] || skip_all "no $WLM (make check builds it)"
X=$GX_BIN
[ -x "$(dirname "$X")/grind/gxgrind-amd64-linux" ] ||
	skip_all "gxgrind is not built (configure found no Valgrind to build it against)"

# Valgrind's files in callgrind's format (names and positions compressed
# as callgrind writes them): each instruction's counts by object and
# address, its jumps and its calls (a call's inclusive cost is not the
# instruction's own)
cat > vgfiles.py <<'EOF'
import re, sys
def load(paths):
    cost, jumps, calls = {}, {}, {}
    for path in paths:
        ev, npos, obj, cobj, ids, last, pend = [], 1, "???", None, {}, [0, 0], None
        for line in open(path, errors="replace"):
            line = line.rstrip("\n").rstrip()
            if line.startswith("events:"):
                ev = line.split()[1:]
            elif line.startswith("positions:"):
                npos = len(line.split()) - 1
            elif line.startswith(("ob=", "cob=")):
                v = line.split("=", 1)[1]
                m = re.match(r"\((\d+)\)\s*(.*)", v)
                name = v
                if m:
                    if m.group(2):
                        ids[m.group(1)] = m.group(2)
                    name = ids.get(m.group(1), "???")
                if line.startswith("ob="):
                    obj = name
                else:
                    cobj = name
            elif re.match(r"(calls|jump|jcnd)=", line):
                kind, rest = line.split("=", 1)
                n, p = rest.split()[:2]
                t = (last[0] + int(p[1:], 0) if p[0] == "+" else
                     last[0] - int(p[1:], 0) if p[0] == "-" else
                     last[0] if p == "*" else int(p, 0))
                pend = (kind, n.split("/")[0], t, cobj or obj)
                cobj = None
            elif line and (line[0].isdigit() or line[0] in "+-*"):
                parts = line.split()
                for k in range(npos):
                    p = parts[k]
                    if p == "*":
                        continue
                    last[k] = (last[k] + int(p[1:], 0) if p[0] == "+" else
                               last[k] - int(p[1:], 0) if p[0] == "-" else int(p, 0))
                if pend:
                    kind, n, t, co = pend
                    pend = None
                    if kind == "calls":
                        c = calls.setdefault((obj, last[0], co, t), [0, 0])
                        c[0] += int(n)
                        c[1] += int(parts[npos]) if len(parts) > npos else 0
                    else:
                        key = (obj, last[0], t)
                        jumps[key] = jumps.get(key, 0) + int(n)
                    continue
                c = cost.setdefault((obj, last[0]), {})
                for e, v in zip(ev, parts[npos:]):
                    c[e] = c.get(e, 0) + int(v)
    return cost, jumps, calls
# vgfiles.py first PROGRAM GXGRIND-FILES -- CALLGRIND-FILES:
#   "N SAME JUMPS JSAME CALLS CSAME IR-G IR-C" (the first pass's counts)
# vgfiles.py misses PROGRAM G... -- C...: "N SAME L2-G L2-C LL-G LL-C IR-G IR-C"
#   (the second pass's: its D1 misses L2's, its last level's pages or walks)
mode, prog = sys.argv[1:3]
cut = sys.argv.index("--")
g, c = load(sys.argv[3:cut]), load(sys.argv[cut + 1:])
mine = [k for k in set(g[0]) | set(c[0]) if k[0] == prog]
ir = lambda t: sum(v.get("Ir", 0) for v in t[0].values())
if mode == "first":
    ev = "Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw Bc Bcm Bi Bim".split()
    same = sum(all(g[0].get(k, {}).get(e, 0) == c[0].get(k, {}).get(e, 0) for e in ev)
               for k in mine)
    js = [k for k in set(g[1]) | set(c[1]) if k[0] == prog]
    cs = [k for k in set(g[2]) | set(c[2]) if k[0] == prog]
    print(len(mine), same, len(js), sum(g[1].get(k) == c[1].get(k) for k in js),
          len(cs), sum(g[2].get(k) == c[2].get(k) for k in cs), ir(g), ir(c))
else:
    m = lambda t, k, a, b: t[0].get(k, {}).get(a, 0) + t[0].get(k, {}).get(b, 0)
    same = sum(m(g, k, "D1mr", "D1mw") == m(c, k, "D1mr", "D1mw") and
               m(g, k, "DLmr", "DLmw") == m(c, k, "DLmr", "DLmw") for k in mine)
    tot = lambda t, a, b: sum(m(t, k, a, b) for k in t[0])
    print(len(mine), same, tot(g, "D1mr", "D1mw"), tot(c, "D1mr", "D1mw"),
          tot(g, "DLmr", "DLmw"), tot(c, "DLmr", "DLmw"), ir(g), ir(c))
EOF
rec() {	# rec HOW OUT [DESC] -- WORKLOAD...: recorded under gxgrind, or callgrind's two passes; kept
	local how=$1 o=$2 desc=--model first pad
	shift 2
	[ "$1" != -- ] && desc="--model=$1" && shift
	shift
	# GX_MODEL_FIRST's two values, of two lengths, and a pad: one length;
	# gxgrind's misses in a stride (which callgrind does not count) set
	# aside, its branches predicted by callgrind's 2-bit counters (not
	# its tagged predictor), and a first touch of anonymous memory a miss
	# as any (not the kernel's zeros in the caches), so that the same
	# counts are priced alike
	# (model.sh tests both)
	case $how in gxgrind) first=auto pad=xxxxx ;; *) first=callgrind pad= ;; esac
	env GX_MODEL_PASSES=2 GX_MODEL_FIRST="$first" GX_MODEL_SECOND=callgrind GX_PAD="$pad" \
		GX_MODEL_STRIDES=none GX_MODEL_PREDICTOR=2bit GX_MODEL_ZERO_FILL=no \
		"$X" record -q "$desc" --keep-valgrind -o "$o" -- "$@" </dev/null >/dev/null 2>"$o.err"
}
compare() {	# compare NAME PROGRAM G C: gxgrind's result G against callgrind's C
	local name=$1 prog=$2 g=$3 c=$4 n same g1 c1 g2 c2 gi ci nj sj nc sc h2=gxgrind-l2
	read -r n same nj sj nc sc gi ci <<<"$(python3 vgfiles.py first "$prog" "$g"/callgrind.out.* \
		-- "$c"/callgrind.out.*-*)"
	check "$name: each of the program's instructions has callgrind's counts ($same of $n)" \
		test "${n:-0}" -gt 50 -a "$same" = "$n"
	check "$name: its jumps taken as often ($sj of $nj), its calls as often at one inclusive cost ($sc of $nc)" \
		eval '[ "$sj" = "$nj" ] && [ "$sc" = "$nc" ] && [ "${nj:-0}" -gt 0 ]'
	check "$name: the whole run's instructions within 0.1% ($gi, $ci)" \
		eval 'near "$gi" "$ci" 0.1 && [ "${ci:-0}" -gt 0 ]'
	grep -q 'with L2 and \(pages and \)\?the TLB simulated' "$g/meta.json" && h2=gxgrind-tlb
	read -r n same g1 c1 g2 c2 gi ci <<<"$(python3 vgfiles.py misses "$prog" "$g"/$h2.out.* \
		-- "$c"/callgrind-l2.out.*)"
	# gxgrind's second hierarchy follows the mappings (a range mapped
	# afresh leaves its L2 and its cache of pages: its next touch a first
	# one), which callgrind's second pass does not: where a process maps
	# anew where another mapping was (the script's second program, the
	# shell's), an instruction or two differ
	check "$name: each of the program's instructions has the second pass's L2 and last-level misses, all but 1% ($same of $n)" \
		test "${n:-0}" -gt 50 -a "$((same * 100))" -ge "$((n * 99))"
	check "$name: the whole run's L2 misses ($g1, $c1) and last-level misses ($g2, $c2) within 0.1%" \
		eval 'near "$g1" "$c1" 0.1 && near "$g2" "$c2" 0.1 && [ "$c1" -gt 0 ]'
	local gc cc
	gc=$(est_of "$g" cycles:modelled "") cc=$(est_of "$c" cycles:modelled "")
	check "$name: the modelled cycles within 0.5% ($gc, $cc)" \
		eval 'near "$gc" "$cc" 0.5 && [ "${cc%.*}" -gt 0 ]'
}

# ---- chase_l3: L2 misses at every step; the pass's last level the TLB
rec gxgrind g1 -- "$WLM" chase_l3
ok $? "chase_l3: recorded under gxgrind ($(head -c 200 g1.err))"
check "... meta.json says one Valgrind pass ran, under gxgrind" \
	grep -q 'one Valgrind pass, under gxgrind' g1/meta.json
ls g1/gxgrind-l2.out.* g1/callgrind.out.* >/dev/null 2>&1 &&
	[ -z "$(find g1 -maxdepth 1 -name '*grind*' ! -perm 0600)" ]
ok $? "... its counts kept (--keep-valgrind), each 0600"
rec callgrind c1 -- "$WLM" chase_l3
ok $? "chase_l3: recorded again, callgrind's first pass and its second pass under callgrind"
compare chase_l3 "$WLM" g1 c1

# ---- pages as the last level: a description that prices a first touch,
# left to Valgrind to count (GX_MODEL_FAULTS=valgrind)
zen3_desc fault.json fault page_fault=400
export GX_MODEL_FAULTS=valgrind
# (the walks estimated both ways: gxgrind counts them beside the pages,
# which callgrind's second pass cannot)
export GX_MODEL_TLB=estimate
rec gxgrind g2 fault.json -- "$WLM" touch 4
ok $? "touch 4, first touches counted by Valgrind: recorded"
rec callgrind c2 fault.json -- "$WLM" touch 4
ok $? "... and again under callgrind"
compare "touch 4" "$WLM" g2 c2
unset GX_MODEL_FAULTS GX_MODEL_TLB

# ---- calls through the PLT (qsort's comparisons), libc's own code
rec gxgrind g3 -- "$WLM" sort 2
rec callgrind c3 -- "$WLM" sort 2
ok $? "sort 2: recorded both ways"
compare "sort 2" "$WLM" g3 c3

# ---- a script and its children, each followed (--trace-children): a
# process a file, each with its own counts only (a shell that runs its
# last command by exec writes one file fewer)
rec gxgrind g4 -- sh -c "'$WLM' chase_l2 1; '$WLM' sort 1"
rec callgrind c4 -- sh -c "'$WLM' chase_l2 1; '$WLM' sort 1"
ok $? "a script running wl-model twice: recorded both ways"
check "... a file a process ($(ls g4/gxgrind-l2.out.* | wc -l)), a thread ($(ls g4/callgrind.out.* | wc -l))" \
	test "$(ls g4/gxgrind-l2.out.* | wc -l)" -ge 2 -a "$(ls g4/callgrind.out.* | wc -l)" -ge 2
compare "the script" "$WLM" g4 c4

# ---- fork without exec: a child's files hold its own counts only (its
# calls cost what ran in it); callgrind's, with --dump-after=_Fork, hold
# a copy of its parent's since the parent's last fork, which the model
# takes off (tasks.c). The truth is the program's loops: before() runs its
# body 1000 times in the parent, before either fork; child() 3000 times in
# each child. Both ways the model gives each function the same
# instructions.
cat > forkw.c <<'EOF'
#include <sys/wait.h>
#include <unistd.h>
static volatile char buf[1 << 22];
__attribute__((noinline)) void before(void);
__attribute__((noinline)) void child(void);
void before(void) { for (int i = 0; i < 1000; i++) buf[(unsigned)i * 4096 % sizeof buf] += 1; }
void child(void) { for (int i = 0; i < 3000; i++) buf[(unsigned)i * 64 % sizeof buf] += 2; }
int main(void)
{
	before();
	for (int k = 0; k < 2; k++) {
		pid_t p = fork();
		if (p == 0) {
			child();
			_exit(0);
		}
		waitpid(p, NULL, 0);
	}
	return 0;
}
EOF
most() {	# most FN FILES...: the most times one of FN's instructions ran, summed over the files
	awk -v f="$1" '/^positions:/ { np = NF - 1 } /^fn=/ { sub(/^fn=\([0-9]+\) /, ""); fn = $0; next }
		/^0x/ && fn == f { n[$1] += $(np + 1) } END { m = 0; for (a in n) if (n[a] > m) m = n[a]; print m }' \
		"${@:2}"
}
if cc -O2 -o forkw forkw.c 2>/dev/null; then
	rec gxgrind g5 -- ./forkw
	ok $? "a program that forks twice: recorded"
	check "... three processes, a file each ($(ls g5/callgrind.out.* 2>/dev/null | wc -l))" \
		test "$(ls g5/callgrind.out.* 2>/dev/null | wc -l)" -eq 3
	b=$(most before g5/callgrind.out.*) c=$(most child g5/callgrind.out.*)
	check "... before()'s loop in the parent only ($b), child()'s in both children ($c)" \
		eval '[ "$b" -ge 1000 ] && [ "$b" -le 1001 ] && [ "$c" -ge 6000 ] && [ "$c" -le 6002 ]'
	rec callgrind c5 -- ./forkw
	for f in before child main; do
		a=$(est_of g5 instructions:exact "$f") b=$(est_of c5 instructions:exact "$f")
		check "... $f's instructions in the result as callgrind's give them ($a, $b)" \
			eval 'near "$a" "$b" 0.1 && [ "${b:-0}" -gt 0 ]'
	done
	# (the instructions around each fork differ by a few dozen:
	# callgrind's copy is cut at _Fork's return, gxgrind's at the fork
	# itself; with them the blocks the model prices there: within 1%)
	gc=$(est_of g5 cycles:modelled "") cc=$(est_of c5 cycles:modelled "")
	check "... the modelled cycles within 1% ($gc, $cc)" \
		eval 'near "$gc" "$cc" 1 && [ "${cc%.*}" -gt 0 ]'
else
	skip 7 "no C compiler"
fi

# ---- 3,000 threads, 200 alive at once (Valgrind's table holds
# 500): gxgrind runs, a file a thread, and is read
cat > threads.c <<'EOF'
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
static void *work(void *a)
{
	volatile long s = 0;

	for (long i = 0; i < 2000; i++)
		s += i;
	usleep(20000);
	return a;
}
int main(void)
{
	static pthread_t t[3000];
	pthread_attr_t at;
	int ok = 0;

	pthread_attr_init(&at);
	pthread_attr_setstacksize(&at, 65536);
	for (int i = 0; i < 3000; i++) {
		if (i >= 200 && t[i - 200])
			pthread_join(t[i - 200], NULL);
		ok += pthread_create(&t[i], &at, work, NULL) == 0;
	}
	for (int i = 2800; i < 3000; i++)
		pthread_join(t[i], NULL);
	printf("%d\n", ok);
	return ok == 3000 ? 0 : 1;
}
EOF
if cc -O2 -pthread -o threads threads.c 2>/dev/null; then
	GX_MODEL_PASSES=2 "$X" record -q --model -o r3k -- ./threads </dev/null >r3k.out 2>&1
	is "$?" 0 "3,000 threads: recorded ($(head -c 100 r3k.out))"
	check "... gxgrind's pass was read" \
		grep -q 'one Valgrind pass, under gxgrind' r3k/meta.json
	check "... 3,000 threads' instructions ($(est_of r3k instructions:exact work))" \
		test "$(est_of r3k instructions:exact work)" -ge 6000000
else
	skip 2 "no C compiler"
fi

# ---- the record's time: gxgrind's one pass against callgrind's two
t0=$(date +%s%N)
GX_MODEL_PASSES=2 "$X" record -q --model -o tg -- "$WLM" sort 3 </dev/null >/dev/null 2>&1
t1=$(date +%s%N)
GX_MODEL_PASSES=2 GX_MODEL_FIRST=callgrind GX_MODEL_SECOND=callgrind "$X" record -q --model \
	-o tc -- "$WLM" sort 3 </dev/null >/dev/null 2>&1
t2=$(date +%s%N)
diag "sort 3: record under gxgrind $(( (t1 - t0) / 1000000 )) ms, under callgrind's two passes $(( (t2 - t1) / 1000000 )) ms"

# ---- gxgrind turned off, or not able to run: the second pass as before
GX_MODEL_GRIND=no GX_MODEL_PASSES=2 "$X" record -q --model -o off -- "$WLM" sort 1 \
	</dev/null >/dev/null 2>&1 &&
	grep -q 'second pass ran under cachegrind' off/meta.json &&
	! jq -r '.warnings[]' off/meta.json | grep -q gxgrind
ok $? "GX_MODEL_GRIND=no: the second pass under cachegrind, no word of gxgrind"
# a gexplore whose grind/ holds no tool (an install that lost it)
mkdir -p lone/grind && cp "$X" lone/gexplore
GX_MODEL_PASSES=2 lone/gexplore record -q --model -o lost -- "$WLM" sort 1 \
	</dev/null >/dev/null 2>lost.err
is "$?" 0 "a grind/ directory without the tool: recorded"
check "... it says why gxgrind did not run" \
	grep -q "gxgrind, gexplore's Valgrind tool, cannot run (its directory does not hold it" \
	lost/meta.json
check "... and the second pass ran under cachegrind" \
	grep -q 'second pass ran under cachegrind' lost/meta.json
# a valgrind on PATH of another version: its files are not the tool's
real=$(command -v valgrind)
mkdir -p other
cat > other/valgrind <<EOS
#!/bin/sh
[ "\$1" = --version ] && { echo valgrind-0.1.0; exit 0; }
exec "$real" "\$@"
EOS
chmod +x other/valgrind
PATH="$PWD/other:$PATH" GX_MODEL_PASSES=2 "$X" record -q --model -o ver -- "$WLM" sort 1 \
	</dev/null >/dev/null 2>ver.err
is "$?" 0 "a valgrind of another version: recorded"
check "... gxgrind not run, and why" grep -q "is not version" ver/meta.json
check "... the second pass under cachegrind" grep -q 'second pass ran under cachegrind' ver/meta.json

# ---- hostile names: an argument with a newline, a script of two lines;
# the counts' file stays one name a line and is read
GX_MODEL_PASSES=2 "$X" record -q --model -o rnl -- sh -c '"$0" sort 1 "$1"
echo done' "$WLM" "a
b" </dev/null >/dev/null 2>rnl.err
is "$?" 0 "a script of two lines, an argument with a newline: recorded"
check "... gxgrind's pass was read" grep -q 'one Valgrind pass, under gxgrind' rnl/meta.json
check "... and nothing failed in it" eval '! grep -q "second pass failed" rnl/meta.json'

# (SIGTERM in a pass: tests/e2e/model-stop.sh, tests/e2e/model-tlb.sh)

done_testing
