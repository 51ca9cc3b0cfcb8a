/*
 * decode.c: how many instructions a basic block runs, from its bytes: a
 * branch stack tells where a block begins and ends, not what lies
 * between. aarch64's instructions are 4 bytes each; x86-64's are decoded
 * by capstone, opened (util's gx_lazylib) the first time a block is
 * counted, so nothing that never asks loads it.
 */
#include "config.h"

#include "flow.h"

#include <elf.h>
#include <stdlib.h>

#include "util/util.h"

#ifdef HAVE_CAPSTONE
#include <capstone/capstone.h>

#define CS_STR_(x) #x
#define CS_STR(x) CS_STR_(x)

#define CS_FNS(X, V, D)                                                                   \
	X(cs_err, cs_open, (cs_arch a, cs_mode m, csh *h), (a, m, h))                      \
	X(cs_insn *, cs_malloc, (csh h), (h))                                              \
	X(bool, cs_disasm_iter, (csh h, const uint8_t **c, size_t *n, uint64_t *a,        \
				 cs_insn *in), (h, c, n, a, in))                            \
	V(cs_free, (cs_insn *in, size_t n), (in, n))                                       \
	X(cs_err, cs_close, (csh *h), (h))
GX_LAZYLIB_DEFINE(capstone_lib, CS_FNS, "libcapstone.so." CS_STR(CS_API_MAJOR),
		  "libcapstone" CS_STR(CS_API_MAJOR))

static uint64_t count_x86(const uint8_t *code, size_t n, uint64_t addr, uint64_t last)
{
	char *cause = NULL;
	const uint8_t *p = code;
	uint64_t pc = addr, count = 0;
	cs_insn *in;
	csh h;

	if (gx_lazylib__open(&capstone_lib, &cause)) {
		free(cause);
		return 0;
	}
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &h) != CS_ERR_OK)
		return 0;
	in = cs_malloc(h);
	while (in && pc <= last && cs_disasm_iter(h, &p, &n, &pc, in))
		count++;
	if (in)
		cs_free(in, 1);
	cs_close(&h);
	return pc > last ? count : 0;	/* stopped short: bytes capstone cannot decode */
}
#endif

uint64_t flow_count_insns(int machine, const uint8_t *code, size_t n, uint64_t addr,
			  uint64_t last)
{
	if (last < addr || last - addr >= n)
		return 0;
	if (machine == EM_AARCH64)
		return (last - addr) / 4 + 1;
#ifdef HAVE_CAPSTONE
	if (machine == EM_X86_64)
		return count_x86(code, n, addr, last);
#else
	(void)code;
#endif
	return 0;
}
