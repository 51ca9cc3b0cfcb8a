#!/bin/bash
# The real TUI in a detached tmux session: open a recording of the spin
# workload, check the summary, help and quit; with function rows (a
# symbolizing profile), drill to the hottest function's source, find its
# hottest line under the cursor, go back, quit.
. "${GX_SRCDIR}/tests/e2e/lib.sh"
command -v tmux >/dev/null || skip_all "tmux is absent (Debian package tmux)"
can_sample || skip_all "perf_event_open of cpu-clock is not permitted here"

S="gx-tui-$$"
export TMUX_TMPDIR="$TMP"	# a private server, never the user's
trap 'tmux kill-server >/dev/null 2>&1; rm -rf "$TMP"' EXIT

"$GX_BIN" record -q -o r1 -e cpu-clock -- "$WL/wl-spin" 400 >/dev/null 2>&1
ok $? "record the spin workload"

# wait_for TEXT: poll the pane until TEXT shows (30 s at most: machines
# running other builds are slow, and CI's ASan build on two loaded CPUs
# missed a source view within 10 s). wait_gone TEXT: until it is gone.
wait_for() {
	local i
	for i in $(seq 300); do
		tmux capture-pane -p -t "$S" >pane 2>/dev/null && grep -q -- "$1" pane && return 0
		sleep 0.1
	done
	return 1
}
wait_gone() {
	local i
	for i in $(seq 100); do
		tmux capture-pane -p -t "$S" >pane 2>/dev/null || return 0
		grep -q -- "$1" pane || return 0
		sleep 0.1
	done
	return 1
}

tmux new-session -d -s "$S" -x 100 -y 30 "NO_COLOR=1 '$GX_BIN' tui r1; sleep 0.5"
ok $? "tmux session started"
wait_for 'Command'
ok $? "the summary is on screen"
check "summary names the workload" grep -q 'wl-spin 400' pane
# Colour escapes: SGR 30-37/40-47 or 38;5/48;5 (tmux re-encodes what it shows).
has_colour() { tmux capture-pane -e -p -t "$1" | grep -Eq $'\e\\[[0-9;]*(3[0-7]|4[0-7]|38;5|48;5)[;m]'; }
has_colour "$S"
is "$?" 1 "NO_COLOR: no colour on screen"
tmux new-session -d -s "$S-colour" -x 100 -y 30 "'$GX_BIN' tui r1; sleep 0.5"
S0=$S
S="$S-colour"
wait_for 'Command'
has_colour "$S"
ok $? "without NO_COLOR: colours"
tmux send-keys -t "$S" q
S=$S0

tmux send-keys -t "$S" '?'
wait_for 'Keys of the summary view'
ok $? "? opens the help of the summary"
tmux send-keys -t "$S" Escape
wait_for 'Command'
ok $? "Esc closes the help"

# What the drill-down below should find, from the recording itself: its
# hottest function (hot_inner or hot_outer) and that function's hottest
# line, one of its loop's (the control or the body line: skid decides).
SRC="$GX_SRCDIR/tests/workloads/wl-spin.c"
"$GX_BIN" report --json --limit 0 r1 >r1.json 2>/dev/null
hf=$(jq -r '.functions[0].function' r1.json)
hl=$(jq -r '.functions[0].line' r1.json)
case $hf in
hot_inner) loop=$(grep -n 'i < 100000;' "$SRC" | cut -d: -f1) ;;
hot_outer) loop=$(grep -n 'i < 50000;' "$SRC" | cut -d: -f1) ;;
*) loop= ;;
esac
check "the recording's hottest function is hot_inner or hot_outer ($hf)" test -n "$loop"
check "its hottest line ($hl) is its loop's control or body line" \
	sh -c "[ '$hl' = '${loop:-x}' ] || [ '$hl' = '$((${loop:-0} + 1))' ]"

# cursor_line: the source line number on the cursor's row ('>', share,
# samples, line, text)
cursor_line() { awk '/^>/ { print $4; exit }' pane; }

tmux send-keys -t "$S" g
wait_for 'bottom-up'
ok $? "g opens the bottom-up grid"
check "the grid lists the workload's functions" grep -q 'hot_inner' pane
if grep -q 'hot_inner' pane; then
	tmux send-keys -t "$S" Home
	sleep 0.2
	tmux send-keys -t "$S" Enter
	wait_for 'source: '
	ok $? "Enter on the hottest function opens its source"
	check "the hottest function is the recording's ($hf)" grep -q "source: $hf" pane
	# The cursor ('>') starts on the hottest line; the title can be on the
	# screen a moment before the lines under it.
	wait_for '^>'
	is "$(cursor_line)" "$hl" "the cursor is on the recording's hottest line"
	tmux send-keys -t "$S" Left
	wait_for 'bottom-up'
	ok $? "Left goes back to the grid"
else
	skip 4 "no function rows: see the test above"
