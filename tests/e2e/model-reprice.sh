#!/bin/bash
# A modelled result priced again with another machine description (issue
# 40): its counts are in the result (model.terms), so `report
# --model-machine NAME|FILE` prices them anew, and `check --baseline` and
# `diff` of results priced by two descriptions price one with the other's.
# The truth: the same workload recorded with that description. wl-model's
# interp (indirect jumps, mispredicts) recorded with a base description
# (zen3's, no indirect jump missed) and with a dear one (mispredicts ten
# times, L2 and L3 twice, every indirect jump of a sequence missed: values
# where the base had none); chase_l2 with the second pass, which tells L2's
# hits from L3's. Where the counts cannot be priced anew (other caches,
# another llvm-mca model, no model.terms) it is exit 2 and one line saying
# which; a damaged model.terms is one line, never a crash. A chase of
# loads kept as such: priced again with another L1 latency, as recorded
# with it. Results modelled with different branch predictors (the tagged
# one and callgrind's, GX_MODEL_PREDICTOR=2bit): exit 2, whatever the
# description, since mispredicts are counts.
. "$GX_SRCDIR/tests/e2e/lib.sh"

WLM="$WL/wl-model"
need_model
[ -x "$WLM" ] || skip_all "no $WLM (make check builds it)"
command -v python3 >/dev/null || skip_all "python3 is absent"
X=$GX_BIN

zen3_desc base.json base indirect_missed=0
zen3_desc dear.json dear indirect_missed=1 mispredict=x10 l2_latency=x2 l3_latency=x2 \
	icache_miss=x3 dram_latency=x1.5
zen3_desc caches.json caches indirect_missed=0 l2_size=x0.5
zen3_desc mcpu.json mcpu indirect_missed=0 mcpu=skylake

rec() {	# rec DESC OUT KERNEL [PASSES]
	GX_MODEL_PASSES=${4:-1} "$X" record -q --model="$1" -o "$2" -- "$WLM" "$3" >/dev/null 2>&1
}
# cmp_json A B EVENT...: every event's run total and every function's
# value in report A's JSON within 0.2% (or 2) of report B's
cmp_json() {
	python3 - "$@" <<'PY'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
bad = []
def near(x, y):
    return abs(x - y) <= max(2, 0.002 * max(abs(x), abs(y)))
for ev in sys.argv[3:]:
    ia = [e["name"] for e in a["events"]].index(ev)
    ib = [e["name"] for e in b["events"]].index(ev)
    ta, tb = a["events"][ia]["estimated"], b["events"][ib]["estimated"]
    if not near(ta, tb):
        bad.append("%s: run %s against %s" % (ev, ta, tb))
    fa = {f["function"]: f["estimated"][ia] for f in a["functions"]}
    fb = {f["function"]: f["estimated"][ib] for f in b["functions"]}
    for fn in set(fa) | set(fb):
        if not near(fa.get(fn, 0), fb.get(fn, 0)):
            bad.append("%s: %s %s against %s" % (ev, fn, fa.get(fn, 0), fb.get(fn, 0)))
print("# " + ("; ".join(bad[:4]) if bad else "all alike"))
sys.exit(1 if bad else 0)
PY
}
EVS="cycles:modelled model-frontend-cycles:modelled model-bad-spec-cycles:modelled
model-memory-cycles:modelled model-core-cycles:modelled branch-misses:modelled l2-misses:modelled"

rec base.json rbase interp && rec dear.json rdear interp
ok $? "interp recorded with the base description and with the dear one"
check "the result keeps what it was priced from (model.terms, 0600)" \
	sh -c '[ "$(stat -c %a rbase/model.terms)" = 600 ]'

