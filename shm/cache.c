/* Linear probing with backward-shift deletion (no tombstones), and clock
 * (second chance) eviction once the table holds its capacity.
 *
 * The table is in the segment, which a worker can write: every index is
 * masked by the master's own geometry, an answer is read once, then
 * confirmed, and every walk is bounded by a constant: an entry lies at
 * most CACHE_PROBE_MAX slots past its home (a lookup looks no further, an
 * insert whose window is full replaces an entry in it), and the clock hand
 * takes what it reaches after CLOCK_WALK slots: a table filled with "used"
 * slots costs a lookup 256 probes, not a walk of 1 M. Honest tables never
 * reach the bound (docs/security.md). */
#include "shm/cache.h"
#include "lib/digest.h"
#include "lib/siphash.h"
#include "shm/word.h"

#include <string.h>

#define CLOCK_WALK 1024 /* slots the clock hand passes at most for one eviction */

_Static_assert((CACHE_PROBE_MAX & (CACHE_PROBE_MAX - 1)) == 0, "a power of two");

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
	cache_lay_out(shm, capacity); /* again, now that readers may look */
}

uint64_t cache_home(const struct cache *c, const uint8_t digest[32])
{
	return siphash(c->key, digest, 32) & (c->nslots - 1);
}

/* How far slot at lies past home (in probe order). */
static uint64_t past(const struct cache *c, uint64_t home, uint64_t at)
{
	return (at - home) & (c->nslots - 1);
}

/* Slots a probe looks at: its window, from its home on. */
static uint64_t window(const struct cache *c)
{
	return c->nslots < CACHE_PROBE_MAX ? c->nslots : CACHE_PROBE_MAX;
}

/* Walk hash's window: 1 with *i at the entry of that hash, 0 with *i at
 * the free slot that ends its run, -1 when every slot of it is taken by
 * others. */
static int probe(const struct cache *c, uint64_t hash, uint64_t *i)
{
	uint64_t mask = c->nslots - 1, at = hash & mask;

	for (uint64_t n = 0; n < window(c); n++, at = (at + 1) & mask) {
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
	uint64_t hash = siphash(c->key, digest, 32), i, x;

	if (probe(c, hash, &i) == 1 &&
	    digest_answers(x = c->slots[i].answer, digest, 0, UINT64_MAX)) {
		c->slots[i].ref = 1;
		*answer = x;
		shm_show(c->shown->hits, ++c->hits);
		return 1;
	}
	shm_show(c->shown->misses, ++c->misses);
	return 0;
}

/* Remove slot i and pull later entries of its probe run back over the gap,
 * as far as one may fill it, and 4 x CACHE_PROBE_MAX slots at most. An
 * entry further on whose home lies before the gap (a worker wrote it, or
 * a run of moves longer than any seen) is then missed by lookups: a miss,
 * never a wrong answer. */
static void delete_at(struct cache *c, uint64_t i)
{
	uint64_t mask = c->nslots - 1, j = (i + 1) & mask;
	uint64_t most = c->nslots < 4 * window(c) ? c->nslots : 4 * window(c);

	for (uint64_t n = 1; n < most && c->slots[j].used; n++, j = (j + 1) & mask) {
		uint64_t home = c->slots[j].hash & mask;

		if (past(c, i, j) >= window(c))
			break; /* nothing from here on belongs in the gap */
		/* The entry at j may fill the gap at i only if its home is not
		 * cyclically in (i, j]. */
		if (past(c, home, j) >= past(c, i, j)) {
			c->slots[i] = c->slots[j];
			i = j;
		}
	}
	memset(&c->slots[i], 0, sizeof c->slots[i]);
	c->count -= c->count > 0;
	shm_show(c->shown->count, c->count);
}

/* Evict one entry by clock: the first the hand finds not hit since it last
 * passed, or, after CLOCK_WALK slots, the one it reaches (a worker can set
 * every second-chance bit). A walk that found no entry at all (a worker
 * emptied the table) takes the count, only shown and bounding the load,
 * down by one. */
static void evict_one(struct cache *c)
{
	uint64_t mask = c->nslots - 1;

	for (uint64_t n = 0; n < CLOCK_WALK; n++, c->hand = (c->hand + 1) & mask) {
		struct cache_entry *e = &c->slots[c->hand];

		if (e->used && (!e->ref || n + 1 == CLOCK_WALK)) {
			delete_at(c, c->hand);
			shm_show(c->shown->evictions, ++c->evictions);
			return;
		}
		e->ref = 0;
	}
	c->count -= c->count > 0;
	shm_show(c->shown->count, c->count);
}

/* hash's window is full of others': the first of them not hit since the
 * clock passed (else the first) makes room in place. Its slot. */
static uint64_t evict_in_window(struct cache *c, uint64_t hash)
{
	uint64_t mask = c->nslots - 1, home = hash & mask;

	for (uint64_t n = 0; n < window(c); n++)
		if (!c->slots[(home + n) & mask].ref)
			return (home + n) & mask;
	return home;
}

void cache_put(struct cache *c, const uint8_t digest[32], uint64_t answer)
{
	uint64_t hash, i;
	int found;

	if (c->capacity == 0)
		return;
	hash = siphash(c->key, digest, 32);
	if ((found = probe(c, hash, &i)) == 1) {
		c->slots[i].answer = answer;
		c->slots[i].ref = 1;
		return;
	}
	if (c->count >= c->capacity) {
		evict_one(c);
		/* Deletion may move entries: find the free slot anew. */
		found = probe(c, hash, &i);
	}
	if (found < 0) { /* replace one of the window's: the count stays */
		i = evict_in_window(c, hash);
		shm_show(c->shown->evictions, ++c->evictions);
	} else {
		shm_show(c->shown->count, ++c->count);
	}
	c->slots[i].hash = hash;
	c->slots[i].answer = answer;
	c->slots[i].ref = 0;
	c->slots[i].used = 1;
}
