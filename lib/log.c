/* Timestamped log lines. Each line is built in one buffer and written with a
 * single write(2), so lines from the master and its workers never interleave. */
#include "lib/log.h"
#include "lib/clock.h"

#include <stdarg.h>
#include <stdio.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static enum log_level current = LL_INFO;
static const char *const names[] = { "error", "warn", "info", "debug" };

void log_set_level(enum log_level level)
{
	current = level;
}

void log_msg(enum log_level level, const char *fmt, ...)
{
	char line[1024];
	struct timespec ts;
	struct tm tm;
	va_list ap;
	int n;

	if (level > current)
		return;
	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	n = snprintf(line, sizeof line, "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ [%d] %s: ",
		     tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
		     tm.tm_min, tm.tm_sec, ts.tv_nsec / 1000000, (int)getpid(),
		     names[level]);
	va_start(ap, fmt);
	n += vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
	va_end(ap);
	if (n > (int)sizeof line - 2)
		n = (int)sizeof line - 2;
	line[n++] = '\n';
	if (write(STDERR_FILENO, line, (size_t)n) < 0) {
		/* Nowhere left to report it. */
	}
}

uint64_t log_every_due(struct log_every *e)
{
	uint64_t now = clock_ms(), n;

	e->count++;
	if (now - e->ms < 1000)
		return 0;
	n = e->count;
	e->ms = now;
	e->count = 0;
	return n;
}
