/* The end of every test binary's main(): run the suite in fork mode (a test
 * that crashes or times out fails alone), print Check's summary, and exit
 * non-zero on any failure. */
#ifndef REVHASH_CHECK_RUN_H
#define REVHASH_CHECK_RUN_H

#include <check.h>
#include <stdlib.h>

static inline int check_run(Suite *s)
{
	SRunner *r = srunner_create(s);
	int failed;

	srunner_set_fork_status(r, CK_FORK);
	srunner_run_all(r, CK_NORMAL);
	failed = srunner_ntests_failed(r);
	srunner_free(r);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

#endif
