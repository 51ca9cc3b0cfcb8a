#!/bin/bash
# gxgrind (src/grind/gx-grind.c), gexplore's Valgrind tool: the model's
# second pass, by instruction, in less time than callgrind's. The truth is
# callgrind itself: the same workload's second pass run both ways
# (GX_MODEL_SECOND, with a second variable that makes the two
# environments one length, so that the workloads run the same) and kept
# (--keep-valgrind): every instruction of the workload's own program has
# the same L2 misses and the same last-level misses (first touches, or the
# TLB's) in gxgrind's file as in callgrind's (a PLT stub's work counted,
# as callgrind's --skip-plt counts it, at the instruction that reached
# it). Callgrind counts less of the loader's start than Valgrind's other
# tools: the whole run's counts are held to 0.1%, the modelled cycles to
# 0.01%.
. "$GX_SRCDIR/tests/e2e/lib.sh"

WLM="$WL/wl-model"
need_model
[ -x "$WLM" ] || skip_all "no $WLM (make check builds it)"
X=$GX_BIN
[ -x "$(dirname "$X")/grind/gxgrind-amd64-linux" ] ||
	skip_all "gxgrind is not built (configure found no Valgrind to build it against)"

# Valgrind's per-instruction counts of a callgrind-format file, by object
# and address (names and positions compressed as callgrind writes them; a
# call's inclusive cost is not the instruction's own)
cat > counts.py <<'EOF'
import re, sys
def load(path, want):
    ev, npos, obj, ids, last, skip, out = [], 1, "???", {}, [0, 0], False, {}
    for line in open(path, errors="replace"):
        line = line.rstrip("\n")
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
        elif line.startswith("calls="):
            skip = True
        elif line and (line[0].isdigit() or line[0] in "+-*"):
            parts = line.split()
            for k in range(npos):
                p = parts[k]
                if p == "*":
                    continue
                last[k] = (last[k] + int(p[1:], 0) if p[0] == "+" else
                           last[k] - int(p[1:], 0) if p[0] == "-" else int(p, 0))
            if skip:
                skip = False
                continue
            row = dict(zip(ev, map(int, parts[npos:])))
            key = (obj, last[0])
            c = out.setdefault(key, [0, 0, 0])
            c[0] += row.get("Ir", 0)
            c[1] += sum(row.get(x, 0) for x in want[0])
            c[2] += sum(row.get(x, 0) for x in want[1])
    return out
def merge(paths):
    t = {}
    for p in paths:
        for k, v in load(p, (("D1mr", "D1mw"), ("DLmr", "DLmw"))).items():
            c = t.setdefault(k, [0, 0, 0])
            for i in range(3):
                c[i] += v[i]
    return t
# counts.py PROGRAM GXGRIND-FILES -- CALLGRIND-FILES: "N SAME TOTALS..."
prog = sys.argv[1]
cut = sys.argv.index("--")
g, c = merge(sys.argv[2:cut]), merge(sys.argv[cut + 1:])
mine = [k for k in set(g) | set(c) if k[0] == prog]
same = sum(g.get(k, [0] * 3)[1:] == c.get(k, [0] * 3)[1:] for k in mine)
tot = lambda t, i: sum(v[i] for v in t.values())
print(len(mine), same, tot(g, 1), tot(c, 1), tot(g, 2), tot(c, 2), tot(g, 0), tot(c, 0))
EOF
rec() {	# rec HOW OUT [DESC] -- WORKLOAD...: the second pass under HOW, kept
	local how=$1 o=$2 desc=--model pad
	shift 2
	[ "$1" != -- ] && desc="--model=$1" && shift
	shift
	# GX_MODEL_SECOND's two values, of two lengths, and a pad: one length
	case $how in gxgrind) pad=xx ;; *) pad= ;; esac
	env GX_MODEL_PASSES=2 GX_MODEL_SECOND="$how" GX_PAD="$pad" \
		"$X" record -q "$desc" --keep-valgrind -o "$o" -- "$@" </dev/null >/dev/null 2>"$o.err"
}
compare() {	# compare NAME PROGRAM G C: gxgrind's result G against callgrind's C
	local name=$1 prog=$2 g=$3 c=$4 n same g1 c1 g2 c2 gi ci
	read -r n same g1 c1 g2 c2 gi ci <<<"$(python3 counts.py "$prog" "$g"/gxgrind-l2.out.* \
		-- "$c"/callgrind-l2.out.*)"
	check "$name: each of the program's instructions has callgrind's L2 and last-level misses ($same of $n)" \
		test "${n:-0}" -gt 50 -a "$same" = "$n"
	check "$name: the whole run's L2 misses ($g1, $c1) and last-level misses ($g2, $c2) within 0.1%" \
		eval 'near "$g1" "$c1" 0.1 && near "$g2" "$c2" 0.1 && [ "$c1" -gt 0 ]'
	local gc cc
	gc=$(est_of "$g" cycles:modelled "") cc=$(est_of "$c" cycles:modelled "")
	check "$name: the modelled cycles within 0.01% ($gc, $cc)" \
		eval 'near "$gc" "$cc" 0.01 && [ "${cc%.*}" -gt 0 ]'
}

