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
#include "model.h"

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

/* The LLVM version of the llvm-mca on PATH, which reads the text
 * ("/usr/lib/llvm-14/bin/llvm-mca", or "llvm-mca-14"), or 0. Another
 * version's printer writes other text: LLVM 15's "addr32 shrq" for a
 * doubled 0x67 prefix where LLVM 14's llvm-objdump writes "shrq", and
 * llvm-mca 14 counts the prefix as an instruction. */
static int mca_version(void)
{
	char *exe = model_which("llvm-mca"), *real = exe ? realpath(exe, NULL) : NULL, *p;
	int v = 0;

	for (p = real; p && (p = strstr(p, "llvm-")) != NULL; p += 5) {
		if (!strncmp(p + 5, "mca-", 4))
			p += 4;
		if (isdigit((unsigned char)p[5]))
			v = atoi(p + 5);
	}
	free(real);
	free(exe);
	return v;
}

static bool try_llvm(int v)
{
	static char name[32];

	for (int form = 0; form < 2; form++) {
		char *cause = NULL;

		snprintf(name, sizeof(name), form ? "libLLVM.so.%d.1" : "libLLVM-%d.so.1", v);
		llvm_lib.soname = name;
		if (gx_lazylib__open(&llvm_lib, &cause) == 0)
			return true;
		free(cause);
	}
	return false;
}

/* libLLVM of llvm-mca's version, else the newest the loader finds (Debian's
 * names: "libLLVM-14.so.1"; "libLLVM.so.18.1" from LLVM 18), by the
 * loader's own paths only. */
static bool open_llvm(void)
{
	static bool tried;
	int mine;

	if (llvm_lib.handle || tried)	/* once a process: each object asks */
		return llvm_lib.handle != NULL;
	tried = true;
	mine = mca_version();
	if (mine > 0 && try_llvm(mine))
		return true;
	for (int v = 30; v >= 11; v--)
		if (v != mine && try_llvm(v))
			return true;
	return false;
}

void *model_disasm__open(uint16_t e_machine)
{
	static bool ready;
	const char *e = getenv("GX_MODEL_DISASM");	/* "objdump": the tool, always */

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

/* AT&T text cleaned for llvm-mca: tabs to spaces, no comment, no <sym>. */
char *model_insn_clean(const char *s, size_t n)
{
	char *t = xstrndup(s, n), *c;

	for (c = t; *c; c++)
		if (*c == '\t')
			*c = ' ';
	if ((c = strchr(t, '#')))
		*c = 0;
	if ((c = strstr(t, " <")))
		*c = 0;
	for (c = t + strlen(t); c > t && c[-1] == ' '; c--)
		c[-1] = 0;
	return t;
}

size_t model_disasm__insn(void *dc, const uint8_t *bytes, size_t n, uint64_t pc, char *out,
			  size_t outsz)
{
	char raw[160], *t, *s, *sp;
	size_t len;

	raw[0] = 0;
	len = CALL(size_t, LLVMDisasmInstruction, (void *, uint8_t *, uint64_t, uint64_t, char *,
						   size_t))(dc, (uint8_t *)bytes, n, pc, raw,
							    sizeof(raw));
	if (!len || len > n)
		return 0;
	t = model_insn_clean(raw, strlen(raw));
	for (s = t; *s == ' '; s++)
		;
	if (!*s) {
		free(t);
		return 0;
	}
	/* the operand is the last word, the mnemonic the one before it (a
	 * prefix may come first: "bnd jmp -12") */
	sp = strrchr(s, ' ');
	if (sp && (isdigit((unsigned char)sp[1]) || sp[1] == '-')) {
		char *e, *m;
		long long d = strtoll(sp + 1, &e, 10);

		*sp = 0;
		m = strrchr(s, ' ');
		if (!*e && pcrel_branch(m ? m + 1 : s)) {
			snprintf(out, outsz, "%s 0x%" PRIx64, s, pc + len + (uint64_t)d);
			free(t);
			return len;
		}
		*sp = ' ';
	}
	snprintf(out, outsz, "%s", s);
	free(t);
	return len;
}
