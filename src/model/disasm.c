/*
 * disasm.c: the text of the instructions a model run executed, from LLVM's
 * own disassembler (libLLVM's C interface, the library llvm-mca and
 * llvm-objdump are built on), opened when first needed.
 *
 * llvm-objdump disassembles a whole range: from an object's lowest executed
 * address to its highest. gcc's cc1 ran 680 K distinct instructions spread
 * over 20 MB of its text: llvm-objdump wrote 5 M lines of it, 15 s of a
 * 105 s record. Here only the executed instructions are decoded, from the
 * file's bytes, with the printer llvm-objdump uses: the same text (its
 * branch targets made absolute as llvm-objdump prints them), in well under
 * a second. x86-64 only; other machines, or no libLLVM, use llvm-objdump.
 */
#include "config.h"

#include "model-int.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

/* LLVM's C interface (llvm-c/Disassembler.h, stable since LLVM 3): the
 * declarations here, as no LLVM header is needed to build gexplore */
#define LLVM_FNS(X, V, D) \
	V(LLVMInitializeX86TargetInfo, (void), ()) \
	V(LLVMInitializeX86TargetMC, (void), ()) \
	V(LLVMInitializeX86Disassembler, (void), ()) \
	X(void *, LLVMCreateDisasm, (const char *triple, void *info, int tag, void *op, \
				     void *sym), (triple, info, tag, op, sym)) \
	X(size_t, LLVMDisasmInstruction, (void *dc, uint8_t *bytes, uint64_t size, uint64_t pc, \
					  char *out, size_t outsz), (dc, bytes, size, pc, out, outsz)) \
	V(LLVMDisasmDispose, (void *dc), (dc))

enum { LLVM_FNS(GX_LZ_ENUM_, GX_LZ_ENUM_V_, GX_LZ_ENUM_D_) LLVM_NR_ };
static const char *const llvm_names[] = { LLVM_FNS(GX_LZ_NAME_, GX_LZ_NAME_V_, GX_LZ_NAME_D_) };
static void *llvm_fns[LLVM_NR_];
static struct gx_lazylib llvm_lib = { .package = "libllvm14", .names = llvm_names,
				      .fns = llvm_fns, .nr = LLVM_NR_ };

#define CALL(ret, name, params) ((ret (*) params)llvm_fns[GX_LZ_##name])

/* The newest libLLVM the loader finds: Debian's names ("libLLVM-14.so.1";
 * "libLLVM.so.18.1" from LLVM 18), by the loader's own paths only. */
static bool open_llvm(void)
{
	static char name[32];

	if (llvm_lib.handle)
		return true;
	for (int v = 30; v >= 11; v--) {
		for (int form = 0; form < 2; form++) {
			char *cause = NULL;

			snprintf(name, sizeof(name), form ? "libLLVM.so.%d.1" : "libLLVM-%d.so.1", v);
			llvm_lib.soname = name;
			if (gx_lazylib__open(&llvm_lib, &cause) == 0)
				return true;
			free(cause);
		}
	}
	return false;
}

void *model_disasm__open(uint16_t e_machine)
{
	const char *e = getenv("GX_MODEL_DISASM");	/* "objdump": the tool, always */

	static bool ready;

	if (e_machine != 62 /* EM_X86_64 */ || (e && !strcmp(e, "objdump")) || !open_llvm())
		return NULL;
	if (!ready) {
		CALL(void, LLVMInitializeX86TargetInfo, (void))();
		CALL(void, LLVMInitializeX86TargetMC, (void))();
		CALL(void, LLVMInitializeX86Disassembler, (void))();
		ready = true;
	}
	return CALL(void *, LLVMCreateDisasm, (const char *, void *, int, void *, void *))(
		"x86_64-pc-linux-gnu", NULL, 0, NULL, NULL);
}

void model_disasm__close(void *dc)
{
	if (dc)
		CALL(void, LLVMDisasmDispose, (void *))(dc);
}

/* A relative branch's operand as llvm-objdump prints it: the target's
 * address ("jne -12" at 0x1000, 2 bytes -> "jne 0xff6"). */
static bool pcrel_branch(const char *t)
{
	return t[0] == 'j' || !strncmp(t, "call", 4) || !strncmp(t, "loop", 4) ||
	       !strncmp(t, "xbegin", 6);
}

size_t model_disasm__insn(void *dc, const uint8_t *bytes, size_t n, uint64_t pc, char *out,
			  size_t outsz)
{
	char raw[160], *s, *sp, *end;
	size_t len;

	raw[0] = 0;
	len = CALL(size_t, LLVMDisasmInstruction, (void *, uint8_t *, uint64_t, uint64_t, char *,
						   size_t))(dc, (uint8_t *)bytes, n, pc, raw,
							    sizeof(raw));
	if (!len || len > n)
		return 0;
	for (s = raw; *s; s++)
		if (*s == '\t')
			*s = ' ';
	for (s = raw; *s == ' '; s++)
		;
	for (end = s + strlen(s); end > s && end[-1] == ' '; end--)
		*--end = 0;
	if (!*s)
		return 0;
	sp = strchr(s, ' ');
	if (pcrel_branch(s) && sp && (isdigit((unsigned char)sp[1]) || sp[1] == '-')) {
		char *e;
		long long d = strtoll(sp + 1, &e, 10);

		if (!*e) {
			*sp = 0;
			snprintf(out, outsz, "%s 0x%" PRIx64, s, pc + len + (uint64_t)d);
			return len;
		}
	}
	snprintf(out, outsz, "%s", s);
	return len;
}
