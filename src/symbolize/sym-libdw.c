/*
 * sym-libdw.c: libdw opened when a symbol session starts, not linked
 * (issue 26, part 4). A record, a version or a help does not symbolize,
 * and loading libdw (with its liblzma and libbz2) was a share of each of
 * them. Every libdw function symbolize calls is defined here as a call
 * through the address gx_lazylib__open resolved; sym_session__new opens it.
 */
#include "config.h"

#include "symbolize-int.h"

#include <elfutils/libdwelf.h>

#define SYM_DW_FNS(X, V, D) \
	X(int, dwarf_cfi_addrframe, (Dwarf_CFI *cfi, Dwarf_Addr addr, Dwarf_Frame **frame), (cfi, addr, frame)) \
	X(int, dwarf_cfi_end, (Dwarf_CFI *cfi), (cfi)) \
	X(int, dwarf_frame_cfa, (Dwarf_Frame *f, Dwarf_Op **ops, size_t *nops), (f, ops, nops)) \
	X(int, dwarf_frame_info, (Dwarf_Frame *f, Dwarf_Addr *start, Dwarf_Addr *end, bool *signalp), (f, start, end, signalp)) \
	X(int, dwarf_frame_register, (Dwarf_Frame *f, int regno, Dwarf_Op ops_mem[3], Dwarf_Op **ops, size_t *nops), (f, regno, ops_mem, ops, nops)) \
	X(Dwarf_CFI *, dwarf_getcfi_elf, (Elf *elf), (elf)) \
	X(Dwarf_Attribute *, dwarf_attr, (Dwarf_Die *die, unsigned int name, Dwarf_Attribute *res), (die, name, res)) \
	X(Dwarf_Attribute *, dwarf_attr_integrate, (Dwarf_Die *die, unsigned int name, Dwarf_Attribute *res), (die, name, res)) \
	X(int, dwarf_child, (Dwarf_Die *die, Dwarf_Die *res), (die, res)) \
	X(Dwarf_Die *, dwarf_diecu, (Dwarf_Die *die, Dwarf_Die *res, uint8_t *asz, uint8_t *osz), (die, res, asz, osz)) \
	X(Dwarf_Off, dwarf_dieoffset, (Dwarf_Die *die), (die)) \
	X(const char *, dwarf_filesrc, (Dwarf_Files *f, size_t idx, Dwarf_Word *mtime, Dwarf_Word *len), (f, idx, mtime, len)) \
	X(const char *, dwarf_formstring, (Dwarf_Attribute *a), (a)) \
	X(int, dwarf_formudata, (Dwarf_Attribute *a, Dwarf_Word *v), (a, v)) \
	X(int, dwarf_getscopes, (Dwarf_Die *cu, Dwarf_Addr pc, Dwarf_Die **scopes), (cu, pc, scopes)) \
	X(int, dwarf_getscopes_die, (Dwarf_Die *die, Dwarf_Die **scopes), (die, scopes)) \
	X(int, dwarf_getsrcfiles, (Dwarf_Die *cu, Dwarf_Files **files, size_t *n), (cu, files, n)) \
	X(int, dwarf_hasattr, (Dwarf_Die *die, unsigned int name), (die, name)) \
	X(int, dwarf_haspc, (Dwarf_Die *die, Dwarf_Addr pc), (die, pc)) \
	X(Dwarf_Die *, dwarf_offdie, (Dwarf *dbg, Dwarf_Off off, Dwarf_Die *res), (dbg, off, res)) \
	X(ptrdiff_t, dwarf_ranges, (Dwarf_Die *die, ptrdiff_t off, Dwarf_Addr *base, Dwarf_Addr *start, Dwarf_Addr *end), (die, off, base, start, end)) \
	X(int, dwarf_siblingof, (Dwarf_Die *die, Dwarf_Die *res), (die, res)) \
	X(int, dwarf_tag, (Dwarf_Die *die), (die)) \
	X(ssize_t, dwelf_elf_gnu_build_id, (Elf *elf, const void **id), (elf, id)) \
	X(Dwfl *, dwfl_begin, (const Dwfl_Callbacks *cb), (cb)) \
	X(int, dwfl_build_id_find_elf, (Dwfl_Module *m, void **ud, const char *name, Dwarf_Addr base, char **file, Elf **elf), (m, ud, name, base, file, elf)) \
	V(dwfl_end, (Dwfl *d), (d)) \
	X(const char *, dwfl_errmsg, (int err), (err)) \
	X(const char *, dwfl_lineinfo, (Dwfl_Line *l, Dwarf_Addr *addr, int *line, int *col, Dwarf_Word *mtime, Dwarf_Word *len), (l, addr, line, col, mtime, len)) \
	X(Dwarf_Die *, dwfl_module_addrdie, (Dwfl_Module *m, Dwarf_Addr addr, Dwarf_Addr *bias), (m, addr, bias)) \
	X(Dwarf *, dwfl_module_getdwarf, (Dwfl_Module *m, Dwarf_Addr *bias), (m, bias)) \
	X(Dwfl_Line *, dwfl_module_getsrc, (Dwfl_Module *m, Dwarf_Addr addr), (m, addr)) \
	X(const char *, dwfl_module_getsym_info, (Dwfl_Module *m, int ndx, GElf_Sym *sym, GElf_Addr *addr, GElf_Word *shndx, Elf **elf, Dwarf_Addr *bias), (m, ndx, sym, addr, shndx, elf, bias)) \
	X(int, dwfl_module_getsymtab, (Dwfl_Module *m), (m)) \
	X(const char *, dwfl_module_info, (Dwfl_Module *m, void ***ud, Dwarf_Addr *start, Dwarf_Addr *end, Dwarf_Addr *dwbias, Dwarf_Addr *symbias, const char **mainfile, const char **debugfile), (m, ud, start, end, dwbias, symbias, mainfile, debugfile)) \
	X(Dwarf_Die *, dwfl_module_nextcu, (Dwfl_Module *m, Dwarf_Die *last, Dwarf_Addr *bias), (m, last, bias)) \
	X(int, dwfl_module_report_build_id, (Dwfl_Module *m, const unsigned char *bits, size_t len, GElf_Addr vaddr), (m, bits, len, vaddr)) \
	X(int, dwfl_offline_section_address, (Dwfl_Module *m, void **ud, const char *name, Dwarf_Addr base, const char *secname, GElf_Word shndx, const GElf_Shdr *shdr, Dwarf_Addr *addr), (m, ud, name, base, secname, shndx, shdr, addr)) \
	V(dwfl_report_begin, (Dwfl *d), (d)) \
	X(Dwfl_Module *, dwfl_report_elf, (Dwfl *d, const char *name, const char *file, int fd, GElf_Addr base, bool add_p_vaddr), (d, name, file, fd, base, add_p_vaddr)) \
	X(int, dwfl_report_end, (Dwfl *d, int (*removed)(Dwfl_Module *, void *, const char *, Dwarf_Addr, void *), void *arg), (d, removed, arg)) \
	X(Dwfl_Module *, dwfl_report_module, (Dwfl *d, const char *name, Dwarf_Addr start, Dwarf_Addr end), (d, name, start, end)) \
	X(int, dwfl_standard_find_debuginfo, (Dwfl_Module *m, void **ud, const char *name, Dwarf_Addr base, const char *file, const char *debuglink, GElf_Word crc, char **debugfile), (m, ud, name, base, file, debuglink, crc, debugfile))

GX_LAZYLIB_DEFINE(libdw, SYM_DW_FNS, "libdw.so.1", "libdw1")

int sym_libdw__open(char **cause)
{
	return gx_lazylib__open(&libdw, cause);
}
