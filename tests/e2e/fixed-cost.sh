#!/bin/bash
# What a recording costs before its workload does anything (issue 26,
# part 4: record of /bin/true under 10 ms). No time is asserted (the
# machine may be loaded); what made it slow is, each where it can be seen:
# the libraries loaded at start, the symbols bound after fork, the waits
# (sleeps, syncs) and the work a record did for nothing.
. "${GX_SRCDIR}/tests/e2e/lib.sh"

# libpfm4 and libcapstone are opened when first needed, never at start
# (their 118,000 relocations were 12 ms of every command)
LD_TRACE_LOADED_OBJECTS=1 "$GX_BIN" >libs 2>&1
ok $? "the loader lists gexplore's libraries"
check "libpfm is not loaded at start" sh -c "! grep -q 'libpfm' libs"
check "libcapstone is not loaded at start" sh -c "! grep -q 'libcapstone' libs"
check "the libraries are there at all (libc)" grep -q 'libc\.so' libs
# nor libdw (with liblzma and libbz2), libunwind, ncursesw (with libtinfo)
# or protobuf-c: a symbol session, a DWARF unwind, the TUI and the pprof
# export open them (a fifth of a record of /bin/true was loading them);
# nor libelf (a symbol session, a file preads cannot read), libzstd (a
# compressed record) or zlib (the pprof export's gzip, and libelf's own)
# (an ASan build links libelf, and zlib with it: configure.ac says why)
asan=no
"$GX_BIN" version --build-options 2>/dev/null | grep -q 'asan=yes' && asan=yes
# nor libm: lazy-math.c opens it at the first math function (libasan
# itself needs it in a sanitizer build)
for lib in libdw libunwind libncursesw libtinfo libprotobuf-c liblzma libbz2 \
	libelf libzstd libz libm; do
	case $asan:$lib in
	yes:libelf | yes:libz) skip 1 "$lib: an ASan build links libelf" ;;
	yes:libm) skip 1 "libm: libasan needs it" ;;
	*) check "$lib is not loaded at start" sh -c "! grep -q '$lib[.-]' libs" ;;
	esac
done

# -z now: bound once, in gexplore, not again in the keeper and the
# workload's child after each fork
keeper_built=no
"$GX_BIN" version --build-options 2>/dev/null | grep -q 'keeper=yes' && keeper_built=yes
if command -v readelf >/dev/null; then
	check "gexplore is linked -z now (BIND_NOW)" sh -c "readelf -d '$GX_BIN' | grep -q 'BIND_NOW\|Flags:.* NOW'"
	# gx-keeper's execve maps one segment and zeroes no partial page of a
	# writable one (a copy-on-write fault in the exec)
	kprog=$(dirname "$GX_BIN")/gx-keeper
	if [ $keeper_built = yes ] && [ -x "$kprog" ]; then
		readelf -lW "$kprog" >kphdr 2>&1
		is "$(grep -c ' LOAD ' kphdr)" 1 "gx-keeper has one segment to load"
		check "... and none of it writable" sh -c "! grep ' LOAD ' kphdr | grep -q 'RW'"
	else
		skip 2 "gx-keeper is not built here (keeper=no)"
	fi
else
	skip 3 "readelf is absent (Debian package binutils)"
fi

if ! can_sample; then
	skip_all "perf_event_open of cpu-clock is not permitted here"
fi
command -v jq >/dev/null || skip_all "jq is absent (Debian package jq)"

"$GX_BIN" record -q -o r0 -- /bin/true >/dev/null 2>&1
ok $? "record of /bin/true"
"$GX_BIN" record -q -f -o r0 -- /bin/true >/dev/null 2>&1
ok $? "record -f of /bin/true over the first"
check "the second record's sample cost is the cached one" \
	sh -c "jq -e '.sample_cost_from == \"cached\"' r0/meta.json"
# With a PMU the model names the events; without one it has no use (a
# cpu-clock result), and finding it was a millisecond of every record
if jq -e '.pmu == false' r0/meta.json >/dev/null; then
	check "no PMU: meta.json names no model (a reader matches the cpuid)" \
		sh -c "jq -e '.cpu_model == null' r0/meta.json"
else
	check "meta.json names the CPU model" sh -c "jq -e '.cpu_model | length > 0' r0/meta.json"
fi

# A user whose home is missing or not writable (nobody's /nonexistent)
# kept no cache: every record spun the calibration again (160 ms as
# nobody). The cache is then a private directory under $TMPDIR.
mkdir -m 700 ctmp
env -u XDG_CACHE_HOME HOME=/nonexistent/gx-fixed-cost TMPDIR="$PWD/ctmp" \
	"$GX_BIN" record -q -o rn1 -- /bin/true >/dev/null 2>&1
