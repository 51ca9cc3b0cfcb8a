#!/bin/bash
# Hostile names (issue 17): a program path, comm, argv, function and file
# names holding terminal controls (ESC]0;...BEL sets the title, ESC[2J
# clears the screen) and a newline (forges a report line) are printed
# escaped by every text output: report text and CSV, diff, check's text and
# GitHub annotations, the end-of-record line and error messages. JSON keeps
# the exact bytes (its own escaping).
. "${GX_SRCDIR}/tests/e2e/lib.sh"
command -v jq >/dev/null || skip_all "jq is absent (Debian package jq)"
command -v objcopy >/dev/null || skip_all "objcopy is absent (Debian package binutils)"
X="$GX_BIN"
E=$'\e' B=$'\a' NL=$'\n'

# clean FILE: no ESC, BEL or CR byte anywhere, no forged line
clean() { ! LC_ALL=C grep -q "[$E$B]" "$1" && ! grep -q '^exit 0 FAKE' "$1"; }

# A copy of wl-spin whose path and function names are hostile.
prog="evil${E}]0;TITLE${B}${E}[2J${NL}exit 0 FAKE"
fn="fn${E}]0;FN${B}${E}[2J"
mkdir bin && cp "$WL/wl-spin" "bin/$prog" && objcopy --redefine-sym "hot_inner=$fn" "bin/$prog"
ok $? "a hostile copy of wl-spin"
"$GEN" -o syn -b "$PWD/bin/$prog" <<SPEC
model skl
smt off
process 1000 c${E}]0;COMM${B}
function $fn
CPU_CLK_UNHALTED.THREAD 1000000000
INST_RETIRED.ANY 800000000
SPEC
ok $? "synthetic result with the hostile module, comm and function"

"$X" report syn >rep 2>rerr
ok $? "report of it"
check "report text: no ESC, BEL or forged line" clean rep
check "report text: the function shown with visible escapes" grep -qF 'fn\x1b]0;FN\x07\x1b[2J' rep
check "report text: the module's newline shown as \\n" grep -qF '\x1b[2J\nexit 0 FAKE' rep
check "report text: the comm shown escaped" grep -qF 'c\x1b]0;COMM\x07' rep
"$X" report --csv --by function syn >csv 2>/dev/null
check "report --csv: no ESC, BEL or forged line" clean csv
"$X" report --folded syn >folded 2>/dev/null
check "report --folded: no ESC, BEL or forged line" clean folded
check "report --folded: the function shown with visible escapes" grep -qF ';fn\x1b]0:FN\x07\x1b[2J ' folded
"$X" report --json syn >json 2>/dev/null
is "$(jq -r '.functions[0].function' json)" "$fn" "report --json keeps the exact name"
"$X" diff syn syn >diff 2>&1
check "diff: no ESC, BEL or forged line" clean diff
"$X" check syn --top 1 --max cpi=1.0 >chk 2>&1
check "check text: no ESC, BEL or forged line" clean chk
check "check text: the function named, escaped" grep -qF 'fn\x1b]0;FN\x07' chk
"$X" check syn --top 1 --max cpi=1.0 --github >gh 2>&1
check "check --github: no ESC, BEL or forged line" clean gh
"$X" report "no${E}]0;such${B}${NL}exit 0 FAKE" >out 2>err
check "error message with a hostile argument: escaped, one line" \
	sh -c "test \$(wc -l <err) = 1 && grep -qF 'no\\x1b]0;such\\x07\\nexit 0 FAKE' err"
check "error message: no ESC, BEL or forged line" clean err

