/* Tests for the search kernels: every kernel this CPU can run is compared
 * against OpenSSL's SHA-256 on the cases where a lane-parallel search goes
 * wrong: the answer at the edges of a block or of the range, ranges that are
 * not a whole number of blocks, ranges across a 2^32 boundary (where message
 * word W1 changes), the top of the 64-bit space, and long searches that must
 * find nothing; and the stop flag: set before the call, set by another
 * thread during a search, or never set. The tests of a kernel the CPU
 * lacks are reported skipped (a SKIP line each). */
#include "lib/digest.h"
#include "proto/proto.h"
#include "tests/check_run.h"
#include "tests/helpers.h"
#include "worker/search_cases.h"
#include "worker/kernel.h"
#include "worker/sha256_ref.h"

#include <check.h>
#include <stdio.h>
#include <string.h>

#define MAX_KERNELS 16

#if defined(__x86_64__) || defined(__i386__)
extern const struct kernel kernel_avx512_emulated;
#define EMULATED (&kernel_avx512_emulated)
#else
#define EMULATED NULL /* the AVX-512 kernel is x86 only */
#endif
#define TOP UINT64_MAX

static const struct kernel *kernels[MAX_KERNELS]; /* every one, emulated last */
static size_t nkernels;

/* A fixed xorshift sequence: failures reproduce. */
static uint64_t rng_state = 0x9e3779b97f4a7c15;

static uint64_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* Search [lo, hi] for the digest of answer with kernel k, once without a
 * stop flag and once with a flag that stays clear; check the result is
 * answer when it lies in the range and "nothing" when it does not. */
static void expect(const struct kernel *k, uint64_t lo, uint64_t hi,
		   uint64_t answer)
{
	uint8_t digest[32];
	uint32_t clear = 0;
	int inside = lo <= answer && answer <= hi;

	digest_of(answer, digest);
	for (int pass = 0; pass < 2; pass++) {
		uint64_t found = 0x5a5a5a5a;
		int r = k->search(digest, lo, hi, &found, pass ? &clear : NULL);

		ck_assert_msg(r == inside && (!r || found == answer),
			      "kernel %s, [%#llx, %#llx], answer %#llx, stop %s: "
			      "got %d, %#llx", k->name, (unsigned long long)lo,
			      (unsigned long long)hi, (unsigned long long)answer,
			      pass ? "clear" : "NULL", r, (unsigned long long)found);
	}
}

/* Kernel i of the loop tests; NULL, and the test (named by its __func__)
 * reported skipped, when this CPU cannot run it. */
static const struct kernel *kernel_for(int i, const char *test)
{
	const struct kernel *k = kernels[i];

	if (k->supported())
		return k;
	th_skip(test, "kernel %s is not supported by this CPU (its logic runs as "
		"avx512-emulated)", k->name);
	return NULL;
}

START_TEST(random_ranges)
{
	const struct kernel *k = kernel_for(_i, __func__);

	if (!k)
		return;

	rng_state += _i;
	for (int n = 0; n < 40; n++) {
		uint64_t lo = rnd(), len = rnd() % 3000 + 1;

		if (lo > TOP - len)
			lo = TOP - len;
		expect(k, lo, lo + len - 1, lo + rnd() % len);
	}
}
END_TEST

/* The answer at lanes 0 and LANES-1 of a block, and at both range ends,
 * for every alignment of the range start against the block. */
START_TEST(block_and_range_edges)
{
	const struct kernel *k = kernel_for(_i, __func__);
	uint64_t w;

	if (!k)
		return;
	w = k->lanes;

	for (uint64_t off = 0; off < w; off++) {
		uint64_t lo = 0x123456700000000 + off, hi = lo + 3 * w + off;

		expect(k, lo, hi, lo);
		expect(k, lo, hi, hi);
		expect(k, lo, hi, lo + w);
		expect(k, lo, hi, lo + 2 * w - 1);
		expect(k, lo, hi, lo - 1);
		expect(k, lo, hi, hi + 1);
	}
}
END_TEST

