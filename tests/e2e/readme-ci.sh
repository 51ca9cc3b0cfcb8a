#!/bin/bash
# README's CI jobs, as written: the shell scripts of its "## CI" section run
# against a stand-in ./bench (wl-spin) and a baseline recorded the same
# way. The cpu-clock job needs no PMU: it passes when the benchmark got
# faster, fails (1, with the diff) when it got much slower, with messages
# in human units. The PMU job passes, or where there is no PMU, says it
# skipped and exits 0. The modelled job (record --model, where valgrind
# and llvm-mca are installed) passes on the same benchmark and fails (1)
# when its instructions grew.
. "${GX_SRCDIR}/tests/e2e/lib.sh"
can_sample || skip_all "cannot sample cpu-clock here"

# The sh blocks between "## CI" and the next section, one file each.
sed -n '/^## CI$/,/^## [A-Z]/p' "$GX_SRCDIR/README.md" |
	awk '/^```sh$/ { on = 1; n++; next } /^```$/ { on = 0 } on { print > ("job" n ".sh") }'
is "$(ls job*.sh 2>/dev/null | wc -l)" 3 "README's CI section has three jobs"
check "the first job gates on cpu-clock with a unit" grep -q -- '--max cpu-clock=2s' job1.sh
check "... and a regression against a baseline" grep -q -- '--max-regress cpu-clock=10%' job1.sh

# gexplore on PATH; ./bench spins BENCH_MS (wl-spin: CPU time, no sleeping)
mkdir bin && ln -s "$GX_BIN" bin/gexplore
export PATH="$PWD/bin:$PATH"
cat >bench.in <<SH
#!/bin/sh
exec "$WL/wl-spin" "\${BENCH_MS:-100}"
SH

# job DIR BASE_MS MS SCRIPT: a baseline of BASE_MS, then the job on MS; its status
job() {
	mkdir "$1" && cp bench.in "$1/bench" && chmod +x "$1/bench"
	(cd "$1" && BENCH_MS=$2 gexplore record -q -o baseline-result -- ./bench --quick >/dev/null 2>&1 &&
	 BENCH_MS=$3 sh "../$4" >out 2>err)
	echo $?
}

is "$(job fast 400 100 job1.sh)" 0 "no PMU needed: a faster benchmark passes the cpu-clock job"
check "... with the time in ms" grep -qE '^PASS  cpu-clock of the run = [0-9.]+ ms <= max 2 s, baseline [0-9.]+ ms' fast/out
check "... and the change from the baseline in %" \
	grep -qE '^PASS  cpu-clock of the run = [0-9.]+ ms, baseline [0-9.]+ ms \(-[0-9.]+%\); up by at most 10% \(limit [0-9.]+ ms\)$' fast/out
check "... JUnit written" grep -q '<testsuites name="gexplore check" tests="2" failures="0"' fast/gexplore-junit.xml

is "$(job slow 50 400 job1.sh)" 1 "a benchmark 8 times slower fails the job"
check "... saying by how much" \
	grep -qE '^FAIL  cpu-clock of the run = [0-9.]+ ms, baseline [0-9.]+ ms \(\+[0-9.]+%\): regressed; up by at most 10%' slow/out
check "... annotated for GitHub" grep -qE '^::error title=gexplore check::cpu-clock of the run = [0-9.]+ ms, baseline' slow/out
check "... and the diff follows" grep -q '^gexplore diff: A = baseline-result, B = result' slow/out

st=$(job pmu 100 100 job2.sh)
if "$GX_BIN" record -q -o probe -e cycles -- true >/dev/null 2>&1; then
	check "the PMU job runs to a verdict ($st)" test "$st" = 0 -o "$st" = 1
else
	is "$st" 0 "no PMU: the PMU job exits 0"
	check "... saying it skipped" grep -q 'runner has no PMU: performance gate skipped' pmu/out
fi
# the job without a PMU: ./bench is wl-model's independent FP (the same
# instructions every run), SCALE its size
check "the third job records with --model" grep -q -- 'record -q --model' job3.sh
check "... and gates on exact instructions" grep -q -- '--max-regress instructions=0.5%' job3.sh
if command -v valgrind >/dev/null 2>&1 && command -v llvm-mca >/dev/null 2>&1; then
	cat >model.in <<SH
#!/bin/sh
exec "$WL/wl-model" indep_fp "\${SCALE:-1}"
SH
	mjob() {
		mkdir "$1" && cp model.in "$1/bench" && chmod +x "$1/bench"
		(cd "$1" && SCALE=$2 gexplore record -q --model -o baseline-result -- ./bench \
			--quick >/dev/null 2>&1 && SCALE=$3 sh ../job3.sh >out 2>err)
		echo $?
	}
	is "$(mjob msame 1 1 job3.sh)" 0 "no PMU: the modelled job passes on the same benchmark"
	check "... labelled modelled" grep -q 'modelled' msame/out
	is "$(mjob mgrew 1 2 job3.sh)" 1 "... and fails when its instructions grew"
else
	skip 3 "valgrind or llvm-mca is not installed (Debian packages valgrind, llvm)"
fi
done_testing
