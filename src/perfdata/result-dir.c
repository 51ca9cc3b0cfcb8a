/*
 * The result directory: gx001, gx002, ... (like VTune's r000ge), or the
 * directory -o names. Commands that read a result default to the newest.
 */
#include "config.h"

#include "perfdata.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/util.h"

/* The number N of a name "gxNNN" (three or more digits), or -1. */
static long result_number(const char *name)
{
	char *end;
	long n;

	if (strncmp(name, "gx", 2) != 0 || strlen(name) < 5)
		return -1;
	for (const char *p = name + 2; *p; p++)
		if (*p < '0' || *p > '9')
			return -1;
	n = strtol(name + 2, &end, 10);
	return *end ? -1 : n;
}

/* Highest gxNNN number under parent (0 when none), and its name. */
static long newest_result(const char *parent, char **name_out)
{
	DIR *d = opendir(parent);
	struct dirent *de;
	long best = 0;

	if (name_out)
		*name_out = NULL;
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		long n = result_number(de->d_name);

		if (n > best) {
			best = n;
			if (name_out) {
				free(*name_out);
				*name_out = xstrdup(de->d_name);
			}
		}
	}
	closedir(d);
	return best;
}

static bool dir_is_empty(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *de;
	bool empty = true;

	if (!d)
		return false;
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
			empty = false;
			break;
		}
	closedir(d);
	return empty;
}

int pd_result_dir__create(const char *dir, const char *parent, char **path_out, char **cause)
{
	char *path;

	*path_out = NULL;
	if (dir) {
		if (mkdir(dir, 0777) != 0) {
			if (errno != EEXIST)
				return gx_fail(cause, -errno, "cannot create result directory %s: %s",
					       dir, strerror(errno));
			if (!dir_is_empty(dir))
				return gx_fail(cause, -EEXIST,
					       "result directory %s exists and is not empty; "
					       "remove it or name another with -o", dir);
		}
		*path_out = xstrdup(dir);
		return 0;
	}
	if (!parent)
		parent = ".";
	/* Next free number; mkdir's EEXIST settles a race with another run. */
	for (long n = newest_result(parent, NULL) + 1;; n++) {
		path = strcmp(parent, ".") ? xasprintf("%s/gx%03ld", parent, n)
					   : xasprintf("gx%03ld", n);
		if (mkdir(path, 0777) == 0) {
			*path_out = path;
			return 0;
		}
		free(path);
		if (errno != EEXIST)
			return gx_fail(cause, -errno, "cannot create a result directory in %s: %s",
				       parent, strerror(errno));
	}
}

int pd_result_dir__resolve(const char *arg, const char *parent, char **dir_out, char **data_out,
		       char **cause)
{
	struct stat st;
	char *name;

	*dir_out = *data_out = NULL;
	if (!parent)
		parent = ".";
	if (!arg) {
		if (!newest_result(parent, &name))
			return gx_fail(cause, -ENOENT,
				       "no result in %s (gx001, gx002, ...): record one with "
				       "'gexplore record -- CMD', or name a result or a perf.data file",
				       strcmp(parent, ".") ? parent : "the current directory");
		*dir_out = strcmp(parent, ".") ? xasprintf("%s/%s", parent, name) : xstrdup(name);
		free(name);
		*data_out = xasprintf("%s/perf.data", *dir_out);
		return 0;
	}
	if (strcmp(arg, "-") == 0) {	/* perf.data in pipe mode on stdin */
		*data_out = xstrdup("-");
		return 0;
	}
	if (stat(arg, &st) != 0)
		return gx_fail(cause, -errno, "%s: %s", arg, strerror(errno));
	if (S_ISDIR(st.st_mode)) {
		*dir_out = xstrdup(arg);
		*data_out = xasprintf("%s/perf.data", arg);
		if (access(*data_out, F_OK) != 0) {
			int err = gx_fail(cause, -ENOENT, "%s: not a gexplore result (no perf.data in it)",
					  arg);

			free(*dir_out);
			free(*data_out);
			*dir_out = *data_out = NULL;
			return err;
		}
		return 0;
	}
	*data_out = xstrdup(arg);
	return 0;
}
