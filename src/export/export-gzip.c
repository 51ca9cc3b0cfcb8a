/*
 * export-gzip.c: a gzip file written through zlib, which is opened here
 * when the pprof export first writes one, not linked (issue 26, part 4):
 * no other command compresses anything, and loading zlib was a share of
 * each. Each zlib function below is a call through the address
 * gx_lazylib__open resolved (deflateInit2 is zlib's macro over
 * deflateInit2_, which the table resolves).
 */
#include "config.h"

#include "export/export-int.h"

#include "util/util.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#ifdef HAVE_PPROF

#include <zlib.h>

#define ZLIB_FNS(X, V, D) \
	X(int, deflate, (z_streamp strm, int flush), (strm, flush)) \
	X(int, deflateEnd, (z_streamp strm), (strm)) \
	X(int, deflateInit2_, (z_streamp strm, int level, int method, int window_bits, int mem_level, \
	  int strategy, const char *version, int stream_size), \
	  (strm, level, method, window_bits, mem_level, strategy, version, stream_size))

GX_LAZYLIB_DEFINE(libz, ZLIB_FNS, "libz.so.1", "zlib1g")

int export_gzip__write(const char *path, const uint8_t *buf, size_t len, char **cause)
{
	z_stream zs;
	uint8_t out[65536];
	FILE *f;
	int zr, err;

	err = gx_lazylib__open(&libz, cause);
	if (err)
		return err;
	f = fopen(path, "wb");
	if (!f)
		return gx_fail(cause, -errno, "%s: %s", gx_esc(path), strerror(errno));
	memset(&zs, 0, sizeof(zs));
	/* windowBits 15 + 16: a gzip stream, as pprof readers expect */
	if (deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK) {
		fclose(f);
		return gx_fail(cause, -ENOMEM, "zlib: cannot start a gzip stream");
	}
	zs.next_in = (Bytef *)buf;
	zs.avail_in = (uInt)len;
	do {
		zs.next_out = out;
		zs.avail_out = sizeof(out);
		zr = deflate(&zs, Z_FINISH);
		if (zr == Z_STREAM_ERROR ||
		    fwrite(out, 1, sizeof(out) - zs.avail_out, f) != sizeof(out) - zs.avail_out) {
			err = gx_fail(cause, -EIO, "%s: %s", gx_esc(path), strerror(errno ? errno : EIO));
			break;
		}
	} while (zr != Z_STREAM_END);
	deflateEnd(&zs);
	if (fclose(f) != 0 && !err)
		err = gx_fail(cause, -errno, "%s: %s", gx_esc(path), strerror(errno));
	return err;
}

#else

int export_gzip__write(const char *path, const uint8_t *buf, size_t len, char **cause)
{
	return gx_fail(cause, GX_E_NOTSUP, "gzip: this gexplore was built without zlib");
}

#endif
