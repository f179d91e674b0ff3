/* lib/parse.c and lib/heap.c, which every option and every ranked set
 * stand on. The parsers get the values at their edges (the bounds, 2^64 - 1
 * and one past it, a millisecond's rounding) and what a user mistypes (a
 * sign, a space, trailing text, hex, inf). The heap runs a seeded random
 * mix of inserts, removals, rank changes and pops against a plain array
 * that is searched and sorted: after every step the heap order holds,
 * every element knows its place, the best is the array's least and
 * heap_second its second; a failure names the run's seed (TH_SEED=S
 * replays it). */
#include "lib/heap.h"
#include "lib/parse.h"
#include "tests/check_run.h"
#include "tests/helpers.h"

#include <check.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#define NOT_SET UINT64_C(0xdeadbeef)

/* s is refused, and *out left as it was. */
static void u64_refused(const char *s, uint64_t min, uint64_t max)
{
	uint64_t v = NOT_SET;

	ck_assert_msg(parse_u64(s, min, max, &v) == -EINVAL, "'%s' taken", s ? s : "(null)");
	ck_assert_uint_eq(v, NOT_SET);
}

static void u64_is(const char *s, uint64_t min, uint64_t max, uint64_t want)
{
	uint64_t v = NOT_SET;

	ck_assert_msg(parse_u64(s, min, max, &v) == 0, "'%s' refused", s);
	ck_assert_uint_eq(v, want);
}

START_TEST(u64_takes_its_edges)
{
	u64_is("0", 0, 10, 0);
	u64_is("10", 0, 10, 10);
	u64_is("5", 5, 5, 5);
	u64_is("007", 0, 10, 7);
	u64_is("18446744073709551615", 0, UINT64_MAX, UINT64_MAX);
	u64_refused("4", 5, 10);
	u64_refused("11", 5, 10);
	u64_refused("18446744073709551616", 0, UINT64_MAX);   /* 2^64: overflow */
	u64_refused("99999999999999999999999", 0, UINT64_MAX);
}
END_TEST

START_TEST(u64_refuses_what_is_not_a_number)
{
	const char *bad[] = { "", " 1", "1 ", "+1", "-1", "-0", "1a", "0x10", "1.0", "1e3",
			      "\t7", "7\n", "one" };

	u64_refused(NULL, 0, 10);
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		u64_refused(bad[i], 0, UINT64_MAX);
}
END_TEST

static void double_refused(const char *s, double min, double max)
{
	double v = 42;

	ck_assert_msg(parse_double(s, min, max, &v) == -EINVAL, "'%s' taken", s ? s : "(null)");
	ck_assert(v == 42);
}

static void double_is(const char *s, double min, double max, double want)
{
	double v = 42;

	ck_assert_msg(parse_double(s, min, max, &v) == 0, "'%s' refused", s);
	ck_assert_msg(v == want, "'%s' read as %g", s, v);
}

START_TEST(double_takes_its_edges)
{
	double_is("0", 0, 1, 0);
	double_is("1", 0, 1, 1);
	double_is("0.5", 0, 1, 0.5);
	double_is(".5", 0, 1, 0.5);
	double_is("2.", 0, 10, 2);
	double_is("1e3", 0, 1e6, 1000);
	double_refused("1.0000001", 0, 1);
	double_refused("0.99", 1, 2);
	double_refused("1e999", 0, HUGE_VAL); /* out of range, not infinity */
}
END_TEST

START_TEST(double_refuses_what_is_not_a_finite_decimal)
{
	const char *bad[] = { "", " 1", "1 ", "+1", "-1", "-0", "1x", "inf", "nan",
			      "infinity", "0x10", "0x1p3", "1,5", "e3", "." };

	double_refused(NULL, 0, HUGE_VAL);
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		double_refused(bad[i], 0, HUGE_VAL);
}
END_TEST

/* Whole milliseconds, rounded to the nearest; zero only when asked for;
 * the bound in seconds. */
