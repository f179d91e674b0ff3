/* The answer cache: open addressing in the shared segment, keyed by the
 * digest. Only the master reads and writes it, so it needs no lock; it lives
 * as long as the master, so worker restarts lose nothing. A digest is
 * placed by its SipHash under a key of the cache's own (lib/siphash.h): a
 * peer who picks digests cannot pick them to crowd one probe run. */
#ifndef REVHASH_CACHE_H
#define REVHASH_CACHE_H

#include <stddef.h>
#include <stdint.h>

struct cache_entry {
	uint64_t hash;   /* the digest's keyed hash */
	uint64_t answer;
	uint32_t used;
	uint32_t ref;    /* clock's second-chance bit */
};

struct cache {
	uint64_t nslots;   /* a power of two */
	uint64_t capacity; /* answers held at most (under 3/4 of nslots) */
	uint64_t count;
	uint64_t hand;     /* clock hand for eviction */
	uint64_t hits, misses, evictions;
	uint8_t key[16];   /* the hash's, drawn at cache_init */
	struct cache_entry slots[];
};

/* Bytes of shared memory a cache of capacity answers needs. */
size_t cache_bytes(uint64_t capacity);
/* Lay out an empty cache in zeroed memory of cache_bytes(capacity); a
 * capacity of 0 is a cache that holds nothing. */
void cache_init(struct cache *c, uint64_t capacity);
/* 1 and *answer when digest is known, else 0. A hit is confirmed by hashing
 * the answer, so two digests of one keyed hash can never return a wrong
 * answer. */
int cache_get(struct cache *c, const uint8_t digest[32], uint64_t *answer);
/* Remember digest -> answer, evicting by clock when full. */
void cache_put(struct cache *c, const uint8_t digest[32], uint64_t answer);
/* The slot where digest's probe run starts. */
uint64_t cache_home(const struct cache *c, const uint8_t digest[32]);

#endif
