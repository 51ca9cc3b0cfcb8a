/*
 * fuzz-elf: libFuzzer target for symbolization of a mutated binary: the
 * input is written to a file that a session opens as a module (libelf's
 * program headers, the symbol tables, libdw's DWARF lines and inline
 * chains, the PLT slots, the symbol-less ranges) and looks up at offsets
 * spread over it and at the ones the input itself names. Seeds: the test
 * workloads, small ELF files with DWARF. debuginfod stays off.
 */
#include "config.h"

#include "symbolize/symbolize.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[] = "/tmp/gx-fuzz-elf-XXXXXX", *cause = NULL;
	struct sym_options so = { .no_demangle = false };
	struct sym_session *s = NULL;
	struct sym_dso *dso;
	int fd = mkstemp(path);

	if (fd < 0)
		return 0;
	unsetenv("DEBUGINFOD_URLS");
	if (gx_write_all(fd, data, size) != 0 || sym_session__new(&s, &so, &cause) != 0)
		goto out;
	dso = sym_session__dso(s, path, NULL, 0);
	for (size_t i = 0; i <= 16; i++) {
		const struct sym_result *r = sym_session__lookup(s, dso, size * i / 16);
		volatile size_t sink = strlen(sym_session__str(s, r->symbol));

		for (uint32_t k = 0; k < r->nr_frames; k++)
			sink += strlen(sym_session__str(s, r->frames[k].function));
		(void)sink;
	}
	/* offsets the input names (its own header fields, say) */
	for (size_t i = 0; i + 8 <= size && i < 256; i += 8) {
		uint64_t off;

		memcpy(&off, data + i, 8);
		sym_session__lookup(s, dso, off % (size + 4096));
	}
out:
	sym_session__delete(s);
	free(cause);
	close(fd);
	unlink(path);
	return 0;
}
