/* The scheduling policy (see policy.h): the order table, the rules and the
 * piece sizing. Everything here is a pure function of its arguments, so
 * the ring, the master and the simulation can all call it, and a test can
 * feed it numbers worked out by hand (tests/check_policy.c).
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
#include "shm/policy.h"

#include <stdio.h>
#include <string.h>

/* A job shared among the workers goes out in pieces of at most
 * 1/SPLIT_ROUNDS of its range for all of them together (see
 * policy_lease_size); a worker SPLIT_ROUNDS times slower than the fastest
 * leaves a small job to it. */
#define SPLIT_ROUNDS 16

/* ---- the orders ---------------------------------------------------------- */

/* > 0: a goes first, < 0: b does, 0: a tie (the older goes first). */
typedef int (*order_fn)(const struct rank *a, const struct rank *b);

static int by_weight_over_remaining(const struct rank *a, const struct rank *b)
{
	/* a->weight / a->remaining > b->weight / b->remaining, without
	 * division: a weight is below 2^64 and a remaining at most 2^64, so
	 * each product fits in 128 bits. */
	unsigned __int128 lhs = a->remaining * b->weight;
	unsigned __int128 rhs = b->remaining * a->weight;

	return (lhs < rhs) - (lhs > rhs);
}

static int by_weight(const struct rank *a, const struct rank *b)
{
	return (a->weight > b->weight) - (a->weight < b->weight);
}

static int by_age(const struct rank *a, const struct rank *b)
{
	(void)a;
	(void)b;
	return 0; /* the tie rule: the older first */
}

static const struct order {
	const char *name, *help;
	order_fn first;
} orders[] = {
	[POLICY_WSRPT] = { "wsrpt", "highest priority / remaining range (the default)",
			   by_weight_over_remaining },
	[POLICY_PRIORITY] = { "priority", "highest priority, then oldest", by_weight },
	[POLICY_FIFO] = { "fifo", "oldest first", by_age },
};

#define NORDERS (sizeof orders / sizeof orders[0])

unsigned policy_orders(void)
{
	return NORDERS;
}

const char *policy_order_name(uint32_t order)
{
	return order < NORDERS ? orders[order].name : "?";
}

const char *policy_order_help(uint32_t order)
{
	return order < NORDERS ? orders[order].help : "?";
}

int policy_order_parse(const char *s, uint32_t *order)
{
	for (uint32_t i = 0; i < NORDERS; i++) {
		if (strcmp(s, orders[i].name) == 0) {
			*order = i;
			return 0;
		}
	}
	return -1;
}

const char *policy_order_list(char *buf, size_t size)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < NORDERS && used < size; i++)
		used += (size_t)snprintf(buf + used, size - used, "%s%s", i ? ", " : "",
					 orders[i].name);
	return buf;
}

/* ---- the rules ------------------------------------------------------------ */

static const struct rule {
	uint32_t bit;
	const char *key;     /* in --status and its JSON */
	const char *on, *off; /* in words */
	const char *option;  /* the switch that turns it off */
	const char *help;
	const char *state;   /* "1 when ...": its key's value in a sentence */
	int ideal;           /* the ideal server (bench/simulate.c) follows
	                        it: sim_best tries it on and off */
} rules[] = {
	{ POLICY_PREEMPT, "preempt", "preemptive", "run to completion", "no-preempt",
	  "a started job keeps the workers until it ends",
	  "1 when a job that outranks the ones hashed stops them (0: --no-preempt)", 1 },
	{ POLICY_SPLIT, "split", "split", "no split", "no-split",
	  "one worker per job (a classic pool)",
	  "1 when several workers may hash one job at once (0: --no-split)", 1 },
};

#define NRULES (sizeof rules / sizeof rules[0])

struct policy policy_default(void)
{
	struct policy p = { POLICY_WSRPT, 0 };

	for (size_t i = 0; i < NRULES; i++)
		p.rules |= rules[i].bit;
	return p;
}

int policy_has(const struct policy *p, uint32_t rule)
{
	return (p->rules & rule) != 0;
}

unsigned policy_rules(void)
{
	return NRULES;
}

const char *policy_rule_key(unsigned i)
{
	return i < NRULES ? rules[i].key : "?";
}

const char *policy_rule_state(unsigned i)
{
	return i < NRULES ? rules[i].state : "?";
}

int policy_rule_on(const struct policy *p, unsigned i)
{
	return i < NRULES && policy_has(p, rules[i].bit);
}

const char *policy_rule_switch(unsigned i)
{
	return i < NRULES ? rules[i].option : "?";
}

const char *policy_rule_help(unsigned i)
{
	return i < NRULES ? rules[i].help : "?";
}

void policy_rule_off(struct policy *p, unsigned i)
{
	if (i < NRULES)
		p->rules &= ~rules[i].bit;
}

const char *policy_describe(const struct policy *p, char *buf, size_t size)
{
	size_t used = (size_t)snprintf(buf, size, "%s", policy_order_name(p->order));

	for (size_t i = 0; i < NRULES && used < size; i++)
		used += (size_t)snprintf(buf + used, size - used, ", %s",
					 policy_has(p, rules[i].bit) ? rules[i].on : rules[i].off);
	return buf;
}