fi
# SIGWINCH: the screen follows the window, and degrades when too small.
tmux resize-window -t "$S" -x 20 -y 6 2>/dev/null
wait_for 'too small'
ok $? "below the minimum size: terminal too small"
tmux resize-window -t "$S" -x 100 -y 30 2>/dev/null
wait_for 'bottom-up'
ok $? "back at 100x30: the grid again"
tmux send-keys -t "$S" q q
wait_gone 'bottom-up\|Command'
ok $? "q in the grid goes back, q in the summary quits"

# Every sample on hot_inner's loop control line (a synthetic recording at
# the address of its increment): the drill-down then lands on that line.
ctl=$(grep -n 'i < 100000;' "$SRC" | cut -d: -f1)
if command -v nm >/dev/null && command -v addr2line >/dev/null; then
	read -r a n < <(nm -S "$WL/wl-spin" | awk '$4 == "hot_inner" { print $1, $2 }')
	off=$(for i in $(seq 0 $((16#$n - 1))); do printf '0x%x\n' $((16#$a + i)); done |
		addr2line -e "$WL/wl-spin" | awk -F: -v c="$ctl" '{ sub(/ .*/, "", $2) }
			$2 == c + 1 { body = 1 } body && $2 == c { print NR - 1; exit }')
	"$GEN" -o rc -b "$WL/wl-spin" <<EOF_S
model skl
smt off
process 1000 wl-spin
function hot_inner+${off:-0}
CPU_CLK_UNHALTED.THREAD 100000000
EOF_S
	is "$("$GX_BIN" report --json rc 2>/dev/null | jq -r '.functions[0].line')" "$ctl" \
		"control line: the report's hottest line is the loop's control line"
	tmux new-session -d -s "$S-ctl" -x 100 -y 30 "NO_COLOR=1 '$GX_BIN' tui rc; sleep 0.5"
	S0=$S
	S="$S-ctl"
	wait_for 'summary: rc'
	tmux send-keys -t "$S" g
	# the grid's rows, not only its title, before the keys that move in it
	wait_for 'hot_inner'
	tmux send-keys -t "$S" Home
	sleep 0.2
	tmux send-keys -t "$S" Enter
	wait_for 'source: hot_inner'
	ok $? "control line: Enter opens hot_inner's source"
	is "$(cursor_line)" "$ctl" "control line: the cursor is on it"
	tmux send-keys -t "$S" q q
	S=$S0
else
	skip 3 "nm or addr2line is absent (Debian package binutils)"
fi

# Ctrl-C: the terminal restored and exit status 130, as a shell says
# SIGINT (curses' own handler would exit 1); Q quits from any view at once.
tmux new-session -d -s "$S-int" -x 100 -y 30 \
	"cd '$TMP' && NO_COLOR=1 '$GX_BIN' tui r1; echo \$? >rc-int; sleep 5"
S0=$S
S="$S-int"
wait_for 'Command'
tmux send-keys -t "$S" g
wait_for 'bottom-up'
tmux send-keys -t "$S" C-c
for i in $(seq 50); do [ -s "$TMP/rc-int" ] && break; sleep 0.1; done
is "$(cat "$TMP/rc-int" 2>/dev/null)" 130 "Ctrl-C in the TUI exits 130"
tmux new-session -d -s "$S0-Q" -x 100 -y 30 \
	"cd '$TMP' && NO_COLOR=1 '$GX_BIN' tui r1; echo \$? >rc-Q; sleep 5"
S="$S0-Q"
wait_for 'Command'
tmux send-keys -t "$S" g
wait_for 'bottom-up'
tmux send-keys -t "$S" Enter
wait_for 'source: '
tmux send-keys -t "$S" C-l
sleep 0.2
tmux send-keys -t "$S" Q
for i in $(seq 50); do [ -s "$TMP/rc-Q" ] && break; sleep 0.1; done
is "$(cat "$TMP/rc-Q" 2>/dev/null)" 0 "Q in the source view quits at once, exit 0 (Ctrl-L before it harmless)"
S=$S0

# gexplore -- CMD on a terminal: record, then the TUI on the new result.
tmux new-session -d -s "$S-run" -x 100 -y 30 \
	"cd '$TMP' && '$GX_BIN' -q -e cpu-clock -o r3 -- '$WL/wl-spin' 100; sleep 5"
S0=$S
S="$S-run"
wait_for 'summary: r3'
ok $? "gexplore -- CMD opens the TUI on a terminal"
tmux send-keys -t "$S" q
wait_gone 'summary: r3'
ok $? "... and q quits it"
S=$S0

# TERM=dumb: no curses; the text report on the terminal instead.
tmux new-session -d -s "$S-dumb" -x 100 -y 30 "TERM=dumb '$GX_BIN' tui r1 2>err; sleep 10"
S="$S-dumb"
wait_for 'wl-spin'
ok $? "TERM=dumb prints the text report"
check "... and says why" grep -q 'dumb' err
done_testing