# A name with Unicode's bidi controls (Trojan Source: U+202E reverses what
# follows on the line) and a backslash that spells an escape: shown as
# code points, the backslash doubled, so the text reads as it is.
rlo=$'\u202e' lri=$'\u2066' pdi=$'\u2069'
bfn="user${rlo}nimda${lri}x${pdi}\\x1b"
cp "$WL/wl-spin" bidi && objcopy --redefine-sym "hot_inner=$bfn" bidi
"$GEN" -o bd -b "$PWD/bidi" <<SPEC
model skl
smt off
process 1000 app
function $bfn
CPU_CLK_UNHALTED.THREAD 1000000000
INST_RETIRED.ANY 800000000
SPEC
ok $? "synthetic result with a bidi-control function name"
"$X" report bd >rep 2>&1
check "report text: no bidi control byte" sh -c "! grep -qF '$rlo' rep && ! grep -qF '$lri' rep"
check "report text: bidi controls as code points, the backslash doubled" \
	grep -qF 'user\u202enimda\u2066x\u2069\\x1b' rep
"$X" report --folded bd >folded 2>&1
check "report --folded: bidi controls as code points" grep -qF 'user\u202enimda' folded

# A perf.data naming a FIFO as a mapped file: the symbolizer opens only
# regular files (O_NONBLOCK, fstat first), so the report does not hang.
mkfifo fifo
"$GEN" -o ff -b "$PWD/fifo" <<SPEC
model skl
smt off
process 1000 app
CPU_CLK_UNHALTED.THREAD 1000000000
INST_RETIRED.ANY 800000000
SPEC
timeout 20 "$X" report ff >/dev/null 2>&1
rc=$?
check "a FIFO named as a mapped file: report does not block (rc $rc)" test "$rc" != 124

# meta.json's slice log name is a file name in the result, never a path:
# '../fifo' would block if it were opened.
cp -r ff sl
jq '.mux = {"mode": "gexplore", "slice_log": "../fifo", "reference": 0, "slice_ns": 10000000}' \
	ff/meta.json >sl/meta.json
timeout 20 "$X" report sl >out 2>err
rc=$?
check "slice log '../fifo' in meta.json: not opened (rc $rc)" test "$rc" = 0
check "... and said so" grep -q "slice log '../fifo' is not a file name in the result directory" err

# Every output format with every hostile name source (issue 30): function,
# comm (= thread name), module, region, argv, event and, when a compiler is
# here, the source file. No format but JSON lets an ESC, a BEL or a
# forged line through; JSON keeps the bytes.
hfile="src${E}]0;FILE${B}.c"
if command -v cc >/dev/null; then
	printf 'int hot_inner(int n){int s=0;for(int i=0;i<n;i++)s+=i*n;return s;}\nint main(void){return hot_inner(3);}\n' >"$hfile"
	cc -g -O0 -o "bin/w${E}[2J" "$hfile" && objcopy --redefine-sym "hot_inner=$fn" "bin/w${E}[2J"
	hbin="$PWD/bin/w${E}[2J"
else
	hbin="$PWD/bin/$prog"
