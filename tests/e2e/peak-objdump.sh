#!/bin/sh
# The peak kernels contain the instructions they claim to measure: for each
# kernel, objdump -d of the built object shows 96 of the instruction (287
# for int.add throughput, PK_ADD_TPUT_BODY) on the right registers, and a
# throughput kernel writes 12 distinct registers (12 independent chains);
# the int.add throughput loop holds 6 instructions in every 32-byte window.
# x86-64 only; skipped where objdump is absent.
. "$GX_SRCDIR/tests/e2e/lib.sh"

command -v objdump >/dev/null 2>&1 || skip_all "objdump is absent (Debian package binutils)"
[ "$(uname -m)" = x86_64 ] || skip_all "the table below is for x86-64 objects"
OBJ="$GX_BUILDDIR/src/peak"

# body OBJECT SYMBOL: the instructions of one function (mnemonic and operands).
body() {
	objdump -d --no-show-raw-insn "$1" | awk -v s="<$2>:" '
		$2 == s { on = 1; next }
		on && /^$/ { exit }
		on { sub(/^[ \t]*[0-9a-f]+:[ \t]*/, ""); sub(/^(ds )+/, ""); print }'
}

# check FILE SYMBOL MNEMONIC OPERAND-PATTERN CHAINS [COUNT]
check_kernel() {
	want=${6:-96}
	b=$(body "$OBJ/libgx_peak_a-kern-x86-$1.o" "$2")
	n=$(printf '%s\n' "$b" | grep -c "^$3 .*$4")
	dst=$(printf '%s\n' "$b" | grep "^$3 " | sed 's/.*,//' | sort -u | wc -l)
	if [ "$n" = "$want" ] && [ "$dst" = "$5" ]; then
		ok 0 "$2: $want x $3 on $4, $5 chain(s)"
	else
		ok 1 "$2: $want x $3 on $4, $5 chain(s)"
		diag "  found $n, $dst distinct destinations"
	fi
}

while read -r file sym mnem reg chains count; do
	[ -n "$file" ] || continue
	check_kernel "$file" "$sym" "$mnem" "$reg" "$chains" "$count"
done <<'TABLE'
sse gx_pk_int_add_lat add %r15 1
sse gx_pk_int_add_tput add %r15 12 287
sse gx_pk_alu_movi_tput mov $0x1 14 287
sse gx_pk_int_imul_tput imul %r15 12
sse gx_pk_add_f64_s_lat addsd %xmm 1
sse gx_pk_mul_f32_128_tput mulps %xmm 12
sse gx_pk_vmadd_i16_128_tput pmaddwd %xmm 12
sse gx_pk_ld_gpr_lat mov (%rax) 1
sse gx_pk_ld_128_tput movaps (%rsi) 12
avx2 gx_pk_fma_f64_256_lat vfmadd231pd %ymm 1
avx2 gx_pk_fma_f64_256_tput vfmadd231pd %ymm 12
avx2 gx_pk_fma_f32_256_tput vfmadd231ps %ymm 12
avx2 gx_pk_fma_f64_s_tput vfmadd231sd %xmm 12
avx2 gx_pk_add_f32_256_tput vaddps %ymm 12
avx2 gx_pk_vmadd_i16_256_tput vpmaddwd %ymm 12
avx2 gx_pk_st_256_tput vmovaps %ymm 12
avx512 gx_pk_fma_f64_512_lat vfmadd231pd %zmm 1
avx512 gx_pk_fma_f64_512_tput vfmadd231pd %zmm 12
avx512 gx_pk_mul_f32_512_tput vmulps %zmm 12
avx512 gx_pk_vnni_i8_512_tput vpdpbusd %zmm 12
avx512 gx_pk_ld_512_tput vmovaps (%rsi) 12
TABLE

# The int.add throughput loop, from its jne's target to the jne: 6 instructions
# (dec+jne fused: one) in every 32-byte window, none across a window's end.
windows=$(objdump -d "$OBJ/libgx_peak_a-kern-x86-sse.o" | awk '
	function hex(s,   v, i) {	# mawk has no strtonum
		v = 0
		for (i = 1; i <= length(s); i++)
			v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return v
	}
	$2 == "<gx_pk_int_add_tput>:" { on = 1; next }
	on && /^$/ { exit }
	on && /^ *[0-9a-f]+:/ {
		a = $1; sub(/:$/, "", a); addr[++n] = hex(a)
		line[n] = $0
		if ($0 ~ /\tjne /) { split($0, f, "jne"); split(f[2], t, " "); top = hex(t[1]); last = n }
	}
	END {
		for (i = 1; i <= last; i++) {
			if (addr[i] < top || line[i] ~ /\tdec /)
				continue
			w = int(addr[i] / 32)
			if (int((addr[i + 1] - 1) / 32) != w)
				bad++
			cnt[w]++
		}
		for (w in cnt) {
			nw++
			if (cnt[w] != 6)
				bad++
		}
		printf "%d %d %d\n", top % 32, nw, bad
	}')
is "$windows" "0 48 0" "gx_pk_int_add_tput: 48 windows of 32 bytes, 6 instructions in each"

# No VEX/EVEX instruction in the baseline (SSE2) object: it must run anywhere.
objdump -d --no-show-raw-insn "$OBJ/libgx_peak_a-kern-x86-sse.o" | grep -Eq '\s(v[a-z0-9]+)\s.*%[xyz]mm'
[ $? = 1 ]
ok $? "the baseline object has no VEX or EVEX instruction"
# The mixes interleave both kinds.
b=$(body "$OBJ/libgx_peak_a-kern-x86-avx2.o" gx_pk_mix_fma_load_ab)
[ "$(printf '%s\n' "$b" | grep -c '^vfmadd231ps')" = 80 ] &&
	[ "$(printf '%s\n' "$b" | grep -c '^vmovaps (%rsi)\|^vmovaps 0x')" = 80 ]
ok $? "gx_pk_mix_fma_load_ab: 80 FMA and 80 loads"
done_testing
