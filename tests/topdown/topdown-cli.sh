#!/bin/sh
# End to end: `gexplore topdown` on the skl SMT-off case of
# test-topdown-eval.c written as perf stat output (three locales), CSV and
# plain lines; `gexplore list`; exit codes and file:line messages.
: "${GX_BIN:?}" "${GX_SRCDIR:?}"
D="$GX_SRCDIR/tests/topdown"
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
n=0
fail=0
ok() { n=$((n + 1)); if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fail=1; fi; }
has() { grep -q -- "$1" "$2"; }

for f in skl-perfstat.txt skl-perfstat-de.txt skl-perfstat-fr.txt skl-csv.txt skl-plain.txt; do
	"$GX_BIN" topdown --cpu skl --smt off --counts "$D/$f" >"$T/out" 2>"$T/err"
	ok $? "$f: exit 0"
	has '^Frontend_Bound  *20\.0%' "$T/out"; ok $? "$f: Frontend_Bound 20.0%"
	has '^Bad_Speculation  *15\.0%  <$' "$T/out"; ok $? "$f: Bad_Speculation 15.0% below threshold"
	has '^  Core_Bound  *16\.2%  <==$' "$T/out"; ok $? "$f: Core_Bound is the bottleneck"
	has '^    L2_Bound  *7\.9%' "$T/out"; ok $? "$f: L2_Bound 7.9%"
	has '^CPI  *0\.80$' "$T/out"; ok $? "$f: CPI 0.80"
done

# the same file through an alias, SMT on (per-thread estimate needs events it lacks -> n/a)
"$GX_BIN" topdown --cpu clx --smt on --counts "$D/skl-perfstat.txt" >"$T/out" 2>&1
ok $? "clx alias, SMT on: exit 0"
has '^Frontend_Bound  *n/a' "$T/out"; ok $? "SMT on without THREAD_ANY/ONE_THREAD_ACTIVE: n/a"
has 'SMT is on' "$T/out"; ok $? "SMT hint"

# JSON
"$GX_BIN" topdown --cpu skl --smt off --json --counts "$D/skl-csv.txt" >"$T/json" 2>&1
ok $? "--json: exit 0"
has '"bottleneck": "Core_Bound"' "$T/json"; ok $? "--json: bottleneck"
has '"schema": "gexplore-topdown/1"' "$T/json"; ok $? "--json: schema tag"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); m={x["name"]:x for x in d["metrics"]}; sys.exit(0 if abs(m["Backend_Bound"]["value"]-0.3)<1e-9 and m["Core_Bound"]["on_bottleneck_path"] else 1)' "$T/json" 2>/dev/null
r=$?; [ $r = 127 ] && r=0
ok $r "--json: parses, Backend_Bound 0.3"
has '"upstream": "Info_Thread_CPI"' "$T/json"; ok $? "--json: upstream name of CPI"
has '"own": "Helper: ' "$T/json"; ok $? "--json: a helper says why it is gexplore's own"

# stdin and the general-counter fallback on spr
printf 'slots 6e6\nIDQ_UOPS_NOT_DELIVERED.CORE 1.2e6\nTOPDOWN.BACKEND_BOUND_SLOTS 2.4e6\nUOPS_RETIRED.SLOTS 1.8e6\n' |
	"$GX_BIN" topdown --cpu spr --smt off --counts - >"$T/out" 2>&1
ok $? "spr from stdin"
has 'variant gp' "$T/out"; ok $? "spr: falls back to the general-counter formulas"
has '^Backend_Bound  *40\.0%  <==' "$T/out"; ok $? "spr gp: Backend_Bound 40%"

