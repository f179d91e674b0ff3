/* shm/cache: insert, lookup, replace, a full table, probing across the end,
 * and digests a peer crafted to share their first bytes; and the keyed
 * hash (lib/siphash.c) against its specification's vectors. */
#include "proto/proto.h"
#include "shm/cache.h"
#include "tests/check_run.h"
#include "tests/helpers.h"
#include "lib/digest.h"
#include "lib/siphash.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

/* A cache of capacity answers over a table of its own (drop frees both). */
static struct cache *make(uint64_t capacity)
{
	struct cache *c = calloc(1, sizeof *c);
	struct cache_shm *table = calloc(1, cache_bytes(capacity));

	ck_assert_ptr_nonnull(c);
	ck_assert_ptr_nonnull(table);
	cache_init(c, table, capacity);
	return c;
}

static void drop(struct cache *c)
{
	free(c->shown);
	free(c);
}

/* The first value from *x on whose digest lands in slot home. */
static uint64_t with_home(const struct cache *c, uint64_t home, uint64_t *x,
			  uint8_t d[32])
{
	for (;; (*x)++) {
		digest_of(*x, d);
		if (cache_home(c, d) == home)
			return (*x)++;
	}
}

START_TEST(insert_and_lookup)
{
	struct cache *c = make(1000);
	uint8_t d[32];
	uint64_t x;

	for (uint64_t v = 0; v < 500; v++) {
		digest_of(v * 7919, d);
		cache_put(c, d, v * 7919);
	}
	ck_assert_uint_eq(c->count, 500);
	for (uint64_t v = 0; v < 500; v++) {
		digest_of(v * 7919, d);
		ck_assert_int_eq(cache_get(c, d, &x), 1);
		ck_assert_uint_eq(x, v * 7919);
	}
	digest_of(1, d); /* never inserted */
	ck_assert_int_eq(cache_get(c, d, &x), 0);
	drop(c);
}
END_TEST

START_TEST(wrong_answer_is_never_returned)
{
	struct cache *c = make(16);
	uint8_t d[32];
	uint64_t x;

	digest_of(42, d);
	cache_put(c, d, 43); /* an answer that does not hash to d */
	ck_assert_int_eq(cache_get(c, d, &x), 0);
	cache_put(c, d, 42); /* replaced by the right one */
	ck_assert_uint_eq(c->count, 1);
	ck_assert_int_eq(cache_get(c, d, &x), 1);
	ck_assert_uint_eq(x, 42);
	drop(c);
}
END_TEST

START_TEST(full_table_evicts_and_keeps_hot_entries)
{
	struct cache *c = make(8);
	uint8_t hot[32], d[32];
	uint64_t x;

	digest_of(1000000, hot);
	cache_put(c, hot, 1000000);
	for (uint64_t v = 0; v < 200; v++) {
		ck_assert_int_eq(cache_get(c, hot, &x), 1); /* keeps it hot */
		digest_of(v, d);
		cache_put(c, d, v);
		ck_assert_uint_le(c->count, 8);
	}
	ck_assert_uint_eq(c->count, 8);
	ck_assert_uint_ge(c->evictions, 190);
	ck_assert_int_eq(cache_get(c, hot, &x), 1);
	ck_assert_uint_eq(x, 1000000);
	/* The newest entry is there; an old cold one is gone. */
	digest_of(199, d);
	ck_assert_int_eq(cache_get(c, d, &x), 1);
	digest_of(0, d);
	ck_assert_int_eq(cache_get(c, d, &x), 0);
	drop(c);
}
END_TEST

