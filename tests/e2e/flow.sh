#!/bin/bash
# What the branches say (issue 42). Branch stacks synthesised with our
# writer (tests/gen/gen-brstack) over tests/workloads/wl-loops' loop nest
# (outer 1000 x inner 37): its two loop branches in the order a core takes
# them, a 16-entry stack every 97 to 109 branches, and stacks that test
# AutoFDO's rules (a span backwards, one over 1 MiB, Intel's duplicated
# first entry, a kernel entry). gexplore's ranges and branches equal those
# a small independent reading of AutoFDO's rules computes from the stacks,
# and from what `perf script -F ip,brstack` prints of the same file;
# wrong-path entries (AMD's spec field) and a hw_idx change nothing; the
# loops from stacks give the inner loop's trips. Then exactly: record
# --model of the nest gives each loop's entries exactly and its trips
# within 1%.
. "$GX_SRCDIR/tests/e2e/lib.sh"

WLL="$WL/wl-loops"
BRGEN="$GX_BUILDDIR/tests/gen/gen-brstack"
[ -x "$WLL" ] || skip_all "no $WLL (make check builds it)"
[ -x "$BRGEN" ] || skip_all "no $BRGEN (make check builds it)"
command -v python3 >/dev/null 2>&1 || skip_all "python3 is not installed"
command -v objdump >/dev/null 2>&1 || skip_all "objdump is not installed (Debian package binutils)"

# the nest's two loop branches, from its disassembly: the inner loop's
# jne back (the first), the outer's (the second)
read -r IN_FROM IN_TO OUT_FROM OUT_TO < <(objdump -d --no-show-raw-insn "$WLL" |
	awk '/<nest>:/ { f = 1 } f && /\tjne / { sub(":", "", $1); printf "0x%s 0x%s ", $1, $3 } f && /\tret/ { exit }')
[ -n "${OUT_TO:-}" ] || skip_all "nest's two loop branches not found in the disassembly"
diag "inner $IN_FROM>$IN_TO, outer $OUT_FROM>$OUT_TO"

# spec WP: the stacks; WP=1 puts a wrong-path entry after every 5th entry
cat >trace.py <<'EOF'
import random, sys
wl, inf, int_, outf, outt, wp = sys.argv[1], *[int(a, 16) for a in sys.argv[2:6]], sys.argv[6] == "1"
tr = []
for o in range(1000):
    for i in range(36):
        tr.append("%#x>%#x:c9" % (inf, int_) + (":m" if i == 35 else ""))
    if o < 999:
        tr.append("%#x>%#x:c5" % (outf, outt))
random.seed(7)
print("binary", wl)
at = 40
while at < len(tr):
    ent = []
    for k in range(16):
        ent.append(tr[at - k])
        if wp and k % 5 == 4:
            ent.append("0x1000>0x2000:w")
    print("stack %#x " % int_ + " ".join(ent))
    at += 97 + random.randrange(13)
# AutoFDO's rules: a span backwards, one over 1 MiB, a kernel entry (the
# addresses where the file's offsets are its addresses: below its data)
print("stack 0x1100 0x1200>0x1300 0x1400>0x1250 0x1100>0x1150")
print("stack 0x1100 0x1f0000>0x1000 0x1100>0x1150 0x1000>0x1010:k")
# Intel's duplicated first entry: a back edge over 4 KiB skipped, a short one kept
print("stack 0x1100 0x2800>0x1000 0x2800>0x1000 0x0f00>0x0e00")
print("stack 0x1100 0x1220>0x1210 0x1220>0x1210 0x1100>0x1200")
EOF

# AutoFDO's range and branch counts (its sample_reader.cc), read
# independently: from gen-brstack's spec or from perf script's brstack
cat >autofdo.py <<'EOF'
import collections, json, sys
KB, BASE = 0xffffffff81000000, 0x555555554000
def stacks_spec(path):
    for line in open(path):
        w = line.split()
        if w[0] != "stack":
            continue
        st = []
        for e in w[2:]:
            a, *opt = e.split(":")
            f, t = (int(x, 16) for x in a.split(">"))
            if "w" in opt:
                continue
            mod = "k" not in opt
            st.append((f if mod else None, t if mod else None, "m" in opt))
        yield st
