#!/bin/bash
# Address translation counted (issue 40): where the second pass is not
# wanted for first touches, its last level is a cache of pages as large
# as the TLB's reach, and its misses are the walks, priced at the
# description's walk. The truth: wl-model's chase_l3, a ring of 8 MiB in
# random order (within a 32 MiB L3, so the first pass's last level misses
# nothing and the estimate from its misses finds no walk), walks a page
# at random each load: a TLB of 1 MiB's reach (256 pages, LRU) misses
# 7 of 8 of them. Its walks counted at two scales differ by 7/8 of the
# loads the larger adds; a TLB that reaches the whole ring misses none;
# the chase's cycles differ by its walks at the walk's price (the ring's
# writes, which overlap, by theirs over the misses in flight). What was counted is
# kept in model.terms: priced again with another walk it follows, with
# another reach it is exit 2, saying so.
. "$GX_SRCDIR/tests/e2e/lib.sh"

WLM="$WL/wl-model"
need_model
[ -x "$WLM" ] || skip_all "no $WLM (make check builds it)"
command -v python3 >/dev/null || skip_all "python3 is absent"
X=$GX_BIN

zen3_desc r1m.json r1m tlb_reach=1048576
zen3_desc r16m.json r16m tlb_reach=16777216
zen3_desc walk90.json walk90 tlb_reach=1048576 tlb_walk=90
zen3_desc fault.json fault tlb_reach=1048576 page_fault=500

rec() {	# rec DESC OUT SCALE [ENV=VALUE...]
	local d=$1 o=$2 s=$3
	shift 3
	env GX_MODEL_PASSES=2 "$@" "$X" record -q --model="$d" -o "$o" -- "$WLM" chase_l3 "$s" \
		</dev/null >/dev/null 2>&1
}
cycles() {	# cycles RESULT: meta.json's modelled cycles
	python3 -c 'import json, sys
m = json.load(open(sys.argv[1] + "/meta.json"))
print([e.get("count", 0) for e in m["events"] if e["name"] == "cycles:modelled"][0])' "$1"
}
walks() {	# walks RESULT: the TLB misses its note says were counted (0: none said)
	python3 -c 'import json, re, sys
m = json.load(open(sys.argv[1] + "/meta.json"))
w = [re.match(r"model: (\d+) TLB misses counted", x) for x in m.get("warnings", [])]
print(([int(x.group(1)) for x in w if x] or [0])[0])' "$1"
}

rec r1m.json a1 1 && rec r1m.json a3 3 && rec r16m.json b1 1
ok $? "chase_l3 recorded with a TLB of 1 MiB's reach (scales 1 and 3) and of 16 MiB's"
w1=$(walks a1) w3=$(walks a3)
# the larger scale adds 400000 loads, each at a random page of 2048
check "... the walks counted differ by 7/8 of the 400000 loads added, within 3% ($w3 - $w1)" \
	python3 -c "import sys; d = $w3 - $w1; sys.exit(0 if abs(d - 350000) < 10500 else 1)"
is "$(walks b1)" 0 "... a TLB that reaches the whole ring: too few walks to be said (its pages' first touches)"
# a TLB that reaches further than the last level (a shared VM's core gets
# 4 MiB of L3, where Zen 5's TLB reaches 16 MiB): an L3 of 1 MiB, a reach
# of 2 MiB (512 pages), the ring over 2048: 3 loads in 4 walk. The
# estimate from the last level's misses finds none there (a set past it
# need not be past the reach); gxgrind's TLB counts them
zen3_desc small.json small l3_size=1048576 tlb_reach=2097152
rec small.json s1 1 && rec small.json s3 3
ok $? "chase_l3 recorded where the TLB reaches further than the last level (scales 1 and 3)"
ws1=$(walks s1) ws3=$(walks s3)
check "... the walks counted differ by 3/4 of the 400000 loads added, within 3% ($ws3 - $ws1)" \
	python3 -c "import sys; d = $ws3 - $ws1; sys.exit(0 if abs(d - 300000) < 9000 else 1)"
