/* Number parsing on top of strtoull/strtod, which alone would accept
 * " 12", "-1" (as a huge unsigned value), "12abc" and "inf". */
#include "master/parse.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdlib.h>

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

	if (!s || !(isdigit((unsigned char)*s) || *s == '.'))
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || !isfinite(v) || v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

int parse_policy_option(int c, const char *arg, struct rank_policy *p)
{
	switch (c) {
	case PARSE_OPT_SCHEDULE:
		return rank_order_parse(arg, &p->order) < 0 ? -EINVAL : 1;
	case PARSE_OPT_NO_PREEMPT:
		p->preempt = 0;
		return 1;
	case PARSE_OPT_NO_SPLIT:
		p->split = 0;
		return 1;
	}
	return 0;
}

unsigned parse_cpus(void)
{
	cpu_set_t set;
	int n;

	if (sched_getaffinity(0, sizeof set, &set) < 0)
		return 1;
	n = CPU_COUNT(&set);
	return n > 0 ? (unsigned)n : 1;
}

int parse_duration(const char *s, double max_s, int zero_ok, unsigned *ms)
{
	double v;

	if (parse_double(s, 0, max_s, &v) < 0)
		return -EINVAL;
	*ms = (unsigned)(v * 1000 + 0.5);
	return *ms || zero_ok ? 0 : -EINVAL;
}

int parse_seconds(const char *s, unsigned *ms)
{
	return parse_duration(s, 86400, 0, ms);
}
