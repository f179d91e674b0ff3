/* Number parsing on top of strtoull/strtod, which alone would accept
 * " 12", "-1" (as a huge unsigned value), "12abc", "inf" and, from strtod,
 * hexadecimal ("0x10" as 16). */
#include "lib/parse.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!s || !isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

int parse_double(const char *s, double min, double max, double *out)
{
	char *end;
	double v;

	if (!s || !(isdigit((unsigned char)*s) || *s == '.') ||
	    s[strspn(s, "0123456789.eE+-")] != '\0')
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || !isfinite(v) || v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

int parse_duration(const char *s, double max_s, int zero_ok, unsigned *ms)
{
	double v;

	if (parse_double(s, 0, max_s, &v) < 0)
		return -EINVAL;
	*ms = (unsigned)(v * 1000 + 0.5);
	return *ms || zero_ok ? 0 : -EINVAL;
}