# ---- report --model-machine: the dear recording's numbers from the base one
"$X" report rbase --model-machine dear.json --json --limit 0 >again.json 2>again.err
is "$?" 0 "report rbase --model-machine dear.json"
"$X" report rdear --json --limit 0 >dear-rep.json 2>/dev/null
# shellcheck disable=SC2086
cmp_json again.json dear-rep.json $EVS
ok $? "... every modelled event, run and function, as recorded with dear.json"
python3 - again.json rbase/meta.json <<'PY'
import json, sys
r, m = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
i = [e["name"] for e in r["events"]].index("model-bad-spec-cycles:modelled")
got = {f["function"]: f["estimated"][i] for f in r["functions"]}
print("# interp's bad speculation: %s" % got.get("interp"))
sys.exit(0 if got.get("interp", 0) > 1000000 else 1)
PY
ok $? "... the indirect mispredicts the base priced at nothing now priced (their samples made anew)"
"$X" report rbase --model-machine dear.json 2>/dev/null >again.txt
grep -q "priced again with machine description 'dear' (recorded with 'base')" again.txt
ok $? "... and the report says it was priced again, with both names"
"$X" report rbase --model-machine dear.json --by loop --json --limit 0 >loops-again.json 2>/dev/null
"$X" report rdear --by loop --json --limit 0 >loops-dear.json 2>/dev/null
python3 - loops-again.json loops-dear.json <<'PY'
import json, sys
a, b = (json.load(open(f))["loops"] for f in sys.argv[1:3])
key = lambda l: (l["module"], l["head"])
ca = {key(l): l["cycles_per_iteration"] for l in a}
cb = {key(l): l["cycles_per_iteration"] for l in b}
bad = [k for k in cb if abs(ca.get(k, -1) - cb[k]) > 0.002 * cb[k] + 0.01]
print("# interp's loop: %s cycles an iteration, %s as recorded with dear.json" %
      ([v for k, v in ca.items() if "wl-model" in k[0]][:1], [v for k, v in cb.items() if "wl-model" in k[0]][:1]))
sys.exit(0 if cb and not bad and set(ca) == set(cb) else 1)
PY
ok $? "... and the loops' cycles an iteration (flow.json) too"
"$X" report rbase --model-machine base.json --json --limit 0 >same.json 2>/dev/null
"$X" report rbase --json --limit 0 >base-rep.json 2>/dev/null
# shellcheck disable=SC2086
cmp_json same.json base-rep.json $EVS
ok $? "priced again with its own description: as recorded"

# ---- the second pass's L2 misses (L2 hits told from L3's) priced anew
if rec base.json cbase chase_l2 2 && rec dear.json cdear chase_l2 2; then
	"$X" report cbase --model-machine dear.json --json --limit 0 >c-again.json 2>/dev/null
	"$X" report cdear --json --limit 0 >c-dear.json 2>/dev/null
	# shellcheck disable=SC2086
	cmp_json c-again.json c-dear.json $EVS
	ok $? "chase_l2 with its second pass: priced again as recorded with dear.json"
else
	skip 1 "record --model of chase_l2 with two passes failed"
fi

# ---- check --baseline and diff across descriptions: priced again
"$X" check rdear --baseline rbase --max-regress cpi=1% >chk.out 2>chk.err
is "$?" 0 "check --baseline priced by another description: the baseline priced again, checked"
grep -q "rbase priced again with machine description 'dear', as rdear is (it was recorded with 'base')" chk.err
ok $? "... saying so on stderr ($(head -1 chk.err))"
"$X" check rbase --baseline rdear --max-regress cpi=1% >/dev/null 2>&1
is "$?" 0 "... and the other way round"
"$X" diff --json rbase rdear >d.json 2>d.err
is "$?" 0 "diff across descriptions: A priced again with B's"
check "... every entry alike" python3 -c 'import json, sys
d = json.load(open("d.json"))
bad = [e for e in d["entries"] if abs(e["a"] - e["b"]) > max(2, 0.002 * max(abs(e["a"]), abs(e["b"])))]
sys.exit(1 if bad or not d["entries"] else 0)'
check "... and says so" grep -q "rbase priced again with machine description 'dear'" d.err

# ---- what cannot be priced anew: exit 2, one line saying why
rec caches.json rcaches interp
ok $? "interp recorded with a description of half the L2"
out=$("$X" check rcaches --baseline rbase --max-regress cpi=5% 2>&1 >/dev/null)
is "$?" 2 "check --baseline with other caches: exit 2"
[ "$(printf '%s\n' "$out" | wc -l)" = 1 ] && printf '%s\n' "$out" | grep -q "'base'" &&
	printf '%s\n' "$out" | grep -q "'caches'" &&
	printf '%s\n' "$out" | grep -q "callgrind simulated L2 as 512 KiB, 8-way, where description 'caches' has 256 KiB"
