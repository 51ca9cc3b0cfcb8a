#!/bin/bash
# What tests/pmu/prepare copies into the arm64 build (tests/pmu/tree-copy):
# the sources and the autotools output, never what a build of this host
# left in the tree. From a tree that is not a git checkout (`git archive`,
# a release tarball) built here, the host's objects and its x86-64
# gexplore went into the arm64 build, whose guest then stopped at
# "libunwind-x86_64.so.8 (needed by gexplore) is in neither sysroot".
. "${GX_SRCDIR}/tests/e2e/lib.sh"
COPY="$GX_SRCDIR/tests/pmu/tree-copy"
command -v git >/dev/null || skip_all "no git"
# the top of a checkout: CI's ASan tree is a copy inside the checkout's
# ignored build-asan/, where git finds the outer repository
top=$(git -C "$GX_SRCDIR" rev-parse --show-toplevel 2>/dev/null) &&
	[ "$(cd "$top" && pwd -P)" = "$(cd "$GX_SRCDIR" && pwd -P)" ] ||
	skip_all "the source tree is not the top of a git checkout"
[ -f "$GX_BUILDDIR/src/util/sys.o" ] || skip_all "no objects in $GX_BUILDDIR to plant (a VPATH or installed build)"

# ELF files under a directory, one "PATH e_machine" a line (62: x86-64, 183: aarch64)
elves() {
	find "$1" -type f -print0 | while IFS= read -r -d '' f; do
		m=""
		LC_ALL=C IFS= read -r -d '' -n 4 m <"$f" || :
		case $m in
		$'\x7fELF') echo "${f#"$1"/} $(od -An -tu2 -j18 -N2 "$f" | tr -d ' ')" ;;
		'!<ar') echo "${f#"$1"/} ar" ;;
		esac
	done
}

# a tarball-style tree: git archive of HEAD, configured and built here (the
# build's outputs planted from this build tree, as a build would leave them)
mkdir tree
git -C "$GX_SRCDIR" archive --format=tar HEAD | tar -C tree -xf -
ok $? "git archive HEAD extracted"
for f in configure Makefile.in aclocal.m4 config.h.in; do
	[ -f "$GX_SRCDIR/$f" ] && cp -p "$GX_SRCDIR/$f" "tree/$f"
done
mkdir -p tree/build-aux && cp -p "$GX_SRCDIR"/build-aux/* tree/build-aux/ 2>/dev/null
for f in gexplore config.status config.log config.h Makefile src/util/sys.o libgx_util.a \
	tests/unit/test-util tests/workloads/wl-spin lib/libgexplore-regions.so.1 \
	examples/demo src/collect/.deps/libgx_collect_a-markers.Po; do
	if [ -e "$GX_BUILDDIR/$f" ]; then
		mkdir -p "tree/$(dirname "$f")" && cp -pL "$GX_BUILDDIR/$f" "tree/$f"
	fi
done
planted=$(elves tree | wc -l)
ok "$([ "$planted" -ge 4 ]; echo $?)" "the tree holds the host's build ($planted ELF files and archives)"
"$COPY" tree out >copy.err 2>&1
ok $? "tree-copy of a tree that is not a git checkout"
left=$(elves out)
is "$left" "" "no ELF file nor archive lands in the arm64 build's input"
[ -z "$left" ] || echo "$left" | sed 's/^/#   /'
check "... no x86-64 gexplore among them" test ! -e out/gexplore
for f in config.status config.h Makefile src/util/sys.o libgx_util.a config.log; do
	[ -e "out/$f" ] && echo "#   copied: $f"
done
is "$(cd out && ls config.status config.h Makefile config.log 2>/dev/null)" "" \
	"... nor configure's and make's outputs (they would configure it for this host)"
check "... nor the dependency files" test ! -e out/src/collect/.deps
for f in configure Makefile.in config.h.in src/cmd/main.c src/peak/kern-x86-sse.S \
	tests/pmu/prepare lib/regions/regions.c events build-aux/install-sh; do
	[ -e "out/$f" ] || echo "#   missing: $f"
done
check "the sources and the autotools output are there" \
	test -f out/configure -a -f out/Makefile.in -a -f out/config.h.in -a -f out/src/cmd/main.c \
	-a -f out/src/peak/kern-x86-sse.S -a -x out/tests/pmu/prepare -a -d out/events \
	-a -f out/build-aux/install-sh
n_tree=$(git -C "$GX_SRCDIR" ls-tree -r --name-only HEAD | wc -l)
n_out=$(cd out && find . -type f | wc -l)
ok "$([ "$n_out" -ge "$n_tree" ]; echo $?)" "every file of HEAD is copied ($n_out files for $n_tree in git)"

# the git checkout itself, built: its ignored build outputs stay out too
"$COPY" "$GX_SRCDIR" gitout >copy2.err 2>&1
ok $? "tree-copy of the git checkout"
# an ELF file git tracks is a source (a fuzz input kept in tests/fuzz/regress)
is "$(elves gitout | while read -r p m; do
	git -C "$GX_SRCDIR" ls-files --error-unmatch -- "$p" >/dev/null 2>&1 || echo "$p $m"
done)" "" "... no ELF file nor archive from it either, but those git tracks"
check "... its configure copied" test -f gitout/configure
done_testing
