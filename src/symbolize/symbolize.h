/*
 * symbolize: addresses -> module, function (demangled), inline chain and
 * source file:line; offline DWARF unwinding of copied user stacks.
 *
 * Model: a `struct sym_session` per report. The caller (src/profile) turns
 * every MMAP2 record into a `struct sym_dso` with sym_session__dso() (one per
 * distinct path + build-id, interned: cheap to call per record), keeps the
 * map's start/pgoff, and per sample calls
 *
 *     res = sym_session__lookup(s, dso, sym_map_offset(ip, start, pgoff));
 *
 * or sym_session__lookup_kernel(s, ip) for kernel samples. Files are opened
 * lazily on the first lookup. Every string in a result is interned in the
 * session (32-bit ids, sym_session__str()), and every result is cached per
 * (dso, offset): after warm-up a lookup is one hash probe and allocates
 * nothing. Results live as long as the session.
 *
 * Nothing here prints, exits or fails on a missing or wrong file: such a
 * module gives `[unknown]` rows that keep module and offset, and
 * sym_dso__problem() says why.
 */
#ifndef GX_SYMBOLIZE_H
#define GX_SYMBOLIZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sym_session;
struct sym_dso;

/* String id 0 is always "" (no file, no name). */
#define SYM_STR_NONE 0u

struct sym_options {
	/* Prefix for every recorded path (perf's --symfs). NULL: none. */
	const char *symfs;
	/*
	 * Extra directories (--search-path): binaries are looked up there by
	 * build-id (DIR/.build-id/xx/rest, DIR/.build-id/xx/rest/elf, perf's
	 * cache layout) and by basename; separate debug files by build-id
	 * (DIR/.build-id/xx/rest.debug).
	 */
	const char *const *search_paths;
	size_t nr_search_paths;
	/*
	 * The result's archive (DIR/.build-id/xx/rest/elf and .../debug, see
	 * pd_archive): a module with a recorded build-id is read from there
	 * first, before the recorded path. NULL: none.
	 */
	const char *archive;
	/*
	 * The recording was made on this machine and kernel: kernel addresses
	 * may resolve through /proc/kallsyms when it shows real addresses.
	 * false: every kernel address is `[kernel]` (a foreign recording is
	 * never resolved against the local kallsyms).
	 */
	bool local;
	/*
	 * A copy of the recording machine's /proc/kallsyms (perf's
	 * --kallsyms): kernel addresses resolve through it, local or not.
	 * NULL: /proc/kallsyms, for a local session only.
	 */
	const char *kallsyms;
	/* Do not follow inlined frames (faster; one frame per result). */
	bool no_inline;
	/* Keep mangled names (C++/Rust) as they are. */
	bool no_demangle;
	/*
	 * debuginfod: used by libdwfl only when DEBUGINFOD_URLS is set in the
	 * environment. This timeout (seconds, 0 = 10) is exported as
	 * DEBUGINFOD_TIMEOUT unless the environment already sets it. Progress
	 * lines appear on stderr only if the caller sets DEBUGINFOD_PROGRESS.
	 */
	unsigned debuginfod_timeout_s;
};

/*
 * Create a session. opts may be NULL (defaults: no symfs, no search paths,
 * not local). Strings in opts are copied. Returns 0 and sets *out (free with
 * sym_session__delete), or a negative code with a message in *cause.
 */
int sym_session__new(struct sym_session **out, const struct sym_options *opts, char **cause);

/* Free the session, its modules, strings and results. NULL is allowed. */
void sym_session__delete(struct sym_session *s);

/* The string for an id from any result of this session. Valid until delete. */
const char *sym_session__str(const struct sym_session *s, uint32_t id);

/*
 * The module for a mapped path as recorded in an MMAP2 record (or a perf.data
 * BUILD_ID entry), with its recorded build-id (build_id may be NULL /
 * size 0 when unknown or all zero; at most 20 bytes are used). The same
 * (path, build-id) gives the same pointer. Special paths:
 * "[kernel.kallsyms]...", "[guest.kernel...]" and "*.ko" are kernel
 * (sym_session__lookup with them is sym_session__lookup_kernel of the
 * offset, so pass the ip itself); "[vdso]" is read from a --search-path
 * .build-id copy or, for a local session, from this process;
 * "PATH (deleted)" is looked up as PATH (the recorded build-id, when
 * given, must still match); "[vsyscall]", "//anon", "[heap]", "[stack]",
 * "[anon:...]", "/memfd:..." give `[unknown]` rows named after the
 * mapping. Never
 * fails; nothing is opened yet. Owned by the session, valid until
 * sym_session__delete.
 */