ok $? "... one line naming both and the cache ($out)"
"$X" diff rbase rcaches >/dev/null 2>&1
is "$?" 2 "diff with other caches: exit 2"
out=$("$X" report rbase --model-machine mcpu.json 2>&1 >/dev/null)
is "$?" 2 "report --model-machine with another llvm-mca model: exit 2"
printf '%s\n' "$out" | grep -q "llvm-mca -mcpu=znver3, description 'mcpu' uses -mcpu=skylake"
ok $? "... saying which ($out)"
"$X" report rbase --model-machine nosuch >/dev/null 2>&1
is "$?" 2 "an unknown description: exit 2"
if can_sample; then
	"$X" record -q -o native -- "$WLM" lat_chain >/dev/null 2>&1
	out=$("$X" report native --model-machine base.json 2>&1 >/dev/null)
	is "$?" 2 "a measured result: exit 2"
	printf '%s\n' "$out" | grep -q "not a modelled result"
	ok $? "... it has no prices to change ($out)"
	cp -r rbase rforce
	"$X" record -q -f -o rforce -- "$WLM" lat_chain >/dev/null 2>&1 &&
		[ ! -e rforce/model.terms ] && [ ! -e rforce/flow.json ]
	ok $? "record -f over a modelled result: its model.terms and flow.json are gone"
else
	skip 3 "cannot sample cpu-clock here"
fi
cp -r rbase rold
rm rold/model.terms
out=$("$X" report rold --model-machine dear.json 2>&1 >/dev/null)
is "$?" 2 "a modelled result without model.terms: exit 2"
printf '%s\n' "$out" | grep -q "has no model.terms"
ok $? "... naming it ($out)"
out=$("$X" check rdear --baseline rold --max-regress cpi=5% 2>&1 >/dev/null)
is "$?" 2 "... and check --baseline against it: exit 2"

# refused WHAT PATTERN ARG...: gexplore ARG... exits 2 with one line
# matching PATTERN
refused() {
	local what=$1 pat=$2 out
	shift 2
	out=$("$X" "$@" 2>&1 >/dev/null)
	is "$?" 2 "$what: exit 2"
	[ "$(printf '%s\n' "$out" | wc -l)" = 1 ] && printf '%s\n' "$out" | grep -q "$pat"
	ok $? "... one line naming both ($out)"
}

# ---- across branch predictors: their mispredicts are counts, exit 2
if [ "$(jq -r .model_predictor rbase/meta.json)" = tage ]; then
	GX_MODEL_PREDICTOR=2bit rec base.json r2bit interp
	ok $? "interp recorded with callgrind's predictor (GX_MODEL_PREDICTOR=2bit)"
	is "$(jq -r .model_predictor r2bit/meta.json)" 2bit "meta.json: model_predictor 2bit"
	refused "check --baseline modelled with the other predictor" \
		"rbase simulated gxgrind's tagged predictor ('tage'), r2bit callgrind's two-bit predictor ('2bit')" \
		check r2bit --baseline rbase --max-regress cpi=50%
	out=$("$X" diff rbase r2bit 2>&1 >/dev/null)
	is "$?" 2 "diff across predictors: exit 2"
	printf '%s\n' "$out" | grep -q "rbase simulated gxgrind's tagged predictor"
	ok $? "... saying so ($out)"
	# a result from before the field: callgrind's predictor, as then
	cp -r r2bit rpre
	jq 'del(.model_predictor)' r2bit/meta.json >rpre/meta.json
	"$X" check rpre --baseline r2bit --max-regress cpi=1% >/dev/null 2>&1
	is "$?" 0 "a result without model_predictor against one with callgrind's: compared"
	"$X" check rpre --baseline rbase --max-regress cpi=50% >/dev/null 2>&1
	is "$?" 2 "... against one with the tagged predictor: exit 2"
	# a name that is not one of them, with a terminal's escape in it
	jq '.model_predictor = "\u001b[31mx\ny"' r2bit/meta.json >rpre/meta.json
	"$X" diff rbase rpre >/dev/null 2>d.err
	is "$?" 2 "an unknown predictor's name: exit 2"
	[ "$(wc -l <d.err)" = 1 ] && ! grep -q "$(printf '\033')" d.err &&
		grep -q "rpre an unknown predictor ('\\\\x1b\[31mx\\\\ny')" d.err
	ok $? "... one line, the name escaped ($(cat d.err))"
else
	skip 10 "the model ran without gxgrind's tagged predictor here"
fi