# memory's latency by the set's size: priced again with 300 cycles over 2
# MiB and 600 over 32 MiB. The chase misses the 1 MiB last level at every
# step (an LRU cache smaller than the ring), so its set is told by the
# bytes the program touched first (meta.json's note: the ring's 8 MiB,
# make_ring's 1 MiB of indices and the rest, about 9.3 MiB), or by its
# walks where they say more: w of its 200000 loads walking a TLB of 2 MiB
# say 2 MiB / (1 - w / 200000), about 8 MiB. Each load then costs 300
# times log(set / 2 MiB) / log(16) more. The chase's walks w: its cycles
# priced again with a walk 100 cycles dearer, less its own, over 100 (no
# miss set aside as strided, GX_MODEL_STRIDES=none: each walk priced
# whole). A near set of 16 MiB holds the ring: 300, as recorded.
cyc_of() {	# cyc_of RESULT FUNCTION: its modelled cycles
	"$X" report "$1" --csv --limit 0 --event cycles:modelled 2>/dev/null |
		awk -F, -v f="$2" 'NR > 1 && $1 == f { s += $6 } END { print s + 0 }'
}
rec small.json s1n 1 GX_MODEL_STRIDES=none
zen3_desc ladder.json ladder l3_size=1048576 tlb_reach=2097152 dram_latency=600 \
	dram_latency_bytes=33554432 dram_near_latency=300 dram_near_bytes=2097152
zen3_desc held.json held l3_size=1048576 tlb_reach=2097152 dram_latency=600 \
	dram_latency_bytes=33554432 dram_near_latency=300 dram_near_bytes=16777216
"$X" report s1n --model-machine ladder.json --csv --limit 0 --event cycles:modelled \
	>ladder.csv 2>/dev/null
is "$?" 0 "memory's latency by the set's size: priced again, 300 cycles over 2 MiB, 600 over 32 MiB"
cl=$(awk -F, 'NR > 1 && $1 == "chase" { s += $6 } END { print s + 0 }' ladder.csv)
cs=$(cyc_of s1n chase)
zen3_desc small130.json small130 l3_size=1048576 tlb_reach=2097152 tlb_walk=130
"$X" report s1n --model-machine small130.json --csv --limit 0 --event cycles:modelled \
	>w130.csv 2>/dev/null
cw=$(awk -F, 'NR > 1 && $1 == "chase" { s += $6 } END { print s + 0 }' w130.csv)
check "... chase's cycles up by the latency its set gives, within 1% ($cl - $cs)" \
	python3 -c "
import json, math, re, sys
w = ($cw - $cs) / 100
t = [re.match(r'model: the workload touched (\d+) pages first', x)
     for x in json.load(open('s1n/meta.json')).get('warnings', [])]
t = ([int(x.group(1)) * 4096 for x in t if x] or [0])[0]
f = max(t, 2 * 2**20 / (1 - w / 200000))
want = 200000 * 300 * math.log(f / 2**21) / math.log(16)
print('# %d walks, %.1f MiB touched: a set of %.1f MiB, %.0f cycles a load more'
      % (w, t / 2**20, f / 2**20, want / 200000))
sys.exit(0 if 0.6 < w / 200000 < 0.9 and 7 << 20 < f < 12 << 20 and
         abs($cl - $cs - want) < 0.01 * want else 1)"
"$X" report s1n --model-machine held.json --csv --limit 0 --event cycles:modelled \
	>held.csv 2>/dev/null
ch=$(awk -F, 'NR > 1 && $1 == "chase" { s += $6 } END { print s + 0 }' held.csv)
check "... a near set of 16 MiB, which holds the ring: chase's cycles as recorded ($ch, $cs)" \
	python3 -c "import sys; sys.exit(0 if $cs > 0 and abs($ch - $cs) <= 0.001 * $cs else 1)"
