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

# wait_for TEXT: poll the pane until TEXT shows (10 s at most: machines
# running other builds are slow). wait_gone TEXT: until it is gone.
wait_for() {
	local i
	for i in $(seq 100); do
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
	check "the hottest function is hot_inner" grep -q 'source: hot_inner' pane
	# The cursor ('>') starts on the hottest line: the loop body.
	check "the cursor is on the hottest line" sh -c "grep '^>' pane | grep -q 'wl_sink +='"
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
