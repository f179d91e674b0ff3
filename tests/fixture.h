/* The master under test as the end-to-end suites drive it: one per test,
 * started by start() (the test aborts when it does not come up), stopped
 * by stop(), which asserts a clean stop and dumps the master's log when
 * there was none, and read by stats_now(). Included by a test file, once. */
#ifndef REVHASH_TESTS_FIXTURE_H
#define REVHASH_TESTS_FIXTURE_H

#include "tests/helpers.h"

#include <check.h>

static struct tmaster m;

/* env: extra environment ("NAME=value") or NULL; args: after the port. */
static void start(const char *env, const char *const *args)
{
	if (tm_start(&m, env, args) != 0)
		ck_abort_msg("master did not start");
}

static void stop(void)
{
	int rc = tm_stop(&m);

	if (rc != 0)
		tm_dump_log(&m);
	ck_assert_int_eq(rc, 0);
}

/* The master's counters now. */
static inline struct seg_stats stats_now(void)
{
	struct seg_stats st;

	ck_assert_int_eq(tm_stats(&m, &st), 0);
	return st;
}

#endif
