#!/bin/sh
# seed-result.sh DIR OUT: pack the result directory DIR into one input of
# fuzz-result ("META_LEN SLICES_LEN\n", meta.json, slices.bin, perf.data).
set -e
d=$1
m=0 s=0
[ -f "$d/meta.json" ] && m=$(wc -c <"$d/meta.json")
[ -f "$d/slices.bin" ] && s=$(wc -c <"$d/slices.bin")
{
	printf '%d %d\n' "$m" "$s"
	[ "$m" = 0 ] || cat "$d/meta.json"
	[ "$s" = 0 ] || cat "$d/slices.bin"
	cat "$d/perf.data"
} >"$2"