struct sym_dso *sym_session__dso(struct sym_session *s, const char *path,
				 const uint8_t *build_id, size_t build_id_size);

/* The offset in the mapped file of a sample ip in an MMAP2 mapping. */
static inline uint64_t sym_map_offset(uint64_t ip, uint64_t map_start, uint64_t map_pgoff)
{
	return ip - map_start + map_pgoff;
}

/* Result flags. */
enum {
	/* no symbol: "[unknown]", or "module+0xSTART" for code of a readable
	 * module that no symbol covers: one name per function, its bounds
	 * from its .eh_frame/.debug_frame FDE (cut at the previous symbol's
	 * end); outside every FDE one name per gap from the last FDE or
	 * symbol end, or the executable section's start. START is an ELF
	 * address; sym_offset is from START */
	SYM_F_UNKNOWN = 1u << 0,
	SYM_F_NO_LINES = 1u << 1,	/* no DWARF line info (symtab only or unknown) */
	SYM_F_KERNEL = 1u << 2,		/* a kernel address */
	SYM_F_INLINED = 1u << 3,	/* nr_frames > 1 */
};

/* One frame of an inline chain: a function and where in it we are. */
struct sym_frame {
	uint32_t function;	/* string id: demangled function name */
	uint32_t file;		/* string id: source file (DWARF path), or SYM_STR_NONE */
	uint32_t line;		/* 0 when unknown */
	uint32_t column;	/* 0 when unknown */
};

/*
 * What an address is. frames[0] is the innermost (possibly inlined)
 * function with the source line of the address; frames[i+1] is the function
 * frames[i] was inlined into, with the line of that call site;
 * frames[nr_frames-1] is the real (out-of-line) function, whose name equals
 * `symbol`. Without DWARF there is one frame with no file.
 */
struct sym_result {
	struct sym_dso *dso;	/* NULL for an unmapped address */
	uint32_t module;	/* string id: module path as recorded */
	uint32_t module_short;	/* string id: its basename ("libc.so.6", "[kernel.kallsyms]") */
	uint32_t symbol;	/* string id: function (demangled) or "[unknown]" */
	uint32_t flags;		/* SYM_F_* */
	uint64_t addr;		/* ELF virtual address (kernel: the address) */
	uint64_t offset;	/* the file offset looked up (kernel: the address) */
	uint64_t sym_offset;	/* addr - symbol start; [unknown]: == offset */
	uint32_t nr_frames;	/* >= 1 */
	const struct sym_frame *frames;
};

/*
 * Symbolize a file offset of a user-space module (see sym_map_offset); dso
 * NULL gives an `[unknown]` result for an unmapped address. For return
 * addresses of a call chain (callers) pass the offset of ip - 1, so the
 * line is the call's, not the next statement's. Opens the module on first
 * use. Never NULL; the result is owned by the session and valid until
 * sym_session__delete; the same (dso, offset) returns the same pointer.
 */
const struct sym_result *sym_session__lookup(struct sym_session *s, struct sym_dso *dso,
					     uint64_t offset);

/*
 * Symbolize a kernel address: a function from sym_options.kallsyms, or from
 * /proc/kallsyms when the session is local (module "[kernel.kallsyms]" or
 * "[modname]"), when that is readable with real addresses; otherwise one
 * symbol for every address that says why and how to fix it ("[kernel:
 * kptr_restrict=2 hides symbols, sysctl kernel.kptr_restrict=0]", "[kernel:
 * recorded on another machine, report --kallsyms FILE ...]"); an address
 * below the first symbol is "[kernel]". Never NULL;
 * owned by the session.
 */
const struct sym_result *sym_session__lookup_kernel(struct sym_session *s, uint64_t ip);

/*
 * JIT code: the function at ip in process pid from its jitdump (see
 * sym_session__jitdump), else from /tmp/perf-PID.map (under
 * --symfs when given), the file a JIT writes for perf (node
 * --perf-basic-prof, the JVM's perf-map-agent). Read only for a recording
 * of this machine or with --symfs, and only when it is a regular file
 * owned by root or this user. NULL when there is no such file or it names
 * nothing at ip. Owned by the session; module "/tmp/perf-PID.map".
 */
const struct sym_result *sym_session__lookup_jit(struct sym_session *s, uint32_t pid, uint64_t ip);

/* The modules of the session, in the order they were first named. */
size_t sym_session__nr_dsos(const struct sym_session *s);
struct sym_dso *sym_session__dso_at(const struct sym_session *s, size_t i);