fi
"$GEN" -o all -b "$hbin" <<SPEC
model skl
smt off
process 1000 c${E}]0;COMM${B}
region rg${E}]0;REGION${B}${E}[2J
function $fn
CPU_CLK_UNHALTED.THREAD 1000000000
INST_RETIRED.ANY 800000000
SPEC
ok $? "synthetic result with every hostile name"
jq --arg a "arg${E}]0;ARG${B}${NL}exit 0 FAKE" '.workload.argv = ["w", $a]' all/meta.json >m &&
	mv m all/meta.json
# the event's name in perf.data, same length so nothing else moves
LC_ALL=C perl -pi -e 's/INST_RETIRED\.ANY/INST\e]0;EV\aIRED.A/g' all/perf.data
outs=()
i=0
for by in process thread module function line callpath region; do
	"$X" report --by $by all >"o$i.txt" 2>&1; outs+=("o$i.txt:report --by $by"); i=$((i + 1))
	"$X" report --csv --by $by all >"o$i.txt" 2>&1; outs+=("o$i.txt:report --csv --by $by"); i=$((i + 1))
done
"$X" report all >"o$i.txt" 2>&1; outs+=("o$i.txt:report"); i=$((i + 1))
"$X" report --region "rg${E}]0;REGION${B}${E}[2J" all >"o$i.txt" 2>&1
outs+=("o$i.txt:report --region"); i=$((i + 1))
"$X" report --region "no${E}]0;such${B}" all >"o$i.txt" 2>&1
outs+=("o$i.txt:report --region (absent)"); i=$((i + 1))
"$X" report --folded all >"o$i.txt" 2>&1; outs+=("o$i.txt:report --folded"); i=$((i + 1))
"$X" diff all all >"o$i.txt" 2>&1; outs+=("o$i.txt:diff"); i=$((i + 1))
"$X" check all --top 3 --max cpi=0.1 >"o$i.txt" 2>&1; outs+=("o$i.txt:check"); i=$((i + 1))
"$X" check all --top 3 --max cpi=0.1 --github >"o$i.txt" 2>&1; outs+=("o$i.txt:check --github"); i=$((i + 1))
"$X" check all --top 3 --max cpi=0.1 --junit junit.xml >/dev/null 2>&1
cp junit.xml "o$i.txt"; outs+=("o$i.txt:check --junit"); i=$((i + 1))
"$X" tui --keys "" --dump 120x40 all >"o$i.txt" 2>&1; outs+=("o$i.txt:tui --dump"); i=$((i + 1))
"$X" tui --keys "t" --dump 120x40 all >"o$i.txt" 2>&1; outs+=("o$i.txt:tui --dump (timeline)"); i=$((i + 1))
"$X" tui --keys "g" --dump 120x40 all >"o$i.txt" 2>&1; outs+=("o$i.txt:tui --dump (grid)"); i=$((i + 1))
for o in "${outs[@]}"; do
	check "${o#*:}: no ESC, BEL or forged line" clean "${o%%:*}"
done
check "report --by region: the region shown escaped" grep -qF 'rg\x1b]0;REGION\x07\x1b[2J' o12.txt
check "report --csv --by region: the region shown escaped" grep -qF 'rg\x1b]0;REGION\x07\x1b[2J' o13.txt
check "report: the argv shown escaped" grep -qF 'arg\x1b]0;ARG\x07\nexit 0 FAKE' o14.txt
check "report --by thread: the thread's comm escaped" grep -qF 'c\x1b]0;COMM\x07' o2.txt
check "report --by module: the module escaped" grep -qF '\x1b[2J' o4.txt
check "report: the event escaped" grep -qF 'INST\x1b]0;EV\x07IRED.A' o14.txt
if command -v cc >/dev/null; then
	check "report --by line: the source file escaped" grep -qF 'src\x1b]0;FILE\x07.c' o8.txt
else
	skip 1 "no C compiler for a hostile source file name"
fi
"$X" report --json --by region all >j.json 2>&1
is "$(jq -r '.regions[0].name' j.json)" "rg${E}]0;REGION${B}${E}[2J" "report --json: the exact region name"
if command -v xmllint >/dev/null; then
	check "check --junit: well-formed XML" xmllint --noout junit.xml
else
	skip 1 "xmllint is absent (Debian package libxml2-utils)"
fi

# Names are bytes (issue 30): invalid UTF-8 in a function, comm, module and
# region name is kept, escaped \xNN, in text and JSON (jansson refuses it:
# the key used to vanish), and the JUnit XML stays well-formed.
X8=$'\xff\xfe' C8=$'\xc3'
cp "$WL/wl-spin" "bin/m$X8" && objcopy --redefine-sym "hot_inner=hot$X8" "bin/m$X8"
"$GEN" -o u8 -b "$PWD/bin/m$X8" <<SPEC
model skl
smt off
process 1000 c$C8
region r$X8
function hot$X8
CPU_CLK_UNHALTED.THREAD 1000000000
INST_RETIRED.ANY 800000000
SPEC
ok $? "synthetic result with invalid UTF-8 names"
"$X" report --json --by function u8 >j 2>&1
is "$(jq -r '.functions[0].function' j)" 'hot\xff\xfe' "report --json: the function kept, \\xNN"
is "$(jq -r '.functions[0].module | sub(".*/"; "")' j)" 'm\xff\xfe' "report --json: the module kept"
"$X" report --json --by process u8 >j 2>&1
is "$(jq -r '.processes[0].comm' j)" 'c\xc3' "report --json: the comm kept"
"$X" report --json --by region u8 >j 2>&1
is "$(jq -r '.regions[0].name' j)" 'r\xff\xfe' "report --json: the region kept"
"$X" report --by function u8 >t 2>&1
check "report text: \\xNN, no invalid byte" sh -c "grep -qF 'hot\\xff\\xfe' t && ! LC_ALL=C grep -q \$'\\xff' t"
"$X" check u8 --top 1 --max cpi=0.1 --json >j 2>/dev/null
is "$(jq -r '.checks[0].row' j)" 'hot\xff\xfe' "check --json: the row kept"
"$X" diff --json u8 u8 >j 2>/dev/null
check "diff --json: valid JSON with the rows" jq -e '.entries | length > 0' j
"$X" check u8 --top 1 --max cpi=0.1 --junit u8.xml >/dev/null 2>&1
if command -v xmllint >/dev/null; then
	check "check --junit with invalid UTF-8: well-formed XML" xmllint --noout u8.xml
else
	check "check --junit with invalid UTF-8: no invalid byte" sh -c "! LC_ALL=C grep -q \$'\\xff' u8.xml"
fi
if can_sample; then
	"$X" -o u8rec -e cpu-clock -- "$WL/wl-spin" 20 0 "a${X8}b" >u8out 2>&1
	is "$(jq -r '.workload.argv | length' u8rec/meta.json)" 4 "record: argv with invalid UTF-8 kept in meta.json"
	is "$(jq -r '.workload.argv[3]' u8rec/meta.json)" 'a\xff\xfeb' "... as \\xNN"
	# escaped once: meta.json's \xNN read back as the byte (report doubled
	# the backslash of the text it read: a\\xffb)
	is "$(sed -n 's/^  command   .* //p' u8out)" 'a\xff\xfeb' \
		"gexplore -- CMD's report: the argv's byte escaped once"
	"$X" report u8rec >u8t 2>&1
	is "$(sed -n 's/^  command   .* //p' u8t)" 'a\xff\xfeb' "report text: the argv's byte escaped once"
	"$X" report --json u8rec >u8j 2>&1
	is "$(jq -r '.command[3]' u8j)" 'a\xff\xfeb' "report --json: the argv as \\xNN"
else
	skip 5 "perf_event_open of cpu-clock is not permitted here"
fi

# A FIFO, or a directory, in place of each file of a result (issue 30): every
# file is opened O_NONBLOCK and must be a regular file, so report, check,
# diff and tui say what it is and never block on it.
"$GEN" -o base -b "$WL/wl-spin" <<SPEC
model skl
smt off
process 1000 app
region phase
CPU_CLK_UNHALTED.THREAD 1000000000
INST_RETIRED.ANY 800000000
SPEC
ok $? "synthetic result with regions"
jq '.mux = {"mode": "gexplore", "slice_log": "slices.bin", "reference": 0, "slice_ms": 10}' \
	base/meta.json >base/m && mv base/m base/meta.json
for f in perf.data meta.json slices.bin regions.bin; do
	for kind in fifo dir; do
		d="r-$kind-${f%.*}"
		cp -r base "$d" && rm -f "$d/$f"
		if [ $kind = fifo ]; then mkfifo "$d/$f"; else mkdir "$d/$f"; fi
		for cmd in report check diff tui; do
			case $cmd in
			diff) args=("$d" base) ;;
			tui) args=(--keys "" --dump 80x24 "$d") ;;
			check) args=("$d" --max cpi=100) ;;
			*) args=("$d") ;;
			esac
			timeout 20 "$X" $cmd "${args[@]}" >out 2>err
			rc=$?
			check "$kind as $f: $cmd does not block (rc $rc)" test "$rc" != 124
			case $f in
			perf.data|meta.json) want=$([ $kind = fifo ] && echo "is a FIFO, not a regular file" ||
							echo "is a directory")
				check "$kind as $f: $cmd says '$want'" grep -qF "$f $want" err ;;
			esac
		done
	done
