#!/bin/bash
# The aarch64 peak kernels (src/peak/kern-arm64.S), run without an Arm
# machine: cross-built with tests/cross/peak-arm64.c and run under
# qemu-aarch64 on CPUs with SVE at 128, 512 and 2048 bits and on one
# without SVE (Cortex-A72). What is checked is correctness, not speed: every
# kernel returns, stays in its buffer, the chase and the bandwidth kernels
# compute what they should. On an Arm machine it runs natively.
. "$(dirname "$0")/lib.sh"

if [ "$(uname -m)" = aarch64 ]; then
	CC=${CC:-cc}
	RUN=()
else
	CC=aarch64-linux-gnu-gcc
	command -v "$CC" >/dev/null || skip_all "no aarch64 cross compiler (gcc-aarch64-linux-gnu)"
	command -v qemu-aarch64 >/dev/null || skip_all "no qemu-aarch64 (qemu-user)"
	RUN=(qemu-aarch64 -cpu)
fi

# peak.h includes jansson.h and util.h: host headers, searched after the
# target's own
"$CC" -O2 -Wall -static -I"$GX_SRCDIR/src" -I"$GX_BUILDDIR" -idirafter /usr/include \
	-o peak-arm64 "$GX_SRCDIR/tests/cross/peak-arm64.c" "$GX_SRCDIR/src/peak/kernels.c" \
	"$GX_SRCDIR/src/peak/kern-arm64.S" 2>build.err
ok $? "cross-built the aarch64 kernels and their check"
[ -s build.err ] && sed 's/^/# /' build.err

run_on() {	# run_on CPU DESCRIPTION
	local out="out.$1" n plan
	if [ ${#RUN[@]} -eq 0 ]; then
		./peak-arm64 >"$out" 2>&1
	else
		"${RUN[@]}" "$1" ./peak-arm64 >"$out" 2>&1
	fi
	is $? 0 "$2: every kernel ran"
	n=$(grep -c '^ok ' "$out")
	plan=$(sed -n 's/^1\.\.//p' "$out")
	is "$n" "${plan:-none}" "$2: all $n checks passed"
	grep -E '^not ok|signal|Bail' "$out" | sed 's/^/# /'
}
if [ ${#RUN[@]} -eq 0 ]; then
	run_on native "this CPU"
else
	run_on max,sve128=on "SVE 128 bits"
	run_on max,sve512=on "SVE 512 bits"
	run_on max,sve2048=on "SVE 2048 bits"
	run_on cortex-a72 "no SVE (Cortex-A72)"
	check "without SVE the SVE kernels are left out" grep -q 'SVE kernels: none' out.cortex-a72
	check "with SVE they run" grep -q '^ok .* fma.f64.sve tput returns' out.max,sve512=on
fi
done_testing
