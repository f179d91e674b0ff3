/* The scheduling policy: every decision about which worker hashes what,
 * written once. The ring, the master's backlog and the ideal-server
 * simulation (bench/simulate.c) call the very same functions, so the
 * ideal a run is measured against cannot drift from the server.
 *
 * A policy is an order from a table (policy.c: its name, its help line,
 * its comparison) and a set of rules, each a bit with a switch that turns
 * it off (--no-preempt, --no-split). Both tables are counted: nothing
 * counts on their last entry. */
#ifndef REVHASH_POLICY_H
#define REVHASH_POLICY_H

#include <stddef.h>
#include <stdint.h>

/* The rules (bits of struct policy's rules). */
#define POLICY_PREEMPT 0x1u /* a better job takes the workers at the next piece */
#define POLICY_SPLIT 0x2u   /* several workers may hash one job at once */

/* The orders of the table, by index (--schedule names any). */
enum { POLICY_WSRPT = 0, POLICY_PRIORITY, POLICY_FIFO };

/* The most weight the connections of one peer can give one job: that of a
 * single most urgent request (see master/jobset.c). */
#define POLICY_PEER_WEIGHT_MAX 16

/* A policy; lives in the shared segment. */
struct policy {
	uint32_t order; /* index in the order table */
	uint32_t rules; /* POLICY_* bits in force */
};

/* A job's rank: what the order looks at; built by policy_rank() alone. */
struct rank {
	uint64_t weight;             /* the sum of the priorities waiting on it */
	unsigned __int128 remaining; /* values still to hash: up to 2^64 */
	uint64_t seq;                /* arrival order: lower is older */
	uint32_t started;            /* some worker has hashed part of it */
};

/* What a lease of one job for one worker is sized from. */
struct lease_ask {
	uint64_t chunk;          /* what the worker asks for (~2 ms of its rate) */
	uint64_t min_chunk;      /* the least worth a lease at its rate */
	unsigned workers;        /* live workers */
	uint64_t mine;           /* the leasing worker's rate (hashes/s) */
	uint64_t fastest;        /* the fastest live worker's */
	uint64_t fastest_other;  /* the fastest of the others' (0: none) */
	unsigned __int128 all;   /* every live worker's, summed */
	unsigned __int128 span;  /* the job's whole range */
	unsigned __int128 left;  /* of it, values not yet leased */
	unsigned __int128 work;  /* left, plus what the leases out on the job
	                            have still to hash */
};

/* A rule's row of the table (policy.c). */
struct policy_rule {
	uint32_t bit;
	const char *key;      /* in --status and its JSON */
	const char *on, *off; /* in words */
	const char *option;   /* the switch that turns it off */
	const char *help;
	const char *state;    /* "1 when ...": its key's value in a sentence */
};

/* The default: wsrpt, preemptive, split. */
struct policy policy_default(void);
/* The rank of a job of weight with remaining values still to hash, seq
 * its arrival, started once a worker has hashed part of it. */
struct rank policy_rank(uint64_t weight, unsigned __int128 remaining, uint64_t seq,
			int started);
/* What the requests of one peer waiting on one job give it, their
 * priorities summing to sum: at most POLICY_PEER_WEIGHT_MAX. */
uint64_t policy_peer_part(uint64_t sum);
/* Does job a go before job b? A strict order: never both. */
int policy_outranks(const struct policy *p, const struct rank *a,
		    const struct rank *b);
/* Should a worker hashing a job ranked `running` drop it for a job ranked
 * `better` that just came into the table? */
int policy_preempts(const struct policy *p, const struct rank *better,
		    const struct rank *running);
/* May several workers hash one job at once? */
int policy_shares_jobs(const struct policy *p);
/* Does a worker stay on the job it hashes until that job has nothing left
 * to lease, whatever comes meanwhile? */
int policy_keeps_job(const struct policy *p);
/* May a job with nleases leases out be leased once more? */
int policy_leasable(const struct policy *p, unsigned nleases);
/* How many values the next lease of a job should hold for the worker a
 * describes (at least 1, at most what is left), or 0 when that worker had
 * better leave the job to faster ones. */
uint64_t policy_lease_size(const struct policy *p, const struct lease_ask *a);

/* The number of orders in the table. */
unsigned policy_orders(void);
/* The name of order i ("wsrpt", ...), "?" for none. */
const char *policy_order_name(uint32_t order);
/* The orders' names, "wsrpt, priority, fifo" (truncated to size). */
const char *policy_order_list(char *buf, size_t size);
/* p in words: "wsrpt, preemptive, split" (truncated to size). */
const char *policy_describe(const struct policy *p, char *buf, size_t size);
/* Is rule (a POLICY_* bit) in force? */
int policy_has(const struct policy *p, uint32_t rule);
/* Rule i of the table, NULL past the last. */
const struct policy_rule *policy_rule(unsigned i);

/* The policies sim_best seeks the ideal among (every order with every
 * combination of the rules): how many, and the i-th. */
unsigned policy_variants(void);
struct policy policy_variant(unsigned i);

#endif