done
# meta.json that is not JSON (a link to some other file, say one only root
# can read): the error names the line and column, never the text there.
cp -r base secret && printf 'TOPSECRETTOKENabcdef and more\n' >secret/meta.json
"$X" report secret >out 2>err
check "meta.json not JSON: an error" test $? != 0
check "... naming the position" grep -qF "secret/meta.json: not valid JSON at line 1, column" err
check "... without the file's text" sh -c '! grep -q TOPSECRET err'
timeout 20 "$X" archive r-fifo-perf >out 2>err
rc=$?
check "fifo as perf.data: archive does not block (rc $rc) and says so" \
	sh -c "[ $rc != 124 ] && grep -qF 'perf.data is a FIFO, not a regular file' err"
# The newest-result search passes over a result it cannot read.
mkdir newest && cp -r base newest/gx001 && cp -r base newest/gx002 && cp -r base newest/gx003
rm newest/gx002/perf.data newest/gx003/meta.json
mkfifo newest/gx002/perf.data newest/gx003/meta.json
(cd newest && timeout 20 "$X" report >../out 2>../err)
rc=$?
is "$rc" 0 "a bare report skips gx003 (FIFO meta.json) and gx002 (FIFO perf.data)"
check "... and names them" grep -qF "gx003 (meta.json: not a regular file" err
check "... both" grep -qF "gx002 (perf.data: not a regular file)" err
check "... and reports gx001" grep -q "gx001" out
mkdir newest/gx004 && cp base/meta.json newest/gx004/ && cp base/perf.data newest/gx004/ &&
	chmod 000 newest/gx004/perf.data
