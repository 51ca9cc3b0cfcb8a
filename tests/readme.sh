#!/bin/bash
# README's Quick start is what CI runs: its two commands, word for word, are
# the ones .ci/run runs, so a fresh machine that passes CI passes README.
. "${GX_SRCDIR}/tests/e2e/lib.sh"
R="$GX_SRCDIR/README.md"
CI="$GX_SRCDIR/.ci/run"
[ -f "$CI" ] || skip_all ".ci/run is not in this tree (a release tarball?)"

# The commands of the sh blocks between "## Quick start" and the next section.
sed -n '/^## Quick start/,/^## /p' "$R" |
	awk '/^```sh$/ { on = 1; next } /^```$/ { on = 0 } on && NF' >quick
is "$(grep -c . quick)" 2 "README's Quick start has two commands"
is "$(sed -n 1p quick)" "./bootstrap && ./gexplore -- examples/demo" "the first builds and records the demo"
is "$(sed -n 2p quick)" "./bootstrap && make check" "the second builds and runs the tests"

# .ci/run runs each of them at the start of a line, followed by nothing,
# a redirection or a pipe (not by more words or another && command).
while IFS= read -r cmd; do
	check ".ci/run runs '$cmd'" awk -v c="$cmd" '
		{ sub(/^[ \t]+/, ""); rest = substr($0, length(c) + 1) }
		substr($0, 1, length(c)) == c && rest ~ /^( +([0-9]?>|\|)|$)/ && rest !~ /^ *&&/ { f = 1 }
		END { exit !f }' "$CI"
done <quick
done_testing