# bad input: exit 2, one line naming file:line
printf 'cycles 100\ninstructions 12abc\n' >"$T/bad.txt"
"$GX_BIN" topdown --cpu skl --counts "$T/bad.txt" >"$T/out" 2>"$T/err"
ok $([ $? = 2 ] && echo 0 || echo 1) "bad count: exit 2"
has "bad.txt:2: " "$T/err"; ok $? "bad count: names file:line"
[ "$(wc -l <"$T/err")" = 1 ]; ok $? "bad count: one line"
"$GX_BIN" topdown --cpu skl --counts "$T/missing.txt" >/dev/null 2>"$T/err"
ok $([ $? = 2 ] && echo 0 || echo 1) "missing file: exit 2"
"$GX_BIN" topdown --cpu pentium4 --counts "$D/skl-plain.txt" >/dev/null 2>"$T/err"
ok $([ $? = 2 ] && echo 0 || echo 1) "unknown model: exit 2"
has "unknown CPU model 'pentium4'" "$T/err"; ok $? "unknown model: message"
"$GX_BIN" topdown --cpu skl --smt maybe --counts "$D/skl-plain.txt" >/dev/null 2>&1
ok $([ $? = 2 ] && echo 0 || echo 1) "bad --smt: exit 2"

# real perf stat output, when perf is here (hardware events are often
# <not supported> in VMs: the counts are then missing, not an error)
if [ -n "$PERF" ] && "$PERF" stat -e cycles,instructions,task-clock -o "$T/p1.txt" true 2>/dev/null &&
	"$PERF" stat -x, -e cycles,instructions,task-clock -o "$T/p2.txt" true 2>/dev/null; then
	"$GX_BIN" topdown --cpu generic --counts "$T/p1.txt" >"$T/out" 2>&1
	ok $? "real perf stat output parses"
	"$GX_BIN" topdown --cpu generic --counts "$T/p2.txt" >"$T/out" 2>&1
	ok $? "real perf stat -x, output parses"
else
	n=$((n + 1)); echo "ok $n # SKIP perf stat not usable"
	n=$((n + 1)); echo "ok $n # SKIP perf stat not usable"
fi

# every perf stat layout (tests/topdown/*: the skl counts split over two
# intervals, CPUs, cores, sockets or threads: 10% and 30% Frontend_Bound,
# the whole run as above)
for f in skl-json.txt skl-interval.txt skl-interval-csv.txt skl-interval-json.txt skl-A.txt \
	skl-per-core-csv.txt skl-per-socket-json.txt skl-per-thread-de.txt skl-hybrid.txt; do
	"$GX_BIN" topdown --cpu skl --smt off --counts "$D/$f" >"$T/out" 2>"$T/err"
	ok $? "$f: exit 0"
	# the whole run is the first tree
	awk '/^Frontend_Bound/ { print; exit }' "$T/out" | grep -q ' 20\.0%'; ok $? "$f: whole run Frontend_Bound 20.0%"
	has '^  Core_Bound  *16\.2%  <==$' "$T/out"; ok $? "$f: whole run bottleneck Core_Bound"
	has '^CPI  *0\.80$' "$T/out"; ok $? "$f: whole run CPI 0.80"
	case $f in skl-json.txt|skl-hybrid.txt) continue ;; esac
	[ "$(grep -c '^== ' "$T/out")" = 3 ]; ok $? "$f: the whole run and a tree per interval or entity"
	has '^Frontend_Bound  *10\.0%  <$' "$T/out" && has '^Frontend_Bound  *30\.0%$' "$T/out"
	ok $? "$f: the two rows' Frontend_Bound, 10% and 30%"
	has '^MUX: .* 50\.00% of the time (reliability 0\.50, unreliable)' "$T/out"; ok $? "$f: run percentages give the MUX reliability"
done
"$GX_BIN" topdown --cpu skl --smt off --counts "$D/skl-per-thread-de.txt" >"$T/out" 2>&1
has '^== thread workload-4243 ==$' "$T/out"; ok $? "--per-thread: rows named by thread"
"$GX_BIN" topdown --cpu skl --smt off --counts "$D/skl-interval.txt" >"$T/out" 2>&1
has '^== interval ending 0\.200 s ==$' "$T/out"; ok $? "-I: rows named by interval"
"$GX_BIN" topdown --cpu skl --smt off --counts "$D/skl-hybrid.txt" >"$T/out" 2>&1
has '^cpu_atom: copies of events on this PMU left out' "$T/out"; ok $? "hybrid: cpu_atom copies left out, said"
"$GX_BIN" topdown --cpu skl --smt off --json --counts "$D/skl-interval-json.txt" >"$T/json" 2>&1
ok $? "-I -j --json: exit 0"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); r=d["rows"]; m=lambda t:{x["name"]:x["value"] for x in t["metrics"]}; sys.exit(0 if d["intervals"] and len(r)==2 and abs(r[0]["time"]-0.100093262)<1e-9 and abs(m(r[0])["Frontend_Bound"]-0.1)<1e-9 and abs(m(r[1])["Frontend_Bound"]-0.3)<1e-9 and abs(m(d)["Frontend_Bound"]-0.2)<1e-9 and abs(d["mux_reliability"]-0.5)<1e-9 else 1)' "$T/json" 2>/dev/null
r=$?; [ $r = 127 ] && r=0
ok $r "--json: rows[] per interval with their time, whole run and MUX reliability"