START_TEST(single_value_ranges)
{
	const struct kernel *k = kernel_for(_i, __func__);
	uint64_t xs[] = { 0, 1, 0xffffffff, 0x100000000, 0x7777777777, TOP - 1, TOP };

	if (!k)
		return;

	for (size_t n = 0; n < sizeof xs / sizeof xs[0]; n++) {
		expect(k, xs[n], xs[n], xs[n]);
		if (xs[n] != TOP)
			expect(k, xs[n], xs[n], xs[n] + 1);
		if (xs[n] != 0)
			expect(k, xs[n], xs[n], xs[n] - 1);
	}
}
END_TEST

/* 1..40 values: partial blocks of every size for 4, 8 and 16 lanes. */
START_TEST(odd_lengths)
{
	const struct kernel *k = kernel_for(_i, __func__);

	if (!k)
		return;

	for (uint64_t len = 1; len <= 40; len++) {
		uint64_t lo = 0xabcdef0000 + 1000 * len, hi = lo + len - 1;

		expect(k, lo, hi, hi);
		expect(k, lo, hi, lo + len / 2);
		expect(k, lo, hi, hi + 1);
	}
}
END_TEST

/* Ranges across 2^32 boundaries, where the high half of x changes, with the
 * answer just before, at and after the boundary. */
START_TEST(across_2_32_boundaries)
{
	const struct kernel *k = kernel_for(_i, __func__);
	uint64_t bounds[] = { 1ull << 32, 2ull << 32, 1ull << 33, 7ull << 32,
			      1ull << 63, 0xffffffff00000000 };

	if (!k)
		return;

	for (size_t n = 0; n < sizeof bounds / sizeof bounds[0]; n++) {
		uint64_t b = bounds[n];

		for (uint64_t before = 1; before <= 21; before += 5) {
			uint64_t lo = b - before, hi = b + 20;

			expect(k, lo, hi, b - 1);
			expect(k, lo, hi, b);
			expect(k, lo, hi, b + 1);
			expect(k, lo, hi, lo);
			expect(k, lo, hi, hi);
		}
	}
}
END_TEST

/* Special answers, and ranges that end at 2^64-1 (the loop must stop). */
START_TEST(top_and_bottom)
{
	const struct kernel *k = kernel_for(_i, __func__);

	if (!k)
		return;

	expect(k, 0, 100, 0);
	expect(k, 0, TOP, 0);
	expect(k, 0xffffffffull - 40, 0xffffffffull + 40, 0xffffffff);
	expect(k, 0xffffffffull - 40, 0xffffffffull + 40, 0x100000000);
	expect(k, TOP - 100, TOP, TOP);
	expect(k, TOP - 100, TOP, TOP - 1);
	expect(k, TOP - 100, TOP, TOP - 101);
	expect(k, TOP - 37, TOP, 5);
	expect(k, TOP, TOP, TOP);
	expect(k, TOP, TOP, 0);
	expect(k, 0xffffffff00000000 - 10, TOP, 0xffffffff00000003);
}
END_TEST

/* A near miss (cases_near_miss) passes every kernel's early compare at y:
 * the full check must reject it and search on. */
START_TEST(near_miss_is_rejected)
{
	const struct kernel *k = kernel_for(_i, __func__);
	uint64_t y = 0x31415926535, found;
	uint8_t digest[32], real[32];
	uint32_t a[65], late[8];

	if (!k)
		return;

	cases_near_miss(y, digest);
	digest_of(y, real);
	sha256_le64_a(y, a);
	sha256_late_a(digest, late);
	ck_assert_uint_eq(late[0], a[57]); /* the construction is right */
	ck_assert_uint_eq(late[1], a[58]);
	ck_assert(memcmp(digest, real, 32) != 0);
	ck_assert_int_eq(k->search(digest, y - 50, y + 50, &found, NULL), 0);
	ck_assert_int_eq(k->search(digest, y, y, &found, NULL), 0);
}
END_TEST

/* Millions of values, none the answer: no false positive. (The emulated
 * kernel is a hundred times slower: a quarter million values for it.) */
