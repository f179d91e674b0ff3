/* Who is connected, by peer: each peer's open connections, the searches it
 * gives weight to, and the weight it gives them in all. A peer is an
 * address as conn_peer() reduces it: an IPv4 /32 or an IPv6 /64, the part
 * one host usually controls. The caps that keep one peer from taking the
 * master from the others count here (clients.c for connections, jobset.c
 * for searches and weight).
 *
 * An open-addressing table under a SipHash key of its own: the addresses
 * are the peers' to choose. A record lives while anything counts in it. */
#ifndef REVHASH_PEERS_H
#define REVHASH_PEERS_H

#include <stddef.h>
#include <stdint.h>

struct peer_jobs;

struct peer {
	uint8_t addr[16];
	struct peer_jobs *jobs; /* the jobs it gives weight to (jobset.c's) */
	uint32_t conns;    /* connections open */
	uint32_t searches; /* jobs it gives weight to */
	uint64_t weight;   /* what it gives them, each job's part capped */
	uint32_t shift;    /* its jobs count 1/2^shift of their weight: the
	                      fair share (jobset.c) */
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