START_TEST(probing_wraps_around_the_end)
{
	struct cache *c = make(3);
	uint64_t last = c->nslots - 1, next = 0, a, b, e, x;
	uint8_t da[32], db[32], de[32], dn[32];

	ck_assert_uint_eq(c->nslots, 16);
	a = with_home(c, last, &next, da);
	b = with_home(c, last, &next, db);
	e = with_home(c, last, &next, de);
	cache_put(c, da, a);
	cache_put(c, db, b);
	cache_put(c, de, e);
	/* All three share the last slot as home: two wrapped to 0 and 1. */
	ck_assert_int_eq(c->slots[last].used && c->slots[0].used && c->slots[1].used, 1);
	ck_assert_int_eq(cache_get(c, db, &x), 1);
	ck_assert_uint_eq(x, b);
	ck_assert_int_eq(cache_get(c, de, &x), 1);
	ck_assert_uint_eq(x, e);
	/* Full: the next insert evicts a (never hit), shifting b and e back
	 * across the end of the table; both must still be found. */
	digest_of(next + 12345, dn);
	cache_put(c, dn, next + 12345);
	ck_assert_uint_eq(c->count, 3);
	ck_assert_int_eq(cache_get(c, da, &x), 0);
	ck_assert_int_eq(cache_get(c, db, &x), 1);
	ck_assert_uint_eq(x, b);
	ck_assert_int_eq(cache_get(c, de, &x), 1);
	ck_assert_uint_eq(x, e);
	ck_assert_int_eq(cache_get(c, dn, &x), 1);
	drop(c);
}
END_TEST

START_TEST(capacity_leaves_empty_slots)
{
	for (uint64_t cap = 1; cap < 5000; cap = cap * 3 + 1) {
		struct cache *c = make(cap);
		ck_assert_uint_gt(c->nslots - c->nslots / 4, cap);
		ck_assert_uint_eq(c->nslots & (c->nslots - 1), 0);
		drop(c);
	}
}
END_TEST

/* SipHash-2-4 of the bytes 0, 1, ... under the key 0, 1, ..., 15, as the
 * specification's test vectors give it. */
START_TEST(siphash_matches_its_vectors)
{
	uint8_t key[SIPHASH_KEY_LEN], msg[16];

	for (int i = 0; i < 16; i++)
		key[i] = msg[i] = (uint8_t)i;
	ck_assert_uint_eq(siphash(key, msg, 0), 0x726fdb47dd0e0e31ull);
	ck_assert_uint_eq(siphash(key, msg, 8), 0x93f5f5799a932462ull);
	ck_assert_uint_eq(siphash(key, msg, 15), 0xa129ca6149be45e5ull);
}
END_TEST

/* Digests that differ only after their first 8 bytes (a peer may send any
 * 32 bytes) do not share a probe run's start, nor do two caches' keys
 * agree: of 64 such digests, nearly all start apart (all would share one
 * start if the first bytes placed them). */
START_TEST(crafted_digests_do_not_crowd_one_run)
{
	struct cache *c = make(1u << 16), *other = make(1u << 16);
	uint64_t homes[64];
	unsigned apart = 0, differ = 0;
	uint8_t d[32] = { 0 };

	for (int i = 0; i < 64; i++) {
		d[31] = (uint8_t)i;
		homes[i] = cache_home(c, d);
		apart += i == 0 || homes[i] != homes[0];
		differ += cache_home(other, d) != homes[i];
	}
	ck_assert_uint_ge(apart, 60);
	ck_assert_uint_ge(differ, 60);
	drop(c);
	drop(other);
}
END_TEST

/* What a worker can write over the table: every slot "used" with hashes of
 * nothing (no probe may loop: a lookup misses, an insert gives up), the
 * figures shown for --status (the master never reads them back), and an
 * answer replaced by another (never returned). */
START_TEST(a_table_written_over_costs_no_loop_and_no_lie)
{
	struct cache *c = make(100);
	uint8_t d[32], e[32];
	uint64_t x;

	digest_of(7, d);
	cache_put(c, d, 7);
	c->shown->nslots = c->shown->capacity = c->shown->count = UINT64_MAX;
	ck_assert_int_eq(cache_get(c, d, &x), 1);
	ck_assert_uint_eq(x, 7);
	for (uint64_t i = 0; i < c->nslots; i++)
		if (c->slots[i].answer != 7)
			c->slots[i] = (struct cache_entry){ .hash = i * 77 + 1, .used = 1, .ref = 1 };
	digest_of(8, e);
	ck_assert_int_eq(cache_get(c, e, &x), 0);
	cache_put(c, e, 8); /* evicts one by clock, then finds room */
	ck_assert_int_eq(cache_get(c, e, &x), 1);
	ck_assert_uint_eq(x, 8);
	for (uint64_t i = 0; i < c->nslots; i++)
		c->slots[i].answer = 9;
	ck_assert_int_eq(cache_get(c, d, &x), 0);
	ck_assert_int_eq(cache_get(c, e, &x), 0);
	ck_assert_uint_eq(c->shown->nslots, UINT64_MAX);
	drop(c);
}
END_TEST

