/*
 * sym-plt.c: names for the procedure linkage table. PLT stubs have no
 * symbol of their own, so a sample in one fell to the symbol before the
 * section (_init) — a call to memcpy through the PLT was charged to _init.
 * Like perf, each stub is named after the function it jumps to
 * ("memcpy@plt"), from the .rela.plt relocation of its slot; a section
 * whose slots cannot be matched is one range named after the section.
 */
#include "config.h"

#include "symbolize/symbolize-int.h"

#include <gelf.h>
#include <string.h>

#include "util/util.h"

struct plt_layout {
	GElf_Addr addr;
	GElf_Xword size;
	uint64_t head;		/* bytes before the first slot (PLT0), 0 in .plt.sec */
	uint64_t slot;		/* bytes per slot */
};

static void add(struct sym_dso *dso, size_t *cap, uint64_t addr, uint64_t size, const char *name)
{
	struct sym_fsym *f;

	dso->fsyms = xgrow(dso->fsyms, cap, dso->nr_fsyms + 1, sizeof(*dso->fsyms));
	f = &dso->fsyms[dso->nr_fsyms++];
	f->addr = addr;
	f->size = size;
	f->name = name;
	f->bind = STB_LOCAL;
}

/* "name@plt", living as long as the session. */
static const char *plt_name(struct sym_session *s, const char *name)
{
	size_t n = strlen(name);
	char *p = sym_session__alloc(s, n + sizeof("@plt"));

	memcpy(p, name, n);
	memcpy(p + n, "@plt", sizeof("@plt"));
	return p;
}

/* Name the slots of one PLT section from the .rela.plt entries. */
static void name_slots(struct sym_dso *dso, size_t *cap, const struct plt_layout *pl,
		       Elf_Data *rela, size_t nr_rela, Elf_Data *dynsym, size_t strndx)
{
	uint64_t nr = pl->size > pl->head ? (pl->size - pl->head) / pl->slot : 0;

	for (uint64_t i = 0; i < nr && i < nr_rela; i++) {
		GElf_Rela r;
		GElf_Sym sym;
		const char *name;

		if (!gelf_getrela(rela, (int)i, &r) ||
		    !gelf_getsym(dynsym, (int)GELF_R_SYM(r.r_info), &sym))
			continue;
		name = elf_strptr(dso->elf, strndx, sym.st_name);
		if (!name || !*name)
			continue;
		add(dso, cap, pl->addr + pl->head + i * pl->slot, pl->slot,
		    plt_name(dso->s, name));
	}
	if (pl->head)	/* PLT0: the lazy resolver's trampoline */
		add(dso, cap, pl->addr, pl->head, "_PLT0");
}

void sym_plt__add_symbols(struct sym_dso *dso, size_t *cap)
{
	Elf_Scn *scn = NULL, *rela_scn = NULL;
	size_t shstrndx, nr_rela = 0, strndx = 0;
	Elf_Data *rela = NULL, *dynsym = NULL;
	struct plt_layout plt = { 0 }, sec = { 0 };
	GElf_Ehdr eh;
	GElf_Shdr sh;

	if (!dso->elf || !gelf_getehdr(dso->elf, &eh) || elf_getshdrstrndx(dso->elf, &shstrndx))
		return;
	while ((scn = elf_nextscn(dso->elf, scn))) {
		const char *name;

		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(dso->elf, shstrndx, sh.sh_name)))
			continue;
		if (!strcmp(name, ".rela.plt") && sh.sh_entsize)
			rela_scn = scn;
		else if (!strcmp(name, ".plt"))
			plt = (struct plt_layout){ sh.sh_addr, sh.sh_size, 0, 16 };
		else if (!strcmp(name, ".plt.sec"))
			sec = (struct plt_layout){ sh.sh_addr, sh.sh_size, 0, 16 };
		else if (!strcmp(name, ".plt.got") && sh.sh_size)
			add(dso, cap, sh.sh_addr, sh.sh_size, ".plt.got");
	}
	/* x86-64: PLT0 is one 16-byte slot; aarch64: 32 bytes */
	plt.head = eh.e_machine == EM_AARCH64 ? 32 : 16;
	if (rela_scn && gelf_getshdr(rela_scn, &sh)) {
		Elf_Scn *dscn = elf_getscn(dso->elf, sh.sh_link);
		GElf_Shdr dsh;

		rela = elf_getdata(rela_scn, NULL);
		nr_rela = sh.sh_size / sh.sh_entsize;
		if (dscn && gelf_getshdr(dscn, &dsh)) {
			dynsym = elf_getdata(dscn, NULL);
			strndx = dsh.sh_link;
		}
	}
	if (!rela || !dynsym) {	/* no relocations to match: one range each */
		if (plt.size)
			add(dso, cap, plt.addr, plt.size, ".plt");
		if (sec.size)
			add(dso, cap, sec.addr, sec.size, ".plt.sec");
		return;
	}
	/* with IBT (.plt.sec), .plt holds the lazy stubs in the same order */
	if (plt.size)
		name_slots(dso, cap, &plt, rela, nr_rela, dynsym, strndx);
	if (sec.size)
		name_slots(dso, cap, &sec, rela, nr_rela, dynsym, strndx);
}
