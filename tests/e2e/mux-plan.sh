#!/bin/bash
# Goldens of the multiplexing plan (`gexplore list --plan` and --perf) for
# the models the issue names: skl with SMT on and off (and with the NMI
# watchdog holding a counter), icl, spr, zen4, n1. Regenerate with
# `make golden-mux` after an intended change, and review the diff.
. "$(dirname "$0")/lib.sh"

golden="$GX_SRCDIR/tests/golden/mux"
cases="skl:on:off skl:off:off skl:on:on icl:on:off spr:on:off zen4:on:off n1:on:off"
for c in $cases; do
	IFS=: read -r model smt nmi <<<"$c"
	name="$model-smt-$smt"
	[ "$nmi" = on ] && name="$name-nmi"
	out="$TMP/$name.txt"
	{
		"$GX_BIN" list --cpu "$model" --smt "$smt" --nmi-watchdog "$nmi" --plan
		"$GX_BIN" list --cpu "$model" --smt "$smt" --nmi-watchdog "$nmi" --perf
	} >"$out" 2>&1
	if [ "${GX_REGEN_GOLDEN:-0}" = 1 ]; then
		cp "$out" "$golden/$name.txt"
	fi
	if diff -u "$golden/$name.txt" "$out" >"$TMP/diff" 2>&1; then
		ok 0 "plan of $model, SMT $smt, NMI watchdog $nmi matches its golden"
	else
		ok 1 "plan of $model, SMT $smt, NMI watchdog $nmi matches its golden"
		sed 's/^/#   /' "$TMP/diff" | head -40
	fi
	# invariants, whatever the golden says: no group over the counters
	gp=$(sed -n '1s/.*: \([0-9]*\) general counter.*/\1/p' "$out")
	over=$(grep -o '^  group [0-9]* ([0-9]* general' "$out" | awk -v gp="$gp" '{ gsub(/\(/, "", $3); if ($3 + 0 > gp + 0) n++ } END { print n + 0 }')
	is "$over" 0 "no group of $model (SMT $smt, NMI $nmi) needs more than $gp general counters"
done
# PERF_METRICS events only in the group slots leads
grep -h 'topdown-' "$golden"/icl-smt-on.txt "$golden"/spr-smt-on.txt | grep -q "{slots,topdown-" 
ok $? "PERF_METRICS events sit in a slots-led group (icl, spr)"
bad=$(grep -h '^  group' "$golden"/*.txt | grep 'topdown-' | grep -vc 'PERF_METRICS led by slots')
is "$bad" 0 "no other group holds a PERF_METRICS event"
done_testing
