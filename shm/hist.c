/* Histograms of times (see hist.h): a time's bucket is a division by a
 * constant and a count of leading zeros, no loop over the bounds. */
#include "shm/hist.h"

unsigned hist_bucket(uint64_t ns)
{
	/* ns <= 2^i us exactly when ns in whole microseconds, rounded up, is */
	uint64_t us = ns / 1000 + (ns % 1000 != 0);
	unsigned i;

	if (us <= 1)
		return 0;
	i = 64 - (unsigned)__builtin_clzll(us - 1); /* the least i with 2^i >= us */
	return i < HIST_BOUNDS ? i : HIST_BOUNDS;
}

uint64_t hist_bound_ns(unsigned i)
{
	return UINT64_C(1000) << i;
}

void hist_add(struct seg_hist *h, uint64_t ns)
{
	shm_count(h->n[hist_bucket(ns)], 1);
	shm_count(h->sum_ns, ns);
}

uint64_t hist_count(const struct seg_hist *h)
{
	uint64_t n = 0;

	for (unsigned i = 0; i < HIST_BUCKETS; i++)
		n += h->n[i];
	return n;
}

uint64_t hist_at_most(const struct seg_hist *h, double q)
{
	uint64_t total = hist_count(h), seen = 0;

	if (!total)
		return 0;
	for (unsigned i = 0; i < HIST_BOUNDS; i++) {
		seen += h->n[i];
		if ((double)seen >= q * (double)total)
			return hist_bound_ns(i);
	}
	return UINT64_MAX;
}

void hist_reply(struct seg_latency *l, unsigned outcome, unsigned prio, uint64_t ns)
{
	if (outcome >= OUTCOME_COUNT)
		return;
	hist_add(&l->reply[outcome], ns);
	shm_count(l->score_ns, ns * prio);
}
