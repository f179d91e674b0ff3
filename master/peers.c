/* The peers' table (see peers.h): linear probing, deletion by moving back
 * the records after the hole (no tombstones). At most half full; it never
 * shrinks: each peer it grew for held a connection. */
#include "master/peers.h"
#include "lib/siphash.h"

#include <stdlib.h>
#include <string.h>

#define FIRST_SIZE 64

void peers_init(struct peers *ps)
{
	memset(ps, 0, sizeof *ps);
	siphash_key(ps->key);
}

void peers_free(struct peers *ps)
{
	free(ps->slot);
	ps->slot = NULL;
	ps->size = ps->n = 0;
}

static uint32_t home(const struct peers *ps, const uint8_t addr[16])
{
	return (uint32_t)siphash(ps->key, addr, 16) & (ps->size - 1);
}

/* The slot of addr, or the empty slot where it would go. */
static struct peer *probe(const struct peers *ps, const uint8_t addr[16])
{
	for (uint32_t i = home(ps, addr);; i = (i + 1) & (ps->size - 1)) {
		struct peer *pe = &ps->slot[i];

		if (!pe->used || memcmp(pe->addr, addr, 16) == 0)
			return pe;
	}
}

struct peer *peers_find(const struct peers *ps, const uint8_t addr[16])
{
	struct peer *pe;

	if (!ps->size)
		return NULL;
	pe = probe(ps, addr);
	return pe->used ? pe : NULL;
}

/* Double the slots (or make the first). -1 when memory ran out. */
static int grow(struct peers *ps)
{
	uint32_t old = ps->size, size = old ? 2 * old : FIRST_SIZE;
	struct peer *prev = ps->slot, *next = calloc(size, sizeof *next);

	if (!next || size < old)
		return free(next), -1;
	ps->slot = next;
	ps->size = size;
	for (uint32_t i = 0; i < old; i++)
		if (prev[i].used)
			*probe(ps, prev[i].addr) = prev[i];
	free(prev);
	return 0;
}

struct peer *peers_get(struct peers *ps, const uint8_t addr[16])
{
	struct peer *pe;

	if (2 * (ps->n + 1) > ps->size && grow(ps) < 0)
		return NULL;
	pe = probe(ps, addr);
	if (!pe->used) {
		memset(pe, 0, sizeof *pe);
		memcpy(pe->addr, addr, 16);
		pe->used = 1;
		ps->n++;
	}
	return pe;
}

void peers_put(struct peers *ps, struct peer *pe)
{
	uint32_t i, j, mask = ps->size - 1;

	if (!pe || pe->conns || pe->searches || pe->weight)
		return;
	i = (uint32_t)(pe - ps->slot);
	ps->slot[i].used = 0;
	ps->n--;
	for (j = (i + 1) & mask; ps->slot[j].used; j = (j + 1) & mask) {
		uint32_t h = home(ps, ps->slot[j].addr);

		/* At home somewhere from the hole at i to j (in probe order): it
		 * stays where it is. */
		if (((j - h) & mask) < ((j - i) & mask))
			continue;
		ps->slot[i] = ps->slot[j];
		ps->slot[j].used = 0;
		i = j;
	}
}
