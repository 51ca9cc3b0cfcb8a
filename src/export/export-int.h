/*
 * export-int.h: private to src/export.
 */
#ifndef GX_EXPORT_INT_H
#define GX_EXPORT_INT_H

#include <stddef.h>
#include <stdint.h>

/*
 * Write buf[0..len) to path as one gzip stream (export-gzip.c, zlib opened
 * there when first needed). 0, or a negative code with a message in *cause:
 * the file, or zlib when it cannot be loaded (the Debian package zlib1g).
 */
int export_gzip__write(const char *path, const uint8_t *buf, size_t len, char **cause);

#endif