# the two real Zen 4 spellings of a named event with a cmask term
for f in zen4-perfstat.txt zen4-csv.txt; do
	"$GX_BIN" topdown --cpu zen4 --smt off --counts "$D/$f" >"$T/out" 2>&1
	ok $? "$f: exit 0"
	has '^  Frontend_Latency  *10\.0%' "$T/out"; ok $? "$f: cpu/EVENT,cmask=0x6/ gives Frontend_Latency (10.0%), not n/a"
	has '^Bad_Speculation  *10\.0%' "$T/out"; ok $? "$f: Bad_Speculation 10.0%"
	has '^  Memory_Bound  *18\.0%  <==$' "$T/out"; ok $? "$f: Memory_Bound 18.0%, the bottleneck"
	has '^CPI  *0\.50$' "$T/out"; ok $? "$f: CPI 0.50"
done

# <not counted> / <not supported>: n/a with perf's reason
"$GX_BIN" topdown --cpu skl --smt on --counts "$D/skl-perfstat.txt" >"$T/out" 2>&1
has '^  CPU_CLK_UNHALTED.ONE_THREAD_ACTIVE (not supported)$' "$T/out"; ok $? "n/a: <not supported> named with its reason"
has '^  CPU_CLK_UNHALTED.REF_XCLK (absent from the input)$' "$T/out"; ok $? "n/a: an event not in the input says so"
"$GX_BIN" topdown --cpu skl --smt on --core-wide --counts "$D/skl-perfstat.txt" >"$T/out" 2>&1
has '^  CPU_CLK_UNHALTED.THREAD_ANY (not counted)$' "$T/out"; ok $? "n/a: <not counted> named with its reason"

# SMT: without --smt the assumption is printed and big changes shown both ways
"$GX_BIN" topdown --cpu skl --counts "$D/skl-smt-events.txt" >"$T/out" 2>&1
has '^Model skl, SMT unknown: assumed off' "$T/out"; ok $? "no --smt: the assumption is printed"
has '^  Frontend_Bound  *20\.0% with SMT off,  *25\.0% with SMT on$' "$T/out"; ok $? "no --smt: a node SMT moves shown both ways"
"$GX_BIN" topdown --cpu skl --smt on --counts "$D/skl-smt-events.txt" >"$T/out" 2>&1
has '^Frontend_Bound  *25\.0%' "$T/out"; ok $? "--smt on: the SMT formulas"
! has 'SMT changes' "$T/out"; ok $? "--smt given: no both-ways list"

