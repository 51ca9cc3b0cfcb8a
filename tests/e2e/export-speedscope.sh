#!/bin/bash
# report --format speedscope (issue 44): a recording of a two-thread
# program (wl-threads 1: main and one spinning worker, cpu-clock with
# stacks) exported to speedscope's file format: one sampled profile per
# thread with the thread's samples and time, frames with file and line,
# valid against the schema speedscope ships (npm package speedscope), and
# opened offline in headless chromium the way `speedscope FILE` does (a
# script that hands the file to speedscope's own page), whose sandwich
# table must show the hottest function with report's value for it, under
# the busiest thread with report's sample count. An --off-cpu recording
# of wl-offcpu exports its waits (--event off-cpu, off-cpu:sleep) weighed
# in ns on the waiting thread's stacks, as report counts them (as root).
. "${GX_SRCDIR}/tests/e2e/lib.sh"
. "${GX_SRCDIR}/tests/e2e/browser.sh"
X="$GX_BIN"
export_two_threads speedscope r.json
check "the export is JSON" jq -e . r.json
is "$(jq -r '."$schema"' r.json)" "https://www.speedscope.app/file-format-schema.json" "names speedscope's schema"

# one profile per thread with samples, each with that thread's samples and time
nthreads=$(jq '[.threads[] | select(.samples[0] > 0)] | length' rep.json)
is "$(jq '.profiles | length' r.json)" "$nthreads" "one profile per thread ($nthreads)"
[ "$nthreads" -ge 2 ] 2>/dev/null
ok $? "both threads have samples"
want=$(jq -r '[.threads[] | select(.samples[0] > 0) | "\(.tid) \(.samples[0]) \(.estimated[0])"] | sort | join(",")' rep.json)
got=$(jq -r '[.profiles[] | "\(.name | capture("\\((?<t>[0-9]+)\\)").t) \(.samples | length) \(.weights | add)"] | sort | join(",")' r.json)
is "$got" "$want" "each thread's samples and summed period as report's"
is "$(jq -r '[.profiles[].unit] | unique | join(",")' r.json)" nanoseconds "cpu-clock weighs in nanoseconds"
is "$(jq '[.profiles[] | select(.type == "sampled" and (.samples | length) == (.weights | length))] | length' r.json)" \
	"$nthreads" "sampled profiles, a weight per sample"
hot=$(jq -r '.functions[0].function' rep.json)
check "the hottest function ($hot) is a frame with file and line" \
	jq -e --arg f "$hot" '.shared.frames[] | select(.name == $f and (.file | test("wl-threads.c$")) and .line > 0)' r.json
# every sample's stack is root first: the leaf of the worker's samples is the hot function
check "stacks are root first (the hot function is the worker's leaf)" \
	jq -e --arg f "$hot" '. as $d | [.profiles[.activeProfileIndex].samples[] | $d.shared.frames[.[-1]].name] | map(select(. == $f)) | length > 0' r.json
"$X" report --format speedscope -o cycles.json --event no-such-event r 2>err
is $? 2 "--event names an event of the result"

# off-CPU time (issue 45's values): --event off-cpu weighs each wait, in
# ns, on the stack of the thread that waited; wl-offcpu's sleeper sleeps
# 400 ms in wait_sleep (as root: a sample at each switch-out)
offcpu=false
if [ "$(id -u)" != 0 ]; then
	skip 5 "not root: an --off-cpu recording with stacks of its waits needs it"
elif ! "$X" record -q -o off --off-cpu -g -- "$WL/wl-offcpu" >/dev/null 2>&1; then
	skip 5 "cannot record wl-offcpu --off-cpu here"
