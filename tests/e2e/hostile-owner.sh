#!/bin/bash
# Other users' results and links out of a result (issue 30, part 3): run as
# root, report, check, diff, tui and archive refuse a result another user
# owns (unless --any-owner) and any result whose perf.data, meta.json or
# .build-id entries are symbolic links, with one line and a non-zero
# status, and touch nothing outside it; archive never hard-links a setuid
# file and makes its directories 0700; record -o refuses a symbolic link.
. "${GX_SRCDIR}/tests/e2e/lib.sh"
[ "$(id -u)" = 0 ] || skip_all "needs root (chown to another user; CI runs as root)"
id nobody >/dev/null 2>&1 || skip_all "no user 'nobody' to own a result"
X="$GX_BIN"

# What lies outside every result: its listing (kind, mode, owner, links,
# size) and contents, before and after each refusal.
mkdir -p sent/deep && printf 'TOPSECRETTOKENabcdef and more\n' >sent/secret
chmod 600 sent/secret
snap() { (cd sent && find . -printf '%p %y %m %u %n %s\n' | sort &&
	  find . -type f -exec sha256sum {} + | sort); }
snap >sent.before
untouched() { snap >sent.after && cmp -s sent.before sent.after; }

"$GEN" -o base -b "$WL/wl-spin" <<SPEC
model skl
smt off
process 1000 app
function hot_inner
CPU_CLK_UNHALTED.THREAD 1000000000
INST_RETIRED.ANY 800000000
SPEC
ok $? "synthetic result"
"$X" report base >/dev/null 2>&1
ok $? "report of it, root's own"

# refused NAME PATTERN CMD...: non-zero, one line on stderr that matches,
# no secret in any output, nothing outside changed
refused() {
	local name=$1 pat=$2 rc
	shift 2
	"$@" >out 2>err </dev/null
	rc=$?
	if [ $rc -ne 0 ] && [ "$(wc -l <err)" = 1 ] && grep -q -- "$pat" err &&
	   ! grep -q TOPSECRET out err && untouched; then
		ok 0 "$name: refused with one line (rc $rc)"
	else
		ok 1 "$name: refused with one line"
		diag "rc $rc; stderr: $(head -c 600 err)"
	fi
}
cmds() {	# every command that reads a result, on result $1
	refused "$2: report" "$3" "$X" report "$1"
	refused "$2: check" "$3" "$X" check "$1" --max cpi=100
	refused "$2: diff" "$3" "$X" diff base "$1"
	refused "$2: tui" "$3" "$X" tui --keys "" --dump 80x24 "$1"
	refused "$2: archive" "$3" "$X" archive "$1"
}

# Another user's result, read as root.
cp -r base foreign && chown -R nobody foreign
cmds foreign "owned by nobody" 'owned by uid [0-9]*, neither root nor you'
"$X" report --any-owner foreign >/dev/null 2>&1
ok $? "report --any-owner reads it"
"$X" archive --any-owner foreign >/dev/null 2>&1
ok $? "archive --any-owner archives it"
cp -r base gx001 && cp -r base gx002 && chown -R nobody gx002
"$X" report >out 2>err
ok $? "bare report: opens the newest whole result of root's"
check "... gx001, saying that gx002 (another user's) was skipped" \
	sh -c "grep -q '^gexplore report: gx001' out && grep -q 'skipped gx002 (.*owned by uid' err"
rm -rf gx001 gx002
cp -r base f-bid && mkdir -p f-bid/.build-id/ab && chown nobody f-bid/.build-id/ab
refused "root's result, another user's .build-id directory in it: report" \
	'f-bid/.build-id/ab is owned by uid' "$X" report f-bid
refused "... archive" 'f-bid/.build-id/ab is owned by uid' "$X" archive f-bid
cp -r base shared && chmod 777 shared
refused "a result others may write in: report" "writable by other users" "$X" report shared

# Links out of a result: meta.json and perf.data at a root-only file, the
# .build-id tree or one of its entries at a directory outside.
cp -r base l-meta && ln -sf "$PWD/sent/secret" l-meta/meta.json
cmds l-meta "meta.json a link" 'meta.json is a symbolic link'
cp -r base l-data && rm l-data/perf.data && ln -s "$PWD/sent/secret" l-data/perf.data
cmds l-data "perf.data a link" 'perf.data is a symbolic link'
cp -r base l-bid && ln -s "$PWD/sent/deep" l-bid/.build-id
cmds l-bid ".build-id a link" '.build-id is a symbolic link'
cp -r base l-entry && mkdir -p l-entry/.build-id/ab &&
	ln -s "$PWD/sent/secret" l-entry/.build-id/ab/cdef0123
