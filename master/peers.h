/* Who is connected, by peer (an address as conn_peer_mask reduces it): its
 * connections, its searches and their weight, which the caps count
 * (clients.c, jobset.c). An open-addressing table under a SipHash key of
 * its own (the peers choose the addresses); a record lives while anything
 * counts in it. */
#ifndef REVHASH_PEERS_H
#define REVHASH_PEERS_H

#include <stdint.h>

struct job;

struct peer {
	uint8_t addr[16];
	struct job **jobs; /* the jobs it gives weight to (jobset.c's) */
	uint32_t njobs, jobs_cap;
	uint32_t conns;    /* connections open */
	uint32_t searches; /* jobs it gives weight to */
	uint64_t weight;   /* what it gives them, each job's part capped */
	uint32_t shift;    /* its jobs count 1/2^shift: the fair share */
	uint32_t used;     /* the slot holds a peer */
};

struct peers {
	struct peer *slot;
	uint32_t size;     /* slots: a power of two, or 0 */
	uint32_t n;        /* peers */
	uint8_t key[16];   /* the table's SipHash key */
};

/* An empty table. */
void peers_init(struct peers *ps);
/* Free it. */
void peers_free(struct peers *ps);
/* The record of addr, or NULL when it has none. Valid until the next
 * peers_get or peers_put. */
struct peer *peers_find(const struct peers *ps, const uint8_t addr[16]);
/* The record of addr, a new empty one if it has none; NULL when memory
 * ran out. Valid until the next peers_get or peers_put. */
struct peer *peers_get(struct peers *ps, const uint8_t addr[16]);
/* pe may have emptied: forget it once nothing counts in it. */
void peers_put(struct peers *ps, struct peer *pe);

#endif