else
	offcpu=true
	"$X" report --format speedscope --event off-cpu -o off.json off
	ok $? "report --format speedscope --event off-cpu"
	"$X" report --json --limit 0 --event off-cpu off >off-rep.json
	is "$(jq -r '[.profiles[].unit] | unique | join(",")' off.json)" nanoseconds "off-cpu weighs in nanoseconds"
	tid=$(jq -r '.off_cpu.threads[] | select(.comm == "sleeper") | .tid' off-rep.json)
	oi=$(jq '[.events[].name] | index("off-cpu")' off-rep.json)
	sleeper() {	# sleeper FILE: the sleeper's profile in FILE
		jq --arg t "($tid)" '.profiles[] | select(.name | contains($t))' "$1"
	}
	# the sleeper's profile weighs its time off the CPU, as report's thread
	want=$(jq -r --arg t "$tid" '.off_cpu.threads[] | select(.tid == ($t | tonumber)) | .off_cpu_s * 1e9 | round' off-rep.json)
	got=$(sleeper off.json | jq '.weights | add')
	awk -v g="${got:-0}" -v w="${want:-0}" 'BEGIN { d = g - w; exit !(w > 3e8 && d * d <= 1e6) }'
	ok $? "the sleeper's ($tid) profile weighs its time off the CPU: $got ns (report: $want ns)"
	# ... and its sleep sits on wait_sleep, with report's total for it
	want=$(jq --argjson i "$oi" '[.functions[] | select(.function == "wait_sleep") | .total_estimated[$i]] | add' off-rep.json)
	got=$(jq --arg t "($tid)" '. as $d | [.profiles[] | select(.name | contains($t)) as $p |
		range($p.samples | length) as $k | select([$p.samples[$k][] | $d.shared.frames[.].name] | index("wait_sleep")) |
		$p.weights[$k]] | add' off.json)
	is "$got" "$want" "the samples under wait_sleep weigh report's off-cpu total for it"
	# a reason's value: the sleeper's sleep alone
	"$X" report --format speedscope --event off-cpu:sleep -o sleep.json off
	want=$(jq -r --arg t "$tid" '.off_cpu.threads[] | select(.tid == ($t | tonumber)) | .off_cpu_reasons.sleep * 1e9 | round' off-rep.json)
	got=$(sleeper sleep.json | jq '.weights | add')
	awk -v g="${got:-0}" -v w="${want:-0}" 'BEGIN { d = g - w; exit !(w > 3e8 && d * d <= 1e6) }'
	ok $? "--event off-cpu:sleep: the sleeper's sleep, $got ns (report: $want ns)"
fi

# speedscope's own schema and viewer, from npm
need_npm_package speedscope 1.25.0
SS="$NPM_DIR/dist/release"
if python3 -c 'import jsonschema' 2>/dev/null; then
	python3 - "$SS/file-format-schema.json" r.json <<'PY'
import json, sys, jsonschema
jsonschema.validate(json.load(open(sys.argv[2])), json.load(open(sys.argv[1])))
PY
	ok $? "valid against speedscope's file-format-schema.json"
	if $offcpu; then
		python3 - "$SS/file-format-schema.json" off.json <<'PY'
import json, sys, jsonschema
jsonschema.validate(json.load(open(sys.argv[2])), json.load(open(sys.argv[1])))
PY
		ok $? "the off-cpu export too"
	fi
else
	skip 1 "python3-jsonschema is absent (Debian package python3-jsonschema)"
fi

need_chromium
# speedscope's CLI writes a script that calls speedscope.loadFileFromBase64
# and opens index.html#localProfilePath=SCRIPT; so does this test, with
# the sandwich view (a table) instead of the flame chart (a canvas).
printf 'speedscope.loadFileFromBase64("r.json", "%s")' "$(base64 -w0 r.json)" >load.js
chromium_dom "file://$SS/index.html#localProfilePath=$TMP/load.js&view=sandwich" >dom.html
ok $? "chromium rendered speedscope"
# speedscope writes a time in nanoseconds as ms with two decimals (< 1 s)
est=$(jq -r '.functions[0].estimated[0]' rep.json)
shown=$(awk -v n="$est" 'BEGIN { printf "%.2fms", n / 1e6 }')
row=$(sed 's/<tr/\n<tr/g' dom.html | grep -F ">$hot</td>" | head -1)
case $row in *"$shown"*) ok 0 "speedscope shows $hot with $shown (report: $est ns)" ;;
*) ok 1 "speedscope shows $hot with $shown (report: $est ns)"
   diag "row: $(printf %s "$row" | sed 's/<[^>]*>/ /g' | head -c 300)" ;;
esac
busy=$(jq -r '[.threads[] | select(.samples[0] > 0)] | max_by(.samples[0]) | "\(.comm) (\(.tid)): cpu-clock, \(.samples[0]) samples"' rep.json)
check "speedscope opens on the busiest thread, with report's count: $busy" grep -qF "<span>$busy <span" dom.html

done_testing