cmds l-entry ".build-id entry a link" '.build-id/ab/cdef0123 is a symbolic link'
cp -r base l-elf && mkdir -p l-elf/.build-id/ab/cdef0123 &&
	ln -s "$PWD/sent/secret" l-elf/.build-id/ab/cdef0123/elf
cmds l-elf ".build-id elf a link" 'elf is a symbolic link'
cp -r base l-slices && ln -sf "$PWD/sent/secret" l-slices/slices.bin
cmds l-slices "slices.bin a link" 'slices.bin is a symbolic link'
cp -r base l-offcpu && ln -sf "$PWD/sent/secret" l-offcpu/offcpu.bin
cmds l-offcpu "offcpu.bin a link" 'offcpu.bin is a symbolic link'
cp -r base l-any && ln -sf "$PWD/sent/secret" l-any/meta.json && chown -R nobody l-any
refused "--any-owner: its links are refused all the same" 'meta.json is a symbolic link' \
	"$X" report --any-owner l-any

if ! can_sample; then
	skip 13 "perf_event_open of cpu-clock is not permitted here"
	done_testing
	exit
fi

# A setuid program's recording: the archive copies it without the bits,
# never a hard link to it; its directories are 0700.
mkdir bin && cp "$WL/wl-spin" bin/suid-spin && chmod 4755 bin/suid-spin
"$X" record -q -o suid --no-archive -e cpu-clock -- bin/suid-spin 20 0 >/dev/null 2>&1
ok $? "record of a setuid copy of wl-spin"
"$X" archive -q suid
ok $? "archive of it"
elf=$(grep -l . suid/.build-id/*/*/elf | while read -r f; do
	cmp -s "$f" bin/suid-spin && echo "$f"; done | head -1)
check "the setuid program is in the archive" test -n "$elf"
is "$(stat -c '%a %h' "${elf:-/nonexistent}" 2>&1)" "600 1" \
	"... a copy (one link), mode 600: no setuid bit"
is "$(stat -c %h bin/suid-spin)" 1 "... the program itself gained no link"
is "$(find suid/.build-id -type d ! -perm 700 | wc -l)" 0 ".build-id directories are 0700"
# a recording with build-ids whose .build-id is a link out: archive
# created directories and links through it before
cp -r suid l-arch && rm -rf l-arch/.build-id && ln -s "$PWD/sent/deep" l-arch/.build-id
refused "archive of a recording whose .build-id is a link out" '.build-id is a symbolic link' \
	"$X" archive l-arch
cp -r suid l-arch2 && rm -rf l-arch2/.build-id && mkdir l-arch2/.build-id &&
	for d in suid/.build-id/*; do ln -s "$PWD/sent/deep" "l-arch2/.build-id/${d##*/}"; done
refused "... whose .build-id/xx are links out" 'is a symbolic link' "$X" archive l-arch2
# an archive killed mid-copy: its directory and a part file, no elf
rm "$elf" && head -c 100 bin/suid-spin >"$elf.part"
"$X" archive -q suid
check "archive again after one killed mid-copy: the file archived whole" cmp -s "$elf" bin/suid-spin
check "... its part file gone" test ! -e "$elf.part"
"$X" record -q -o suid2 -e cpu-clock -- bin/suid-spin 20 0 >/dev/null 2>&1
is "$(find suid2/.build-id -name elf -samefile bin/suid-spin | wc -l)" 0 \
	"record's own archive: no hard link to the setuid program"

# record -o names a symbolic link (planted where others may write): one
# line, nothing written through it.
ln -s "$PWD/sent/deep" rec-link
refused "record -o a link to a directory" 'rec-link is a symbolic link: not followed' \
	"$X" record -q -o rec-link -e cpu-clock -- "$WL/wl-spin" 20 0
ln -s "$PWD/sent/new" rec-dangling
refused "record -o a dangling link" 'rec-dangling/ is a symbolic link: not followed' \
	"$X" record -q -o rec-dangling/ -e cpu-clock -- "$WL/wl-spin" 20 0
done_testing
