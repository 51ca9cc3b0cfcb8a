#!/bin/bash
# report --format html and check --html (issue 44): one self-contained
# page. A two-thread recording (wl-threads 1, cpu-clock with stacks) and a
# synthetic Skylake result (a top-down tree, a failing check) are written
# as HTML; the file names nothing outside itself; headless chromium
# renders it offline: the tables hold the hottest function with report's
# samples, the flame graph and the timeline are there, and chromium's
# network log shows no request the page made (a page with an outside
# image, as a control, shows one). As root, an --off-cpu recording's page
# has the hottest functions by off-cpu and its flame graph, and a diff of
# two compares off-cpu.
. "${GX_SRCDIR}/tests/e2e/lib.sh"
. "${GX_SRCDIR}/tests/e2e/browser.sh"
command -v python3 >/dev/null || skip_all "python3 is absent (Debian package python3)"
X="$GX_BIN"
export_two_threads html r.html
hot=$(jq -r '.functions[0].function' rep.json)
hot_samples=$(jq -r '.functions[0].samples[0]' rep.json)

# self-contained: nothing loaded from elsewhere, whatever the browser
check "no src=, href=, <link>, @import or url() in the file" \
	sh -c "! grep -Eiq '(src|href)[[:space:]]*=|<link|@import|url\\(' r.html"
check "no http:// or https:// anywhere in it" sh -c "! grep -Eiq 'https?://' r.html"
check "styles and script inline" sh -c "grep -q '<style>' r.html && grep -q '<script>' r.html"
# readable without JavaScript: the numbers are in the HTML itself
check "the hottest function ($hot) with report's $hot_samples samples, without JavaScript" \
	grep -Eq "<td class=n>$hot_samples</td><td class=n>[^<]*</td><td class=fn>$hot</td>" r.html
check "an inline SVG flame graph" grep -q "<svg class=flame" r.html
check "a flame graph box names $hot" grep -q "data-n=\"$hot\"" r.html
check "a timeline row per thread" sh -c "[ \$(grep -o '<text x=0 y=[0-9]*>wl-threads (' r.html | wc -l) = $(jq '[.threads[] | select(.samples[0] > 0)] | length' rep.json) ]"
if [ -n "${NODE:-}" ] && [ -x "$NODE" ]; then
	sed -n 's/.*<script>\(.*\)<\/script>.*/\1/p' r.html >page.js
	check "its script is JavaScript node accepts" sh -c "[ -s page.js ] && '$NODE' --check page.js"
else
	skip 1 "node is absent (Debian package nodejs)"
fi

# check --html: the verdicts on top of the report
gen_skl skl 800000000
"$X" check skl --max cpi=1.2 --min cpi=0.5 --html chk.html >/dev/null 2>&1
is $? 1 "check --html: exit status as without it (cpi 1.25 > 1.2 fails)"
check "the failed limit is a row of the verdicts" \
	grep -q "<td class=fail>fail</td><td><code>cpi max 1.2</code>" chk.html
check "the passed limit too" grep -q "<td class=pass>pass</td><td><code>cpi min 0.5</code>" chk.html
check "the top-down tree is there" grep -q "<h2 id=topdown>.*Frontend_Bound" chk.html

# diff --format html: both results, what changed with its interval
"$X" record -q -o r2 -e cpu-clock -g -- "$WL/wl-threads" 1 100 >/dev/null 2>&1
"$X" diff r r2 --format html -o diff.html
ok $? "diff --format html"
"$X" diff r r2 --json >diff.json
row=$(jq -r --arg f "$hot" '.entries[] | select(.scope == "function" and .row == $f and .metric == "cpu-clock") | "\(.a) \(.b)"' diff.json)
check "the change of $hot is a row with its interval" \
	grep -Eq "<tr><td>function</td><td>cpu-clock</td><td class=n>[^<]*</td><td class=n>[^<]*</td><td class=n>[^<]*</td><td class=n>\[[^<]*\]</td><td class=n>[^<]*</td><td>sampled</td><td>$hot</td>" diff.html
[ -n "$row" ]
ok $? "(diff's JSON has that change: $row)"
is "$(grep -o '<svg class=flame' diff.html | wc -l)" 2 "a flame graph of each result"
check "the diff page names nothing outside itself" sh -c "! grep -Eiq '(src|href)[[:space:]]*=|<link|@import|url\\(|https?://' diff.html"
"$X" diff r r2 --format html 2>/dev/null
is $? 2 "diff --format html needs -o FILE"
check "a result without off-CPU values has no section of one" sh -c "! grep -q 'id=value-' r.html diff.html"

# off-CPU time (issue 45's values), as root: the page of a wl-offcpu
# recording has the hottest functions by off-cpu as report --event
# off-cpu has them and a flame graph of the waits' ns; a diff of two
# such recordings has off-cpu's changes and flame graphs
if [ "$(id -u)" != 0 ]; then
	skip 6 "not root: an --off-cpu recording with stacks of its waits needs it"
