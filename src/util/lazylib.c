/*
 * lazylib.c: a shared library opened the first time it is needed (util.h).
 * Loading a library costs every command its mapping, relocations and page
 * faults (libdw with liblzma and libbz2, libunwind, ncursesw with libtinfo:
 * a fifth of a record of /bin/true, which needs none of them), so the
 * modules that use one declare its functions through a table and open it
 * where their work starts, with an error the caller can print.
 */
#include "config.h"

#include "util/util.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>

static pthread_mutex_t lazylib_lock = PTHREAD_MUTEX_INITIALIZER;

int gx_lazylib__open(struct gx_lazylib *l, char **cause)
{
	void *h;
	size_t i;
	int err = 0;

	pthread_mutex_lock(&lazylib_lock);
	if (l->handle)
		goto out;
	h = dlopen(l->soname, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		const char *why = dlerror();

		err = gx_fail(cause, GX_E_NOTSUP, "cannot load %s (%s): install the Debian package %s",
			      l->soname, why ? why : "not found", l->package);
		goto out;
	}
	for (i = 0; i < l->nr; i++) {
		l->fns[i] = dlsym(h, l->names[i]);
		if (!l->fns[i]) {
			err = gx_fail(cause, GX_E_NOTSUP, "%s has no %s: not the version gexplore "
				      "was built with (install the Debian package %s)",
				      l->soname, l->names[i], l->package);
			dlclose(h);
			goto out;
		}
	}
	l->handle = h;
out:
	pthread_mutex_unlock(&lazylib_lock);
	return err;
}

