/* Strict parsing of the numbers users type, for the master's options and
 * config file and for revhash-bench alike: the whole string must be the
 * number, with no sign, space or trailing text, and inside its bounds. */
#ifndef REVHASH_PARSE_H
#define REVHASH_PARSE_H

#include <stdint.h>

/* A decimal integer in [min, max] into *out. 0 or -EINVAL. */
int parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);
/* A finite decimal number in [min, max] into *out. 0 or -EINVAL. */
int parse_double(const char *s, double min, double max, double *out);
/* Seconds (fractions allowed, 0 to max_s) into whole milliseconds, which
 * must be at least 1 unless zero_ok. 0 or -EINVAL. */
int parse_duration(const char *s, double max_s, int zero_ok, unsigned *ms);
#endif