/*
 * An MMAP record of process pid mapped path: when its name is
 * jit-PID.dump (perf's jitdump, which a JIT maps so that the recording
 * names it), remember it and return true. sym_session__lookup_jit then
 * names pid's JIT code from its code load records (read lazily, under the
 * same trust rules as perf-PID.map; module: the dump's path), before
 * perf-PID.map. Only the first jitdump of a pid is used.
 */
bool sym_session__jitdump(struct sym_session *s, uint32_t pid, const char *path);

/*
 * The machine code of the JIT function at ip in process pid, from its
 * jitdump's code load record: *code (owned by the session, valid until
 * delete), its start address and size, and the dump's ELF machine
 * (EM_X86_64...). false when ip is not in code a jitdump loaded.
 */
bool sym_session__jit_code(struct sym_session *s, uint32_t pid, uint64_t ip,
			   const uint8_t **code, uint64_t *start, uint64_t *size, int *machine);

/* The path as recorded. Valid until sym_session__delete. */
const char *sym_dso__name(const struct sym_dso *dso);

/*
 * Open the module now (lookups do it lazily): the first candidate file (see
 * sym_options) that is ELF and carries the recorded build-id — or no
 * build-id at all — is used. Returns 0 when symbols can be
 * read, or a negative code (-ENOENT missing, GX_E_FORMAT not ELF, -ESTALE
 * build-id mismatch, GX_E_NODATA nothing to read: anon, vdso) with the reason
 * also kept for sym_dso__problem(). Idempotent.
 */
int sym_dso__open(struct sym_dso *dso);

/*
 * Whether the module was opened (a lookup needed it) and failed because
 * every file found had another build-id than the recording's: its samples
 * are `[unknown]` and sym_dso__problem() names the file and both build-ids.
 */
bool sym_dso__stale(const struct sym_dso *dso);

/* Why the module gives no symbols (after an open), or NULL. Owned by the dso. */
const char *sym_dso__problem(const struct sym_dso *dso);

/* ELF vaddr for a file offset (after an open); false when outside every
 * PT_LOAD. */
bool sym_dso__offset_to_addr(const struct sym_dso *dso, uint64_t offset, uint64_t *addr);
/* The file offset of an ELF vaddr (after an open); false when outside
 * every PT_LOAD's file bytes. */
bool sym_dso__addr_to_offset(const struct sym_dso *dso, uint64_t addr, uint64_t *offset);
/* Copy len bytes at ELF vaddr from the file image (after an open); false
 * when not in the file. */
bool sym_dso__read_vaddr(const struct sym_dso *dso, uint64_t vaddr, void *buf, size_t len);

/* The file actually read (after an open), or NULL. Owned by the dso. */
const char *sym_dso__found_path(const struct sym_dso *dso);

/*
 * Data addresses (sym-data.c). The ELF address of file offset `offset`
 * in a data segment of dso (not an executable one), the segment's memory
 * size included: the offset a mapping of the file would give an address
 * of its .bss. false when no data segment holds it or the file cannot be
 * read.
 */
bool sym_dso__data_vaddr(struct sym_dso *dso, uint64_t offset, uint64_t *vaddr);
/*
 * The variable of dso at ELF address vaddr: the STT_OBJECT symbol whose
 * [start, start + size) holds it (a global's name before a static's at
 * one address), its start and size, and whether it is static (local
 * binding). NULL when none does. The name is owned by dso.
 */
const char *sym_dso__data_symbol(struct sym_dso *dso, uint64_t vaddr, uint64_t *start,
				 uint64_t *size, bool *local);

/* Counters, for tests and `--stats`-like output. */
struct sym_stats {
	uint64_t lookups;	/* sym_session__lookup* calls */
	uint64_t cache_hits;	/* answered from the cache */
	uint64_t resolves;	/* symbol/DWARF walks (cache misses) */
	uint64_t dsos_opened;	/* modules whose file was found and opened */
	uint64_t dsos_missing;	/* modules that could not be opened */
	uint64_t unwinds;	/* sym_unwind calls */
	uint64_t unwind_frames;	/* frames they produced */
};
void sym_session__stats(const struct sym_session *s, struct sym_stats *out);

/* ======================================================================
 * Offline DWARF unwinding (--call-graph dwarf)
 * ==================================================================== */

/* Sample register ABI (PERF_SAMPLE_REGS_ABI_*). */
enum { SYM_REGS_ABI_NONE = 0, SYM_REGS_ABI_32 = 1, SYM_REGS_ABI_64 = 2 };

/*
 * x86-64 registers in perf's PERF_REG_X86_* numbering (the bit numbers of
 * sample_regs_user): regs[] holds the values of the set bits of the mask,
 * lowest bit first, as in a PERF_SAMPLE_REGS_USER record. Unwinding needs at
 * least IP, SP and BP (mask SYM_X86_64_REGS_MIN); perf's full user mask is
 * (1 << 24) - 1 without DS/ES/FS/GS (bits 12-15).
 */
