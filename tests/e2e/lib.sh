# Shared helpers for the end-to-end tests: TAP output, a scratch directory,
# and checks that skip (exit 77 / "# SKIP") when something is absent.
# Sourced by tests/e2e/*.sh; GX_BIN, GX_BUILDDIR, GX_SRCDIR, GX_FIXTURES and
# PERF come from Makefile.am's AM_TESTS_ENVIRONMENT.

set -u
: "${GX_BIN:?run through make check}"
WL="$GX_BUILDDIR/tests/workloads"
GEN="$GX_BUILDDIR/tests/gen/gen-perfdata"	# synthetic results with hardware events
TAP_N=0
TAP_FAILED=0
TMP=$(mktemp -d "${TMPDIR:-/tmp}/gx-e2e.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
cd "$TMP" || exit 99
# A cache of the test's own (the sample cost's, peak's), never the user's
# nor another test's; the arm64 guest's downloads stay where they are.
export GX_PMU_CACHE="${GX_PMU_CACHE:-${XDG_CACHE_HOME:-${HOME:-}/.cache}/gexplore-pmu}"
export XDG_CACHE_HOME="$TMP/cache"

ok() {		# ok COND-EXIT-STATUS DESCRIPTION
	TAP_N=$((TAP_N + 1))
	if [ "$1" = 0 ]; then
		echo "ok $TAP_N - $2"
	else
		echo "not ok $TAP_N - $2"
		TAP_FAILED=$((TAP_FAILED + 1))
	fi
}
check() {	# check DESCRIPTION COMMAND...: ok when the command succeeds
	local d=$1
	shift
	"$@" >/dev/null 2>&1
	ok $? "$d"
}
is() {		# is GOT WANT DESCRIPTION
	if [ "$1" = "$2" ]; then ok 0 "$3"; else ok 1 "$3"; echo "#   got '$1', want '$2'"; fi
}
skip() {	# skip N REASON
	local i
	for i in $(seq "$1"); do TAP_N=$((TAP_N + 1)); echo "ok $TAP_N # SKIP $2"; done
}
skip_all() {	# before any test: the whole test skipped; after some: the rest
	if [ "${TAP_N:-0}" -gt 0 ]; then
		skip 1 "$1 (the rest of this test)"
		done_testing
		exit
	fi
	echo "1..0 # SKIP $1"
	exit 0
}
diag() { echo "# $*"; }
done_testing() {
	echo "1..$TAP_N"
	[ "$TAP_FAILED" = 0 ]
}

# deb_missing PKG: true when dpkg says the Debian package PKG is not
# installed (false where there is no dpkg: the test then just runs). For
# tests that need what ./bootstrap installs, to skip naming the package.
deb_missing() {
	command -v dpkg-query >/dev/null 2>&1 &&
		! dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'ok installed'
}

# signal_ignored INT|QUIT: prints why and is true when this test started
# with that signal ignored: SigIgn in the status of a child (sed's own,
# /proc/self), which gets the dispositions this shell inherited (bash itself
# always ignores SIGQUIT, so its own /proc/$$ would say so). A background job of
# a non-interactive shell starts with SIGINT and SIGQUIT ignored; a shell
# cannot undo that (POSIX), and gexplore rightly keeps an ignored signal
# ignored, so a test that sends the signal would see nothing happen and
# could not tell that from a bug. Such tests skip with this reason.
signal_ignored() {
	local m bit
	case $1 in INT) bit=2 ;; QUIT) bit=4 ;; *) return 2 ;; esac
	m=$(sed -n 's/^SigIgn:[[:space:]]*//p' /proc/self/status 2>/dev/null)
	[ -n "$m" ] || return 1
	# POSIX sh too (peak*.sh are /bin/sh): the low byte holds both bits.
	[ $((0x$(printf %s "$m" | tail -c 2) & bit)) != 0 ] || return 1
	echo "SIG$1 was ignored when the test started (a background job of a non-interactive shell?)"
}

