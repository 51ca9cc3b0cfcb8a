#include "config.h"

#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void oom(size_t n)
{
	/* The one place outside src/cmd allowed to end the process: there is
	 * nothing sensible a profiler can do without memory. */
	fprintf(stderr, "gexplore: out of memory (%zu bytes)\n", n);
	abort();
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		oom(n);
	return p;
}

void *xzalloc(size_t n)
{
	return xcalloc(1, n);
}

void *xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);

	if (!p)
		oom(nmemb * size);
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		oom(n);
	return p;
}

void gx_free_strv(char **v, size_t n)
{
	for (size_t i = 0; v && i < n; i++)
		free(v[i]);
	free(v);
}

void gx_free_each(void *const *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(p[i]);
}

void gx_strv_vaddf(char ***v, size_t *n, const char *fmt, va_list ap)
{
	*v = xrealloc(*v, (*n + 1) * sizeof(**v));
	(*v)[(*n)++] = xvasprintf(fmt, ap);
}

void gx_strv_addf(char ***v, size_t *n, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	gx_strv_vaddf(v, n, fmt, ap);
	va_end(ap);
}

void *xgrow(void *p, size_t *cap, size_t need, size_t elem)
{
	size_t c = *cap;

	if (need <= c)
		return p;
	if (c < 8)
		c = 8;
	while (c < need) {
		if (c > SIZE_MAX / 2 / elem)
			oom(SIZE_MAX);
		c *= 2;
	}
	*cap = c;
	return xrealloc(p, c * elem);
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *xvasprintf(const char *fmt, va_list ap)
{
	char *s;

	if (vasprintf(&s, fmt, ap) < 0)
		oom(0);
	return s;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	return s;
}
