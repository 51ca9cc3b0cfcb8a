#!/bin/bash
# meta.json's times are checked when read: a hand-edited or damaged
# duration_s or self_cpu_s (negative, huge, not a number) is a warning and
# shown as unknown, never printed as if measured ("duration -5.000 s",
# a 300-digit CPU time, "(inf% of the run)").
. "${GX_SRCDIR}/tests/e2e/lib.sh"
command -v jq >/dev/null || skip_all "jq is absent (Debian package jq)"
[ -x "$GEN" ] || skip_all "tests/gen/gen-perfdata is not built"

gen_skl base 500000000 >/dev/null || { echo "Bail out! gen-perfdata failed"; exit 99; }

# edit NAME JQ-FILTER: a copy of base with meta.json rewritten
edit() {
	cp -r base "$1" && jq "$2" base/meta.json >"$1/meta.json"
}

"$GX_BIN" report base >rep0 2>&1
ok $? "the unedited result reports"
check "unedited: duration printed" grep -q '^  duration  1.000 s$' rep0
check "unedited: no range warning" sh -c "! grep -q 'out of range' rep0"

# NAME;FILTER;KEY;WHAT: one edit, its text and JSON report
while IFS=';' read -r name filter key what; do
	edit "$name" "$filter"
	"$GX_BIN" report "$name" >"$name.txt" 2>"$name.err"
	ok $? "$what: the report still opens"
	check "$what: warns that $key is out of range" \
		grep -q "meta.json: $key .* is out of range (0 to 10000000 s): shown as unknown" "$name.txt"
	"$GX_BIN" report --json "$name" >"$name.json" 2>/dev/null
	is "$(jq -r ".$key" "$name.json")" null "$what: JSON $key is null"
	check "$what: JSON warnings name it" jq -e "[.warnings[] | select(contains(\"$key\"))] | length == 1" "$name.json"
	check "$what: no inf or nan printed" sh -c "! grep -qi 'inf%\|nan\|-5.000' '$name.txt'"
done <<'CASES'
neg;.duration_s = -5;duration_s;negative duration
hugecpu;.self_cpu_s = 1e300;self_cpu_s;huge self CPU
strcpu;.self_cpu_s = "lots";self_cpu_s;self CPU a string
hugedur;.duration_s = 1e300 | .self_cpu_s = 1e-300;duration_s;huge duration
CASES
check "negative duration: shown as unknown" grep -q '^  duration  unknown$' neg.txt
check "huge self CPU: overhead unknown, no 300-digit number" \
	sh -c "grep -q '^  overhead  unknown$' hugecpu.txt && ! grep -Eq '[0-9]{30}' hugecpu.txt"

# A tiny duration with a real CPU time: no absurd share of the run.
edit tiny '.duration_s = 1e-320 | .self_cpu_s = 2'
"$GX_BIN" report tiny >tiny.txt 2>&1
check "a sub-millisecond run: CPU time without a share" \
	sh -c "grep -q '^  overhead  gexplore used 2.000 s of CPU$' tiny.txt"

# null and absent: unknown without a warning (older or partial results).
edit absent 'del(.duration_s) | .self_cpu_s = null'
"$GX_BIN" report absent >absent.txt 2>&1
check "absent duration: unknown" grep -q '^  duration  unknown$' absent.txt
check "absent or null: no warning" sh -c "! grep -q 'out of range' absent.txt"

# The TUI shows meta.json's warnings among its hints.
if "$GX_BIN" tui --help >/dev/null 2>&1; then
	"$GX_BIN" tui --keys "" --dump 100x50 neg >neg.tui 2>&1 || true
	check "tui: the warning is a hint" grep -q 'duration_s' neg.tui
else
	skip 1 "gexplore was built without the TUI (ncursesw)"
fi
done_testing
