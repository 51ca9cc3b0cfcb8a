/* symbolize-int.h: private to src/symbolize. */
#ifndef GX_SYMBOLIZE_INT_H
#define GX_SYMBOLIZE_INT_H

#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <pthread.h>

#include "symbolize/symbolize.h"
#include "util/util.h"

enum sym_dso_kind {
	SYM_DSO_FILE,
	SYM_DSO_KERNEL,		/* [kernel.kallsyms], kernel modules */
	SYM_DSO_SPECIAL,	/* [vdso], anon, heap, stack, memfd, deleted */
};

struct sym_load {		/* one PT_LOAD segment */
	uint64_t offset, filesz, vaddr, memsz;
	bool exec;
};

struct sym_fsym {		/* a function symbol */
	uint64_t addr, size;
	const char *name;	/* in the module's string table (lives with dwfl) */
	int bind;
};

struct sym_frange {		/* pc range of a DW_TAG_subprogram */
	uint64_t lo, hi;	/* DWARF addresses */
	uint64_t die;		/* its DIE offset */
};

struct sym_fde {		/* an FDE's code: one function's [lo, hi), ELF addresses */
	uint64_t lo, hi;
};

struct sym_dso {
	struct sym_session *s;
	uint32_t path_id, short_id;
	enum sym_dso_kind kind;
	uint8_t build_id[20];
	size_t build_id_size;

	bool opened;		/* sym_dso__open ran */
	int open_err;
	char *problem;
	char *found_path;
	char *dwfl_path;	/* the name libdwfl opens when found_path is not one */

	/* the file we read: mapped whole, for phdrs and unwinder reads */
	int fd;
	Elf *elf;
	const unsigned char *image;
	size_t image_size;
	struct sym_load *loads;
	size_t nr_loads;
	uint16_t e_type;

	Dwfl *dwfl;
	Dwfl_Module *mod;
	bool franges_loaded;
	struct sym_frange *franges;
	size_t nr_franges;
	Dwarf *dw;
	Dwarf_Addr dwbias;
	bool fsyms_loaded;
	struct sym_fsym *fsyms;
	size_t nr_fsyms;
	/* variables (STT_OBJECT) by address, for data addresses (sym-data.c) */
	bool osyms_loaded;
	struct sym_fsym *osyms;
	size_t nr_osyms;
	/* function boundaries from .eh_frame and .debug_frame (sym-fde.c) */
	bool fdes_loaded;
	struct sym_fde *fdes;
	size_t nr_fdes;

	/* unwinding: .eh_frame_hdr's search table */
	bool unwind_ready;	/* opened and probed for unwinders of any thread
				   (set under sym_session.lock, read acquiring) */
	bool unwind_probed;
	bool have_eh_hdr;
	uint64_t eh_hdr_vaddr;
	uint64_t eh_table_vaddr;
	uint64_t eh_table_entries;
	/* no .eh_frame_hdr: a search table built from .eh_frame, served to
	 * libunwind at a synthetic address (see sym-unwind.c) */
	int32_t *eh_synth;
	Dwarf_CFI *cfi;		/* .eh_frame through libdw (sym-cfi.c), or NULL */
	uint32_t index;		/* position in the session's module list */
	uint64_t text_lo, text_hi;	/* ELF vaddr range of executable segments */

	struct u64map cache;	/* offset -> (struct sym_result *) */
};

struct sym_ksym {
	uint64_t addr;
	const char *str;	/* its name, inside sym_session.kallsyms */
	uint32_t name;		/* string id once a sample needed it, else 0 */
	uint32_t module;	/* string id: "[kernel.kallsyms]" or "[mod]" */
};

struct sym_chunk {
	struct sym_chunk *next;
	size_t size;
	char data[];
};

struct sym_session {
	char *symfs;
	char *archive;		/* sym_options.archive, or NULL */
	char **search_paths;
	size_t nr_search_paths;
	bool local, no_inline, no_demangle;

	struct strtab strs;
	uint32_t id_unknown, id_kernel, id_kernel_module;
	struct u64map demangled;	/* raw name id -> demangled id */

	struct sym_dso **dsos;
	size_t nr_dsos, cap_dsos;
	struct u64map dso_index;	/* hash(path, build-id) -> index + 1 */

	char *debuginfo_path;
	Dwfl_Callbacks callbacks;

	bool kallsyms_loaded;
	char *kallsyms_path;	/* sym_options.kallsyms, or NULL */
	uint32_t id_kernel_why;	/* no kernel symbols: the row that says why, or 0 */
	char *kallsyms;		/* /proc/kallsyms as read, names NUL-ended in place */
	struct sym_ksym *ksyms;
	size_t nr_ksyms;
	struct u64map kcache;
	struct sym_result *unmapped;

	/* scratch for building an inline chain */
	struct sym_frame *scratch;
	size_t scratch_cap;
	Dwarf_Die *scopes;
	size_t scopes_cap;

	struct sym_chunk *chunks;
	char *arena;
	size_t arena_left;

	struct sym_stats stats;
	void *jit;		/* sym-jit.c: perf-PID.map symbols per process */
	struct sym_unwinder *unwinder;	/* sym_unwind's, made on first use */
	/* taken by unwinders of other threads around what they change in a
	 * module (its lazy open and unwind tables) and in stats */
	pthread_mutex_t lock;
};

