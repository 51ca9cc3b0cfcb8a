#!/bin/bash
# A modelled result's loads as data sources (issue 43): each load
# instruction's loads split by the level the cache simulation served them
# from, each priced at that level's latency. A random chase through 8 MiB
# (L2 256 KiB, L3 16 MiB: far past L2) is served past L2 on every step; a
# sequential sum over 16 KiB from L1. The samples are the exact loads.
. "${GX_SRCDIR}/tests/e2e/lib.sh"
command -v jq >/dev/null || skip_all "jq is absent (Debian package jq)"
command -v valgrind >/dev/null || skip_all "valgrind is absent (Debian package valgrind)"
command -v llvm-mca >/dev/null || skip_all "llvm-mca is absent (Debian package llvm)"
WLM="$WL/wl-model"

for i in 0 1 2 3; do
	mkdir -p "c/index$i"
	echo 64 >"c/index$i/coherency_line_size"
	echo 8 >"c/index$i/ways_of_associativity"
done
echo 1 >c/index0/level; echo Data >c/index0/type; echo 32K >c/index0/size
echo 1 >c/index1/level; echo Instruction >c/index1/type; echo 32K >c/index1/size
echo 2 >c/index2/level; echo Unified >c/index2/type; echo 256K >c/index2/size
echo 3 >c/index3/level; echo Unified >c/index3/type; echo 16384K >c/index3/size

GX_TEST_MODEL_SYSFS=$PWD/c "$GX_BIN" record -q --model -o chase -- "$WLM" chase_l3 >/dev/null 2>&1
ok $? "chase_l3 modelled"
"$GX_BIN" report --json --limit 0 chase >c.json 2>/dev/null
src() { jq -c --arg f "$2" '[.functions[] | select(.function == $f) | .data_sources[] |
	[.source, .samples]]' "$1"; }
is "$(src c.json chase)" '[["L3 hit",200001]]' \
	"the chase's 200001 loads (200000 steps and one) all served past L2, from L3"
is "$(jq '.memory.data_objects | length' c.json)" 0 "no data addresses: the model has none"
is "$(jq '.memory.modelled' c.json)" true "labelled modelled"
is "$(jq '[.data_sources[].samples] | add' c.json)" \
	"$(jq '.events[] | select(.name == "mem-loads:modelled") | .count' chase/meta.json)" \
	"the run's loads: the event's count"
is "$(jq '.data_sources[] | select(.source == "L3 hit") | .weight / .samples' c.json)" \
	"$(jq '.model_machine.prices.l3_latency.value | round' chase/meta.json)" \
	"an L3 hit weighs the machine description's L3 latency"

GX_TEST_MODEL_SYSFS=$PWD/c "$GX_BIN" record -q --model -o sum -- "$WLM" stream_l1 >/dev/null 2>&1
ok $? "stream_l1 modelled"
"$GX_BIN" report --json --limit 0 sum >s.json 2>/dev/null
is "$(jq -c '[.functions[] | select(.function == "stream_sum") | .data_sources[] |
	select(.source == "L1 hit") | .samples] | add' s.json)" \
	"$(jq -c '[.functions[] | select(.function == "stream_sum") | .data_sources[].samples] |
	add' s.json)" "the sequential sum's loads: from L1"
"$GX_BIN" report sum --by data-source >t.txt 2>&1
check "text: the modelled loads' table" grep -q 'Data sources (modelled loads: ' t.txt
done_testing
