/*
 * lazy-elf.c: libelf opened when first needed, not linked (issue 26, part
 * 4). A record of /bin/true reads its build-ids with pread and never calls
 * libelf, yet loading it at start was its mapping, relocations and faults
 * in every command. This is the one table of the libelf functions
 * gexplore calls (perfdata, symbolize, model, tui and the test programs
 * link it from here), each a call through the address gx_lazylib__open
 * resolved; gx_libelf__open must come before a module's first elf_* call.
 *
 * libdw, opened later by a symbol session, needs libelf.so.1 itself: the
 * loader finds that soname already loaded and uses the same instance, so
 * an Elf from this table is libdw's Elf too (and the other way round).
 */
#include "config.h"

#include "util/util.h"

#include <gelf.h>
#include <libelf.h>
#include <pthread.h>

#define GX_ELF_FNS(X, V, D) \
	X(Elf *, elf_begin, (int fd, Elf_Cmd cmd, Elf *ref), (fd, cmd, ref)) \
	X(int, elf_end, (Elf *e), (e)) \
	X(Elf_Data *, elf_getdata, (Elf_Scn *scn, Elf_Data *data), (scn, data)) \
	X(Elf_Data *, elf_getdata_rawchunk, (Elf *e, int64_t off, size_t size, Elf_Type type), (e, off, size, type)) \
	X(char *, elf_getident, (Elf *e, size_t *n), (e, n)) \
	X(int, elf_getphdrnum, (Elf *e, size_t *n), (e, n)) \
	X(Elf_Scn *, elf_getscn, (Elf *e, size_t idx), (e, idx)) \
	X(int, elf_getshdrstrndx, (Elf *e, size_t *n), (e, n)) \
	X(Elf_Kind, elf_kind, (Elf *e), (e)) \
	X(Elf *, elf_memory, (char *image, size_t size), (image, size)) \
	X(Elf_Scn *, elf_nextscn, (Elf *e, Elf_Scn *scn), (e, scn)) \
	X(char *, elf_strptr, (Elf *e, size_t idx, size_t off), (e, idx, off)) \
	X(unsigned int, elf_version, (unsigned int v), (v)) \
	X(GElf_Ehdr *, gelf_getehdr, (Elf *e, GElf_Ehdr *dst), (e, dst)) \
	X(GElf_Phdr *, gelf_getphdr, (Elf *e, int idx, GElf_Phdr *dst), (e, idx, dst)) \
	X(GElf_Rela *, gelf_getrela, (Elf_Data *d, int idx, GElf_Rela *dst), (d, idx, dst)) \
	X(GElf_Shdr *, gelf_getshdr, (Elf_Scn *scn, GElf_Shdr *dst), (scn, dst)) \
	X(GElf_Sym *, gelf_getsym, (Elf_Data *d, int idx, GElf_Sym *dst), (d, idx, dst))

GX_LAZYLIB_DEFINE(libelf, GX_ELF_FNS, "libelf.so.1", "libelf1")

static pthread_once_t libelf_version_once = PTHREAD_ONCE_INIT;

static void libelf_version(void)
{
	elf_version(EV_CURRENT);
}

int gx_libelf__open(char **cause)
{
	int err = gx_lazylib__open(&libelf, cause);

	if (err)
		return err;
	/* libelf wants the version its caller speaks before elf_begin */
	pthread_once(&libelf_version_once, libelf_version);
	return 0;
}