/* sym-session.c */
void *sym_session__alloc(struct sym_session *s, size_t n);
uint32_t sym_session__intern(struct sym_session *s, const char *str);
uint32_t sym_session__intern_name(struct sym_session *s, const char *raw);

/* sym-dso.c */
struct sym_dso *sym_dso__new(struct sym_session *s, const char *path,
			     const uint8_t *build_id, size_t build_id_size);
void sym_dso__delete(struct sym_dso *dso);
const struct sym_result *sym_dso__resolve(struct sym_dso *dso, uint64_t offset);
/* libdwfl's find_debuginfo: the result's archived debug file (by the
 * module's build-id) first, then dwfl_standard_find_debuginfo. */
int sym_dso__find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
			    Dwarf_Addr base, const char *file_name, const char *debuglink_file,
			    GElf_Word debuglink_crc, char **debuginfo_file_name);

/* sym-kernel.c */
const struct sym_result *sym_kernel__resolve(struct sym_session *s, uint64_t ip);
void sym_kernel__exit(struct sym_session *s);

/* sym-unwind.c */
void sym_unwind__exit(struct sym_session *s);

/*
 * sym-cfi.c: one step of DWARF unwinding through a module's .eh_frame
 * (dso->cfi), its rows cached per unwinder. Registers in DWARF numbers.
 */
#define SYM_CFI_NREGS 17	/* x86-64: rax .. r15, then the return address */
#define SYM_CFI_SP 7
#define SYM_CFI_BP 6
#define SYM_CFI_RA 16
struct sym_cfi_regs {
	uint64_t r[SYM_CFI_NREGS];
	uint32_t have;		/* bit per register known */
};
typedef bool (*sym_cfi_read_fn)(void *arg, uint64_t addr, uint64_t *val);
struct sym_cfi;
struct sym_cfi *sym_cfi__new(void);
void sym_cfi__delete(struct sym_cfi *c);
/*
 * The frame at ELF address vaddr of dso (the pc, or a return address - 1)
 * with registers *regs: 1 and *regs the caller's (*ra its pc, *signal when
 * the frame is a signal frame, whose caller's pc is exact); 0 when no CFI
 * covers vaddr; -1 when the rules cannot be followed (a register or memory
 * they need is not known: the end of the chain). Reads memory with read.
 */
int sym_cfi__step(struct sym_cfi *c, struct sym_dso *dso, uint64_t vaddr,
		  struct sym_cfi_regs *regs, uint64_t *ra, bool *signal, sym_cfi_read_fn read,
		  void *arg);

/* sym-plt.c: append a symbol per PLT slot ("name@plt") to dso->fsyms
 * (capacity *cap), from the module's section headers. */
void sym_plt__add_symbols(struct sym_dso *dso, size_t *cap);

/* sym-fde.c */
/*
 * Read a DW_EH_PE-encoded value at *p (its ELF address `at`, for pcrel)
 * and advance *p; absptr is addr_size bytes. False for omit, indirect,
 * textrel, datarel, funcrel and aligned, or a value past end.
 */
bool sym_fde__read_encoded(const uint8_t **p, const uint8_t *end, uint8_t enc, uint64_t at,
			   unsigned addr_size, uint64_t *v);
/* Called per FDE: its offset in the section and its code [lo, lo + len). */
typedef void sym_fde_fn(void *arg, uint64_t fde_off, uint64_t lo, uint64_t len);
/*
 * Walk the CIEs and FDEs of an .eh_frame (eh) or .debug_frame section,
 * size bytes at ELF address sec_vaddr, little-endian, of a module whose
 * pointers are addr_size (4 or 8) bytes; fn gets every readable FDE except
 * those of discarded code (address 0). Stops at a terminator or a length
 * past the section. Returns how many FDEs fn got.
 */
size_t sym_fde__walk(const uint8_t *sec, size_t size, uint64_t sec_vaddr, bool eh,
		     unsigned addr_size, sym_fde_fn *fn, void *arg);
/*
 * Sort a table by start and make its ranges disjoint: empty ranges and a
 * second FDE of the same start are dropped, and a range overlapping the
 * next one ends where the next starts. Returns the new count.
 */
size_t sym_fde__sort(struct sym_fde *t, size_t n);
/* In a sorted table: how many ranges start at or before addr. */
size_t sym_fde__upper(const struct sym_fde *t, size_t n, uint64_t addr);
/* In a sorted table: the range holding addr, or NULL (before, between or
 * after every range). Borrowed from t. */
const struct sym_fde *sym_fde__find(const struct sym_fde *t, size_t n, uint64_t addr);
/* The bytes, address and size of the module's section `name`; NULL when
 * it has none (or its bytes are not in the file). */
const uint8_t *sym_fde__section(const struct sym_dso *dso, const char *name, uint64_t *vaddr,
				uint64_t *size);
/* Build dso->fdes from .eh_frame (by section, or through PT_GNU_EH_FRAME
 * when the file has no section headers) and .debug_frame: ranges that
 * start in executable segments, sorted and disjoint. Once per module. */
void sym_fde__load(struct sym_dso *dso);

/* sym-jit.c */
void sym_jit__exit(struct sym_session *s);

/* sym-libdw.c: libdw, opened by sym_session__new (0, or GX_E_NOTSUP with
 * the library and its package in *cause). */
int sym_libdw__open(char **cause);

#endif /* GX_SYMBOLIZE_INT_H */
