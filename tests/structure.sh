#!/bin/sh
# The house rules that a grep can hold (shared/DESIGN.md, shared/STYLE.md):
# perf.data is opened through src/result (or inside src/perfdata), no
# module includes another's private -int.h, curses lives in one file of
# the TUI, only src/cmd prints or exits, src/cmd records only through
# src/record, and TUI views and the model stay apart from the app and the
# loader.
src="$GX_SRCDIR/src"
n=0 failed=0
check() {	# check DESCRIPTION OFFENDERS
	n=$((n + 1))
	if [ -z "$2" ]; then
		echo "ok $n - $1"
	else
		echo "not ok $n - $1"
		echo "$2" | sed 's/^/#   /'
		failed=$((failed + 1))
	fi
}
cd "$src" || { echo "1..0 # SKIP no source tree"; exit 0; }

check "perf.data is opened only by src/perfdata and src/result" \
	"$(grep -rn 'perf_reader__open(' --include='*.c' . | grep -v '^\./perfdata/' | grep -v '^\./result/')"

bad=""
for f in $(grep -rl '#include "[a-z_]*/[a-z_-]*-int\.h"' --include='*.[ch]' .); do
	mod=$(echo "$f" | cut -d/ -f2)
	for inc in $(sed -n 's|^#include "\([a-z_]*\)/[a-z_-]*-int\.h".*|\1|p' "$f"); do
		[ "$inc" = "$mod" ] || bad="$bad$f includes $inc's private header
"
	done
done
check "no module includes another module's -int.h" "$bad"

check "curses is included only by src/tui/term.c" \
	"$(grep -rln '#include <n\{0,1\}curses' --include='*.[ch]' . | grep -v '^\./tui/term\.c$')"

# Three exceptions: xalloc's out-of-memory line, lazy-math's line when
# libm cannot be loaded (a math function has no error to return), and the _exit() of the
# processes workload.c forks, the keeper and the workload before its exec,
# of those model/valgrind.c forks before they exec llvm's tools, and of
# the child peak's page test forks to touch its pages (they never return
# to gexplore).
check "only src/cmd prints or exits" \
	"$(grep -rnE '(^|[^a-z_])(printf|fprintf|puts|fputs|exit|_exit)[[:space:]]*\(' --include='*.c' . |
		grep -v '^\./cmd/' | grep -v '^\./util/xalloc\.c:' | grep -v '^\./util/lazy-math\.c:' | grep -v 'snprintf\|->exit(\|\.exit *=' |
		grep -v '^\./collect/workload\.c:[0-9]*:.*_exit([0-9]*)' |
		grep -v '^\./model/valgrind\.c:[0-9]*:.*_exit([0-9]*)' |
		grep -v '^\./peak/page\.c:[0-9]*:.*_exit([0-9]*)')"

# A recording is src/record's (gx_record): src/cmd opens no event, drains
# no ring, writes no perf.data, regions.bin, slices.bin or meta.json, and
# makes no result directory or archive of its own (`gexplore archive`
# archives an existing perf.data through pd_archive_file, which is no
# recording).
check "src/cmd calls no perf_event_open, ring or writer function (src/record does)" \
	"$(grep -rnE '(^|[^a-z_])(perf_event_open|collect_perf_event_open|collect_session__[a-z_]+|ring__[a-z_]+|marker_ring__[a-z_]+|perf_writer__[a-z_]+|pd_regions_writer__[a-z_]+|mux_log_writer__[a-z_]+|mux_log_sink__[a-z_]+|pd_collect_build_ids[a-z_]*|gx_meta__(write|write_at|add_warning)|pd_result_dir__create|pd_archive)[[:space:]]*\(' \
		--include='*.c' cmd/)"

# A function one .c file defines and another calls is declared in a header,
# not by hand in the caller (two hand-made prototypes drift apart from
# the definition unseen). A declaration in a .c file of something no other
# .c file defines (an assembly kernel) is fine.
bad=""
for hit in $(grep -rnE '^[a-z][a-z_0-9 *]*[ *][a-z_][a-z_0-9]*\([^;]*\);$' --include='*.c' . |
		grep -v '^[^:]*:[0-9]*:\(static\|extern\|typedef\) ' |
		sed -n 's/^\([^:]*\):\([0-9]*\):[^(]*[ *]\([a-z_][a-z_0-9]*\)(.*/\1:\2:\3/p'); do
	f=${hit%%:*} fn=${hit##*:}
	for d in $(grep -rlE "^[a-z][a-z_0-9 *]*[ *]$fn\\([^;]*\$" --include='*.c' .); do
		[ "$d" = "$f" ] || bad="$bad${hit%:*}: $fn is $d's: declare it in a header
"
	done
done
check "no function of another .c file declared by hand" "$bad"

# The TUI as htop's (shared/STYLE.md): a view returns its reaction (flags,
# the view to open, a message) and calls nothing of the app; the model
# points at nothing of the loader that fills it (struct tui_loader, which
# the app holds beside it) nor at a view: no function pointer in it.
check "TUI views call nothing of the app; the model holds no function pointer" \
	"$(grep -nE 'tui_app__[a-z_]+[[:space:]]*\(|struct tui_app[[:space:]]*\*' tui/view-*.c tui/view.c
	   sed -n '/^struct tui_model {/,/^};/p' tui/tui-int.h |
		grep -nE '\(\*[a-z_]+\)|struct tui_(loader|view|app)[[:space:]]*\*|void[[:space:]]*\*' |
		sed 's|^|struct tui_model, line |')"

# src/flow is the graph under the model and the branch-stack views: it
# stands on util alone (HACKING.md's order).
check "src/flow includes no module but util" \
	"$(grep -n '#include "[a-z_]*/' flow/*.[ch] 2>/dev/null | grep -v '#include "util/util\.h"')"

# Issue 45: no source file grows past 1,500 lines (split it by what its
# parts do), and the views ask each event what its values are (gx_event's
# kind), not whether the result is modelled: gx_result__modelled in at
# most three files outside result/ and model/.
check "no file in src/ over 1,500 lines" \
	"$(for f in */*.c */*.h; do n=$(wc -l <"$f"); [ "$n" -le 1500 ] || echo "$f: $n lines"; done)"
users=$(grep -l 'gx_result__modelled' */*.c | grep -v '^\(result\|model\)/')
check "gx_result__modelled in at most three files outside result/ and model/" \
	"$([ "$(printf '%s\n' "$users" | grep -c .)" -le 3 ] || printf '%s\n' "$users")"

echo "1..$n"
[ "$failed" = 0 ]
