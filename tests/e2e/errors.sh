#!/bin/bash
# Every error names its fix, in the words of README and gexplore-record(1):
# a missing or unrunnable command, no PMU, and (from the sources, since a
# test cannot change the machine's sysctls) perf_event_paranoid and
# kptr_restrict: each command a message tells to run is in the manual.
. "${GX_SRCDIR}/tests/e2e/lib.sh"
M="$GX_SRCDIR/man/gexplore-record.1"
R="$GX_SRCDIR/README.md"

# A missing binary, one not in PATH, one not executable: 127, and the fix.
echo data >notexec
while IFS=';' read -r cmd want what; do
	"$GX_BIN" -- $cmd >out 2>err
	is "$?" 127 "$what: exit 127"
	check "$what: says '$want'" grep -qF "$want" err
	is "$(grep -c . err)" 1 "$what: one line"
done <<'CASES'
./nonexistent;No such file or directory; check the path of the command after `--`;a missing binary
nonexistent-gx-cmd;command not found in PATH; give its path (`./nonexistent-gx-cmd`) or add its directory to PATH;a command not in PATH
./notexec;Permission denied; make it executable (`chmod +x`);a file that is not executable
CASES
check "gexplore-record(1) says a command that cannot run exits 127" \
	sh -c "tr '\\n' ' ' <'$M' | grep -q 'cannot be run.*exit status 127'"

# No PMU: the error of an explicit hardware event and the default's warning.
if "$GX_BIN" record -q -o pmu -e cycles -- true >/dev/null 2>err; then
	skip 5 "this machine has hardware counters"
else
	check "-e cycles without a PMU: says to sample -e cpu-clock" grep -q 'sample `-e cpu-clock` here' err
	check "-e cycles without a PMU: points to gexplore list" grep -q '`gexplore list` shows' err
	"$GX_BIN" record -o pmu2 -- true >/dev/null 2>err2
	check "default events without a PMU: the warning says what top-down needs" \
		grep -q 'record on bare metal or in a VM with a virtual PMU' err2
	check "... or where it can model them (--model)" grep -q 'model them here with --model' err2
	check "README and the manual use the same words (hardware counters, cpu-clock)" \
		sh -c "grep -q 'Hardware counters' '$R' && grep -q 'cpu-clock' '$R' && tr '\\n' ' ' <'$M' | grep -q 'a VM with a virtual PMU'"
fi

# No debug info: line rows of the program shown as "-" say why and what to do.
if can_sample; then
	cp "$WL/wl-spin" stripped && strip stripped
	"$GX_BIN" record -q -o rs -e cpu-clock -- ./stripped 200 >/dev/null 2>&1
	"$GX_BIN" report --by line rs >rs.txt 2>&1
	check "stripped binary: the line report says rebuild with -g" \
		grep -q -- '-: no line information for stripped (no DWARF: stripped, or built without -g); rebuild it with -g' rs.txt
	"$GX_BIN" record -q -o rg -e cpu-clock -- "$WL/wl-spin" 200 >/dev/null 2>&1
	"$GX_BIN" report --by line --limit 3 rg >rg.txt 2>&1
	check "built with -g: no such note for its hot lines" sh -c "! grep -q 'no line information for wl-spin' rg.txt"
	check "gexplore-report(1) says the same" grep -q 'rebuild it with' "$GX_SRCDIR/man/gexplore-report.1"
else
	skip 3 "perf_event_open of cpu-clock is not permitted here"
fi

# Every `sysctl ...` a message of src/collect tells to run is in
# gexplore-record(1) word for word (and README names the setting).
grep -ho 'run `sysctl [a-z_.]*=[0-9%d]*`' "$GX_SRCDIR"/src/collect/*.c | sed 's/^run `//; s/`$//' |
	sort -u >fixes
check "the messages name sysctl fixes" test "$(grep -c . fixes)" -ge 2
while read -r f; do
	setting=${f#sysctl }
	setting=${setting%%=*}
	case $f in
	*%d) check "'$f' (N from the message): the manual has $setting=" grep -q "$setting=" "$M" ;;
	*) check "'$f': in gexplore-record(1)" grep -qF "Ql $f" "$M" ;;
	esac
	check "README or the manual names $setting" sh -c "grep -q '${setting#kernel.}' '$R' || grep -q '$setting' '$M'"
done <fixes
check "paranoid: the message and the manual both say CAP_PERFMON" \
	sh -c "grep -q 'grant CAP_PERFMON' '$GX_SRCDIR/src/collect/session.c' && grep -q CAP_PERFMON '$M'"
check "kptr_restrict: the warning is in the collector" \
	grep -q 'kernel.kptr_restrict is %d): kernel samples show as \[kernel\]' "$GX_SRCDIR/src/collect/session.c"
# A slip of the keys gets the likely meaning (issue 41): a misspelt command,
# a program without '--', another command's option, a misspelt option, a
# metric by part of its name; each one line, exit 2.
while IFS=';' read -r want what; do
	args=${what%%:*}
	"$GX_BIN" $args >out 2>err
	is "$?" 2 "$args: exit 2"
	check "$args: says '$want'" grep -qF "$want" err
	is "$(grep -c . err)" 1 "$args: one line"
done <<'CASES'
did you mean 'report'?;reprot: a misspelt command
put '--' before it: gexplore -- ./prog;./prog: a program without '--'
it is an option of 'gexplore record';report -g: record's option to report
did you mean '--json'?;report --jsn: a misspelt option
CASES
gen_skl skl 800000000 >/dev/null 2>&1
"$GX_BIN" check skl --max Frontend=0.3 >out 2>err
is "$?" 2 "check --max Frontend=: exit 2"
check "... says did you mean 'Frontend_Bound'" grep -qF "did you mean 'Frontend_Bound'?" err
if can_sample; then
	"$GX_BIN" record -q -o clk -e cpu-clock -- "$WL/wl-spin" 20 >/dev/null 2>&1
	"$GX_BIN" check clk --max cpi=1 >out 2>err
	is "$?" 77 "check --max cpi of a cpu-clock result: cannot measure (77)"
	check "... and points to --model" grep -qF 'gexplore record --model' out
else
	skip 2 "perf_event_open of cpu-clock is not permitted here"
fi
done_testing
