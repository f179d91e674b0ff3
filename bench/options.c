/* The checks revhash-bench's modes share (see options.h), through
 * lib/parse.c: an option's argument is refused here, naming it; a word is
 * refused by the mode that reads it, which knows what it wanted. */
#include "bench/options.h"
#include "lib/parse.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>

int options_complain(const char *fmt, ...)
{
	va_list ap;

	fputs("revhash-bench: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -EINVAL;
}

int options_rate(const char *arg, void *rate)
{
	if (parse_double(arg, 0, HUGE_VAL, rate) || *(double *)rate == 0)
		return options_complain("--rate: hashes per second, a number above 0");
	return 0;
}

int options_host(char *const words[2], struct options_host *h)
{
	uint64_t port;

	h->host = words[0];
	h->port = words[1];
	return parse_u64(words[1], 1, 65535, &port);
}

int options_workload(char *const words[7], struct wl_params *w)
{
	uint64_t rep;

	if (parse_u64(words[0], 0, UINT32_MAX, &w->seed) ||
	    parse_u64(words[1], 1, UINT64_MAX, &w->total) ||
	    parse_u64(words[2], 0, UINT64_MAX, &w->start) ||
	    parse_u64(words[3], 0, UINT64_MAX, &w->difficulty) ||
	    parse_u64(words[4], 0, 100, &rep) ||
	    parse_u64(words[5], 0, UINT64_MAX, &w->delay_us) ||
	    parse_double(words[6], 0, HUGE_VAL, &w->lambda))
		return -EINVAL;
	/* Deadlines are int64 nanoseconds from t0: keep them far from wrap. */
	if (w->delay_us && w->total > (uint64_t)INT64_MAX / 2000 / w->delay_us)
		return -EINVAL;
	w->rep = (unsigned)rep;
	if (wl_check(w)) {
		options_complain("DIFFICULTY must be 1 .. 2^64-3 and START + DIFFICULTY "
				 "below 2^64");
		return -ERANGE;
	}
	return 0;
}
