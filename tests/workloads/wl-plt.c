/*
 * wl-plt: a hot loop of calls through the PLT (strlen of a short string),
 * so a good share of the samples land in the PLT stub itself.
 *
 *	wl-plt ITERATIONS
 */
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100000000L;
	const char *volatile s = "x";
	volatile size_t sum = 0;

	for (long i = 0; i < n; i++)
		sum += strlen(s);
	return (int)(sum & 1);
}
