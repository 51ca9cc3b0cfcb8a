#!/bin/sh
# gexplore report --roofline: without stored peak results it measures them
# (--quick) and says so; with a cpu-clock-only recording it draws the roofs
# alone and says why there are no points; it writes SVG and HTML files.
. "$GX_SRCDIR/tests/e2e/lib.sh"

export XDG_CACHE_HOME="$TMP/cache"
can_sample || skip_all "cannot sample software events here"
"$GX_BIN" record -q -o r1 -e cpu-clock -- "$WL/wl-spin" 50 >/dev/null 2>&1
ok $? "record a cpu-clock workload"

"$GX_BIN" report --roofline r1 >"$TMP/out" 2>"$TMP/err"
ok $? "report --roofline succeeds without stored peak results"
grep -q 'running `gexplore peak --quick`' "$TMP/err"
ok $? "and says it measures the peaks now"
ls "$XDG_CACHE_HOME"/gexplore/peak-*.json >/dev/null 2>&1
ok $? "the measurement is saved for next time"
grep -q '^Roofline: ' "$TMP/out" && grep -q 'GB/s (ridge at' "$TMP/out"
ok $? "roofs are drawn"
grep -q 'no points: the recording has neither FP-operation nor memory-traffic events' "$TMP/out"
ok $? "a note says why there are no points"

"$GX_BIN" report --roofline "$TMP/roof.svg" r1 >"$TMP/out2" 2>"$TMP/err2"
ok $? "report --roofline FILE.svg"
! grep -q 'running `gexplore peak' "$TMP/err2" && grep -q 'roofs from ' "$TMP/out2"
ok $? "the second run uses the stored results"
head -c 4 "$TMP/roof.svg" | grep -q '<svg' && tail -1 "$TMP/roof.svg" | grep -q '</svg>'
ok $? "an SVG document is written"
if command -v xmllint >/dev/null 2>&1; then
	xmllint --noout "$TMP/roof.svg"
	ok $? "the SVG is well-formed XML"
else
	skip 1 "xmllint is absent (Debian package libxml2-utils)"
fi
"$GX_BIN" report --roofline="$TMP/roof.html" r1 >/dev/null 2>&1 &&
	grep -q '<!DOCTYPE html>' "$TMP/roof.html"
ok $? "report --roofline=FILE.html writes an HTML page"
done_testing