# ---- across revisions of the pricing rules: the same counts priced by
# other rules (a result from before revision 1, which priced misses at
# random ten in flight whatever the mispredicts): exit 2, whatever the
# description; two results of one revision are compared
is "$(jq -r .model_rules rbase/meta.json)" 3 "meta.json: model_rules 3"
cp -r rbase rrev0
jq 'del(.model_rules)' rbase/meta.json >rrev0/meta.json
refused "check --baseline priced by the rules before revision 1" \
	"rrev0 was priced by the model's rules of revision 0, rbase by revision 3 .*record rrev0 again" \
	check rbase --baseline rrev0 --max-regress cpi=50%
out=$("$X" diff rrev0 rdear 2>&1 >/dev/null)
is "$?" 2 "... diff across revisions, descriptions apart too: exit 2"
cp -r rrev0 rrev0b
"$X" check rrev0b --baseline rrev0 --max-regress cpi=1% >/dev/null 2>&1
is "$?" 0 "two results of one revision: compared"
cp -r rbase rrevbad
jq '.model_rules = -3' rbase/meta.json >rrevbad/meta.json
"$X" report rrevbad >rrevbad.txt 2>&1
grep -q 'meta.json: model_rules -3 is out of range (0 to 1000): ignored' rrevbad.txt
ok $? "a damaged model_rules (-3): a warning, read as 0"
"$X" check rbase --baseline rrevbad --max-regress cpi=50% >/dev/null 2>&1
is "$?" 2 "... and not compared with revision 3"

