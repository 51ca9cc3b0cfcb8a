#!/bin/bash
# The model's code read by LLVM's disassembler in process (disasm.c), the
# executed instructions only, not by llvm-objdump over the whole range the
# program ran (issue 40's cost: 15 s of gcc -O2 -S's 105 s record). The
# truth is llvm-objdump itself: the same workload recorded both ways
# (GX_MODEL_DISASM, values of one length, so that the workload's
# environment, and with it what it runs, is the same) gives the same
# model.terms and flow.json, byte for byte; an llvm-objdump first in PATH
# that leaves a mark says which way ran.
. "$GX_SRCDIR/tests/e2e/lib.sh"

WLM="$WL/wl-model"
need_model
[ -x "$WLM" ] || skip_all "no $WLM (make check builds it)"
real=$(command -v llvm-objdump) || skip_all "llvm-objdump is absent"
X=$GX_BIN

mkdir bin
cat > bin/llvm-objdump <<EOS
#!/bin/sh
echo "\$*" >> "$PWD/objdump.calls"
exec "$real" "\$@"
EOS
chmod +x bin/llvm-objdump

rec() {	# rec HOW OUT WORKLOAD...
	local how=$1 o=$2
	shift 2
	rm -f objdump.calls
	env PATH="$PWD/bin:$PATH" GX_MODEL_PASSES=1 GX_MODEL_DISASM="$how" \
		"$X" record -q --model -o "$o" -- "$@" </dev/null >/dev/null 2>&1
}
calls() { [ -f objdump.calls ] && wc -l < objdump.calls || echo 0; }

rec library lib "$WLM" sort 2
ok $? "wl-model sort recorded, its code read in process"
is "$(calls)" 0 "... llvm-objdump not run"
rec objdump obj "$WLM" sort 2
ok $? "... and recorded again with GX_MODEL_DISASM=objdump"
check "... llvm-objdump run, once an object ($(calls))" test "$(calls)" -ge 2
check "... model.terms the same, byte for byte" cmp lib/model.terms obj/model.terms
check "... flow.json the same" cmp lib/flow.json obj/flow.json
# the report: all but its name, the model run's own time and the pid
view() { "$X" report "$1" 2>&1 | sed '1d; /the model run (Valgrind) took/d; /[0-9] *wl-model$/d'; }
check "... the report the same (but for the run's time and pid)" \
	sh -c '[ "$1" = "$2" ] && [ -n "$1" ]' _ "$(view lib)" "$(view obj)"

# branchy code: conditional jumps, calls and returns in the blocks that
# llvm-mca prices, their targets made addresses as llvm-objdump prints them
rec library lib2 "$WLM" branchy 2 && rec objdump obj2 "$WLM" branchy 2
ok $? "wl-model branchy recorded both ways"
check "... model.terms the same" cmp lib2/model.terms obj2/model.terms

# a program deleted before its code is read: its instructions have no
# text (priced by the rest's CPI, as when llvm-objdump failed), and the
# record still ends in a result
cp "$WLM" ./wlm-copy
rm -f objdump.calls
env GX_MODEL_PASSES=1 GX_MODEL_DISASM=library "$X" record -q --model -o gone -- \
	sh -c './wlm-copy sort 1; rm -f ./wlm-copy' </dev/null >/dev/null 2>&1
ok $? "a program deleted before its code is read: recorded"
check "... its report reads" sh -c "'$X' report gone >/dev/null 2>&1"

# swapped for a FIFO after it ran (another user's directory): opening it
# would wait for a writer forever; it is not read, and the record ends
cp "$WLM" ./wlm-fifo
timeout -k 10 300 env GX_MODEL_PASSES=1 "$X" record -q --model -o fifo -- \
	sh -c './wlm-fifo sort 1; rm -f ./wlm-fifo; mkfifo ./wlm-fifo' </dev/null >/dev/null 2>&1
ok $? "a program swapped for a FIFO before its code is read: recorded, no wait"
done_testing