# real perf stat output in every layout, when perf runs here (software
# events always count; cycles may be <not supported> in a VM)
if [ -n "$PERF" ] && "$PERF" stat -e cycles,task-clock -o /dev/null true 2>/dev/null; then
	ev=cycles,instructions,task-clock,page-faults
	i=0
	for opts in "" "-x," "-x;" "-j" "-I 100 -x," "-I 100" "-I 100 -j" "-a -A" "-a -A -x," "-a -A -j" \
		"-a --per-core -x," "-a --per-socket" "-a --per-thread -x,"; do
		i=$((i + 1))
		# shellcheck disable=SC2086
		if ! "$PERF" stat $opts -e $ev -o "$T/real$i.txt" -- sleep 0.25 2>/dev/null; then
			n=$((n + 1)); echo "ok $n # SKIP perf stat $opts failed (permissions?)"
		elif ! grep -q '[ ,;"]\(cycles\|instructions\)[ ,;"]' "$T/real$i.txt"; then
			# --per-thread leaves out events the PMU does not support
			n=$((n + 1)); echo "ok $n # SKIP perf stat $opts printed no hardware event"
		else
			"$GX_BIN" topdown --cpu generic --counts "$T/real$i.txt" >"$T/out" 2>&1
			r=$?
			[ $r = 0 ] || sed 's/^/# /' "$T/out" "$T/real$i.txt"
			ok $r "real perf stat ${opts:-(default)} output parses"
		fi
	done
	"$PERF" stat -I 100 -j -e $ev -o "$T/realj.txt" -- sleep 0.35 2>/dev/null
	"$GX_BIN" topdown --cpu generic --json --counts "$T/realj.txt" >"$T/json" 2>&1
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d["intervals"] and len(d["rows"])>=3 else 1)' "$T/json" 2>/dev/null
	r=$?; [ $r = 127 ] && r=0
	ok $r "real perf stat -I 100 -j: a row per interval"
else
	n=$((n + 1)); echo "ok $n # SKIP perf stat not usable"
fi

# list
for m in skl skx clx icl icx spr zen3 zen4 zen5 n1 v1 n2 v2 generic modelled amd64_fam1ah_zen5 arm_n2; do
	"$GX_BIN" list --cpu $m >"$T/list" 2>&1
	ok $? "list --cpu $m"
done
"$GX_BIN" list --cpu skl --smt on >"$T/list" 2>&1
has '^      L1_Bound$' "$T/list"; ok $? "list: level-3 nodes indented"
has '^Multiplexing plan for skl' "$T/list"; ok $? "list: shows the multiplexing plan"
has '^        upstream: L1_Bound$' "$T/list"; ok $? "list: TMA name of a node"
"$GX_BIN" list --cpu n1 >"$T/n1" 2>&1
has "^    gexplore's own: Arm defines no level 1 for Neoverse N1" "$T/n1"; ok $? "list: N1's own nodes say why"
has 'IDQ_UOPS_NOT_DELIVERED.CORE  *[0-9][0-9]* ' "$T/list"; ok $? "list: group column"
# where no vendor's file is the authority, list says so
"$GX_BIN" list --cpu zen3 >"$T/zen3" 2>&1
has '^Authority: none: Zen 3 has no dispatch-slot events' "$T/zen3"; ok $? "list: zen3 says it has no authority"
has '^Authority:' "$T/list"; ok $((! $?)) "list: skl names none missing (TMA is its authority)"
"$GX_BIN" list --cpu modelled >"$T/mod" 2>&1
has "^Authority: none: No vendor formula applies" "$T/mod"; ok $? "list: the modelled tree says it has no authority"
has '^Width:     none (shares of cycles' "$T/mod"; ok $? "list: the modelled tree has no issue width"
"$GX_BIN" list --cpu spr --perf >"$T/perf" 2>&1
has "^perf stat -e '.*{slots,topdown-retiring," "$T/perf"; ok $? "list --perf: PERF_METRICS group led by slots"
"$GX_BIN" list --cpu skl --perf --smt on >"$T/perf" 2>&1
ok $? "list --perf skl"
# every group fits 4 counters with SMT on
awk -F'[{}]' '{for (i = 2; i <= NF; i += 2) { n = gsub(/cpu\/|r[0-9a-f]+/, "&", $i); if (n > 4) bad = 1 } } END { exit bad }' "$T/perf"
ok $? "list --perf: groups fit 4 counters with SMT on"
"$GX_BIN" list --models >"$T/models" 2>&1
[ "$(wc -l <"$T/models")" -ge 12 ]; ok $? "list --models"
# perf stat -x, of a multiplexed run (issue 26, part 1): each value goes
# through the one scaling rule, once (perf printed it scaled), its running
# share beside it as perf prints it, a warning under 10%, and a share of 0
# is not counted
"$GX_BIN" topdown --cpu skl --smt off --counts "$D/skl-mux-csv.txt" >"$T/out" 2>"$T/err"
ok $? "skl-mux-csv.txt: exit 0"
has '^  INST_RETIRED.ANY  *800000000  (53\.33%)$' "$T/out"; ok $? "mux csv: instructions as perf scaled it, (53.33%) beside it"
has '^  CPU_CLK_UNHALTED.THREAD  *1000000000$' "$T/out"; ok $? "mux csv: cycles ran all the time: no percentage"
has '^  IDQ_UOPS_NOT_DELIVERED.CORE  *200000000  (7\.50%)$' "$T/out"; ok $? "mux csv: 7.50% beside the third"
has '^warning: IDQ_UOPS_NOT_DELIVERED.CORE counted only 7\.50% of the run' "$T/out"; ok $? "mux csv: a warning under 10%"
[ "$(grep -c '^warning:' "$T/out")" = 1 ]; ok $? "mux csv: one warning (53.33% is above 10%)"
has '^MUX: .* 7\.50% of the time (reliability 0\.07, unreliable)' "$T/out"; ok $? "mux csv: the MUX reliability of the least counted"
has '^  UOPS_ISSUED.ANY (not counted)' "$T/out"; ok $? "mux csv: <not counted> keeps its reason"
has '^IPC  *0\.80$' "$T/out"; ok $? "mux csv: IPC from the values scaled once (800M / 1000M)"
"$GX_BIN" topdown --cpu skl --smt off --json --counts "$D/skl-mux-csv.txt" >"$T/json" 2>&1
ok $? "skl-mux-csv.txt --json: exit 0"
if command -v jq >/dev/null; then
	jq -e '[.events[] | select(.event == "INST_RETIRED.ANY")][0] |
		.value == 800000000 and .running == 0.5333 and .multiplexed' "$T/json" >/dev/null
	ok $? "mux csv --json: instructions' value, running share and multiplexed"
	jq -e '[.events[] | select(.event == "CPU_CLK_UNHALTED.THREAD")][0] |
		.running == 1 and (.multiplexed | not)' "$T/json" >/dev/null
	ok $? "mux csv --json: cycles ran all the time"
	jq -e '(.warnings | length) == 1 and (.warnings[0] | test("IDQ_UOPS_NOT_DELIVERED.CORE counted only 7.50%"))' \
		"$T/json" >/dev/null
	ok $? "mux csv --json: the warning"
	jq -e '.mux_reliability == 0.075 and ([.events[] | select(.event == "UOPS_ISSUED.ANY")] | length) == 0' \
		"$T/json" >/dev/null
	ok $? "mux csv --json: reliability 0.075; the not-counted event has no value"
