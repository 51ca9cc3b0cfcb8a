/*
 * fake-sysfs.h: a fake /sys tree for tests (the code under test reads
 * GX_SYSFS instead of /sys). Header-only, like tap.h.
 */
#ifndef GX_FAKE_SYSFS_H
#define GX_FAKE_SYSFS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "util/util.h"

/* Write text to root/bus/event_source/devices/PMU/FILE (FILE may hold a
 * directory: "events/cpu_cycles"), making the directories. */
static inline void fake_sysfs_pmu_file(const char *root, const char *pmu, const char *file,
				       const char *text)
{
	char *path = xasprintf("%s/bus/event_source/devices/%s/%s", root, pmu, file);
	char *dir = xstrdup(path), *cmd;
	FILE *f;

	*strrchr(dir, '/') = 0;
	cmd = xasprintf("mkdir -p '%s'", dir);
	if (system(cmd) != 0)
		diag("%s failed", cmd);
	f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
	free(cmd);
	free(dir);
	free(path);
}

#endif /* GX_FAKE_SYSFS_H */