if [ "$(id -u)" != 0 ]; then
	(cd newest && timeout 20 "$X" report >../out 2>../err)
	check "an unreadable perf.data: skipped, permission denied said" \
		grep -qF "gx004 (perf.data: permission denied)" err
	timeout 20 "$X" report newest/gx004 >out 2>err
	check "named, an unreadable perf.data: 'Permission denied', not 'no perf.data'" \
		grep -qF "gx004/perf.data: Permission denied" err
else
	skip 2 "root reads a mode-000 file"
fi

# An incomplete result passes no gate (issue 30): check exits 2 unless
# --allow-incomplete, every JSON output carries the status, diff warns.
cp -r base killed && jq '.status = "killed"' base/meta.json >killed/meta.json
cp -r base nometa && rm nometa/meta.json
"$X" check killed --max cpi=1000 >out 2>err
is "$?" 2 "check of a killed run: exit 2"
check "... saying why" grep -qF "killed is INCOMPLETE: stopped by SIGTERM or SIGHUP; exit status 2" out
"$X" check killed --max cpi=1000 --allow-incomplete >out 2>err
is "$?" 0 "check --allow-incomplete: checked as it is"
"$X" check nometa --max cpi=1000 >out 2>err
is "$?" 2 "check of a run without meta.json: exit 2"
"$X" check killed --max cpi=0.001 >out 2>err
is "$?" 1 "check of a killed run that fails a threshold: exit 1 (a failure wins)"
"$X" check killed --max cpi=1000 --json >out 2>err
is "$(jq -r '[.status, .exit, .run_status[0].status] | join(" ")' out)" "incomplete 2 killed" \
	"check --json: status incomplete, exit 2, the run's status"
"$X" report --json killed >out 2>err
is "$(jq -r '.status' out)" killed "report --json: status killed"
check "report --json: why it is incomplete" jq -e '.incomplete | test("SIGTERM")' out
"$X" report --json base >out 2>err
is "$(jq -r '[.status, .incomplete] | map(tostring) | join(" ")' out)" "complete null" \
	"report --json of a whole run: status complete, incomplete null"
