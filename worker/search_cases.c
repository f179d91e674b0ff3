/* Searches with known outcomes (see search_cases.h). Every case's digest is
 * OpenSSL's (digest_of), so a kernel is checked against the reference,
 * never against another kernel. The edges scale with a span, so the slow
 * host build of the GPU search and the device itself run the same list:
 * thousands of values for the one, hundreds of millions for the other. */
#include "lib/digest.h"
#include "worker/search_cases.h"

#include <endian.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "worker/sha256_ref.h"

#define TOP UINT64_MAX

struct list {
	struct search_case *out;
	size_t n, max;
};

uint64_t cases_rand(uint64_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return *state;
}

static void set(struct search_case *c, const char *what, uint64_t lo,
		uint64_t hi, uint64_t answer)
{
	c->what = what;
	c->lo = lo;
	c->hi = hi;
	c->answer = answer;
	c->expect = lo <= answer && answer <= hi ? SEARCH_FOUND : SEARCH_NONE;
	digest_of(answer, c->digest);
}

static void add(struct list *l, const char *what, uint64_t lo, uint64_t hi,
		uint64_t answer)
{
	if (l->n < l->max)
		set(&l->out[l->n++], what, lo, hi, answer);
}

void cases_random(uint64_t *state, uint64_t max_len, struct search_case *c)
{
	int bits = 64 - __builtin_clzll(max_len);
	uint64_t len = 1 + cases_rand(state) % (UINT64_C(1) << cases_rand(state) % bits);
	uint64_t where = cases_rand(state) % 8, lo = cases_rand(state), hi, answer;

	if (where < 2) /* across (or just below) a 2^32 boundary */
		lo = (lo >> 32 << 32) - cases_rand(state) % len;
	else if (where == 2) /* at the top of the space */
		lo = TOP - (len - 1) - cases_rand(state) % 4;
	if (lo > TOP - (len - 1))
		lo = TOP - (len - 1);
	hi = lo + len - 1;
	switch (cases_rand(state) % 8) {
	case 6:
		answer = hi + 1;
		break;
	case 7:
		answer = lo - 1;
		break;
	default:
		answer = lo + cases_rand(state) % len;
	}
	set(c, "random", lo, hi, answer);
}

/* Ranges of span values at the bottom, middle and top of the space, the
 * answer at either end or just outside. */
static void at_ends(struct list *l, uint64_t span)
{
	uint64_t los[] = { 0, 0x123456789a, UINT64_C(1) << 63, TOP - span + 1 };

	for (size_t i = 0; i < sizeof los / sizeof los[0]; i++) {
		uint64_t lo = los[i], hi = lo + span - 1;

		add(l, "answer at lo", lo, hi, lo);
		add(l, "answer at hi", lo, hi, hi);
		add(l, "answer just below lo", lo, hi, lo - 1);
		add(l, "answer just above hi", lo, hi, hi + 1);
	}
}

/* Ranges across 2^32 boundaries, where the high half of x changes: ten
 * values and about span, the answer around the boundary or at the ends. */
static void across(struct list *l, uint64_t span)
{
	uint64_t bounds[] = { UINT64_C(1) << 32, UINT64_C(2) << 32,
			      UINT64_C(0x7777) << 32, UINT64_C(1) << 63,
			      0xffffffff00000000 };
	int64_t near[] = { -1, 0, 1, 5, 6 }; /* from b; the last one outside */

	for (size_t i = 0; i < sizeof bounds / sizeof bounds[0]; i++) {
		uint64_t b = bounds[i], lo = b - span / 2, hi = b + span / 2;

		for (size_t k = 0; k < sizeof near / sizeof near[0]; k++)
			add(l, near[k] > 5 ? "2^32 boundary, short, none" : "2^32 boundary, short",
			    b - 5, b + 5, b + (uint64_t)near[k]);
		add(l, "2^32 boundary", lo, hi, b - 1);
		add(l, "2^32 boundary", lo, hi, b);
		add(l, "2^32 boundary", lo, hi, hi);
		add(l, "2^32 boundary, none", lo, hi, lo - 1);
	}
}

/* Ranges that end at 2^64-1 (a walk must stop there, not wrap), and the
 * whole space with its answer near the start. */
static void at_top(struct list *l, uint64_t span)
{
	uint64_t seg = 0xffffffff00000000;

	add(l, "top", TOP - 10, TOP, TOP);
	add(l, "top", TOP - 10, TOP, TOP - 1);
	add(l, "top, none", TOP - 10, TOP, 5);
	add(l, "top, across 2^32", seg - span / 2, TOP, seg + 3);
	add(l, "top, across 2^32", seg - span / 2, TOP, seg - 1);
	add(l, "whole space", 0, TOP, 3);
	add(l, "whole space", 0, TOP, span / 2);
}

/* Ranges of an odd count, the answer at the end, just past it, or at the
 * first value of the segment that the range's last value ends: a search
 * that hashes values two at a time must leave the second of its last pair
 * out (within the segment it is the value after the range; past its end
 * it wraps to the segment's first). */
static void odd_counts(struct list *l, uint64_t span)
{
	uint64_t los[] = { 0x2468ace1, UINT64_C(3) << 61 }, lens[] = { 1, 3, span | 1 };
	uint64_t b = UINT64_C(0x7531) << 32;

	for (size_t i = 0; i < sizeof los / sizeof los[0]; i++)
		for (size_t k = 0; k < sizeof lens / sizeof lens[0]; k++) {
			uint64_t lo = los[i], hi = lo + lens[k] - 1;

			add(l, "odd count, answer at hi", lo, hi, hi);
			add(l, "odd count, answer just above hi", lo, hi, hi + 1);
		}
	add(l, "odd count to a 2^32 boundary, answer the segment's first", b - 5, b - 1,
	    b - (UINT64_C(1) << 32));
	add(l, "odd count to a 2^32 boundary, answer at hi", b - 5, b - 1, b - 1);
}

