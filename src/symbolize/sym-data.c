/*
 * Data addresses: the variable (a global or static, STT_OBJECT in the
 * module's symbol table) that a sampled load or store touched. The ELF
 * address comes from the mapping's file offset through the PT_LOAD
 * segments, their memory size included: .bss past the file's bytes is
 * the segment's too (the caller hands the offset a mapping of the file
 * would have there when the kernel mapped that part anonymously).
 */
#include "config.h"

#include "symbolize.h"

#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <stdlib.h>

#include "symbolize-int.h"

bool sym_dso__data_vaddr(struct sym_dso *dso, uint64_t offset, uint64_t *vaddr)
{
	if (sym_dso__open(dso))
		return false;
	for (size_t i = 0; i < dso->nr_loads; i++) {
		const struct sym_load *l = &dso->loads[i];

		if (!l->exec && offset >= l->offset && offset - l->offset < l->memsz) {
			*vaddr = l->vaddr + (offset - l->offset);
			return true;
		}
	}
	return false;
}

static int osym_cmp(const void *a, const void *b)
{
	const struct sym_fsym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if ((x->bind == STB_LOCAL) != (y->bind == STB_LOCAL))	/* the global name first */
		return x->bind == STB_LOCAL ? 1 : -1;
	return x->size > y->size ? -1 : x->size < y->size;
}

static void load_objects(struct sym_dso *dso)
{
	size_t cap = 0;
	int n;

	dso->osyms_loaded = true;
	if (!dso->mod)
		return;
	n = dwfl_module_getsymtab(dso->mod);
	for (int k = 1; k < n; k++) {
		GElf_Sym sym;
		GElf_Addr addr;
		const char *name = dwfl_module_getsym_info(dso->mod, k, &sym, &addr, NULL, NULL, NULL);
		struct sym_fsym *o;

		if (!name || !*name || sym.st_shndx == SHN_UNDEF ||
		    GELF_ST_TYPE(sym.st_info) != STT_OBJECT)
			continue;
		dso->osyms = xgrow(dso->osyms, &cap, dso->nr_osyms + 1, sizeof(*dso->osyms));
		o = &dso->osyms[dso->nr_osyms++];
		o->addr = addr;
		o->size = sym.st_size;
		o->name = name;
		o->bind = GELF_ST_BIND(sym.st_info);
	}
	if (dso->nr_osyms)
		gx_qsort(dso->osyms, dso->nr_osyms, sizeof(*dso->osyms), osym_cmp);
}

const char *sym_dso__data_symbol(struct sym_dso *dso, uint64_t vaddr, uint64_t *start,
				 uint64_t *size, bool *local)
{
	size_t lo = 0, hi;

	if (sym_dso__open(dso))
		return NULL;
	if (!dso->osyms_loaded)
		load_objects(dso);
	hi = dso->nr_osyms;
	while (lo < hi) {	/* the first symbol past vaddr */
		size_t mid = lo + (hi - lo) / 2;

		if (dso->osyms[mid].addr <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* the symbols at or below vaddr, nearest first: the first whose
	 * size covers it (a zero-sized one covers its own address) */
	for (size_t i = lo; i-- > 0;) {
		const struct sym_fsym *o = &dso->osyms[i];

		if (vaddr - o->addr < (o->size ? o->size : 1)) {
			*start = o->addr;
			*size = o->size;
			*local = o->bind == STB_LOCAL;
			return o->name;
		}
		if (lo - i > 8)	/* nested or overlapping symbols are near */
			break;
	}
	return NULL;
}
