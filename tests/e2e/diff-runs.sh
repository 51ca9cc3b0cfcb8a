#!/bin/bash
# gexplore diff --runs N A1..AN B1..BN: each side the mean of its runs, the
# interval of a change from the spread between runs (Welch) bounded below
# by the sampling one; rows within noise after the real changes.
. "${GX_SRCDIR}/tests/e2e/lib.sh"
command -v jq >/dev/null || skip_all "jq is absent (Debian package jq)"
X="$GX_BIN"

# gen_runs DIR INNER OUTER [MAIN]: cycles of hot_inner and hot_outer (and
# of main, with CPI 2, when given); 100 samples per function and event.
gen_runs() {
	{
		printf 'model skl\nsmt off\nprocess 1000 app\n'
		printf 'function hot_inner\nCPU_CLK_UNHALTED.THREAD %s\nINST_RETIRED.ANY 400000000\n' "$2"
		printf 'function hot_outer\nCPU_CLK_UNHALTED.THREAD %s\nINST_RETIRED.ANY 400000000\n' "$3"
		[ -z "${4:-}" ] || printf 'function main\nCPU_CLK_UNHALTED.THREAD %s\nINST_RETIRED.ANY %s\n' \
			"$4" "$(($4 / 2))"
	} | "$GEN" -o "$1" -b "$WL/wl-spin"
}
# hot_inner, the same on average but spread wide: 400M 1.0G 1.6G against
# 700M 1.3G 1.9G (+300M, +30%). On sampling alone (each value from 100
# samples, uncertain by 10% of itself) that is a real change: 95% half-width
# 1.96 * sqrt(sum a_i^2/100 / 9 + sum b_i^2/100 / 9) = 201M < 300M. The spread
# between runs says otherwise: sd 600M a side, Welch df 4, half-width
# t(0.975, 4) * sqrt(2 * 600M^2 / 3) = 2.776445 * 489.898M = 1360.17M.
# hot_outer shifted consistently: 400M 410M 390M against 500M 510M 490M
# (+100M): Welch's half-width is 22.7M, the sampling one 72.47M (its lower
# bound), so the interval is 100M +- 72.47M: a real change.
# main (CPI 2): in runs 1 and 2 of A only (200M and 400M cycles), in all
# of B (300M).
gen_runs a1 400000000 400000000 200000000 && gen_runs a2 1000000000 410000000 400000000 &&
	gen_runs a3 1600000000 390000000 &&
	gen_runs b1 700000000 500000000 300000000 && gen_runs b2 1300000000 510000000 300000000 &&
	gen_runs b3 1900000000 490000000 300000000
ok $? "3 + 3 synthetic runs"
"$X" diff --runs 3 --json a1 a2 a3 b1 b2 b3 >r.json
ok $? "diff --runs 3"
is "$(jq -r '.schema' r.json)" "gexplore-diff 1.2" "schema 1.2"
is "$(jq -c '[.a_runs, .b_runs, .a, .b]' r.json)" '[["a1","a2","a3"],["b1","b2","b3"],"a1","b1"]' \
	"the runs of each side, in order"
ev() {	# ev ROW METRIC FIELD: one field of the function row, rounded to 4 places
	jq -r --arg r "$1" --arg m "$2" '.entries[] | select(.scope == "function" and .row == $r and
		.metric == $m) | .'"$3"' | if type == "number" then . * 10000 | round / 10000 else . end' r.json
}
C=CPU_CLK_UNHALTED.THREAD
is "$(ev hot_inner $C a) $(ev hot_inner $C b) $(ev hot_inner $C delta)" "1000000000 1300000000 300000000" \
	"spread wide: the means of the runs and their difference"
is "$(ev hot_inner $C a_n) $(ev hot_inner $C a_sd) $(ev hot_inner $C b_sd) $(ev hot_inner $C df)" \
	"3 600000000 600000000 4" "spread wide: runs, standard deviations, Welch's df"
is "$(ev hot_inner $C delta_lo | cut -c1-8) $(ev hot_inner $C delta_hi | cut -c1-8)" "-1060174 16601747" \
	"spread wide: Welch's interval, 300M +- 1360.17M"