"$X" report --json nometa >out 2>err
is "$(jq -r '.status' out)" cut-short "report --json without meta.json: status cut-short"
"$X" diff base killed >out 2>err
check "diff warns of the killed run" grep -qF "warning: killed is incomplete: stopped by SIGTERM" err
"$X" diff --json base killed >out 2>err
is "$(jq -r '[.a_status[0], .b_status[0]] | join(" ")' out)" "complete killed" "diff --json: each side's status"

# Errors that say what happened (issue 30): a full disk (/dev/full) for
# every output, a directory or endless binary data given as --counts.
if [ -w /dev/full ]; then
	for c in "report base" "report --json base" "report --csv base" "diff base base" \
		 "diff --json base base" "check base --max cpi=1000"; do
		$X $c >/dev/full 2>err
		rc=$?
		check "$c >/dev/full: exit $rc, 'No space left on device'" \
			sh -c "[ $rc != 0 ] && grep -q 'No space left on device' err"
	done
	"$X" report -o /dev/full base 2>err
	check "report -o /dev/full: 'No space left on device'" grep -q 'No space left on device' err
	"$X" check base --max cpi=1000 --junit /dev/full >/dev/null 2>err
	check "check --junit /dev/full: 'No space left on device'" grep -q 'No space left on device' err
	printf 'cycles 1000\ninstructions 500\n' >counts.txt
	"$X" topdown --cpu skl --counts counts.txt >/dev/full 2>err
	check "topdown >/dev/full: exit 1, 'No space left on device'" \
		sh -c "[ $? = 1 ] && grep -q 'No space left on device' err"
else
	skip 9 "no /dev/full"
fi
mkdir cdir
"$X" topdown --cpu skl --counts cdir >out 2>err
check "topdown --counts DIR: 'is a directory', not an I/O error" \
	sh -c "grep -q 'cdir is a directory' err && ! grep -q 'Input/output' err"
timeout 20 "$X" topdown --cpu skl --counts /dev/zero >out 2>err
rc=$?
check "topdown --counts /dev/zero: stops at once (rc $rc), not text" \
	sh -c "[ $rc = 2 ] && grep -q 'a NUL byte at offset 0: not text' err"

# Every number of meta.json checked against its range and the others, the
# other files against meta.json, sums that overflow reported (issue 30).
cp -r base rng
jq '.events[0].group = 2147483647 | .events[0].count = -1 |
    .events[1].time_running = 10 | .events[1].time_enabled = 5 |
    .regions = {"markers": 11, "lost": 0} | .mux.groups = 99999 | .mux.reference = 7' \
	base/meta.json >rng/meta.json
rm rng/regions.bin
timeout 20 "$X" report rng >out 2>err
is "$?" 0 "meta.json out of range: report works"
check "group INT_MAX: refused with a warning" grep -qF "event 0 group 2147483647 is out of range (-1 to 1)" out
check "count -1: refused with a warning" grep -qF "event 0 count -1 is out of range" out
check "... never printed as 18446744073709551615" sh -c "! grep -q 18446744073709551615 out"
check "time_running > time_enabled: said impossible" grep -qF "event 1 ran 10 ns of 5 enabled: impossible" out
check "mux groups past the events: refused" grep -qF "mux groups 99999 is out of range" out
check "mux reference past the events: refused" grep -qF "mux reference 7 is out of range" out
check "markers 11 without regions.bin: said, not 'none recorded' alone" \
	grep -qF "regions.bin: 0 of the 11 markers meta.json counts: damaged or cut short" err
"$X" report --json rng >j 2>/dev/null
is "$(jq -r '.events[0].counted' j)" null "report --json: a count of -1 is no count"
"$GEN" -o ovf -b "$WL/wl-spin" <<SPEC
model skl
smt off
process 1000 a
CPU_CLK_UNHALTED.THREAD 18446744073709551600
process 1001 b
CPU_CLK_UNHALTED.THREAD 1000000000
SPEC
"$X" report ovf >out 2>err
check "periods that overflow 64 bits: the samples left out are said" \
	grep -qF "100 samples left out: adding their period would overflow the 64-bit total" err