ok $? "record with no home to write in"
env -u XDG_CACHE_HOME HOME=/nonexistent/gx-fixed-cost TMPDIR="$PWD/ctmp" \
	"$GX_BIN" record -q -o rn2 -- /bin/true >/dev/null 2>&1
ok $? "... and again"
check "... the second's sample cost is cached" sh -c "jq -e '.sample_cost_from == \"cached\"' rn2/meta.json"
check "... in \$TMPDIR/gexplore-cache-UID, mode 0700" \
	sh -c "[ \"\$(stat -c %a ctmp/gexplore-cache-\$(id -u))\" = 700 ] && ls ctmp/gexplore-cache-\$(id -u) | grep -q sample-cost"

# Every system call of a record of /bin/true: nothing sleeps, nothing
# waits for the disk, capstone is not opened, and the fixed count of
# forks holds (the keeper and the workload: the workload starts once)
if ! command -v strace >/dev/null; then
	skip 17 "strace is absent (Debian package strace)"
elif ! strace -f -o /dev/null /bin/true 2>/dev/null; then
	skip 17 "strace cannot trace here (ptrace not permitted)"
else
	# LeakSanitizer's exit scan (an ASan build) ptraces the process's
	# threads: under strace it cannot, fails the run and adds a clone of
	# its own. The test counts gexplore's system calls, not the sanitizer's.
	nolsan="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
	ASAN_OPTIONS=$nolsan strace -f -qq -o trace -e trace=%process,%file,nanosleep,clock_nanosleep,fsync,fdatasync,syncfs,sync,sync_file_range,perf_event_open,mmap \
		"$GX_BIN" record -q -f -o r1 -- /bin/true >/dev/null 2>&1
	ok $? "record of /bin/true under strace"
	check "no sleep in any of its processes" sh -c "! grep -E '(^|[^_])nanosleep\\(|clock_nanosleep\\(' trace"
	check "no fsync, fdatasync or sync" sh -c "! grep -E '(fsync|fdatasync|syncfs|sync_file_range|[^a-z_]sync)\\(' trace"
	check "libcapstone is not opened by a record" sh -c "! grep -q 'libcapstone' trace"
	# jansson's hash seed comes from one getrandom() in main, not from
	# opening and reading /dev/urandom
	check "/dev/urandom is not opened (jansson's seed)" sh -c "! grep -q '/dev/urandom' trace"
	# the PMUs' directory is listed once (perf.data's PMU mappings), not
	# again to ask whether an Arm PMU lists cpu-clock, a software event
	is "$(grep -c 'open.*"/sys/bus/event_source/devices".*O_DIRECTORY' trace)" 1 \
		"the PMUs' directory is listed once"
	# reading the build-ids back took a buffer of the reader's 4 MiB window
	# for 3 KB of data: a mapping of its own to make and to unmap
	if [ $asan = yes ]; then
		skip 1 "an ASan build maps memory of its own"
	else
		check "no anonymous mapping of 4 MiB or more (the reader's buffer is the data's size)" \
			sh -c "! grep -E 'mmap\\(NULL, [0-9]+, [^,]*, MAP_PRIVATE\\|MAP_ANONYMOUS, -1' trace |
			       awk -F', ' '\$2 >= 4194304 { bad = 1 } END { exit !bad }'" ||
			diag "$(grep -E 'MAP_ANONYMOUS' trace | sort -t, -k2 -n | tail -3)"
	fi
	check "no regions.bin made (the workload sends no marker)" \
		sh -c "! grep -E 'open(at)?\\(.*regions\\.bin.*O_CREAT' trace"
	n=$(grep -cE '(clone|clone3|fork|vfork)\(' trace)
	is "$n" 2 "two forks: the keeper and the workload (once)"
	if "$GX_BIN" version --build-options 2>/dev/null | grep -q 'keeper=yes'; then
		# the keeper is gx-keeper, started as posix_spawn does (in
		# gexplore's memory until its execve): a fork of gexplore made
		# every page gexplore wrote afterwards fault (1.5 ms of 12)
		check "the keeper's clone shares gexplore's memory (CLONE_VM|CLONE_VFORK)" \
			sh -c "grep -E 'clone\\(' trace | head -1 | grep -q 'CLONE_VM|CLONE_VFORK'"
		check "... and executes gx-keeper" grep -qE 'execve\("[^"]*/gx-keeper"' trace
		kpid=$(grep -E 'execve\("[^"]*/gx-keeper"' trace | awk '{print $1; exit}')
		check "... a program without a C library: it opens no file (no loader, no libc)" \
			sh -c "[ -n '$kpid' ] && ! grep -E '^$kpid +(open|openat)\\(' trace"
	else
		skip 3 "gx-keeper is not built here (keeper=no)"
	fi
	# without gx-keeper, gexplore forks the keeper, which spawns the
	# workload as posix_spawn does, in its memory until the exec
	ASAN_OPTIONS=$nolsan GX_TEST_KEEPER=fork strace -f -qq -o trace-fork -e trace=%process \
		"$GX_BIN" record -q -f -o r1 -- /bin/true >/dev/null 2>&1
	ok $? "record of /bin/true with the forked keeper, under strace"
	check "... two forks, the workload's in the keeper's memory (CLONE_VM|CLONE_VFORK)" \
		sh -c "[ \$(grep -cE '(clone|clone3|fork|vfork)\\(' trace-fork) = 2 ] &&
		       grep -E 'clone\\(' trace-fork | grep -q 'CLONE_VM|CLONE_VFORK' &&
		       ! grep -q 'gx-keeper\"' trace-fork"
	if jq -e '.pmu == false' r0/meta.json >/dev/null; then
		check "no PMU: no model file is read" sh -c "! grep -E 'events/[a-z0-9]+\\.json' trace"
		check "no PMU: cycles is tried once, not again by the events" \
			sh -c "[ \$(grep -c 'perf_event_open({type=PERF_TYPE_HARDWARE' trace) = 1 ]"
	else
		skip 2 "a PMU here: the model is read"
	fi
	check "the workload is executed once" sh -c "[ \$(grep -c 'execve(\"/bin/true\"' trace) = 1 ]"