# Can this machine sample software events at all (perf_event_paranoid, seccomp)?
can_sample() {
	"$GX_BIN" record -q -o "$TMP/.probe" -e cpu-clock -- true >/dev/null 2>&1
	local rc=$?
	rm -rf "$TMP/.probe"
	return $rc
}

# Number of samples in a result according to gexplore's JSON report.
gx_samples() {
	"$GX_BIN" report --json "$1" | jq -r '.samples'
}

# gen_skl_funcs DIR INST: a synthetic Skylake result with samples in two of
# wl-spin's functions: hot_inner (6e8 cycles, INST instructions) and
# hot_outer (4e8 cycles and instructions: CPI 1.0).
gen_skl_funcs() {
	"$GEN" -o "$1" -b "$WL/wl-spin" <<SPEC
model skl
smt off
process 1000 app
function hot_inner
CPU_CLK_UNHALTED.THREAD 600000000
INST_RETIRED.ANY $2
function hot_outer
CPU_CLK_UNHALTED.THREAD 400000000
INST_RETIRED.ANY 400000000
SPEC
}

# gen_skl DIR INST [IDQ]: a synthetic Skylake result (tests/gen/gen-perfdata)
# of one process with CPU_CLK_UNHALTED.THREAD 1e9 (CPI = 1e9 / INST) and
# IDQ_UOPS_NOT_DELIVERED.CORE IDQ (default 4e8: Frontend_Bound 0.10,
# Backend_Bound 0.43; topdown-synth.sh has the arithmetic), 100 samples per
# event, at wl-spin's addresses.
gen_skl() {
	"$GEN" -o "$1" -b "$WL/wl-spin" <<SPEC
model skl
smt off
process 1000 backend
CPU_CLK_UNHALTED.THREAD 1000000000
INST_RETIRED.ANY $2
IDQ_UOPS_NOT_DELIVERED.CORE ${3:-400000000}
UOPS_ISSUED.ANY 1800000000
UOPS_RETIRED.RETIRE_SLOTS 1600000000
INT_MISC.RECOVERY_CYCLES 20000000
SPEC
}

# record --model's tools, or the whole test skips naming their packages
zen3_desc() {	# zen3_desc FILE NAME KEY=VALUE...: zen3's description with those prices
		# (a VALUE xF: zen3's times F; mcpu=NAME)
	python3 - "$GX_SRCDIR/machines/zen3.json" "$@" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["name"] = sys.argv[3]
for kv in sys.argv[4:]:
    k, v = kv.split("=")
    if k == "mcpu":
        d["prices"][k] = {"value": v, "source": "tests/e2e (zen3_desc)"}
        continue
    if v.startswith("x"):
        v = d["prices"][k]["value"] * float(v[1:])
    d["prices"][k] = {"value": float(v), "source": "tests/e2e (zen3_desc)"}
json.dump(d, open(sys.argv[2], "w"))
PY
}

# est_of RESULT EVENT FUNCTION: the event's estimate over the functions named
# so or beginning so ("" : the whole run), from report --csv
est_of() { "$GX_BIN" report "$1" --csv --limit 0 --event "$2" 2>/dev/null |
	awk -F, -v f="$3" 'NR > 1 && index($1, f) == 1 { s += $6 } END { print s + 0 }'; }
near() {	# near A B PERCENT [SLACK]: A within PERCENT% of B (or SLACK of it)
	python3 -c 'import sys
a, b, p, s = float(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
sys.exit(0 if abs(a - b) <= max(p / 100 * abs(b), s) else 1)' "$1" "$2" "$3" "${4:-0}"
}

need_model() {
	command -v valgrind >/dev/null 2>&1 ||
		skip_all "valgrind is not installed (Debian package valgrind; ./bootstrap installs it)"
	command -v llvm-mca >/dev/null 2>&1 ||
		skip_all "llvm-mca is not installed (Debian package llvm; ./bootstrap installs it)"
}
