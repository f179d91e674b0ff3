/* The answer cache: open addressing keyed by the digest. Its table lives
 * in the shared segment, its geometry, count, clock hand and key in the
 * master's own memory (struct cache): a worker can write any byte of the
 * segment. Only the master uses it, so it needs no lock, and worker
 * restarts lose nothing. A digest is placed by its SipHash under the
 * cache's own key: a peer cannot pick digests that crowd one probe run. */
#ifndef REVHASH_CACHE_H
#define REVHASH_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "shm/segment.h" /* the table's layout */

/* An entry lies at most this many slots past its home (cache.c: why). */
#define CACHE_PROBE_MAX 256

/* The master's cache, in its own memory, over a table in the segment. */
struct cache {
	struct cache_entry *slots; /* the segment's table */
	struct cache_shm *shown;   /* where its figures are shown */
	uint64_t nslots, capacity, count;
	uint64_t hand;             /* clock hand for eviction */
	uint64_t hits, misses, evictions;
	uint8_t key[16];           /* the hash's, drawn at cache_init */
};

/* Bytes of shared memory a cache of capacity answers needs. */
size_t cache_bytes(uint64_t capacity);
/* Lay out an empty table of capacity answers in zeroed memory of
 * cache_bytes(capacity), its figures shown. */
void cache_lay_out(struct cache_shm *shm, uint64_t capacity);
/* The master's cache c over the table shm laid out for capacity answers
 * (a capacity of 0 is a cache that holds nothing); its geometry comes from
 * capacity, never from the segment. */
void cache_init(struct cache *c, struct cache_shm *shm, uint64_t capacity);
/* 1 and *answer when digest is known, else 0. A hit is confirmed by hashing
 * the answer: never a wrong one, whatever a worker wrote. */
int cache_get(struct cache *c, const uint8_t digest[32], uint64_t *answer);
/* Remember digest -> answer, evicting by clock when full. */
void cache_put(struct cache *c, const uint8_t digest[32], uint64_t answer);
/* The slot where digest's probe run starts. */
uint64_t cache_home(const struct cache *c, const uint8_t digest[32]);

#endif