fi

# What the dynamic loader opened (LD_DEBUG=files, one file per process):
# by a record of /bin/true none of the libraries opened when needed; each
# where it is needed, and what needs it still works
loaded() {	# loaded PREFIX LIB: LIB was opened by gexplore in a run logged to PREFIX.*
	# (by libasan in a sanitizer build: it intercepts dlopen)
	cat "$1".* 2>/dev/null | grep -Eq "file=$2[^ ]* .*dynamically loaded by .*(gexplore|libasan)"
}
not_loaded() { ! loaded "$@"; }
rm -f ld-rec.*
LD_DEBUG=files LD_DEBUG_OUTPUT="$PWD/ld-rec" "$GX_BIN" record -q -f -o r3 -- /bin/true >/dev/null 2>&1
ok $? "record of /bin/true with the loader's log"
check "the loader's log is there" sh -c "cat ld-rec.* | grep -q 'calling init'"
for lib in libdw libunwind libncursesw libprotobuf-c libpfm libcapstone libelf libzstd libz.so libm.so; do
	case $asan:$lib in
	yes:libelf | yes:libz.so) skip 1 "$lib: an ASan build links libelf" ;;
	yes:libm.so) skip 1 "libm: libasan needs it" ;;
	*) check "a record of /bin/true does not open $lib" sh -c "! cat ld-rec.* | grep -q 'file=$lib'" ;;
	esac
done
# a record whose samples hit files reads their build-ids and archives them
# (with their .gnu_debuglink) by preads: still no libelf
rm -f ld-spin.*
LD_DEBUG=files LD_DEBUG_OUTPUT="$PWD/ld-spin" "$GX_BIN" record -q -o spin -e cpu-clock \
	-- "$WL/wl-spin" 20 >/dev/null 2>&1
ok $? "record of a spinning workload with the loader's log"
check "... it archived the files its samples hit (build-ids read)" \
	sh -c "ls spin/.build-id/*/*/elf >/dev/null"
if [ $asan = yes ]; then
	skip 1 "an ASan build links libelf"
else
	check "... without opening libelf" sh -c "! cat ld-spin.* | grep -q 'file=libelf'"
fi
rm -f ld-rep.*
LD_DEBUG=files LD_DEBUG_OUTPUT="$PWD/ld-rep" "$GX_BIN" report r3 >rep.txt 2>&1
ok $? "report of it: libdw opened by its symbol session"
check "report opened libdw" loaded ld-rep libdw.so
if [ $asan = yes ]; then
	skip 1 "an ASan build links libelf"
else
	check "report opened libelf (its symbol session)" loaded ld-rep libelf.so
fi
check "report symbolized (the workload's process is named)" grep -q 'true' rep.txt
if [ $asan = yes ]; then
	skip 1 "libm: libasan needs it"
else
	check "report opened libm (its first math function)" loaded ld-rep libm.so
fi
check "report does not open ncursesw" sh -c "! cat ld-rep.* | grep -q 'file=libncursesw'"
# (by gexplore itself: libdw's debuginfod client, which it dlopens where a
# sampled file has no debug info here, brings libcurl, and libcurl libzstd)
check "report of an uncompressed perf.data does not open libzstd" \
	not_loaded ld-rep libzstd ||
	diag "$(grep -H 'file=libzstd' ld-rep.* | head -3)"
