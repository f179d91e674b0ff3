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

/* An entry lies at most this many slots past its home (cache.c: why). */
#define CACHE_PROBE_MAX 256

struct cache_entry {
	uint64_t hash;   /* the digest's keyed hash */
	uint64_t answer;
	uint32_t used;
	uint32_t ref;    /* clock's second-chance bit */
};

/* The cache's part of the segment: the figures --status shows (the master
 * writes them and never reads them back) and the table. */
struct cache_shm {
	uint64_t nslots;   /* a power of two */
	uint64_t capacity; /* answers held at most (under 3/4 of nslots) */
	uint64_t count;
	uint64_t hits, misses, evictions;
	struct cache_entry slots[];
};

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
