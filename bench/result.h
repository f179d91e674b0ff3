/* What became of one replayed request, as measured or as read back from a
 * run's CSV (bench/runcsv.c). */
#ifndef REVHASH_BENCH_RESULT_H
#define REVHASH_BENCH_RESULT_H

#include <stdint.h>

enum outcome { OUT_OK, OUT_WRONG, OUT_MISSING };

struct result {
	int64_t send_ns;    /* relative to t0 */
	int64_t latency_ns;
	uint64_t reply;
	enum outcome outcome;
	int err;            /* why it is missing, as a negative errno */
};

#endif