rm -f ld-rep.*
LD_DEBUG=files LD_DEBUG_OUTPUT="$PWD/ld-rep" "$GX_BIN" report --json --by function spin >spin.json 2>&1
check "report names the spinning workload's function (libelf's symbols)" \
	sh -c "jq -r '.functions[].function' spin.json | grep -q '^hot_inner$'"
if ! "$GX_BIN" version --build-options 2>/dev/null | grep -q 'zstd=yes'; then
	skip 3 "built without zstd"
elif [ ! -f "$GX_FIXTURES/lpd-sleep.compressed.perf.data" ]; then
	skip 3 "fixtures absent ($GX_FIXTURES)"
else
	rm -f ld-zst.*
	LD_DEBUG=files LD_DEBUG_OUTPUT="$PWD/ld-zst" "$GX_BIN" report --json \
		"$GX_FIXTURES/lpd-sleep.compressed.perf.data" >zst.json 2>zst.err
	ok $? "report of zstd-compressed records"
	check "... opened libzstd" loaded ld-zst libzstd.so
	is "$(jq .samples zst.json)" 8 "... its 8 samples decompressed"
fi
if "$GX_BIN" version --build-options 2>/dev/null | grep -q 'pprof=yes'; then
	rm -f ld-pb.*
	LD_DEBUG=files LD_DEBUG_OUTPUT="$PWD/ld-pb" "$GX_BIN" report --format pprof -o r3.pb.gz r3 >/dev/null 2>&1
	ok $? "pprof export"
	check "pprof export opened libprotobuf-c" loaded ld-pb libprotobuf-c.so
	check "pprof export wrote a gzip stream" sh -c "[ \"\$(head -c 2 r3.pb.gz | od -An -tx1 | tr -d ' ')\" = 1f8b ]"
	# zlib through its table (libelf's dependency: loaded already, or
	# opened by the export)
	if command -v gzip >/dev/null; then
		check "... a whole one (zlib's deflate to its end)" gzip -t r3.pb.gz
	else
		skip 1 "gzip is absent (Debian package gzip)"
	fi
else
	skip 4 "built without pprof export"
fi
if ! command -v script >/dev/null; then
	skip 3 "script is absent (Debian package bsdutils)"
else
	rm -f ld-tui.*
	(sleep 1; printf q) | TERM=xterm LD_DEBUG=files LD_DEBUG_OUTPUT="$PWD/ld-tui" \
		timeout 60 script -qec "'$GX_BIN' tui r3" /dev/null >tui.out 2>&1
	ok $? "the TUI on a terminal (script), quit with q"
	check "the TUI opened ncursesw" loaded ld-tui libncursesw.so
	check "the TUI drew its screen" grep -q 'gexplore' tui.out
fi
if ! "$GX_BIN" version --build-options 2>/dev/null | grep -q 'libunwind=yes' ||
   [ "$(uname -m)" != x86_64 ]; then
	skip 5 "no DWARF unwinding in this build or on this machine"
else
	"$GX_BIN" record -q -o dw -e cpu-clock --call-graph dwarf,4096 -- "$WL/wl-nofp-chain" 100 >/dev/null 2>&1
	ok $? "record --call-graph dwarf"
	rm -f ld-dw.*
	LD_DEBUG=files LD_DEBUG_OUTPUT="$PWD/ld-dw" "$GX_BIN" report --folded dw >dw.folded 2>&1
	# libdw's CFI steps (sym-cfi.c); libunwind only for GX_UNWIND=libunwind
	check "its report opened libdw" loaded ld-dw libdw
	check "... not libunwind" sh -c "! grep -q 'libunwind-' ld-dw.*"
	check "and unwound through the frame-pointer-less chain" grep -q ';main;chain_a;chain_b;chain_c' dw.folded
	rm -f ld-dw.*
	GX_UNWIND=libunwind LD_DEBUG=files LD_DEBUG_OUTPUT="$PWD/ld-dw" "$GX_BIN" report --folded dw >dw2.folded 2>&1
	check "GX_UNWIND=libunwind opens libunwind and unwinds the chain" \
		sh -c "grep -q 'libunwind-' ld-dw.* && grep -q ';main;chain_a;chain_b;chain_c' dw2.folded"
fi

# A record of an event list libpfm does not need does not open it either
if command -v strace >/dev/null && strace -f -o /dev/null /bin/true 2>/dev/null; then
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace -f -qq -o trace2 -e trace=%file "$GX_BIN" record -q -o r2 -e cpu-clock -- /bin/true >/dev/null 2>&1
	check "record -e cpu-clock does not open libpfm" sh -c "! grep -q 'libpfm' trace2"
else
	skip 1 "strace is absent or cannot trace here"
fi

done_testing
