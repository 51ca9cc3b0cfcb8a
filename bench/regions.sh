#!/bin/bash
# bench/regions.sh: what a marker of gexplore-regions(3) costs, off (the
# program outside gexplore) and on (under gexplore record, into the ring),
# and their ratio. Built and run by `make bench-regions`.
#
# Goal (issue 19): tens of nanoseconds a marker under gexplore, next to
# nothing outside it. Measured (2 shared cores of an AMD EPYC VM, kernel
# 6.18, gexplore draining cpu-clock samples meanwhile):
#   regions: a marker costs 48.7 ns under gexplore, 3.1 ns outside;
#   ratio 15.7; begin+end 100.3 ns; 0 lost
# About half of it is clock_gettime(CLOCK_MONOTONIC) through the vDSO.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
GX=${GX_BIN:-$top/gexplore}
B=${GX_BUILDDIR:-$top}/bench/regions
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
off=$("$B" 2000000)
on=$("$GX" record -q -o "$tmp/r" -e cpu-clock -- "$B" 200000)
echo "off: $off"
echo "on:  $on"
mark_off=$(sed -n 's/.*mark \([0-9.]*\) ns.*/\1/p' <<<"$off")
mark_on=$(sed -n 's/.*mark \([0-9.]*\) ns.*/\1/p' <<<"$on")
pair_on=$(sed -n 's/.*begin+end \([0-9.]*\) ns.*/\1/p' <<<"$on")
lost=$("$GX" report "$tmp/r" --json | jq -r '.markers.lost')
awk -v a="$mark_on" -v b="$mark_off" -v p="$pair_on" -v l="$lost" 'BEGIN {
	printf "regions: a marker costs %.1f ns under gexplore, %.1f ns outside; ratio %.1f; begin+end %.1f ns; %d lost\n",
		a, b, (b > 0 ? a / b : 0), p, l }'