def stacks_perf(path):
    for line in open(path):
        w = line.split()
        st = []
        for e in w[1:]:
            p = e.split("/")
            f, t = int(p[0], 16), int(p[1], 16)
            mod = lambda a: a - BASE if BASE <= a < BASE + 0x200000 else None
            st.append((mod(f), mod(t), p[2] == "M"))
        yield st
ranges, branches, mis = collections.Counter(), collections.Counter(), collections.Counter()
def branch(e):
    if e[0] is not None and e[1] is not None:
        branches[(e[0], e[1])] += 1
        mis[(e[0], e[1])] += e[2]
for st in (stacks_spec if sys.argv[1] == "spec" else stacks_perf)(sys.argv[2]):
    if st:
        branch(st[0])
    for i in range(1, len(st)):
        if st[i][1] is None:
            continue
        if i == 1 and st[0][:2] == st[1][:2] and (st[0][0] - st[0][1]) % (1 << 64) > 0x1000:
            continue
        b, e = st[i][1], st[i - 1][0]
        if e is None or e < b or e - b > 1 << 20:
            continue
        ranges[(b, e)] += 1
        branch(st[i])
rep = json.load(open(sys.argv[3]))
got = collections.Counter({(int(r["start"], 16), int(r["end"], 16)): r["count"] for r in rep["ranges"]})
gotb = {(int(r["from"], 16), int(r["to"], 16)): (r["count"], r["mispredicted"]) for r in rep["branches"]}
wantb = {k: (v, mis[k]) for k, v in branches.items()}
print("ranges", len(ranges), sum(ranges.values()), "got", len(got), sum(got.values()))
ok = got == ranges and gotb == wantb
if not ok:
    print("ranges only in gexplore:", sorted((hex(a), hex(b), c) for (a, b), c in (got - ranges).items())[:5])
    print("ranges only in AutoFDO's:", sorted((hex(a), hex(b), c) for (a, b), c in (ranges - got).items())[:5])
    print("branches", sorted(gotb.items())[:4], sorted(wantb.items())[:4])
sys.exit(0 if ok else 1)
EOF

python3 trace.py "$WLL" "$IN_FROM" "$IN_TO" "$OUT_FROM" "$OUT_TO" 0 >spec
python3 trace.py "$WLL" "$IN_FROM" "$IN_TO" "$OUT_FROM" "$OUT_TO" 1 >spec-wp
"$BRGEN" -o br.data <spec
ok $? "gen-brstack: a perf.data with branch stacks"
"$BRGEN" -o br-wp.data <spec-wp && "$BRGEN" -x -o br-idx.data <spec
ok $? "gen-brstack: with wrong-path entries, and with hw_idx"

"$GX_BIN" report br.data --json --limit 0 >br.json 2>br.err
is "$?" 0 "report --json of branch stacks: exit 0"
python3 autofdo.py spec spec br.json >cmp.out 2>&1
ok $? "ranges and branches (counts, mispredicts) are AutoFDO's: $(head -1 cmp.out)"
grep -v '^ranges' cmp.out | sed 's/^/# /'
python3 -c '
import json, sys
f = json.load(open(sys.argv[1]))["flow"]
sys.exit(0 if (f["bogus_spans"], f["duplicate_entries"]) == (2, 1) else 1)' br.json
ok $? "the summary counts the bogus spans (2) and the duplicated first entry (1)"

"$GX_BIN" report br-wp.data --json --limit 0 >wp.json 2>/dev/null
python3 -c '
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
sys.exit(0 if a["ranges"] == b["ranges"] and b["flow"]["wrong_path_entries"] > 0 and
         a["flow"]["wrong_path_entries"] == 0 else 1)' br.json wp.json
ok $? "wrong-path entries (AMD's spec field) are left out: the same ranges, and counted"
"$GX_BIN" report br-idx.data --json --limit 0 >idx.json 2>/dev/null
python3 -c '
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
sys.exit(0 if a["ranges"] == b["ranges"] and a["branches"] == b["branches"] else 1)' br.json idx.json
ok $? "a stack with hw_idx reads the same"

# the loops from the stacks: the inner one's trips estimated, the nest seen
python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
inner = [l for l in r["loops"] if int(l["head"], 16) == int(sys.argv[2], 16)]
outer = [l for l in r["loops"] if int(l["head"], 16) == int(sys.argv[3], 16)]
ok = inner and outer and abs(inner[0]["trips"] - 37) < 37 * 0.03 and inner[0]["depth"] == 2 and \
     inner[0]["function"] == "nest" and r["loops"].index(outer[0]) == inner[0]["parent"] and \
     inner[0]["cycles_per_iteration"] and 8 < inner[0]["cycles_per_iteration"] < 10