elif ! "$X" record -q -o off --off-cpu -g -- "$WL/wl-offcpu" 200 >/dev/null 2>&1 ||
	! "$X" record -q -o off2 --off-cpu -g -- "$WL/wl-offcpu" 100 >/dev/null 2>&1; then
	skip 6 "cannot record wl-offcpu --off-cpu here"
else
	"$X" report --format html -o off.html off
	ok $? "report --format html of an --off-cpu recording"
	"$X" report --json --event off-cpu off >off-rep.json
	oi=$(jq '[.events[].name] | index("off-cpu")' off-rep.json)
	f=$(jq -r '.functions[0].function' off-rep.json)
	n=$(jq -r --argjson i "$oi" '.functions[0].samples[$i]' off-rep.json)
	check "the hottest function by off-cpu ($f) first, with report's $n waits" \
		grep -Eq "<h2 id=value-off-cpu>[^<]*</h2><table class=rows><tr>(<th>[^<]*</th>)*</tr><tr>(<td class=n>[^<]*</td>){2}<td class=n>$n</td><td class=n>[^<]*</td><td class=fn>$f</td>" off.html
	ns=$(jq -r '.events[] | select(.name == "off-cpu") | .estimated' off-rep.json)
	check "a flame graph of off-cpu weighs report's $ns ns" \
		grep -q "<h2>Flame graph of off-cpu</h2><p class=dim>off-cpu, $ns ns in all" off.html
	"$X" diff off off2 --format html -o offdiff.html
	ok $? "diff --format html of two --off-cpu recordings"
	"$X" diff off off2 --json >offdiff.json
	ab=$(jq -r '.entries[] | select(.scope == "run" and .metric == "off-cpu") | "\(.a) \(.b)"' offdiff.json)
	a=$(printf '%.4g' "${ab% *}")
	b=$(printf '%.4g' "${ab#* }")
	row=$(sed -n 's/.*<h2 id=value-off-cpu>//p' offdiff.html | grep -o '<tr><td>run</td><td>off-cpu</td><td class=n>[^<]*</td><td class=n>[^<]*</td>')
	is "$row" "<tr><td>run</td><td>off-cpu</td><td class=n>$a</td><td class=n>$b</td>" \
		"off-cpu's changes: the run's off-cpu, A $a and B $b"
	is "$(grep -o '<h2>Flame graph of off-cpu in [AB]</h2>' offdiff.html | wc -l)" 2 \
		"a flame graph of off-cpu of each result"
fi

need_chromium
# the page as chromium draws it, and every request it made (--log-net-log:
# a request of the page carries the file:// page as its isolation key;
# chromium's own, to its update and account servers, do not)
requests() {	# requests NETLOG: the URLs the page asked for, one a line
	python3 - "$1" <<'PY'
import json, sys
seen = set()
for e in json.load(open(sys.argv[1])).get("events", []):
    p = e.get("params") or {}
    if "file://" in str(p.get("network_isolation_key", "")) and "url" in p:
        seen.add(p["url"])
for e in json.load(open(sys.argv[1])).get("events", []):
    p = e.get("params") or {}
    u = p.get("url", "")
    if u in seen and not u.startswith(("file:", "data:", "about:")):
        print(u)
PY
}
chromium_dom "file://$TMP/r.html" --log-net-log="$TMP/net.json" >dom.html
ok $? "chromium rendered the page"
check "the rendered page has the hot function's row" grep -q "<td class=\"fn\">$hot</td>" dom.html
check "the rendered page has the flame graph" grep -q '<svg class="flame"' dom.html
is "$(requests net.json | sort -u | wc -l)" 0 "the page made no request outside the file"
# the script: a click on a box zooms into it (its callers span the width,
# its siblings hide), a search marks the boxes it matches
sed 's|</body>|<script>var g=[...document.querySelectorAll("svg.flame g")].find(function(g){return g.dataset.n=="backend"});g.dispatchEvent(new MouseEvent("click"));var s=document.querySelector("input.search");s.value="init";s.dispatchEvent(new Event("input"));</script></body>|' chk.html >probe.html
chromium_dom "file://$TMP/probe.html" | grep -o '<g [^>]*data-n="[a-z_]*"[^>]*><title>[^<]*</title><rect x="[0-9.]*" y="[0-9]*" width="[0-9.]*"' |
	sed 's/<title>[^<]*<\/title>//; s/ data-[xw]="[^"]*"//g' >zoom.out
check "a click zooms: the box spans the width" grep -q 'data-n="backend"><rect x="0" y="17" width="1200"' zoom.out
check "and its callers" grep -q 'data-n="all"><rect x="0" y="0" width="1200"' zoom.out
check "a search marks its matches" grep -q 'data-n="_init" class="match"' zoom.out
printf '<!DOCTYPE html><p>control<img src="http://192.0.2.1/x.png">' >control.html
chromium_dom "file://$TMP/control.html" --log-net-log="$TMP/net2.json" >/dev/null
n=$(requests net2.json | grep -c '192.0.2.1')
[ "$n" -ge 1 ]
ok $? "(control: an outside image is seen as a request)"

done_testing
