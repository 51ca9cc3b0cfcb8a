#!/bin/bash
# PLT stubs: a sample in one is charged to the function it calls,
# "NAME@plt", in the calling module — not to _init, the symbol before .plt.
. "${GX_SRCDIR}/tests/e2e/lib.sh"
command -v jq >/dev/null || skip_all "jq is absent"
command -v objdump >/dev/null || skip_all "objdump is absent (Debian package binutils)"

bin="$WL/wl-plt"
init=$(objdump -d "$bin" | sed -n 's/^\([0-9a-f]*\) <_init>:$/\1/p')
plt=$(objdump -d "$bin" | sed -n 's/^\([0-9a-f]*\) <strlen@plt>:$/\1/p')
[ -n "$init" ] && [ -n "$plt" ] || skip_all "no _init or strlen@plt in $bin (linker layout)"
delta=$(( 16#$plt - 16#$init + 4 ))	# inside the stub, past its first instruction

# every sample inside the strlen stub (a synthetic recording on $bin)
"$GEN" -o p -b "$bin" <<SPEC
model generic
smt off
process 100 wl-plt
function _init+$delta
cycles 100000000
SPEC
ok $? "a recording with its samples in the PLT"
"$GX_BIN" report --json --by function p >p.json
is "$(jq -r '.functions[0].function' p.json)" "strlen@plt" "the stub is named after its target"
is "$(jq -r '.functions[0].module | split("/") | last' p.json)" "wl-plt" "in the calling module"
is "$(jq '[.functions[] | select(.function == "_init")] | length' p.json)" 0 "nothing charged to _init"

# live: a hot loop of calls through the PLT names the stub too, when
# a sample lands there
if can_sample; then
	"$GX_BIN" record -q -o live -e cpu-clock -- "$bin" 100000000 >/dev/null 2>&1
	"$GX_BIN" report --json --by function --limit 0 live >l.json
	# the workload's own _init: another module's can take a real sample
	# while it runs (libm's, loaded by an ASan build's runtime: perf names
	# that sample _init too)
	is "$(jq --arg m "$(basename "$bin")" \
		'[.functions[] | select(.function == "_init" and (.module | endswith("/" + $m)))] | length' l.json)" 0 \
		"live: no _init row"
else
	skip 1 "cannot sample cpu-clock here"
fi
done_testing