else
	for i in 1 2 3 4; do n=$((n + 1)); echo "ok $n # SKIP jq is absent (Debian package jq)"; done
fi
# the whole run of intervals: a share per interval, their mean beside the sum
"$GX_BIN" topdown --cpu skl --smt off --counts "$D/skl-interval-csv.txt" >"$T/out" 2>&1
has '^  INST_RETIRED.ANY  *[0-9][0-9]*  (50\.00%)$' "$T/out"; ok $? "interval csv: 50.00% beside each event of a row"

# GX_EVENTS_DIR overrides the models; a broken formula names file, metric, column
mkdir "$T/ev"
sed 's|"formula": "IDQ_UOPS_NOT_DELIVERED.CORE / SLOTS"|"formula": "(IDQ_UOPS_NOT_DELIVERED.CORE / SLOTS"|' \
	"$GX_SRCDIR/events/skl.json" >"$T/ev/skl.json"
GX_EVENTS_DIR="$T/ev" "$GX_BIN" list --cpu skl >/dev/null 2>"$T/err"
ok $([ $? = 1 ] && echo 0 || echo 1) "broken model: exit 1"
has "skl.json: metric Frontend_Bound: column 37: expected ')'" "$T/err"; ok $? "broken model: file, metric, column"
GX_EVENTS_DIR="$T/ev" "$GX_BIN" list --cpu icl >/dev/null 2>"$T/err"
ok $([ $? = 2 ] && echo 0 || echo 1) "GX_EVENTS_DIR is the only place looked at"
has "unknown CPU model 'icl' (known: none); not loaded: .*skl.json" "$T/err"; ok $? "a broken file is named when nothing matches"

echo "1..$n"
exit $fail
