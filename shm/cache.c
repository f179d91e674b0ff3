/* Linear probing with backward-shift deletion (no tombstones), and clock
 * (second chance) eviction once the table holds its capacity: recently hit
 * answers survive, one-off ones make room.
 *
 * The table is in the segment, which a worker can write: every index is
 * masked by the master's own geometry, no walk goes further than the
 * table's size (a table a worker filled with "used" slots ends a probe, it
 * does not loop it), and an answer is read once, then confirmed. */
#include "shm/cache.h"
#include "lib/digest.h"
#include "lib/siphash.h"
#include "shm/word.h"

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
	return sizeof(struct cache_shm) +
	       table_size(capacity) * sizeof(struct cache_entry);
}

void cache_lay_out(struct cache_shm *shm, uint64_t capacity)
{
	/* Again by cache_init, once the segment is out: readers may look. */
	shm_show(shm->nslots, table_size(capacity));
	shm_show(shm->capacity, capacity);
	shm_show(shm->count, 0);
	shm_show(shm->hits, 0);
	shm_show(shm->misses, 0);
	shm_show(shm->evictions, 0);
}

void cache_init(struct cache *c, struct cache_shm *shm, uint64_t capacity)
{
	memset(c, 0, sizeof *c);
	c->slots = shm->slots;
	c->shown = shm;
	c->nslots = table_size(capacity);
	c->capacity = capacity;
	siphash_key(c->key);
	cache_lay_out(shm, capacity);
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

/* Walk hash's probe run: 1 with *i at the entry of that hash, 0 with *i at
 * the free slot that ends the run, -1 when the whole table is the run. */
static int probe(const struct cache *c, uint64_t hash, uint64_t *i)
{
	uint64_t mask = c->nslots - 1, at = hash & mask;

	for (uint64_t n = 0; n < c->nslots; n++, at = (at + 1) & mask) {
		*i = at;
		if (!c->slots[at].used)
			return 0;
		if (c->slots[at].hash == hash)
			return 1;
	}
	return -1;
}

int cache_get(struct cache *c, const uint8_t digest[32], uint64_t *answer)
{
	uint64_t hash = hash_of(c, digest), i, x;

	if (probe(c, hash, &i) == 1 && matches(digest, x = c->slots[i].answer)) {
		c->slots[i].ref = 1;
		*answer = x;
		shm_show(c->shown->hits, ++c->hits);
		return 1;
	}
	shm_show(c->shown->misses, ++c->misses);
	return 0;
}

/* Remove slot i and pull later entries of its probe run back over the gap. */
static void delete_at(struct cache *c, uint64_t i)
{
	uint64_t mask = c->nslots - 1, j = (i + 1) & mask;

	for (uint64_t n = 1; n < c->nslots && c->slots[j].used; n++, j = (j + 1) & mask) {
		uint64_t home = c->slots[j].hash & mask;
		/* The entry at j may fill the gap at i only if its home is not
		 * cyclically in (i, j]. */
		if (((j - home) & mask) >= ((j - i) & mask)) {
			c->slots[i] = c->slots[j];
			i = j;
		}
	}
	memset(&c->slots[i], 0, sizeof c->slots[i]);
	c->count -= c->count > 0;
	shm_show(c->shown->count, c->count);
}

/* Evict one entry by clock: 1, or 0 when two turns of the hand found none
 * (a table a worker wrote over). */
static int evict_one(struct cache *c)
{
	for (uint64_t n = 0; n < 2 * c->nslots; n++) {
		struct cache_entry *e = &c->slots[c->hand];
		if (e->used && !e->ref) {
			delete_at(c, c->hand);
			shm_show(c->shown->evictions, ++c->evictions);
			return 1;
		}
		e->ref = 0;
		c->hand = (c->hand + 1) & (c->nslots - 1);
	}
	return 0;
}

/* The clock found nothing to evict: the table is not what the count says
 * (a worker emptied it). Count it again. */
static void recount(struct cache *c)
{
	c->count = 0;
	for (uint64_t i = 0; i < c->nslots; i++)
		c->count += c->slots[i].used != 0;
	shm_show(c->shown->count, c->count);
}

void cache_put(struct cache *c, const uint8_t digest[32], uint64_t answer)
{
	uint64_t hash, i;
	int found;

	if (c->capacity == 0)
		return;
	hash = hash_of(c, digest);
	if ((found = probe(c, hash, &i)) == 1) {
		c->slots[i].answer = answer;
		c->slots[i].ref = 1;
		return;
	}
	if (found < 0 || c->count >= c->capacity) {
		if (!evict_one(c))
			recount(c);
		/* Deletion may move entries: find the free slot anew. */
		if (c->count >= c->capacity || probe(c, hash, &i) != 0)
			return;
	}
	c->slots[i].hash = hash;
	c->slots[i].answer = answer;
	c->slots[i].ref = 0;
	c->slots[i].used = 1;
	shm_show(c->shown->count, ++c->count);
}