/* The rules the ideal follows. */
static unsigned ideal_rules(void)
{
	unsigned n = 0;

	for (size_t r = 0; r < NRULES; r++)
		n += rules[r].ideal != 0;
	return n;
}

unsigned policy_variants(void)
{
	return (unsigned)NORDERS << ideal_rules();
}

/* Orders outermost; within one, every rule the ideal follows on before
 * off, the first rule changing slowest (the ties of sim_best go to the
 * default's side); the other rules stay as the default has them. */
struct policy policy_variant(unsigned i)
{
	unsigned k = ideal_rules(), combo = i & ((1u << k) - 1), bit = k;
	struct policy p = policy_default();

	p.order = (uint32_t)(i >> k) % NORDERS;
	for (size_t r = 0; r < NRULES; r++) {
		if (!rules[r].ideal)
			continue;
		bit--;
		if (combo >> bit & 1)
			p.rules &= ~rules[r].bit;
		else
			p.rules |= rules[r].bit;
	}
	return p;
}

/* ---- the decisions -------------------------------------------------------- */

struct rank policy_rank(uint64_t weight, unsigned __int128 remaining, uint64_t seq,
			int started)
{
	return (struct rank){ .weight = weight, .remaining = remaining, .seq = seq,
			      .started = started != 0 };
}

uint64_t policy_peer_part(uint64_t sum)
{
	return sum < POLICY_PEER_WEIGHT_MAX ? sum : POLICY_PEER_WEIGHT_MAX;
}

int policy_outranks(const struct policy *p, const struct rank *a,
		    const struct rank *b)
{
	int c;

	if (!policy_has(p, POLICY_PREEMPT) && a->started != b->started)
		return a->started > b->started;
	c = orders[p->order < NORDERS ? p->order : POLICY_WSRPT].first(a, b);
	return c ? c > 0 : a->seq < b->seq;
}

int policy_preempts(const struct policy *p, const struct rank *better,
		    const struct rank *running)
{
	return policy_has(p, POLICY_PREEMPT) && policy_outranks(p, better, running);
}

int policy_shares_jobs(const struct policy *p)
{
	return policy_has(p, POLICY_SPLIT);
}

int policy_keeps_job(const struct policy *p)
{
	return !policy_has(p, POLICY_PREEMPT);
}

int policy_leasable(const struct policy *p, unsigned nleases)
{
	return nleases == 0 || policy_shares_jobs(p);
}

/* chunk, cut down to limit where that is smaller, but not below min_chunk. */
static unsigned __int128 cut(unsigned __int128 chunk, unsigned __int128 limit,
			     uint64_t min_chunk)
{
	if (limit >= chunk)
		return chunk;
	return limit > min_chunk ? limit : min_chunk;
}

/* The size of the next lease of a job for a worker: its chunk (about 2 ms
 * of its own rate), or less when the job is shared among the live workers,
 * each by its rate (never below min_chunk, nor 1); 0 when the worker had
 * better leave the job to the others:
 *  - a job goes out in pieces of at most 1/SPLIT_ROUNDS of its range for
 *    all the workers together, each worker's piece by its share of their
 *    rate (unless that is below min_chunk), so they sweep the range side
 *    by side, close to the order of one worker as fast as all of them. In
 *    halves, an answer near the end of the first half came as late as if
 *    one worker hashed the whole; the mean is the same, but a request's
 *    latency (and a run's score) then depends on where its answer lies;
 *  - its tail is shared by expected finish time: each worker's share of
 *    the work, counting what those on the job have left of their leases,
 *    is by its rate, so that they end together; a tail less than a piece
 *    each is shared with the worker about to finish its last piece instead
 *    of going whole to the first one back;
 *  - a worker whose piece would end after the others could have hashed
 *    all the work without it, while a worker at least SPLIT_ROUNDS times
 *    as fast is there to take it (a CPU beside a GPU a hundred times as
 *    fast, on a small job), leaves the job to them: its piece would hold
 *    the job up. The fastest worker never leaves a job, nor do equals;
 *  - that fast worker, at least SPLIT_ROUNDS times as fast as each of the
 *    others, is not held to pieces: the others leave it the small jobs,
 *    and on the device's first run its pieces of a 30M job (1/16 each)
 *    went out one lease after another, each with a launch's and a lease's
 *    cost, 2.7 ms at the median where the job took 0.9 ms of hashing. It
 *    takes its chunk, which sweeps its range in order as the pieces
 *    would. */
uint64_t policy_lease_size(const struct policy *p, const struct lease_ask *a)
{
	uint64_t chunk = a->chunk ? a->chunk : 1, min_chunk = a->min_chunk ? a->min_chunk : 1;
	unsigned __int128 piece, share, size;

	if (!policy_shares_jobs(p) || a->workers < 2 || !a->all)
		return chunk;
	if (a->fastest_other && a->fastest_other <= a->mine / SPLIT_ROUNDS)
		return a->left < chunk ? (uint64_t)a->left : chunk;
	piece = a->span * a->mine / (a->all * SPLIT_ROUNDS);
	share = (a->work * a->mine + a->all - 1) / a->all;
	size = cut(cut(chunk, piece, min_chunk), share, min_chunk);
	if (size > a->left)
		size = a->left;
	if (a->fastest / SPLIT_ROUNDS >= a->mine &&
	    size * (a->all - a->mine) > a->work * a->mine)
		return 0;
	return (uint64_t)size;
}