START_TEST(long_search_finds_nothing)
{
	const struct kernel *k = kernel_for(_i, __func__);
	uint64_t n = k == EMULATED ? 1 << 18 : 4 << 20;
	uint64_t lo = 0xfeedface00000000 - (1 << 21), found;
	uint8_t digest[32];

	if (!k)
		return;

	digest_of(lo - 1, digest);
	ck_assert_int_eq(k->search(digest, lo, lo + n - 1, &found, NULL), 0);
}
END_TEST

/* A stop set before the call hashes nothing, even when the answer is lo:
 * SEARCH_STOPPED with *found = lo. */
START_TEST(stop_before_the_call)
{
	const struct kernel *k = kernel_for(_i, __func__);
	uint64_t los[] = { 0, 0x7777777777, 0xffffffff, TOP - 5, TOP };
	uint32_t stop = 1;
	uint8_t digest[32];

	if (!k)
		return;

	for (size_t n = 0; n < sizeof los / sizeof los[0]; n++) {
		uint64_t lo = los[n], hi = lo + (lo > TOP - 1000 ? TOP - lo : 1000);
		uint64_t found = 0x5a5a5a5a;

		digest_of(lo, digest);
		ck_assert_int_eq(k->search(digest, lo, hi, &found, &stop),
				 SEARCH_STOPPED);
		ck_assert_uint_eq(found, lo);
	}
}
END_TEST

/* A search of 2^40 values (hours) without the answer returns soon after
 * the flag is set, a millisecond in (in well under a second), inside the
 * range. */
START_TEST(stop_ends_a_long_search)
{
	const struct kernel *k = kernel_for(_i, __func__);
	uint64_t lo = 0xfeedface00000000 - 12345;
	char why[200];

	if (!k)
		return;

	ck_assert_msg(cases_stop_during(k->search, lo, lo - 1, 1000000, why,
					sizeof why) == 0, "%s: %s", k->name, why);
}
END_TEST

/* The answer at distances from lo that the kernel reaches before the stop
 * (the nearer ones) or does not (the farther ones): either it found the
 * answer, or it stopped at or before it, so nothing it claims to have
 * hashed held the answer, and resuming from *found finds it. (2^22 values
 * are over a millisecond for any kernel but the emulated one: 2^13 there.) */
START_TEST(stop_never_skips_the_answer)
{
	const struct kernel *k = kernel_for(_i, __func__);
	int max_bits = k == EMULATED ? 13 : 22;
	char why[200];

	if (!k)
		return;

	for (int bits = 4; bits <= max_bits; bits += 3) {
		uint64_t lo = 0x5eed00000000 + 1000 * (uint64_t)bits + 3;

		ck_assert_msg(cases_stop_during(k->search, lo, lo + (1ull << bits) - 1,
						1000000, why, sizeof why) == 0,
			      "%s: %s", k->name, why);
	}
}
END_TEST

START_TEST(sha256_words_are_big_endian)
{
	const uint8_t b[4] = { 0xde, 0xad, 0xbe, 0xef };

	ck_assert_uint_eq(sha256_word(b), 0xdeadbeefu);
}
END_TEST

START_TEST(reference_matches_openssl)
{
	uint8_t want[32], got[32];
	uint64_t xs[] = { 0, 1, 0x80, 0xff, 0x100, 0xffffffff, 0x100000000,
			  0x8000000000000000, TOP - 1, TOP };

	for (size_t n = 0; n < sizeof xs / sizeof xs[0] + 1000; n++) {
		uint64_t x = n < sizeof xs / sizeof xs[0] ? xs[n] : rnd();

		digest_of(x, want);
		sha256_le64(x, got);
		ck_assert_mem_eq(got, want, 32);
	}
}
END_TEST

START_TEST(last_rounds_undone_from_the_digest)
{
	uint8_t digest[32];
	uint32_t a[65], late[8];

	for (int n = 0; n < 2000; n++) {
		uint64_t x = n < 2 ? (n ? TOP : 0) : rnd();

		digest_of(x, digest);
		sha256_le64_a(x, a);
		sha256_late_a(digest, late);
		for (int i = 0; i < 8; i++)
			ck_assert_uint_eq(late[i], a[57 + i]);
	}
}
END_TEST