START_TEST(durations_round_to_milliseconds)
{
	unsigned ms = 7;

	ck_assert_int_eq(parse_duration("0.25", 10, 0, &ms), 0);
	ck_assert_uint_eq(ms, 250);
	ck_assert_int_eq(parse_duration("0.0006", 10, 0, &ms), 0);
	ck_assert_uint_eq(ms, 1);
	ck_assert_int_eq(parse_duration("0.0004", 10, 0, &ms), -EINVAL);
	ck_assert_int_eq(parse_duration("0.0004", 10, 1, &ms), 0);
	ck_assert_uint_eq(ms, 0);
	ck_assert_int_eq(parse_duration("0", 10, 1, &ms), 0);
	ck_assert_uint_eq(ms, 0);
	ck_assert_int_eq(parse_duration("10", 10, 0, &ms), 0);
	ck_assert_uint_eq(ms, 10000);
	ck_assert_int_eq(parse_duration("10.001", 10, 0, &ms), -EINVAL);
	ck_assert_int_eq(parse_duration("-1", 10, 1, &ms), -EINVAL);
	ck_assert_int_eq(parse_duration("0", 86400, 0, &ms), -EINVAL);
	ck_assert_int_eq(parse_duration("0.001", 86400, 0, &ms), 0);
	ck_assert_uint_eq(ms, 1);
	ck_assert_int_eq(parse_duration("86400", 86400, 0, &ms), 0);
	ck_assert_uint_eq(ms, 86400000);
	ck_assert_int_eq(parse_duration("86400.5", 86400, 0, &ms), -EINVAL);
	ck_assert_int_eq(parse_duration("1s", 86400, 0, &ms), -EINVAL);
}
END_TEST

/* ---- the heap ------------------------------------------------------------ */

#define CAP 257   /* elements at most: a last level part full */
#define STEPS 20000
#define IDS (CAP + 1)

/* The set the heap orders: at each position an element's id; each element
 * its key and its position (noted as the heap moves it, as the ring's jobs
 * do), or -1 when it is out. Keys are drawn from a small range, so that
 * ties are common: the id breaks them, for a strict order. */
struct set {
	uint32_t at[CAP];
	uint64_t key[IDS];
	int32_t pos[IDS];
	uint32_t n;
};

static int before(const void *v, uint32_t a, uint32_t b)
{
	const struct set *s = v;
	uint32_t x = s->at[a], y = s->at[b];

	return s->key[x] < s->key[y] || (s->key[x] == s->key[y] && x < y);
}

static void swap(void *v, uint32_t a, uint32_t b)
{
	struct set *s = v;
	uint32_t x = s->at[a];

	s->at[a] = s->at[b];
	s->at[b] = x;
	s->pos[s->at[a]] = (int32_t)a;
	s->pos[s->at[b]] = (int32_t)b;
}

static const struct heap_ops ops = { before, swap };

/* The heap order at every position, and every element at its noted place. */
static void holds(const struct set *s, uint64_t seed, int step)
{
	/* Plain ifs: a Check assertion that passes costs a write to the
	 * runner's pipe, and this runs over the whole heap at every step. */
	for (uint32_t p = 1; p < s->n; p++)
		if (before(s, p, (p - 1) / 2))
			ck_abort_msg("seed %llu, step %d: position %u ranks before its parent",
				     (unsigned long long)seed, step, p);
	for (uint32_t p = 0; p < s->n; p++)
		if (s->pos[s->at[p]] != (int32_t)p)
			ck_abort_msg("seed %llu, step %d: element %u lost its place",
				     (unsigned long long)seed, step, s->at[p]);
}

/* The reference: the least (key, id) of the elements in, by a scan. */
static uint32_t least(const struct set *s)
{
	uint32_t best = IDS;

	for (uint32_t id = 0; id < IDS; id++)
		if (s->pos[id] >= 0 && (best == IDS || s->key[id] < s->key[best] ||
					(s->key[id] == s->key[best] && id < best)))
			best = id;
	return best;
}

/* The reference: the least but the best, by a scan (s->n > 1). */
static uint32_t second_least(const struct set *s)
{
	uint32_t first = least(s), best = IDS;

	for (uint32_t id = 0; id < IDS; id++)
		if (id != first && s->pos[id] >= 0 &&
		    (best == IDS || s->key[id] < s->key[best] ||
		     (s->key[id] == s->key[best] && id < best)))
			best = id;
	return best;
}

/* A random element that is in (s->n > 0). */
static uint32_t any_in(const struct set *s)
{
	return s->at[th_rand64() % s->n];
}

static void insert(struct set *s, uint32_t id, uint64_t key)
{
	s->key[id] = key;
	s->at[s->n] = id;
	s->pos[id] = (int32_t)s->n;
	s->n++;
	heap_fix(&ops, s, s->n, s->n - 1);
}