is "$(ev hot_inner $C noise)" true "spread wide: within noise, though sampling alone would call it a change"
is "$(ev hot_outer $C delta) $(ev hot_outer $C noise)" "100000000 false" \
	"shifted consistently: +100M is a real change"
is "$(ev hot_outer $C delta_lo | cut -c1-6) $(ev hot_outer $C delta_hi | cut -c1-7)" "275300 1724699" \
	"shifted consistently: the sampling interval bounds Welch's from below (100M +- 72.47M)"
is "$(jq -r '[.entries[] | .noise] | . == sort and index(true) > 0' r.json)" true \
	"real changes first, then those within noise"
is "$(ev main $C a_n) $(ev main $C a)" "3 200000000" "a row missing from a run: 0 of its cycles there"
is "$(ev main CPI a_n) $(ev main CPI b_n) $(ev main CPI a)" "2 3 2" "... and no CPI there, not 0"

"$X" diff --runs 3 --scope function --limit 0 a1 a2 a3 b1 b2 b3 >r.txt
check "text: the runs of each side in the header" \
	sh -c "grep -qx 'A: 3 runs (a1 a2 a3)' r.txt && grep -qx 'B: 3 runs (b1 b2 b3)' r.txt"
check "text: the half-width of the interval in a column" \
	grep -qE "^function CPU_CLK_UNHALTED.THREAD +400 M +500 M +\+100 M +±72.47 M +\+25.0%  hot_outer$" r.txt
check "text: the wide row within noise" \
	sh -c "sed -n '/^-- within noise/,\$p' r.txt | grep -qE 'CPU_CLK_UNHALTED.THREAD .* hot_inner ~$'"
check "text: a value from fewer runs than its side has says so" \
	grep -qE '^function CPI .* main( ~)? \(A in 2 of 3 runs\)$' r.txt
"$X" diff --runs 3 --csv --scope function --metric $C a1 a2 a3 b1 b2 b3 >r.csv
is "$(head -1 r.csv)" "scope,row,metric,a,b,delta,change,delta_lo,delta_hi,noise,a_n,b_n,a_sd,b_sd,df" \
	"--csv header"
check "--csv: runs, standard deviations and df" \
	grep -qE '^function,hot_inner,CPU_CLK_UNHALTED.THREAD,1000000000,1300000000,.*,1,3,3,600000000,600000000,4$' r.csv
"$X" diff --runs 1 a1 b1 >one.txt && "$X" diff a1 b1 >plain.txt
check "--runs 1 is a plain diff" cmp one.txt plain.txt
"$X" diff --runs 1 --json a1 b1 >one.json
is "$(jq -c '[.entries[] | select(.row == "hot_outer" and .metric == "'$C'")][0] | [.a_n, .b_n, .a_sd, .df]' one.json)" \
	"[1,1,null,null]" "one run a side: no spread, no Welch"

# usage errors: one line each, exit 2
"$X" diff --runs 3 a1 a2 a3 b1 b2 >/dev/null 2>err
is "$?:$(wc -l <err)" "2:1" "--runs 3 with 5 results: a usage error"
check "... that says how many it takes" grep -qF -- '--runs 3 takes 6 results, 3 of A then 3 of B; got 5' err
"$X" diff --runs 0 a1 b1 >/dev/null 2>&1
is $? 2 "--runs 0: a usage error"
"$X" diff a1 a2 b1 >/dev/null 2>err
is "$?:$(wc -l <err)" "2:1" "three results without --runs: a usage error"

# result paths are untrusted: escaped in the header
evil=$'r\e]0;T\a'
gen_runs "$evil" 400000000 400000000 && gen_runs "${evil}2" 400000000 400000000
"$X" diff --runs 2 --scope run a1 a2 "$evil" "${evil}2" >e.txt
check "text: the paths of the runs escaped" grep -qF 'B: 2 runs (r\x1b]0;T\x07 r\x1b]0;T\x072)' e.txt
check "text: no raw control byte" sh -c '! LC_ALL=C grep -q "[[:cntrl:]]" e.txt'
done_testing