print("inner trips", inner and inner[0]["trips"], "cycles", inner and inner[0]["cycles_per_iteration"])
sys.exit(0 if ok else 1)' br.json "$IN_TO" "$OUT_TO" >loops.out
ok $? "loops from stacks: the inner loop in nest, in the outer, trips ~37 ($(cat loops.out))"
# the inner loop's block: its instructions as objdump counts them (from
# its head to its branch back), its IPC those over its cycles
n_in=$(objdump -d --no-show-raw-insn --start-address="$IN_TO" --stop-address="$((IN_FROM + 1))" "$WLL" |
	grep -c '^ *[0-9a-f]*:')
if ! grep -q "define HAVE_CAPSTONE 1" "$GX_BUILDDIR/config.h"; then
	skip 1 "gexplore was built without capstone (Debian package libcapstone-dev): no x86 block lengths"
else
python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
b = [x for x in r["blocks"] if int(x["start"], 16) == int(sys.argv[2], 16)]
print(b and (b[0]["instructions"], b[0]["ipc"], b[0]["cycles"]))
ok = b and b[0]["instructions"] == int(sys.argv[3]) and b[0]["cycles"] and \
     abs(b[0]["ipc"] - b[0]["instructions"] / b[0]["cycles"]) < 1e-9
sys.exit(0 if ok else 1)' br.json "$IN_TO" "$n_in" >blk.out
ok $? "blocks from stacks: the inner block's instructions are objdump's ($n_in), its IPC theirs over its cycles ($(cat blk.out))"
fi
"$GX_BIN" report br.data --by loop >loop.txt 2>&1
grep -q "^ *[0-9]* *[0-9]* *3[67]\.[0-9]* .* nest (wl-loops.c:[0-9]*) \[wl-loops\]" loop.txt
ok $? "report --by loop: the inner loop's trips, in nest, at its source line"
"$GX_BIN" report br.data --by branch >branch.txt 2>&1 &&
	grep -q "^ *[0-9]* *2\.[0-9]% *9\.0  $IN_FROM *$IN_TO" branch.txt
ok $? "report --by branch: the inner branch, its mispredicts (1 in 36) and cycles (9)"
"$GX_BIN" report br.data >default.txt 2>&1 &&
	grep -q "^Branch stacks: [0-9]* samples carry [0-9]* branch records; report --by loop" default.txt
ok $? "the default report says the samples carry branch stacks, and where to look"
"$GX_BIN" report br.data --by loop --csv >/dev/null 2>csv.err
is "$?" 2 "report --by loop --csv: a usage error (text tables; --json has them)"
"$GX_BIN" report br.data --by block >block.txt 2>&1 && grep -q "^ *[0-9]* .*$IN_TO-$IN_FROM" block.txt
ok $? "report --by block: the inner loop's block"
"$GX_BIN" tui --keys "g d" --dump 100x40 br.data >tui.txt 2>&1
grep -q "${IN_TO#0x} .* [0-9][0-9]*  *[0-9.]*c |\[ " tui.txt
ok $? "the TUI's disassembly of nest: the inner block's executions and cycles, in two loops' brackets"
"$GX_BIN" tui --keys "o" --dump 100x40 br.data >tui-loops.txt 2>&1
line=$(sed -n 's/^[> ] *[0-9][0-9]* *[0-9][0-9]* *3[67]\.[0-9]* *[89]\.[0-9] *[0-9.]*% *nest (wl-loops.c:\([0-9]*\))$/\1/p' tui-loops.txt)
[ -n "$line" ] && sed -n 4p tui-loops.txt | grep -q " nest (wl-loops.c:$line)$"
ok $? "the TUI's loops view (o): the inner loop first, its trips and cycles, in nest at line ${line:-?}"
"$GX_BIN" tui --keys "o Enter" --dump 100x40 br.data >tui-loop-src.txt 2>&1
grep -q "^>.* $line^* .*s = s \* 31" tui-loop-src.txt
ok $? "... Enter opens nest's source on the loop's head line ($line)"
RANGE="t l l l l l l l l l l Space L L L Space q"
"$GX_BIN" tui --keys "$RANGE g d" --dump 100x40 br.data >tui-range.txt 2>&1
grep -q "^block counts and loops: the whole run's (not kept per sample); samples: the range's" tui-range.txt &&
	grep -q "${IN_TO#0x} .* [0-9][0-9]*  *[0-9.]*c |\[ " tui-range.txt