/* The rate of k in c, or -1 when c does not list it. */
static double rate_of(const struct kernel_calibration *c, const struct kernel *k)
{
	for (size_t i = 0; i < c->pick.n; i++)
		if (c->kernels[i] == k)
			return c->pick.rates[i];
	return -1;
}

/* auto is the fastest kernel of the calibration, which lists every
 * supported kernel (the emulated one is not compiled-in) with a rate. */
START_TEST(find_by_name)
{
	const struct kernel *best = kernel_find("auto");
	const struct kernel_calibration *c = kernel_calibrate();
	size_t supported = 0;
	char line[256];

	ck_assert_ptr_nonnull(best);
	ck_assert(best->supported());
	ck_assert_ptr_eq(kernel_calibrate(), c); /* once per process */
	ck_assert_ptr_eq(c->best, best);
	for (size_t n = 0; n < nkernels; n++) {
		if (kernels[n] == EMULATED || !kernels[n]->supported())
			continue;
		supported++;
		ck_assert_ptr_eq(kernel_find(kernels[n]->name), kernels[n]);
		ck_assert_double_gt(rate_of(c, kernels[n]), 0);
		ck_assert_double_le(rate_of(c, kernels[n]), rate_of(c, best));
	}
	ck_assert_uint_eq(c->pick.n, supported);
	ck_assert_ptr_eq(c->kernels[c->pick.chosen], best);
	ck_assert_ptr_null(kernel_find("nonsense"));
	pick_line(&c->pick, line, sizeof line);
	ck_assert_msg(strstr(line, " M hashes/s, measured in ") &&
		      strncmp(line, best->name, strlen(best->name)) == 0 &&
		      line[strlen(best->name)] == ' ', "%s", line);
}
END_TEST

/* Every kernel, the ones this CPU lacks too (their tests say SKIP). Last,
 * the AVX-512 kernel's logic on emulated intrinsics (tests/avx512_emulated.c),
 * which runs on any CPU. */
static void list_kernels(void)
{
	size_t n;
	const struct kernel *const *all = kernel_all(&n);

	for (size_t i = 0; i < n && nkernels < MAX_KERNELS - 1; i++)
		kernels[nkernels++] = all[i];
#if defined(__x86_64__) || defined(__i386__)
	kernels[nkernels++] = EMULATED;
#endif
}

static Suite *kernel_suite(void)
{
	Suite *s = suite_create("kernel");
	TCase *search = tcase_create("search"), *other = tcase_create("other");
	int n = (int)nkernels;

	tcase_set_timeout(search, 60);
	tcase_set_timeout(other, 30);
	tcase_add_loop_test(search, random_ranges, 0, n);
	tcase_add_loop_test(search, block_and_range_edges, 0, n);
	tcase_add_loop_test(search, single_value_ranges, 0, n);
	tcase_add_loop_test(search, odd_lengths, 0, n);
	tcase_add_loop_test(search, across_2_32_boundaries, 0, n);
	tcase_add_loop_test(search, top_and_bottom, 0, n);
	tcase_add_loop_test(search, near_miss_is_rejected, 0, n);
	tcase_add_loop_test(search, long_search_finds_nothing, 0, n);
	tcase_add_loop_test(search, stop_before_the_call, 0, n);
	tcase_add_loop_test(search, stop_ends_a_long_search, 0, n);
	tcase_add_loop_test(search, stop_never_skips_the_answer, 0, n);
	tcase_add_test(other, sha256_words_are_big_endian);
	tcase_add_test(other, reference_matches_openssl);
	tcase_add_test(other, last_rounds_undone_from_the_digest);
	tcase_add_test(other, find_by_name);
	suite_add_tcase(s, search);
	suite_add_tcase(s, other);
	return s;
}

int main(void)
{
	list_kernels();
	return check_run(kernel_suite());
}
