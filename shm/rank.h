/* The order in which jobs get the workers, written once: the ring ranks its
 * jobs with it, the master ranks parked jobs with it, and the ideal-server
 * simulation (bench/simulate.c) calls the very same function, so the ideal
 * a run is measured against can never drift from what the server does.
 *
 * Orders:
 *   wsrpt     weight / remaining range, highest first: weighted shortest
 *             remaining work, the optimal order for mean(latency x priority)
 *             when answers are uniform in their ranges (the default);
 *   priority  highest weight first;
 *   fifo      oldest first.
 * Ties always go to the older job. Without preemption a job that has
 * started outranks every job that has not, so it keeps the workers until it
 * ends (run to completion). */
#ifndef REVHASH_RANK_H
#define REVHASH_RANK_H

#include <getopt.h>
#include <stdint.h>
#include <string.h>

enum rank_order { RANK_WSRPT = 0, RANK_PRIORITY, RANK_FIFO };

/* The most weight the connections of one peer can give one job: that of a
 * single most urgent request. Stacking many connections on one search thus
 * buys nothing a single request could not (see master/jobs.c). */
#define RANK_PEER_WEIGHT_MAX 16

/* How the workers are shared among jobs; lives in the segment. */
struct rank_policy {
	uint32_t order;   /* enum rank_order */
	uint32_t preempt; /* a better job takes the workers at the next chunk */
	uint32_t split;   /* several workers may hash one job at once */
	uint32_t pad;
};

/* What the order looks at in a job. */
struct rank_key {
	uint64_t weight;             /* the sum of the priorities waiting on it */
	unsigned __int128 remaining; /* values still to hash: up to 2^64 */
	uint64_t seq;                /* arrival order: lower is older */
	uint32_t started;            /* some worker has hashed part of it */
};

/* The default: wsrpt, preemptive, split. */
static inline struct rank_policy rank_default(void)
{
	return (struct rank_policy){ RANK_WSRPT, 1, 1, 0 };
}

/* Does job a go before job b under policy p? A strict order: never both. */
static inline int rank_outranks(const struct rank_policy *p,
				const struct rank_key *a,
				const struct rank_key *b)
{
	if (!p->preempt && a->started != b->started)
		return a->started > b->started;
	if (p->order == RANK_WSRPT) {
		/* a->weight / a->remaining > b->weight / b->remaining, without
		 * division: weights stay below 2^32, so each product fits. */
		unsigned __int128 lhs = a->remaining * b->weight;
		unsigned __int128 rhs = b->remaining * a->weight;

		if (lhs != rhs)
			return lhs < rhs;
	} else if (p->order == RANK_PRIORITY && a->weight != b->weight) {
		return a->weight > b->weight;
	}
	return a->seq < b->seq;
}

/* The name of an order ("wsrpt", "priority", "fifo"). */
static inline const char *rank_order_name(uint32_t order)
{
	static const char *const names[] = { "wsrpt", "priority", "fifo" };

	return order < 3 ? names[order] : "?";
}

/* The order named s into *order. 0, or -1 for no such name. */
static inline int rank_order_parse(const char *s, uint32_t *order)
{
	for (uint32_t i = RANK_WSRPT; i <= RANK_FIFO; i++) {
		if (strcmp(s, rank_order_name(i)) == 0) {
			*order = i;
			return 0;
		}
	}
	return -1;
}

/* The switches that choose a policy, for a getopt_long table: the
 * master's, and revhash-bench's to describe the server under test. */
#define RANK_POLICY_OPTIONS                                                  \
	{ "schedule", required_argument, NULL, RANK_OPT_SCHEDULE },          \
	{ "no-preempt", no_argument, NULL, RANK_OPT_NO_PREEMPT },            \
	{ "no-split", no_argument, NULL, RANK_OPT_NO_SPLIT }
enum { RANK_OPT_SCHEDULE = 0x100, RANK_OPT_NO_PREEMPT, RANK_OPT_NO_SPLIT };

/* Apply policy switch c (with its argument) to p: 1 when c is one of
 * them, 0 when it is not, -1 for an order with no such name. */
static inline int rank_policy_option(int c, const char *arg, struct rank_policy *p)
{
	switch (c) {
	case RANK_OPT_SCHEDULE:
		return rank_order_parse(arg, &p->order) < 0 ? -1 : 1;
	case RANK_OPT_NO_PREEMPT:
		p->preempt = 0;
		return 1;
	case RANK_OPT_NO_SPLIT:
		p->split = 0;
		return 1;
	}
	return 0;
}

#endif