ok $? "under a time range the disassembly's block counts are the whole run's, and it says so"
"$GX_BIN" tui --keys "$RANGE o" --dump 100x40 br.data >tui-range-loops.txt 2>&1
grep -q "most iterations first; the whole run's, not the range's" tui-range-loops.txt
ok $? "... as does the loops view"

# the optimisers' formats: BOLT's pre-aggregated lines, AutoFDO's text
"$GX_BIN" report br.data --format bolt -o bolt.txt 2>bolt.err
is "$?" 0 "report --format bolt: exit 0"
python3 -c '
import json, re, sys
r = json.load(open(sys.argv[1]))
lines = open(sys.argv[2]).read().splitlines()
ok = all(re.fullmatch(r"B [0-9a-f]+ [0-9a-f]+ [0-9]+ [0-9]+|F [0-9a-f]+ [0-9a-f]+ [0-9]+", l) for l in lines)
b = {(int(x["from"], 16), int(x["to"], 16)): (x["count"], x["mispredicted"]) for x in r["branches"]}
f = {(int(x["start"], 16), int(x["end"], 16)): x["count"] for x in r["ranges"]}
gb = {(int(l.split()[1], 16), int(l.split()[2], 16)): (int(l.split()[3]), int(l.split()[4])) for l in lines if l[0] == "B"}
gf = {(int(l.split()[1], 16), int(l.split()[2], 16)): int(l.split()[3]) for l in lines if l[0] == "F"}
sys.exit(0 if ok and gb == b and gf == f else 1)' br.json bolt.txt
ok $? "BOLT's B (from, to, count, mispredicts) and F (start, end, count) lines are the branches and ranges"
grep -q "the branches of .*wl-loops" bolt.err
ok $? "... of the binary with the most branches, named on standard error"
"$GX_BIN" report br.data --format autofdo >afdo.txt 2>/dev/null
python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
l = open(sys.argv[2]).read().split()
n = int(l[0]); rng = dict((x.split(":")[0], int(x.split(":")[1])) for x in l[1:1 + n])
na = int(l[1 + n]); nb = int(l[2 + n + na]); br = l[3 + n + na:]
want = {"%x-%x" % (int(x["start"], 16), int(x["end"], 16)): x["count"] for x in r["ranges"]}
sys.exit(0 if rng == want and na == 0 and nb == len(br) == len(r["branches"]) else 1)' br.json afdo.txt
ok $? "AutoFDO's text profile: its range section is the ranges, its branch section counted"

if [ -n "${PERF:-}" ] && [ -x "$PERF" ]; then
	"$PERF" script -i br.data -F ip,brstack >perf.txt 2>perf.err
	ok $? "perf script -F ip,brstack reads the synthesised file"
	python3 autofdo.py perf perf.txt br.json >cmp-perf.out 2>&1
	ok $? "ranges and branches from what perf script prints are gexplore's: $(head -1 cmp-perf.out)"
	grep -v '^ranges' cmp-perf.out | sed 's/^/# /'
	# the hottest block lies in the function perf says is hottest
	top=$("$PERF" report -i br.data --stdio --no-branch-stack --sort sym 2>/dev/null |
		awk '$1 ~ /%$/ { print $3; exit }')
	python3 -c 'import json, sys; sys.exit(0 if json.load(open(sys.argv[1]))["blocks"][0]["function"] == sys.argv[2] else 1)' \
		br.json "$top"
	ok $? "the hottest block is in the function perf report puts first ($top)"
	# the same stacks in a file perf wrote (perf inject rewrites it)
	"$PERF" inject -i br.data -o br-perf.data >/dev/null 2>&1 &&
		"$GX_BIN" report br-perf.data --json --limit 0 >bp.json 2>/dev/null &&
		python3 -c '
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
sys.exit(0 if a["ranges"] == b["ranges"] and a["branches"] == b["branches"] and a["loops"] == b["loops"] else 1)' br.json bp.json
	ok $? "a perf-written copy (perf inject) gives the same ranges, branches and loops"
else
	skip 4 "perf is not installed (Debian package linux-perf)"
fi

