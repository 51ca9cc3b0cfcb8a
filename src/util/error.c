#include "config.h"

#include "util.h"

#include <stdlib.h>
#include <string.h>

const char *gx_strerror(int err)
{
	static const char *const texts[] = {
#define GX_ERR_TEXT(name, text) text,
		GX_ERRORS(GX_ERR_TEXT)
#undef GX_ERR_TEXT
	};

	if (err > GX_E_BASE_ && err < GX_E_LAST_)
		return texts[err - GX_E_BASE_ - 1];
	if (err < 0 && err > -4096)
		return strerror(-err);
	return "unknown error";
}

int gx_fail(char **cause, int err, const char *fmt, ...)
{
	va_list ap;

	if (!cause)
		return err;
	free(*cause);
	va_start(ap, fmt);
	*cause = xvasprintf(fmt, ap);
	va_end(ap);
	return err;
}
