/* The end of every test binary's main(): choose the run's random seed, run
 * the suite in fork mode (a test that crashes or times out fails alone),
 * print Check's summary, and exit non-zero on any failure.
 *
 * The seed is chosen once, here in the parent, and left in the environment
 * as TH_SEED, so every forked test (th_rand64(), the stress loops) starts
 * from it: a failed run prints it, and TH_SEED=S replays that run. */
#ifndef REVHASH_CHECK_RUN_H
#define REVHASH_CHECK_RUN_H

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* The run's seed: $TH_SEED when set, else the clock's nanoseconds, which
 * it then sets as $TH_SEED for the tests and the processes they start. */
static inline uint64_t th_seed(void)
{
	const char *env = getenv("TH_SEED");
	struct timespec ts;
	char text[24];
	uint64_t seed;

	if (env && *env)
		return strtoull(env, NULL, 0);
	clock_gettime(CLOCK_REALTIME, &ts);
	seed = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	snprintf(text, sizeof text, "%llu", (unsigned long long)seed);
	setenv("TH_SEED", text, 1);
	return seed;
}

static inline int check_run(Suite *s)
{
	uint64_t seed = th_seed();
	SRunner *r = srunner_create(s);
	int failed;

	fprintf(stderr, "seed %llu (TH_SEED=%llu replays this run)\n",
		(unsigned long long)seed, (unsigned long long)seed);
	srunner_set_fork_status(r, CK_FORK);
	srunner_run_all(r, CK_NORMAL);
	failed = srunner_ntests_failed(r);
	srunner_free(r);
	if (failed)
		printf("seed %llu (TH_SEED=%llu replays this run)\n",
		       (unsigned long long)seed, (unsigned long long)seed);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

#endif
