/* The table of worker kinds (see kind.h): data alone. The CPU kind is
 * forked and runs the worker loop in the master's image; its leases are
 * 2 ms of its rate, short enough that a more urgent job is taken up within
 * milliseconds, long enough that the two lock round trips per lease cost
 * well under 1%, and no less than 0.1 ms (a lease costs about 1 us). The
 * GPU kind is revhash-gpu, exec'd once for each device; a launch costs
 * more than a lease, so its leases are longer. Its time is the wall
 * clock's while it waits on the device. */
#include "worker/kind.h"

#include <string.h>

static const struct worker_kind kinds[] = {
	{
		.name = "cpu",
		.lease_ns = 2000000,
		.min_lease_ns = 100000,
	},
	{
		.name = "gpu",
		.count_key = "gpus",
		.count_help = "GPU workers the master runs, one per device found or named",
		.binary = "revhash-gpu",
		.help = "a GPU worker on every CUDA device (auto, the default:\n"
			"none found = CPUs only), none (off), or on the devices\n"
			"listed (0,1: each must be there)",
		.lease_ns = 4000000,
		.min_lease_ns = 500000,
		.wall_clock = 1,
	},
};

#define NKINDS (sizeof kinds / sizeof kinds[0])
_Static_assert(NKINDS <= KINDS_MAX, "room for every kind (KINDS_MAX)");

unsigned kind_count(void)
{
	return NKINDS;
}

const struct worker_kind *kind_at(unsigned i)
{
	return i < NKINDS ? &kinds[i] : NULL;
}

const struct worker_kind *kind_named(const char *name)
{
	for (size_t i = 0; i < NKINDS; i++)
		if (strcmp(kinds[i].name, name) == 0)
			return &kinds[i];
	return NULL;
}

int kind_spec_valid(const char *spec)
{
	size_t n = strlen(spec);
	unsigned seen = 0;

	if (strcmp(spec, "auto") == 0 || strcmp(spec, "off") == 0)
		return 1;
	for (size_t i = 0; i < n; i++) {
		if (i % 2 ? spec[i] != ',' : spec[i] < '0' || spec[i] >= '0' + KIND_UNITS_MAX ||
					     seen >> (spec[i] - '0') & 1)
			return 0;
		if (i % 2 == 0)
			seen |= 1u << (spec[i] - '0');
	}
	return n % 2 == 1;
}