# record -b: where the PMU has no branch stacks (or there is no PMU) it
# says so; where it has them, the result carries them
"$GX_BIN" record -q -b -o rb -- "$WLL" 100 37 >rb.out 2>&1
if [ "$?" = 0 ]; then
	"$GX_BIN" report rb --json >rb.json 2>/dev/null
	python3 -c 'import json, sys; sys.exit(0 if json.load(open(sys.argv[1]))["flow"]["stacks"] > 0 else 1)' rb.json
	ok $? "record -b on a PMU with branch stacks: the result carries them"
else
	grep -q "branch stacks" rb.out && grep -qi "PMU" rb.out
	ok $? "record -b where there are no branch stacks: it says so ($(head -c 160 rb.out))"
fi
"$GX_BIN" record -q -j cond,jcc -o rj -- true >rj.out 2>&1
is "$?" 2 "record -j with a mode perf does not know: a usage error"
grep -q "'jcc' is no branch filter" rj.out
ok $? "... naming it"

# ---- exactly, from the model
if ! command -v valgrind >/dev/null 2>&1 || ! command -v llvm-mca >/dev/null 2>&1; then
	skip 9 "valgrind or llvm-mca is not installed (./bootstrap installs them)"
	done_testing
	exit
fi
"$GX_BIN" record -q --model -o m -- "$WLL" 1000 37 >m.out 2>&1
is "$?" 0 "record --model of the loop nest: exit 0"
"$GX_BIN" report m --json --limit 0 >m.json 2>/dev/null
python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
inner = [l for l in r["loops"] if int(l["head"], 16) == int(sys.argv[2], 16)]
outer = [l for l in r["loops"] if int(l["head"], 16) == int(sys.argv[3], 16)]
print("inner", inner and (inner[0]["entries"], inner[0]["trips"]), "outer", outer and (outer[0]["entries"], outer[0]["trips"]))
ok = r["flow"]["source"] == "exact" and inner and outer and inner[0]["entries"] == 1000 and \
     abs(inner[0]["trips"] - 37) <= 0.37 and outer[0]["entries"] == 1 and abs(outer[0]["trips"] - 1000) <= 10 and \
     inner[0]["depth"] == 2 and inner[0]["function"] == "nest"
sys.exit(0 if ok else 1)' m.json "$IN_TO" "$OUT_TO" >m-loops.out
ok $? "modelled: entries exact, trips within 1% ($(cat m-loops.out))"
python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
b = {(int(x["from"], 16), int(x["to"], 16)): x["count"] for x in r["branches"]}
sys.exit(0 if b.get((int(sys.argv[2], 16), int(sys.argv[3], 16))) == 36000 else 1)' m.json "$IN_FROM" "$IN_TO"
ok $? "modelled: the inner branch taken 36,000 times (callgrind's jumps)"
"$GX_BIN" report m --by loop >m-loop.txt 2>&1 && grep -q " 37000 *1000 *37\.00 .* nest " m-loop.txt
ok $? "modelled: report --by loop shows 37000 iterations over 1000 entries"
"$GX_BIN" tui --keys "g d" --dump 100x40 m >m-tui.txt 2>&1
grep -q "${IN_TO#0x} .* 37000  *[0-9.]*c |\[ " m-tui.txt &&
	grep -q "${OUT_TO#0x} .* 1000  *[0-9.]*c \[ " m-tui.txt
ok $? "modelled: the TUI's disassembly shows each loop head's executions exactly (37000, 1000)"
"$GX_BIN" tui --keys "o" --dump 100x40 m >m-loops-tui.txt 2>&1
sed -n 4p m-loops-tui.txt | grep -q "^[> ] *37000  *1000  *37\.00 .* nest (wl-loops.c:[0-9]*)$"
ok $? "modelled: the TUI's loops view puts the inner loop first, 37000 iterations over 1000 entries exactly"
# a damaged flow.json: the report goes on and says why there is no flow
cp -r m m2 && printf '{"version": 1, "modules": ["x"], "insns": [[0, 4096, 99, 0, 1, 1.0, 0]], "jumps": []}' >m2/flow.json
"$GX_BIN" report m2 --json >m2.json 2>/dev/null
is "$?" 0 "a damaged flow.json: report --json still exits 0"
grep -q '"flow_unavailable": "flow.json: instruction 0 is not' m2.json
ok $? "... and says why there are no loops"
"$GX_BIN" report m2 --by loop >m2.txt 2>&1 && grep -q "flow.json: instruction 0" m2.txt
ok $? "... as does report --by loop"
done_testing