static void singles(struct list *l)
{
	uint64_t xs[] = { 0, 1, 0xffffffff, 0x100000000, 0x7777777777, TOP - 1, TOP };

	for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++) {
		add(l, "one value", xs[i], xs[i], xs[i]);
		add(l, "one value, none", xs[i], xs[i], xs[i] + 1);
		add(l, "one value, none", xs[i], xs[i], xs[i] - 1);
	}
}

/* A near miss at y: nothing in [lo, hi] matches its digest. */
static void add_near_miss(struct list *l, uint64_t lo, uint64_t hi, uint64_t y)
{
	if (l->n == l->max)
		return;
	add(l, "near miss", lo, hi, y);
	cases_near_miss(y, l->out[l->n - 1].digest);
	l->out[l->n - 1].expect = SEARCH_NONE;
}

/* Near misses inside a range, alone, and just after a 2^32 boundary. */
static void near_misses(struct list *l, uint64_t span)
{
	uint64_t ys[] = { 0x31415926535, UINT64_C(5) << 32 };

	for (size_t i = 0; i < sizeof ys / sizeof ys[0]; i++) {
		add_near_miss(l, ys[i] - span / 2, ys[i] + span / 2, ys[i]);
		add_near_miss(l, ys[i], ys[i], ys[i]);
	}
}

size_t cases_edges(uint64_t span, struct search_case *out, size_t max)
{
	struct list l = { out, 0, max };

	at_ends(&l, span);
	across(&l, span);
	at_top(&l, span);
	odd_counts(&l, span);
	singles(&l);
	near_misses(&l, span);
	return l.n;
}

/* Word 0 of the digest differs from y's, and words 6 and 7 are solved for
 * so that undoing the last rounds lands on y's a57 and a58. */
void cases_near_miss(uint64_t y, uint8_t out[32])
{
	uint32_t a[65], st[8], a60, a59;

	sha256_le64_a(y, a);
	digest_of(y, out);
	for (int i = 0; i < 8; i++)
		st[i] = sha256_word(out + 4 * i) - sha256_iv[i];
	st[0] ^= 1;
	a60 = st[4] - (st[0] - sha256_t2(st[1], st[2], st[3]));
	a59 = st[5] - (st[1] - sha256_t2(st[2], st[3], a60));
	st[6] = a[58] + (st[2] - sha256_t2(st[3], a60, a59));
	st[7] = a[57] + (st[3] - sha256_t2(a60, a59, a[58]));
	for (int i = 0; i < 8; i++) {
		uint32_t w = htobe32(st[i] + sha256_iv[i]);

		memcpy(out + 4 * i, &w, sizeof w);
	}
}

int cases_check(kernel_search_fn fn, const struct search_case *c, char *why,
		size_t len)
{
	static const char *const names[] = { "NULL", "clear", "set" };
	uint32_t clear = 0, stop = 1;
	const uint32_t *stops[] = { NULL, &clear, &stop };

	for (int pass = 0; pass < 3; pass++) {
		uint64_t found = 0x5a5a5a5a;
		int r = fn(c->digest, c->lo, c->hi, &found, stops[pass]);
		int want = pass == 2 ? SEARCH_STOPPED : c->expect;
		uint64_t want_found = pass == 2 ? c->lo : c->answer;

		if (r == want && (r == SEARCH_NONE || found == want_found))
			continue;
		snprintf(why, len, "%s: [%#llx, %#llx], answer %#llx, stop %s: "
			 "got %d, %#llx; want %d, %#llx", c->what,
			 (unsigned long long)c->lo, (unsigned long long)c->hi,
			 (unsigned long long)c->answer, names[pass], r,
			 (unsigned long long)found, want, (unsigned long long)want_found);
		return -1;
	}
	return 0;
}

struct stopper {
	uint32_t flag;
	long delay_ns;
};

static void *stop_later(void *arg)
{
	struct stopper *s = arg;
	struct timespec t = { s->delay_ns / 1000000000, s->delay_ns % 1000000000 };

	nanosleep(&t, NULL);
	__atomic_store_n(&s->flag, 1, __ATOMIC_RELAXED);
	return NULL;
}

int cases_stop_during(kernel_search_fn fn, uint64_t lo, uint64_t answer,
		      long delay_ns, char *why, size_t len)
{
	uint64_t hi = lo + (UINT64_C(1) << 40), found = 0, again = 0;
	int inside = lo <= answer && answer <= hi, r = -2;
	struct stopper s = { 0, delay_ns };
	uint8_t digest[32];
	pthread_t thread;

	digest_of(answer, digest);
	if (pthread_create(&thread, NULL, stop_later, &s) == 0) {
		r = fn(digest, lo, hi, &found, &s.flag);
		pthread_join(thread, NULL);
	}
	if (r == SEARCH_FOUND && inside && found == answer)
		return 0;
	if (r == SEARCH_STOPPED && found >= lo && found <= (inside ? answer : hi)) {
		r = inside ? fn(digest, found, answer, &again, NULL) : SEARCH_FOUND;
		if (r == SEARCH_FOUND && (!inside || again == answer))
			return 0;
		snprintf(why, len, "resumed at %#llx for %#llx: got %d, %#llx",
			 (unsigned long long)found, (unsigned long long)answer, r,
			 (unsigned long long)again);
		return -1;
	}
	snprintf(why, len, "[%#llx, +2^40], answer %#llx, stopped after %ld ns: "
		 "got %d, %#llx", (unsigned long long)lo, (unsigned long long)answer,
		 delay_ns, r, (unsigned long long)found);
	return -1;
}
