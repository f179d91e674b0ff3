/* The scheduling policy (see policy.h): the order table, the rules and the
 * piece sizing, each a pure function of its arguments, which a test can
 * feed numbers worked out by hand. wsrpt is weighted shortest remaining
 * work, the optimal order for mean(latency x priority) when answers are
 * uniform in their ranges. Ties go to the older job; without preemption a
 * started job outranks every job not started (run to completion). */
#include "shm/policy.h"
#include "shm/policy_options.h"

#include <string.h>

/* Pieces of a shared job, and the ratio of rates past which a slow worker
 * leaves a job to a fast one (policy_lease_size). */
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

static const struct order {
	const char *name, *help;
	order_fn first; /* NULL: the tie rule alone */
} orders[] = {
	[POLICY_WSRPT] = { "wsrpt", "highest priority / remaining range",
			   by_weight_over_remaining },
	[POLICY_PRIORITY] = { "priority", "highest priority, then oldest", by_weight },
	[POLICY_FIFO] = { "fifo", "oldest first", NULL },
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

static const struct policy_rule rules[] = {
	{ POLICY_PREEMPT, "preempt", "preemptive", "run to completion", "no-preempt",
	  "a started job keeps the workers until it ends",
	  "1 when a job that outranks the ones hashed stops them (0: --no-preempt)" },
	{ POLICY_SPLIT, "split", "split", "no split", "no-split",
	  "one worker per job (a classic pool)",
	  "1 when several workers may hash one job at once (0: --no-split)" },
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

const struct policy_rule *policy_rule(unsigned i)
{
	return i < NRULES ? &rules[i] : NULL;
}

const char *policy_describe(const struct policy *p, char *buf, size_t size)
{
	size_t used = (size_t)snprintf(buf, size, "%s", policy_order_name(p->order));

	for (size_t i = 0; i < NRULES && used < size; i++)
		used += (size_t)snprintf(buf + used, size - used, ", %s",
					 policy_has(p, rules[i].bit) ? rules[i].on : rules[i].off);
	return buf;
}

/* ---- the switches --------------------------------------------------------- */

size_t policy_getopt(struct option *opts)
{
	size_t n = 0;

	opts[n++] = (struct option){ "schedule", required_argument, NULL, POLICY_OPT_BASE };
	for (unsigned i = 0; i < NRULES && n < POLICY_OPTIONS_MAX; i++)
		opts[n++] = (struct option){ rules[i].option, no_argument, NULL,
					     POLICY_OPT_BASE + 1 + (int)i };
	return n;
}

int policy_option(int c, const char *arg, struct policy *p)
{
	if (c == POLICY_OPT_BASE) {
		for (uint32_t i = 0; i < NORDERS; i++)
			if (strcmp(arg, orders[i].name) == 0) {
				p->order = i;
				return 1;
			}
		return -1;
	}
	if (c > POLICY_OPT_BASE && c <= POLICY_OPT_BASE + (int)NRULES) {
		p->rules &= ~rules[c - POLICY_OPT_BASE - 1].bit;
		return 1;
	}
	return 0;
}

void policy_help(FILE *out)
{
	fprintf(out, "  --schedule ORDER       which job gets the workers:");
	for (size_t i = 0; i < NORDERS; i++)
		fprintf(out, "\n                           %-9s %s%s", orders[i].name, orders[i].help,
			i == policy_default().order ? " (the default)" : "");
	fputc('\n', out);
	for (size_t i = 0; i < NRULES; i++)
		fprintf(out, "  --%-20s %s\n", rules[i].option, rules[i].help);
}

void policy_switches(FILE *out)
{
	for (size_t i = 0; i < NRULES; i++)
		fprintf(out, "--%s\n", rules[i].option);
}

unsigned policy_variants(void)
{
	return (unsigned)NORDERS << NRULES;
}

/* Orders outermost; within one, every rule on before off, the first rule
 * changing slowest (the ties of sim_best go to the default's side). */
struct policy policy_variant(unsigned i)
{
	struct policy p = policy_default();

	p.order = (uint32_t)(i >> NRULES) % NORDERS;
	for (size_t r = 0; r < NRULES; r++)
		if (i >> (NRULES - 1 - r) & 1)
			p.rules &= ~rules[r].bit; /* the default has every rule on */
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
	order_fn first = orders[p->order < NORDERS ? p->order : POLICY_WSRPT].first;
	int c;

	if (!policy_has(p, POLICY_PREEMPT) && a->started != b->started)
		return a->started > b->started;
	c = first ? first(a, b) : 0;
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

/* Why each step: docs/architecture.md, "Pieces by rate".
 *  - pieces of at most 1/SPLIT_ROUNDS of the range for all the workers
 *    together, each worker's by its share of their rate, so that they
 *    sweep the range side by side;
 *  - the tail shared by expected finish time, counting what the leases
 *    out on the job have left, so that they end together;
 *  - a worker whose piece would end after the others could have hashed
 *    it all, with one SPLIT_ROUNDS times as fast there, leaves the job
 *    (the fastest never does, nor do equals);
 *  - a worker SPLIT_ROUNDS times as fast as each other one takes its
 *    chunk, not pieces: a piece costs it a launch and a lease. */
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
