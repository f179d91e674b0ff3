/* One line per event worth knowing, to stderr, with a UTC timestamp, the
 * process and a level. Workers use it too (they inherit the level). */
#ifndef REVHASH_LOG_H
#define REVHASH_LOG_H

#include <stdint.h>

enum log_level { LL_ERROR = 0, LL_WARN, LL_INFO, LL_DEBUG };

/* Messages above level are dropped (default LL_INFO). */
void log_set_level(enum log_level level);
/* printf-style message at level. */
void log_msg(enum log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* An event that may repeat fast (accept errors, lies): a line for it at
 * most once a second. */
struct log_every {
	uint64_t ms;    /* when the last line was due */
	uint64_t count; /* events since */
};
/* Count one event; the events to report since the last line when a line
 * is due now (at most once a second), else 0. */
uint64_t log_every_due(struct log_every *e);

#define log_error(...) log_msg(LL_ERROR, __VA_ARGS__)
#define log_warn(...) log_msg(LL_WARN, __VA_ARGS__)
#define log_info(...) log_msg(LL_INFO, __VA_ARGS__)
#define log_debug(...) log_msg(LL_DEBUG, __VA_ARGS__)

#endif