/* The table emptied behind the master's back: its count says full, the
 * clock finds nothing to evict (and does not spin: its walk is bounded),
 * the count is taken down, and the insert finds its room. */
START_TEST(a_table_emptied_behind_the_count_stops_the_clock)
{
	struct cache *c = make(3);
	uint8_t d[32];
	uint64_t x;

	for (uint64_t v = 1; v <= 3; v++) {
		digest_of(v, d);
		cache_put(c, d, v);
	}
	ck_assert_uint_eq(c->count, 3);
	memset(c->slots, 0, c->nslots * sizeof c->slots[0]);
	digest_of(4, d);
	cache_put(c, d, 4);
	ck_assert_uint_le(c->count, 3);
	ck_assert_int_eq(cache_get(c, d, &x), 1);
	ck_assert_uint_eq(x, 4);
	drop(c);
}
END_TEST

/* Every slot "used" by a worker: a lookup walks CACHE_PROBE_MAX slots from
 * its home and no further (it walked the whole table, 131,072 slots here:
 * at the default size a miss cost milliseconds). An answer just inside
 * the window is found, one just past it is not; an insert replaces one of
 * the window's entries and is found; a hit is still confirmed. */
START_TEST(a_table_of_used_slots_is_walked_no_further_than_the_window)
{
	struct cache *c = make(1u << 16);
	uint64_t mask = c->nslots - 1, home, x;
	struct cache_entry mine;
	uint8_t d[32], e[32];

	digest_of(7, d);
	cache_put(c, d, 7);
	home = cache_home(c, d);
	mine = c->slots[home];
	ck_assert_uint_eq(mine.answer, 7);
	for (uint64_t i = 0; i < c->nslots; i++)
		c->slots[i] = (struct cache_entry){ .hash = i * 2 + 1, .answer = 9, .used = 1 };
	c->slots[(home + CACHE_PROBE_MAX - 1) & mask] = mine;
	ck_assert_int_eq(cache_get(c, d, &x), 1);
	ck_assert_uint_eq(x, 7);
	c->slots[(home + CACHE_PROBE_MAX - 1) & mask] = (struct cache_entry){ .hash = 1, .used = 1 };
	c->slots[(home + CACHE_PROBE_MAX) & mask] = mine;
	ck_assert_int_eq(cache_get(c, d, &x), 0);
	digest_of(8, e);
	cache_put(c, e, 8);
	ck_assert_int_eq(cache_get(c, e, &x), 1);
	ck_assert_uint_eq(x, 8);
	drop(c);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("cache");
	TCase *t = tcase_create("cache");

	tcase_set_timeout(t, 20);
	tcase_add_test(t, insert_and_lookup);
	tcase_add_test(t, wrong_answer_is_never_returned);
	tcase_add_test(t, full_table_evicts_and_keeps_hot_entries);
	tcase_add_test(t, probing_wraps_around_the_end);
	tcase_add_test(t, capacity_leaves_empty_slots);
	tcase_add_test(t, siphash_matches_its_vectors);
	tcase_add_test(t, crafted_digests_do_not_crowd_one_run);
	tcase_add_test(t, a_table_written_over_costs_no_loop_and_no_lie);
	tcase_add_test(t, a_table_emptied_behind_the_count_stops_the_clock);
	tcase_add_test(t, a_table_of_used_slots_is_walked_no_further_than_the_window);
	suite_add_tcase(s, t);
	return check_run(s);
}