# ---- chase_l3: L2 misses at every step; the pass's last level the TLB
rec gxgrind g1 -- "$WLM" chase_l3
ok $? "chase_l3: recorded, the second pass under gxgrind ($(head -c 200 g1.err))"
check "... meta.json says the second pass ran under gxgrind" \
	grep -q 'second pass ran under gxgrind' g1/meta.json
ls g1/gxgrind-l2.out.* >/dev/null 2>&1 && [ -z "$(find g1 -maxdepth 1 -name 'gxgrind*' ! -perm 0600)" ]
ok $? "... its counts kept (--keep-valgrind), each 0600"
rec callgrind c1 -- "$WLM" chase_l3
ok $? "chase_l3: recorded again, the second pass under callgrind"
compare chase_l3 "$WLM" g1 c1

# ---- pages as the last level: a description that prices a first touch,
# left to the second pass to count (GX_MODEL_FAULTS=valgrind)
zen3_desc fault.json fault page_fault=400
export GX_MODEL_FAULTS=valgrind
rec gxgrind g2 fault.json -- "$WLM" touch 4
ok $? "touch 4, first touches counted by the second pass: recorded"
rec callgrind c2 fault.json -- "$WLM" touch 4
ok $? "... and again under callgrind"
compare "touch 4" "$WLM" g2 c2
unset GX_MODEL_FAULTS

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
check "... a file a process ($(ls g4/gxgrind-l2.out.* | wc -l))" \
	test "$(ls g4/gxgrind-l2.out.* | wc -l)" -ge 2
compare "the script" "$WLM" g4 c4

# ---- fork without exec: a child's file holds a copy of its parent's
# counts since the parent's last fork, as callgrind's with
# --dump-after=_Fork (the first pass's) do, which the model takes off for
# every pass alike (tasks.c); the files' sum is the first pass's, so the
# second pass's counts are used. The truth is the program's loops:
# before() runs its body 1000 times in the parent, before either fork (a
# copy in the first child, none in the second); child() 3000 times in
# each child
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
	awk -v f="$1" '/^fn=/ { sub(/^fn=\([0-9]+\) /, ""); fn = $0; next }
		/^0x/ && fn == f { n[$1] += $2 } END { m = 0; for (a in n) if (n[a] > m) m = n[a]; print m }' \
		"${@:2}"
}
if cc -O2 -o forkw forkw.c 2>/dev/null; then
	rec gxgrind g5 -- ./forkw
	ok $? "a program that forks twice: recorded"
	check "... three processes, a file each ($(ls g5/gxgrind-l2.out.* 2>/dev/null | wc -l))" \
		test "$(ls g5/gxgrind-l2.out.* 2>/dev/null | wc -l)" -eq 3
	b=$(most before g5/gxgrind-l2.out.*) c=$(most child g5/gxgrind-l2.out.*)
	check "... before()'s loop in the parent and the first child's copy ($b), child()'s in both children ($c)" \
		eval '[ "$b" -ge 2000 ] && [ "$b" -le 2002 ] && [ "$c" -ge 6000 ] && [ "$c" -le 6002 ]'
	check "... the second pass's counts used (it ran the first pass's instructions)" \
		eval '! grep -q "took another path" g5/meta.json'
	rec callgrind c5 -- ./forkw
	compare "the forks" "$PWD/forkw" g5 c5
else
	skip 8 "no C compiler"
fi

# ---- 3,000 threads, 200 alive at once (Valgrind's table holds
# 500): the second pass under gxgrind runs and is read
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
	check "... the second pass under gxgrind was read" \
		grep -q 'second pass ran under gxgrind' r3k/meta.json
else
	skip 2 "no C compiler"
fi

# ---- the pass's time: gxgrind's against callgrind's on one workload
t0=$(date +%s%N)
GX_MODEL_PASSES=2 "$X" record -q --model -o tg -- "$WLM" sort 3 </dev/null >/dev/null 2>&1
t1=$(date +%s%N)
GX_MODEL_PASSES=2 GX_MODEL_SECOND=callgrind "$X" record -q --model -o tc -- "$WLM" sort 3 \
	</dev/null >/dev/null 2>&1
t2=$(date +%s%N)
diag "sort 3: record with gxgrind's second pass $(( (t1 - t0) / 1000000 )) ms, callgrind's $(( (t2 - t1) / 1000000 )) ms"

# ---- gxgrind turned off, or not able to run: the second pass as before
GX_MODEL_GRIND=no GX_MODEL_PASSES=2 "$X" record -q --model -o off -- "$WLM" sort 1 \
	</dev/null >/dev/null 2>&1 &&
	grep -q 'second pass ran under cachegrind' off/meta.json &&
	! grep -q 'gxgrind' off/meta.json
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
check "... the second pass under gxgrind was read" grep -q 'second pass ran under gxgrind' rnl/meta.json
check "... and nothing failed in it" eval '! grep -q "second pass failed" rnl/meta.json'

# (SIGTERM in the second pass, which runs under gxgrind where it is
# built: tests/e2e/model-tlb.sh)

done_testing