check "... and meta.json names the near latency and its set" python3 -c "
import json, sys
p = json.load(open('s1n/meta.json'))['model_machine']['prices']
sys.exit(0 if p['dram_near_latency']['value'] == 300 and 'dram_near_bytes' in p else 1)"
# in a VM a walk goes through the host's page tables too: a description
# whose walk was not measured here is said to price it as a bare
# machine's, one whose walk `gexplore peak --save` measured is not
python3 - r1m.json rm1.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["name"] = "rm1"
d["prices"]["tlb_walk"] = {"value": 30, "source": "measured on test by gexplore peak --save"}
json.dump(d, open(sys.argv[2], "w"))
PY
rec rm1.json m1 1
vm_note() { python3 -c 'import json, sys
m = json.load(open(sys.argv[1] + "/meta.json"))
print(sum("this is a virtual machine, where a page walk" in w for w in m.get("warnings", [])))' "$1"; }
if grep -qw hypervisor /proc/cpuinfo; then
	is "$(vm_note a1)" 1 "a VM: its walk priced by a description that did not measure it is said"
else
	is "$(vm_note a1)" 0 "bare metal: no VM's walk said"
fi
is "$(vm_note m1)" 0 "... a walk measured here is not ($(cycles m1) cycles, $(cycles a1) unmeasured)"
# the same for a first touch: a VM's hypervisor may charge part of each
# fault to the user instruction (16,000-24,000 cycles on a Zen 5 VM), and
# the description prices it at nothing
fault_note() { python3 -c 'import json, sys
m = json.load(open(sys.argv[1] + "/meta.json"))
print(sum("this is a virtual machine, whose hypervisor may charge part of each page fault" in w
          for w in m.get("warnings", [])))' "$1"; }
if grep -qw hypervisor /proc/cpuinfo; then
	is "$(fault_note a1)" 1 "a VM: first touches priced at nothing, unmeasured, is said"
else
	is "$(fault_note a1)" 0 "bare metal: no VM's first touch said"
fi
# the chase's loads wait for one another: each walk at its whole price;
# the ring's writes (make_ring) are L3's hits (MAP_POPULATE wrote the
# ring's zeros in its mmap: gxgrind puts them in each cache, as at a
# fault), each but a few of L2's misses a walk too, and overlap under
# their loop's own cycles, walks and all
c1=$(cycles a1) cb=$(cycles b1)
cw=$(python3 -c "print(round(($(cyc_of a1 chase) - $(cyc_of b1 chase)) / 30))")
check "... chase's cycles differ by its walks at 30 cycles each: 7/8 of its 200000 loads, within 3% ($cw)" \
	python3 -c "import sys; sys.exit(0 if abs($cw - 175000) < 0.03 * 175000 else 1)"
check "... the run's by those alone, the ring's writes' under their loop, within 1% ($c1 - $cb, $w1 walks)" \
	python3 -c "import sys; d = $c1 - $cb; w = 30 * $cw; sys.exit(0 if $cw > 0 and $w1 > $cw and abs(d - w) < 0.01 * w else 1)"
# the estimate sees the chase's walks not at all (its last level missed
# nothing), and prices the ring's first writes as a walk each where they
# are last-level misses (GX_MODEL_ZERO_FILL=no: a first touch a miss, as
# callgrind counts it, whose first pass the estimate is for), where the
# pass counts one a page (its misses in a stride, a thousand cycles'
# worth, set aside: GXTERMS2 below has none)
rec r1m.json e1 1 GX_MODEL_TLB=estimate GX_MODEL_STRIDES=none GX_MODEL_ZERO_FILL=no
ce=$(cycles e1)
check "GX_MODEL_TLB=estimate: cycles under the counted walks' ($ce, $c1)" test "$ce" -lt "$c1"
check "... and it says they were estimated" grep -q "TLB misses estimated (callgrind simulates no TLB" e1/meta.json
check "... and the pricing says it counted them" \
	grep -q "TLB misses counted (.* last level a cache of 256 pages, 16-way" a1/meta.json

# the walks by source line (the second pass under cachegrind, shared among
# a line's instructions by their D1 misses) as by instruction
GX_MODEL_FIRST=callgrind GX_MODEL_SECOND=callgrind rec r1m.json g1 1
ok $? "... and with callgrind's first pass and the second under callgrind"
a=$(cyc_of g1 chase) b=$(cyc_of a1 chase)
check "... chase's cycles, its walks counted by instruction as by source line, within 1% ($a, $b)" \
	python3 -c "import sys; sys.exit(0 if $b > 0 and abs($a - $b) <= 0.01 * $b else 1)"

# ---- first touches: gxgrind's cache of pages counts them, its TLB the
# walks, both in its one pass, whatever its standard input (before, a
# pipe left the pages to the pass, and the walks estimated)
GX_MODEL_PASSES=2 "$X" record -q --model=fault.json -o f1 -- "$WLM" chase_l3 1 </dev/null \
	>/dev/null 2>&1
ok $? "a description that prices a first touch: recorded"
# (standard input /dev/null: make -j gives a test a broken pipe, and a
# pipe is not read again: its first touches would go to the pass; within
# 0.5%: the environment moves the stack's pages)
wf=$(walks f1)
check "... the walks counted all the same, within 0.5% (first touches counted beside them; $wf, $w1)" \
	python3 -c "import sys; sys.exit(0 if $w1 > 0 and abs($wf - $w1) <= 0.005 * $w1 else 1)"
echo | GX_MODEL_PASSES=2 "$X" record -q --model=fault.json -o f2 -- "$WLM" chase_l3 1 \
	>/dev/null 2>&1
ok $? "... and with a pipe for standard input"
wp=$(walks f2)
check "... the walks counted all the same there too, within 0.5% ($wp, $w1)" \
	python3 -c "import sys; sys.exit(0 if $w1 > 0 and abs($wp - $w1) <= 0.005 * $w1 else 1)"
# where gxgrind is not the first pass, the second pass counts the first
# touches of a pipe's workload, and the walks are estimated
echo | GX_MODEL_FIRST=callgrind GX_MODEL_PASSES=2 "$X" record -q --model=fault.json -o f3 -- \
	"$WLM" chase_l3 1 >/dev/null 2>&1
ok $? "... and under callgrind, with a pipe for standard input"
is "$(walks f3)" 0 "... where the second pass counts the first touches: no walk counted, estimated"
is "$(fault_note f1)" 0 "a description that prices a first touch: no VM's first touch said"

# ---- priced again
"$X" report a1 --model-machine walk90.json --json --limit 0 >w90.json 2>/dev/null
is "$?" 0 "report --model-machine with a dearer walk"
check "... the cycles up by the chase's walks at 60 more each, the rest still under their loop, within 0.5%" python3 -c "
import json, sys
r = json.load(open('w90.json'))
c = [e['estimated'] for e in r['events'] if e['name'] == 'cycles:modelled'][0]
want = $c1 + 60 * $cw
print('# %d, want %d' % (c, want))
sys.exit(0 if abs(c - want) < 0.005 * want else 1)"
"$X" report a1 --model-machine r16m.json --json >/dev/null 2>reach.err
is "$?" 2 "priced again with another reach: exit 2"
check "... saying the walks were a TLB of 1024 KiB's reach ($(head -1 reach.err))" \
	grep -q "counted the walks of a TLB of 1024 KiB's reach, 16-way, where description 'r16m' has 16384 KiB" reach.err
"$X" report a1 --model-machine r1m.json --json --limit 0 >same.json 2>/dev/null
check "... with its own description: as recorded" python3 -c "
import json, sys
r = json.load(open('same.json'))
c = [e['estimated'] for e in r['events'] if e['name'] == 'cycles:modelled'][0]
sys.exit(0 if abs(c - $c1) <= max(2, 0.002 * $c1) else 1)"

# a terms file of the earlier format (GXTERMS2: no walks) is read, and
# priced as the estimate prices it: the estimate's result's terms, written
# as GXTERMS2 (nor a chain's load latency: its blocks' cycles written as
# the description's L1 latency sets them, nor misses in a stride or near
# the one before, set aside above, so that only the walks differ)
python3 - e1/model.terms v2.terms <<'PY'
import json, struct, sys
b = open(sys.argv[1], "rb").read()
assert b[:8] == b"GXTERMS7"
load = struct.unpack_from("<d", b, 8 + 8 * 2 + 8 * 3)[0]
at = 8 + 8 * 2 + 8 * 5 + 8 * 12
head_geo = at
at += 24			# the TLB's geometry (v3)
def text(at):
    n = struct.unpack_from("<Q", b, at)[0]
    return at + 8 + n, b[at + 8:at + 8 + n]
at, _ = text(at)
at, desc = text(at)
lat1 = json.loads(desc)["prices"]["l1_latency"]["value"]
nc, ni, nb, nm = struct.unpack_from("<4Q", b, at)
at += 32
rest = ni * 16 + nb * 48 + nm * 24
rec = (len(b) - at - rest) // nc
out = bytearray(b"GXTERMS2" + b[8:16])
out += struct.pack("<Q", struct.unpack_from("<Q", b, 16)[0] & ~4)
out += b[24:48] + b[56:head_geo] + b[head_geo + 24:at]
for k in range(nc):		# its 14th and 15th counts (D1ms, D1mn), its walks and its own share left out
    r = b[at + k * rec: at + k * rec + rec]
    out += r[:8 * 16] + r[8 * 18:rec - 16]
at += nc * rec
out += b[at:at + ni * 16]
at += ni * 16
for k in range(nb):		# src/model/model.c's chain_cycles
    first, n, execs, cyc, scale, chain = struct.unpack_from("<3QdQQ", b, at + 48 * k)
    if chain and load > 0 and abs(lat1 - load) > 0.1 * lat1 and chain * load >= 0.5 * cyc:
        cyc = max(cyc + chain * (lat1 - load), cyc * lat1 / load)
    out += struct.pack("<3QdQ", first, n, execs, cyc, scale)
out += b[at + 48 * nb:]
open(sys.argv[2], "wb").write(out)
PY
ok $? "a GXTERMS2 copy of its terms made"
rm -rf v2 && cp -a e1 v2 && cp v2.terms v2/model.terms
"$X" report e1 --model-machine walk90.json --json --limit 0 >e90.json 2>/dev/null
"$X" report v2 --model-machine walk90.json --json --limit 0 >v2.json 2>v2.err
is "$?" 0 "... priced again ($(head -1 v2.err))"
check "... as the estimate prices it (GX_MODEL_TLB=estimate's cycles, its walks at 90)" python3 -c "
import json, sys
r = json.load(open('v2.json'))
c = [e['estimated'] for e in r['events'] if e['name'] == 'cycles:modelled'][0]
e = json.load(open('e90.json'))
want = [x['estimated'] for x in e['events'] if x['name'] == 'cycles:modelled'][0]
print('# %d, want %d' % (c, want))
sys.exit(0 if abs(c - want) <= max(2, 0.002 * want) else 1)"

# ---- SIGTERM in the second pass (its last level the TLB; the first pass
# callgrind's, as where gxgrind cannot run): the result is the first
# pass's, its walks estimated and the pass said stopped; no Valgrind
# left. The workload's second run waits (a marker the first made), so the
# signal lands in that pass.
mkdir -p stop
GX_MODEL_FIRST=callgrind "$X" record -q --model=r1m.json -o rstop -- sh -c \
	"cd '$TMP/stop' && if [ -e m ]; then exec sleep 3600; fi; touch m; exec '$WLM' chase_l3 1" \
	</dev/null >/dev/null 2>rstop.err &
pid=$!
in_pass2() { pgrep -f "valgrind.*cachegrind.*sleep 3600" >/dev/null ||
	pgrep -f "valgrind.*callgrind-l2.*sleep 3600" >/dev/null ||
	pgrep -f "valgrind.*gxgrind-l2.*sleep 3600" >/dev/null; }
for _ in $(seq 600); do in_pass2 && break; sleep 0.1; done
in_pass2
ok $? "the second pass runs the workload's waiting run"
sleep 0.5
kill -TERM $pid
wait $pid
is "$?" 0 "SIGTERM in the second pass: record exits 0 ($(head -1 rstop.err))"
left=1
for _ in $(seq 50); do in_pass2 || { left=0; break; }; sleep 0.1; done
is "$left" 0 "... no Valgrind left"
check "... a result of the first pass, which report reads" \
	sh -c "'$X' report rstop --limit 3 >/dev/null 2>&1"
check "... the second pass said stopped, its walks not counted" python3 -c "
import json, sys
m = json.load(open('rstop/meta.json'))
w = ' '.join(m.get('warnings', []))
print('# ' + m['status'])
sys.exit(0 if 'TLB misses counted' not in w and 'SIGTERM' in w and
         \"second pass failed (stopped by\" in w and
         \"the TLB's misses are estimated from last-level misses\" in w else 1)"

done_testing