/* Take id out: heap_remove leaves it last, where the set drops it. */
static void take_out(struct set *s, uint32_t id)
{
	heap_remove(&ops, s, s->n, (uint32_t)s->pos[id]);
	ck_assert_uint_eq(s->at[s->n - 1], id);
	s->n--;
	s->pos[id] = -1;
}

static uint32_t free_id(const struct set *s)
{
	uint32_t id = (uint32_t)(th_rand64() % IDS);

	while (s->pos[id] >= 0)
		id = (id + 1) % IDS;
	return id;
}

/* One random step: insert, remove any, change a rank (up or down), or pop
 * the best, which must be the reference's least. */
static void step(struct set *s, uint64_t seed, int i)
{
	unsigned op = (unsigned)(th_rand64() % 8);
	uint64_t key = th_rand64() % 50;

	if (s->n == 0 || (op < 3 && s->n < CAP)) {
		insert(s, free_id(s), key);
	} else if (op < 5) {
		take_out(s, any_in(s));
	} else if (op < 7) {
		uint32_t id = any_in(s);

		s->key[id] = key;
		heap_fix(&ops, s, s->n, (uint32_t)s->pos[id]);
	} else {
		uint32_t want = least(s);

		ck_assert_msg(s->at[0] == want, "seed %llu, step %d: best %u, not %u",
			      (unsigned long long)seed, i, s->at[0], want);
		if (s->n > 1) {
			uint32_t second = s->at[heap_second(&ops, s, s->n)];

			ck_assert_msg(second == second_least(s),
				      "seed %llu, step %d: second best %u, not %u",
				      (unsigned long long)seed, i, second, second_least(s));
		}
		take_out(s, want);
	}
}

static int by_key(const void *a, const void *b, void *v)
{
	const struct set *s = v;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return s->key[x] < s->key[y] ? -1 : s->key[x] > s->key[y] ? 1 : (x > y) - (x < y);
}

/* The seeded mix, then a drain that must come out as the sorted array. */
START_TEST(the_heap_keeps_order_under_a_random_mix)
{
	uint64_t seed = th_seed();
	struct set s = { .n = 0 };
	uint32_t sorted[CAP];

	for (uint32_t id = 0; id < IDS; id++)
		s.pos[id] = -1;
	for (int i = 0; i < STEPS; i++) {
		step(&s, seed, i);
		holds(&s, seed, i);
	}
	for (uint32_t p = 0; p < s.n; p++)
		sorted[p] = s.at[p];
	qsort_r(sorted, s.n, sizeof sorted[0], by_key, &s);
	for (uint32_t i = 0, n = s.n; i < n; i++) {
		ck_assert_msg(s.at[0] == sorted[i], "seed %llu: drain %u gave %u, not %u",
			      (unsigned long long)seed, i, s.at[0], sorted[i]);
		take_out(&s, s.at[0]);
		holds(&s, seed, STEPS + (int)i);
	}
}
END_TEST

/* The smallest heaps: one element, the last one removed, a fix in place. */
START_TEST(the_heap_at_its_smallest)
{
	struct set s = { .n = 0 };

	for (uint32_t id = 0; id < IDS; id++)
		s.pos[id] = -1;
	insert(&s, 3, 9);
	heap_fix(&ops, &s, 1, 0);
	ck_assert_uint_eq(s.at[0], 3);
	insert(&s, 4, 1);
	ck_assert_uint_eq(s.at[0], 4);
	take_out(&s, 3); /* the last position: nothing moves */
	ck_assert_uint_eq(s.at[0], 4);
	ck_assert_uint_eq(s.n, 1);
	take_out(&s, 4);
	ck_assert_uint_eq(s.n, 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("lib");
	TCase *t = tcase_create("lib");

	tcase_set_timeout(t, 20);
	tcase_add_test(t, u64_takes_its_edges);
	tcase_add_test(t, u64_refuses_what_is_not_a_number);
	tcase_add_test(t, double_takes_its_edges);
	tcase_add_test(t, double_refuses_what_is_not_a_finite_decimal);
	tcase_add_test(t, durations_round_to_milliseconds);
	tcase_add_test(t, the_heap_keeps_order_under_a_random_mix);
	tcase_add_test(t, the_heap_at_its_smallest);
	suite_add_tcase(s, t);
	return check_run(s);
}