check "... and no share past 100%" sh -c "! grep -qE '^ *([0-9]{4,}|[2-9][0-9]{2}|1[0-9][1-9]|10[1-9])\\.[0-9]%' out"

# topdown --counts (issue 30): linear in its rows (10 k rows of 40 events
# took minutes when each line searched every row), bounded (a row limit
# with the reason), impossible values refused.
jq -r '.events[].id' "$GX_SRCDIR/events/skl.json" >evs
awk 'NR == FNR { ev[n++] = $1; next }
     END { for (t = 1; t <= 250; t++) for (c = 0; c < 40; c++) for (e = 0; e < n; e++)
		printf "%d.000100,CPU%d,%d,,%s,1000000,100.00,,\n", t, c, 1000 + t, ev[e] }' \
	evs /dev/null >big.csv
timeout 120 "$X" topdown --cpu skl --counts big.csv --brief >out 2>err
rc=$?
is "$rc" 0 "topdown --counts: 10,000 rows x $(wc -l <evs) events in linear time (rc $rc)"
is "$(grep -c '^== ' out)" 10001 "... every row evaluated"
timeout 120 "$X" topdown --cpu skl --counts big.csv --json >j 2>err
is "$(jq '.rows | length' j)" 10000 "topdown --json: every row, written one at a time"
awk 'BEGIN { for (i = 1; i <= 200001; i++)
	printf "%d.0,CPU0,100,,INST_RETIRED.ANY,1000,100.00,,\n", i }' >many.csv
timeout 120 "$X" topdown --cpu skl --counts many.csv >out 2>err
is "$?" 2 "topdown --counts past 200,000 rows: refused"
check "... saying so" grep -qF "many.csv:200001: more than 200000 rows" err
for bad in "-5.00:running share -5% is impossible" "150.00:running share 150% is impossible"; do
	printf '1.0,CPU0,100,,INST_RETIRED.ANY,1000,%s,,\n' "${bad%%:*}" >bad.csv
	"$X" topdown --cpu skl --counts bad.csv >out 2>err
	check "topdown --counts: ${bad#*:}" sh -c "[ $? = 2 ] && grep -qF '${bad#*:}' err"
done
printf 'INST_RETIRED.ANY -5\n' >bad.txt
"$X" topdown --cpu skl --counts bad.txt >out 2>err
check "topdown --counts: a negative count is impossible" grep -qF "count -5 is impossible" err
check "... and no 'reliability -1.00'" sh -c "! grep -q 'reliability -' out"

# A live recording of the hostile program with hostile arguments, -o name.
if can_sample; then
	out="r${E}[2J"
	"$X" record -o "$out" -e cpu-clock -- "bin/$prog" 50 0 "arg${E}]0;ARG${B}" "x${NL}exit 0 FAKE" \
		>rec 2>recerr
	ok $? "record the hostile program"
	check "end-of-record line: escaped" grep -qF 'recorded r\x1b[2J:' recerr
	check "record's stderr: no ESC, BEL or forged line" clean recerr
	"$X" report "$out" >lrep 2>&1
	check "live report: no ESC, BEL or forged line" clean lrep
	check "live report: the argv escaped" grep -qF 'arg\x1b]0;ARG\x07 x\nexit 0 FAKE' lrep
	check "live report: the comm escaped" grep -qF 'evil\x1b]0;TITLE\x07' lrep
else
	skip 6 "perf_event_open of cpu-clock is not permitted here"
fi

# The fuzz targets' crash inputs that are perf.data files, read by report:
# an error is fine, a signal is not (and the sanitizer build of this suite
# stops on undefined behaviour).
for f in "$GX_SRCDIR"/tests/fuzz/regress/fuzz-perfdata/crash-*; do
	[ -f "$f" ] || continue
	timeout 60 "$X" report "$f" >/dev/null 2>&1
	rc=$?
	check "fuzz-perfdata regression $(basename "$f"): report exits $rc, no signal" test "$rc" -lt 124
done
done_testing
