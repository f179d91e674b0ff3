/* Linear probing with backward-shift deletion (no tombstones), and clock
 * (second chance) eviction once the table holds its capacity: recently hit
 * answers survive, one-off ones make room. */
#include "shm/cache.h"
#include "lib/digest.h"
#include "lib/siphash.h"

#include <string.h>

static uint64_t table_size(uint64_t capacity)
{
	uint64_t n = 16;

	while (n - n / 4 < capacity + 1)
		n <<= 1;
	return n;
}

size_t cache_bytes(uint64_t capacity)
{
	return sizeof(struct cache) +
	       table_size(capacity) * sizeof(struct cache_entry);
}

void cache_init(struct cache *c, uint64_t capacity)
{
	c->nslots = table_size(capacity);
	c->capacity = capacity;
	c->count = 0;
	c->hand = 0;
	siphash_key(c->key);
}

static int matches(const uint8_t digest[32], uint64_t answer)
{
	uint8_t out[32];

	digest_of(answer, out);
	return memcmp(out, digest, 32) == 0;
}

static uint64_t hash_of(const struct cache *c, const uint8_t digest[32])
{
	return siphash(c->key, digest, 32);
}

uint64_t cache_home(const struct cache *c, const uint8_t digest[32])
{
	return hash_of(c, digest) & (c->nslots - 1);
}

int cache_get(struct cache *c, const uint8_t digest[32], uint64_t *answer)
{
	uint64_t mask = c->nslots - 1, hash = hash_of(c, digest);

	for (uint64_t i = hash & mask;; i = (i + 1) & mask) {
		struct cache_entry *e = &c->slots[i];
		if (!e->used)
			break;
		if (e->hash == hash) {
			if (!matches(digest, e->answer))
				break;
			e->ref = 1;
			*answer = e->answer;
			c->hits++;
			return 1;
		}
	}
	c->misses++;
	return 0;
}

/* Remove slot i and pull later entries of its probe run back over the gap. */
static void delete_at(struct cache *c, uint64_t i)
{
	uint64_t mask = c->nslots - 1;

	for (uint64_t j = (i + 1) & mask; c->slots[j].used; j = (j + 1) & mask) {
		uint64_t home = c->slots[j].hash & mask;
		/* The entry at j may fill the gap at i only if its home is not
		 * cyclically in (i, j]. */
		if (((j - home) & mask) >= ((j - i) & mask)) {
			c->slots[i] = c->slots[j];
			i = j;
		}
	}
	memset(&c->slots[i], 0, sizeof c->slots[i]);
	c->count--;
}

static void evict_one(struct cache *c)
{
	for (;;) {
		struct cache_entry *e = &c->slots[c->hand];
		if (e->used && !e->ref) {
			delete_at(c, c->hand);
			c->evictions++;
			return;
		}
		e->ref = 0;
		c->hand = (c->hand + 1) & (c->nslots - 1);
	}
}

void cache_put(struct cache *c, const uint8_t digest[32], uint64_t answer)
{
	uint64_t mask = c->nslots - 1, hash = hash_of(c, digest), i;

	if (c->capacity == 0)
		return;
	for (i = hash & mask; c->slots[i].used; i = (i + 1) & mask) {
		if (c->slots[i].hash == hash) {
			c->slots[i].answer = answer;
			c->slots[i].ref = 1;
			return;
		}
	}
	if (c->count >= c->capacity) {
		evict_one(c);
		/* Deletion may have moved entries: find the free slot anew. */
		for (i = hash & mask; c->slots[i].used; i = (i + 1) & mask)
			;
	}
	c->slots[i].hash = hash;
	c->slots[i].answer = answer;
	c->slots[i].ref = 0;
	c->slots[i].used = 1;
	c->count++;
}
