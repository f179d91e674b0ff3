/* What gpu-check's checks and measurements share (see gpu_check.h): the
 * scales a run may take, and how a difference is counted and shown. The
 * first few differences are printed with the variant and the device's
 * last error; the rest are only counted, so that one broken variant does
 * not bury the report. */
#include "bench/gpu/gpu_check.h"

#include <stdio.h>
#include <string.h>

#define MAX_REPORTS 10

static const struct check_scale scales[] = {
	/* A device: edges of 2^28, random ranges up to 4M (one in a hundred
	 * up to 2^28), stops 20 ms in (about 2^28 values), about 8 false
	 * candidates in 2^35 values; rates over searches of 2^33; answers
	 * in ranges of 30M, the course's requests. */
	{ "full", UINT64_C(1) << 28, UINT64_C(1) << 22, UINT64_C(1) << 28, 20000000L, 34,
	  UINT64_C(1) << 35, UINT64_C(1) << 33, 2000, 100, 30000000, 30 },
	/* A short run: every case kind, small. */
	{ "quick", UINT64_C(1) << 14, UINT64_C(1) << 10, UINT64_C(1) << 14, 2000000L, 19,
	  0, UINT64_C(1) << 20, 100, 10, 100000, 3 },
};

const struct check_scale *check_scale_named(const char *name)
{
	for (size_t i = 0; i < sizeof scales / sizeof scales[0]; i++)
		if (strcmp(scales[i].name, name) == 0)
			return &scales[i];
	return NULL;
}

void check_fail(struct check_run *run, const char *part, const char *why)
{
	if (run->failures++ >= MAX_REPORTS)
		return;
	printf("FAIL %s (%s): %s\n", part, gpu_variant_name(gpu_variant(run->dev)), why);
	if (*gpu_error(run->dev))
		printf("  device: %s\n", gpu_error(run->dev));
}