enum {
	SYM_X86_AX = 0, SYM_X86_BX, SYM_X86_CX, SYM_X86_DX, SYM_X86_SI, SYM_X86_DI,
	SYM_X86_BP, SYM_X86_SP, SYM_X86_IP, SYM_X86_FLAGS, SYM_X86_CS, SYM_X86_SS,
	SYM_X86_DS, SYM_X86_ES, SYM_X86_FS, SYM_X86_GS,
	SYM_X86_R8, SYM_X86_R9, SYM_X86_R10, SYM_X86_R11, SYM_X86_R12,
	SYM_X86_R13, SYM_X86_R14, SYM_X86_R15,
};
#define SYM_X86_64_REGS_MIN ((1ull << SYM_X86_IP) | (1ull << SYM_X86_SP) | (1ull << SYM_X86_BP))

/*
 * The mapping of the sampled process that contains addr, as the caller's
 * process tracking knows it at the sample's time: fill *dso (from
 * sym_session__dso), *start, *len, *pgoff and return 0, or return -1 when
 * addr is not mapped.
 */
typedef int (*sym_find_map_fn)(void *ctx, uint64_t addr, struct sym_dso **dso,
			       uint64_t *start, uint64_t *len, uint64_t *pgoff);

struct sym_unwind_input {
	uint64_t abi;		/* SYM_REGS_ABI_* from the sample */
	uint64_t regs_mask;	/* the attr's sample_regs_user */
	const uint64_t *regs;	/* popcount(regs_mask) values */
	const void *stack;	/* PERF_SAMPLE_STACK_USER data */
	uint64_t stack_size;	/* its dyn_size (bytes actually copied) */
	sym_find_map_fn find_map;
	void *ctx;		/* passed to find_map */
	/*
	 * Which address space find_map describes: two calls with the same
	 * non-zero space have the same code at the same addresses (one
	 * process between two changes of its maps), so what the unwinder
	 * learnt about an ip (its unwind rules) holds for both. 0: unknown,
	 * nothing learnt is kept from one call to the next.
	 */
	uint64_t space;
	/* out, optional: set true when the chain stopped because it needed
	 * stack bytes above the copy (the copy's size cut it short: record
	 * with a larger --call-graph dwarf,SIZE), else false */
	bool *cut;
};

/*
 * Unwind one sample's user stack offline with libunwind's remote API: memory
 * reads come from the stack copy (addresses sp .. sp + stack_size) or from
 * the bytes of the mapped files, unwind tables from each file's
 * .eh_frame_hdr. Writes the return addresses of the chain, the sampled ip
 * first, into ips[0..*nr) (at most max); caller frames are return
 * addresses, so symbolize ips[i] - 1 for i > 0 to land in the call
 * instruction. Returns 0 (also when the chain stops early: *nr >= 1 when
 * the ip was present), GX_E_NOTSUP with a message in *cause when this build
 * has no libunwind or the ABI/architecture is not x86-64, or -EINVAL when
 * IP/SP are not in the mask. Thread-compatible (one session per thread).
 */
int sym_unwind(struct sym_session *s, const struct sym_unwind_input *in,
	       uint64_t *ips, size_t max, size_t *nr, char **cause);

/*
 * An unwinder: what DWARF unwinding keeps between samples (libunwind's
 * address space and its cache of unwind rules by ip, kept while the
 * input's space stays the same) for one thread. sym_unwind uses the
 * session's own. Several unwinders of one session may unwind at once, each
 * on its own thread (at most one unwinder per thread: libunwind's cache is
 * the thread's), while nothing else calls the session; they open the
 * modules they need under the session's lock.
 *
 * sym_unwinder__new: 0 and *out (free with sym_unwinder__delete before the
 * session), or GX_E_NOTSUP with a message when this build cannot unwind.
 * sym_unwinder__unwind: as sym_unwind, on u's thread.
 * sym_unwinder__delete: adds u's counts to the session's stats (call it
 * where nothing else uses the session); NULL is allowed.
 */
struct sym_unwinder;
int sym_unwinder__new(struct sym_unwinder **out, struct sym_session *s, char **cause);
int sym_unwinder__unwind(struct sym_unwinder *u, const struct sym_unwind_input *in,
			 uint64_t *ips, size_t max, size_t *nr, char **cause);
void sym_unwinder__delete(struct sym_unwinder *u);

#endif /* GX_SYMBOLIZE_H */
