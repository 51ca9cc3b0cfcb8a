/*
 * fuzz-sidefiles: libFuzzer target for the files beside perf.data that
 * gexplore reads and no other target covers (issue 41): regions.bin
 * (pd_regions__read), offcpu.bin (pd_offcpu__read), and the Valgrind
 * outputs record --model reads, callgrind's (cg_profile__parse) and
 * cachegrind's (cg_lines__parse), and a modelled result's model.terms
 * (its header, model_terms_machine, then the whole priced again with its
 * own description: model_reprice__new).
 *
 * An input's first byte picks the reader (its value modulo 5, in that
 * order); the rest is the file. Seeds: a file of each kind written by the
 * suite (make fuzz-smoke), each behind its byte.
 */
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/model.h"
#include "perfdata/perfdata.h"
#include "util/util.h"

static char path[256], dir[256], terms_path[300];

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *tmp = getenv("TMPDIR");
	int fd;

	(void)argc;
	(void)argv;
	snprintf(path, sizeof(path), "%s/gx-fuzz-side.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	fd = mkstemp(path);
	if (fd < 0)
		abort();
	close(fd);
	snprintf(dir, sizeof(dir), "%s/gx-fuzz-terms.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir))
		abort();
	snprintf(terms_path, sizeof(terms_path), "%s/%s", dir, MODEL_TERMS_FILE);
	return 0;
}

static void put(const uint8_t *p, size_t n)
{
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);

	if (fd < 0 || gx_write_all(fd, p, n) != 0)
		abort();
	close(fd);
}

static void regions(const uint8_t *p, size_t n)
{
	struct pd_marker *m = NULL;
	char *cause = NULL;
	uint64_t lost = 0;
	size_t nr = 0;

	put(p, n);
	if (pd_regions__read(path, &m, &nr, &lost, &cause) == 0) {
		volatile size_t sink = 0;

		for (size_t i = 0; i < nr; i++)
			sink += strlen(m[i].name);
		(void)sink;
	}
	free(m);
	free(cause);
}

static void offcpu(const uint8_t *p, size_t n)
{
	struct pd_offcpu *o = NULL;
	char *cause = NULL;

	put(p, n);
	if (pd_offcpu__read(path, &o, &cause) == 0) {
		volatile uint64_t sink = 0;

		for (size_t i = 0; i < o->nr; i++)
			for (uint16_t k = 0; k < o->probes[i].nr_ips; k++)
				sink += o->ips[i][k];
		(void)sink;
		pd_offcpu__delete(o);
	}
	free(cause);
}

/* The Valgrind readers take text with a NUL after it, as their files are
 * read (model.h): a copy with one (a crash before: the fuzzer's own
 * buffer has none). The caller frees it. */
static char *with_nul(const uint8_t *p, size_t n)
{
	char *text = xmalloc(n + 1);

	memcpy(text, p, n);
	text[n] = '\0';
	return text;
}

static void callgrind(const uint8_t *p, size_t n)
{
	char *text = with_nul(p, n), *cause = NULL;
	struct cg_profile cg;

	cg_profile__init(&cg);
	cg_profile__parse(&cg, text, n, "fuzz", &cause);
	free(cause);
	cg_profile__exit(&cg);
	free(text);
}

static void cachegrind(const uint8_t *p, size_t n)
{
	char *text = with_nul(p, n), *cause = NULL;
	struct cg_lines cl;

	cg_lines__init(&cl);
	cg_lines__parse(&cl, text, n, "fuzz", &cause);
	free(cause);
	cg_lines__exit(&cl);
	free(text);
}

static void terms(const uint8_t *p, size_t n)
{
	int fd = open(terms_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	struct model_reprice *rp = NULL;
	struct model_machine mm;
	char *cause = NULL;

	if (fd < 0 || gx_write_all(fd, p, n) != 0)
		abort();
	close(fd);
	if (model_terms_machine(dir, &mm, &cause) == 0) {	/* the header alone */
		model_machine__exit(&mm);
		/* the whole, priced again with its own description */
		if (model_reprice__new(&rp, dir, NULL, dir, &cause) == 0) {
			struct model_rp_out out[MODEL_RP_NR];

			model_reprice__sample(rp, MODEL_RP_INSNS, 0, 1, 0, out);
			model_reprice__delete(rp);
		}
	}
	free(cause);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size)
		return 0;
	switch (data[0] % 5) {
	case 0: regions(data + 1, size - 1); break;
	case 1: offcpu(data + 1, size - 1); break;
	case 2: callgrind(data + 1, size - 1); break;
	case 3: cachegrind(data + 1, size - 1); break;
	default: terms(data + 1, size - 1); break;
	}
	return 0;
}
