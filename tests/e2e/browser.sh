# Helpers for the tests of the exports a browser opens (export-*.sh): the
# recording they share, Debian's chromium, headless and offline, and the
# viewers from npm, installed by these helpers into the build tree's
# tests/npm/ (ignored by git), so that a fresh machine gets them on its
# first run. Sourced after lib.sh; what is absent skips the test naming
# the package.

# export_two_threads FORMAT FILE: record a two-thread program (wl-threads
# 1: main and one spinning worker; cpu-clock with stacks) into r, export
# it as FORMAT to FILE and report it as JSON into rep.json (skip when
# this machine cannot sample or jq is absent).
export_two_threads() {
	command -v jq >/dev/null || skip_all "jq is absent (Debian package jq)"
	can_sample || skip_all "cannot sample cpu-clock here (perf_event_paranoid or seccomp)"
	"$GX_BIN" record -q -o r -e cpu-clock -g -- "$WL/wl-threads" 1 200 >/dev/null 2>&1
	ok $? "recorded wl-threads 1 (two threads)"
	"$GX_BIN" report --format "$1" -o "$2" r 2>err
	ok $? "report --format $1"
	"$GX_BIN" report --json r >rep.json
}

# need_chromium: skip the test unless Debian's chromium is here.
need_chromium() {
	CHROMIUM=$(command -v chromium || command -v chromium-browser) ||
		skip_all "chromium is absent (Debian package chromium; ./bootstrap installs it)"
}

# chromium_dom URL [ARG...]: the page's DOM after its scripts ran (at most
# 10 s of the page's virtual time), on stdout, chromium run with ARGs too; chromium's own chatter in
# $TMP/chromium.err. Headless as root: no sandbox, no GPU, and nothing
# that would reach the network on its own (updates, sync, QUIC, first-run
# pages); a profile directory of the test's own.
chromium_dom() {
	local profile url=$1
	shift
	profile=$(mktemp -d "$TMP/chromium.XXXXXX")
	timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic \
		--no-first-run --disable-background-networking --disable-component-update \
		--disable-sync --disable-default-apps --user-data-dir="$profile" \
		--virtual-time-budget=10000 "$@" --dump-dom "$url" 2>"$TMP/chromium.err"
}

# need_npm_package NAME VERSION: install NAME@VERSION from npm into
# $GX_BUILDDIR/tests/npm once (kept there for the next run), or skip the
# test naming what is missing. Sets NPM_DIR to that package's directory.
need_npm_package() {
	local dir="$GX_BUILDDIR/tests/npm"
	NPM_DIR="$dir/node_modules/$1"
	if [ -f "$NPM_DIR/package.json" ] &&
		grep -q "\"version\": \"$2\"" "$NPM_DIR/package.json"; then
		return 0
	fi
	[ -n "${NPM:-}" ] && [ -x "$NPM" ] ||
		skip_all "npm is absent (Debian package npm): cannot install $1 from npm"
	mkdir -p "$dir" || skip_all "cannot create $dir"
	# node trusts its own CA list, not the system's: a machine whose
	# proxy's CA is in the system's store reaches the registry with it
	[ -r /etc/ssl/certs/ca-certificates.crt ] &&
		export NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt
	if ! timeout 300 "$NPM" install --prefix "$dir" --no-audit --no-fund --no-save \
		"$1@$2" >"$TMP/npm.log" 2>&1; then
		diag "$(tail -3 "$TMP/npm.log")"
		skip_all "npm could not install $1@$2 (offline?) into $dir"
	fi
}
