/* Strict parsing of the numbers users type, for the master's options and
 * config file and for revhash-bench alike: the whole string must be the
 * number, with no sign, space or trailing text, and inside its bounds. */
#ifndef REVHASH_PARSE_H
#define REVHASH_PARSE_H

#include <getopt.h>
#include <stdint.h>

#include "shm/rank.h"

/* A decimal integer in [min, max] into *out. 0 or -EINVAL. */
int parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);
/* A finite decimal number in [min, max] into *out. 0 or -EINVAL. */
int parse_double(const char *s, double min, double max, double *out);
/* The switches that choose a scheduling policy, for a getopt_long table:
 * the master's, and revhash-bench's to describe the server under test. */
#define PARSE_POLICY_OPTIONS                                                 \
	{ "schedule", required_argument, NULL, PARSE_OPT_SCHEDULE },         \
	{ "no-preempt", no_argument, NULL, PARSE_OPT_NO_PREEMPT },           \
	{ "no-split", no_argument, NULL, PARSE_OPT_NO_SPLIT }
enum { PARSE_OPT_SCHEDULE = 0x100, PARSE_OPT_NO_PREEMPT, PARSE_OPT_NO_SPLIT };

/* Apply policy switch c (with its argument) to p. 1 when c is one of them,
 * 0 when it is not, -EINVAL for a bad argument. */
int parse_policy_option(int c, const char *arg, struct rank_policy *p);

/* The CPUs this process may run on (its affinity mask), at least 1: what
 * a worker count of `auto` means. */
unsigned parse_cpus(void);
/* Seconds (fractions allowed, 0 to max_s) into whole milliseconds, which
 * must be at least 1 unless zero_ok. 0 or -EINVAL. */
int parse_duration(const char *s, double max_s, int zero_ok, unsigned *ms);
/* A duration of at most a day, at least 1 ms: parse_duration(s, 86400, 0). */
int parse_seconds(const char *s, unsigned *ms);

#endif