# ---- hostile: a link, a mutated or truncated model.terms
cp -r rbase rlink
rm rlink/model.terms
ln -s "$TMP/rbase/model.terms" rlink/model.terms
"$X" report rlink --model-machine dear.json >/dev/null 2>link.err
[ "$?" -ne 0 ] && grep -q "model.terms" link.err
ok $? "a model.terms that is a link: refused, not followed ($(head -1 link.err))"
python3 - rbase/model.terms <<'PY' >mut.list
import os, random, sys
data = open(sys.argv[1], "rb").read()
rnd = random.Random(40)
os.makedirs("mut", exist_ok=True)
cases = [data[:n] for n in (0, 7, 8, 100, len(data) // 2, len(data) - 1)]
for _ in range(40):
    b = bytearray(data)
    for _ in range(rnd.randint(1, 4)):
        b[rnd.randrange(len(b))] = rnd.randrange(256)
    cases.append(bytes(b))
cases.append(data + b"\0" * 8)
for i, c in enumerate(cases):
    open("mut/%d" % i, "wb").write(c)
    print(i)
PY
crash=0 lines=0 n=0
while read -r i; do
	rm -rf rm$i && cp -r rbase rm$i && cp "mut/$i" rm$i/model.terms
	"$X" report rm$i --model-machine dear.json >/dev/null 2>m.err
	rc=$?
	n=$((n + 1))
	[ "$rc" -ge 128 ] && crash=$((crash + 1)) && diag "mutation $i: exit $rc"
	[ "$rc" -ne 0 ] && [ "$(wc -l <m.err)" != 1 ] && lines=$((lines + 1)) &&
		diag "mutation $i: $(head -3 m.err)"
	rm -rf rm$i
done <mut.list
is "$crash/$lines" 0/0 "$n mutated or truncated model.terms: no crash, each refusal one line"

# a chase's loads at the description's L1 latency: the loop and llvm-mca's
# latency are kept, so that priced again with an L1 of 5 cycles (llvm-mca's
# own) it is as recorded with it, a cycle a step dearer
zen3_desc l1five.json l1five indirect_missed=0 l1_latency=5
rec base.json rc4 chase_l1 && rec l1five.json rc5 chase_l1
ok $? "chase_l1 recorded with an L1 of 4 cycles (zen3's) and of 5"
check "... the first says the chase's loop is priced at the description's L1 latency" \
	grep -q "gives a load 5.00 cycles of latency where machine description 'base' gives L1 4.00" \
	rc4/meta.json
"$X" report rc4 --model-machine l1five.json --json --limit 0 >rc45.json 2>/dev/null &&
	"$X" report rc5 --json --limit 0 >rc5.json 2>/dev/null &&
	"$X" report rc4 --json --limit 0 >rc4.json 2>/dev/null
ok $? "... priced again with the second's"
check "... as recorded with it" cmp_json rc45.json rc5.json $EVS
check "... the chase a cycle a step dearer (a step its four instructions; as sampled, within 1%)" python3 -c "
import json, sys
def chase(f, ev):
    r = json.load(open(f))
    i = [e['name'] for e in r['events']].index(ev)
    return [x for x in r['functions'] if x['function'] == 'chase'][0]['estimated'][i]
steps = chase('rc5.json', 'instructions:exact') / 4
d = chase('rc45.json', 'cycles:modelled') - chase('rc4.json', 'cycles:modelled')
print('# %d cycles more, %d steps' % (d, steps))
sys.exit(0 if steps > 0 and abs(d - steps) <= 0.01 * steps else 1)"

# an I1 miss inside a block (the run went on into its next line: fetched
# ahead) at icache_seq_miss, one at a block's first instruction (a jump or
# a branch led there) at icache_miss: bigcode's 68 KiB of straight code
# misses nearly all its lines on the way through
zen3_desc seq0.json seq0 indirect_missed=0 icache_seq_miss=0
zen3_desc seq8.json seq8 indirect_missed=0 icache_seq_miss=8 icache_miss=8
python3 - seq8.json old.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["name"] = "old"
del d["prices"]["icache_seq_miss"]
json.dump(d, open(sys.argv[2], "w"))
PY
rec base.json rbig bigcode
ok $? "bigcode recorded"
for d in seq0 seq8 old; do
	"$X" report rbig --model-machine $d.json --json --limit 0 >big-$d.json 2>/dev/null
done
check "... priced again with sequential misses at 0 and at 8 cycles: the frontend's cycles differ by 8 a miss, for 90% of bigcode's I1 misses or more" python3 -c "
import json, sys
def ev(f, name, fn='bigcode'):
    r = json.load(open(f))
    i = [e['name'] for e in r['events']].index(name)
    return [x for x in r['functions'] if x['function'] == fn][0]['estimated'][i]
miss = ev('big-seq8.json', 'L1-icache-load-misses:modelled')
d = ev('big-seq8.json', 'model-frontend-cycles:modelled') - ev('big-seq0.json', 'model-frontend-cycles:modelled')
print('# %d I1 misses, the frontend %d cycles apart' % (miss, d))
sys.exit(0 if miss > 10000 and 0.9 * 8 * miss <= d <= 8 * miss * 1.01 else 1)"
check "... a description from before the split (no icache_seq_miss): every miss at icache_miss, as then" \
	cmp_json big-old.json big-seq8.json $EVS
# ---- first touches: gxgrind's cache of pages counts them whatever the
# description prices them at, so a result priced with none (zen3's, bare
# metal) is priced again with a description that prices them as recorded
# with it; where callgrind ran and no pass counted them, exit 2
zen3_desc pf.json pf indirect_missed=0 page_fault=20000
if GX_MODEL_PASSES=2 "$X" record -q --model=base.json -o tbase -- "$WLM" touch 4 \
	</dev/null >/dev/null 2>&1 &&
	GX_MODEL_PASSES=2 "$X" record -q --model=pf.json -o tpf -- "$WLM" touch 4 \
	</dev/null >/dev/null 2>&1; then
	"$X" report tbase --model-machine pf.json --json --limit 0 >tre.json 2>/dev/null &&
		"$X" report tpf --json --limit 0 >tpf.json 2>/dev/null
	is "$?" 0 "touch 4 recorded with no first touch priced, priced again with page_fault=20000"
	# shellcheck disable=SC2086
	check "... every modelled event as recorded with it" cmp_json tre.json tpf.json $EVS \
		page-faults:modelled
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
i = [e["name"] for e in d["events"]].index("page-faults:modelled")
sys.exit(0 if d["events"][i]["estimated"] >= 1024 else 1)' tre.json
	ok $? "... its first touches priced"
	GX_MODEL_FIRST=callgrind GX_MODEL_PASSES=1 "$X" record -q --model=base.json -o tcg -- \
		"$WLM" touch 1 </dev/null >/dev/null 2>&1
	out=$("$X" report tcg --model-machine pf.json 2>&1 >/dev/null)
	is "$?" 2 "... where no pass counted them (callgrind's, alone): exit 2"
	grep -q "prices a page's first touch, which the run did not count" <<<"$out"
	ok $? "... saying why ($out)"
else
	skip 5 "record --model of touch failed"
fi
done_testing
