/* Tests for the GPU search's logic, on any machine: the host build of the
 * device's threads under the device's walk, for every kernel variant
 * (gpu_host_variants), against OpenSSL on seeded random ranges and the
 * edge cases of search_cases.c, with stops before and during a search; a
 * range ending at 2^64-1 (whose last value once read as "no candidate");
 * generations that run out and start again; and one thread's loop alone
 * (gpu_scan): the candidate word's keys, halts by the stop word and the
 * halt word, a launch of a whole 2^32 segment; and the identities that
 * some variants compute shifts and rotates by. The walk under a scripted
 * launcher, and the choice of a variant, are check_gpu_walk's.
 *
 * The random ranges take their seed from TH_SEED, else from the clock; it
 * is printed first, and TH_SEED=N replays a run. */
#include "lib/digest.h"
#include "proto/proto.h"
#include "tests/check_run.h"
#include "worker/search_cases.h"
#include "worker/gpu/gpu_host.h"
#include "worker/gpu/gpu_search.h"
#include "worker/kernel.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOP UINT64_MAX
#define RANDOM_CASES 400      /* the plain variant's; the others' below */
#define RANDOM_CASES_EACH 60
#define RANDOM_MAX_LEN 100000 /* the host build is scalar: ~0.1 s each */
#define EDGE_SPAN 3000
#define MAX_EDGES 128

static uint64_t seed;

static const struct gpu_host_variant *variant(size_t i)
{
	size_t n;

	return gpu_host_variants(&n)[i];
}

static size_t variants(void)
{
	size_t n;

	gpu_host_variants(&n);
	return n;
}

START_TEST(every_variant_on_random_ranges)
{
	uint64_t state = seed;
	struct search_case c;
	char why[256];
	int cases = _i ? RANDOM_CASES_EACH : RANDOM_CASES;

	for (int n = 0; n < cases; n++) {
		cases_random(&state, RANDOM_MAX_LEN, &c);
		ck_assert_msg(cases_check(variant((size_t)_i)->search, &c, why, sizeof why) == 0,
			      "variant %s, seed %llu, case %d: %s", gpu_variant_label(variant((size_t)_i)->variant),
			      (unsigned long long)seed, n, why);
	}
}
END_TEST

START_TEST(every_variant_on_the_edges)
{
	struct search_case cs[MAX_EDGES];
	size_t n = cases_edges(EDGE_SPAN, cs, MAX_EDGES);
	char why[256];

	ck_assert_uint_lt(n, MAX_EDGES); /* the list fits whole */
	for (size_t i = 0; i < n; i++)
		ck_assert_msg(cases_check(variant((size_t)_i)->search, &cs[i], why,
					  sizeof why) == 0,
			      "variant %s, edge %zu: %s", gpu_variant_label(variant((size_t)_i)->variant), i, why);
}
END_TEST

/* A near miss is a candidate the full check turns down, not an answer. */
START_TEST(near_miss_is_rejected)
{
	uint64_t y = 0x31415926535, found, before = variant(0)->launcher->rejected;
	uint8_t digest[32];

	cases_near_miss(y, digest);
	ck_assert_int_eq(gpu_host_search(digest, y - 50, y + 50, &found, NULL),
			 SEARCH_NONE);
	ck_assert_uint_eq(variant(0)->launcher->rejected, before + 1);
}
END_TEST

/* The last value, 2^64-1, is a value like any other: a range ending there
 * without the answer rejects no candidate (it did, when "no candidate" was
 * that value), and with the answer there finds it. */
START_TEST(the_top_of_the_range_is_no_candidate)
{
	const struct gpu_host_variant *v = variant((size_t)_i);
	uint64_t found = 0, before = v->launcher->rejected;
	uint8_t digest[32];

	digest_of(12345, digest);
	ck_assert_int_eq(v->search(digest, TOP - 20000, TOP, &found, NULL), SEARCH_NONE);
	ck_assert_uint_eq(v->launcher->rejected, before);
	digest_of(TOP, digest);
	ck_assert_int_eq(v->search(digest, TOP - 20000, TOP, &found, NULL), SEARCH_FOUND);
	ck_assert_uint_eq(found, TOP);
	ck_assert_uint_eq(v->launcher->rejected, before);
}
END_TEST

/* Searches across the last generation: the word starts afresh and the
 * answers still come (a stale word from before would hide them). */
START_TEST(generations_run_out_and_start_again)
{
	const struct gpu_host_variant *v = variant(0);
	uint64_t found, base = 0x7777ull << 32;
	uint8_t digest[32];

	v->launcher->gen = GPU_GEN_MAX - 5;
	for (int i = 0; i < 6; i++) {
		uint64_t lo = base + (uint64_t)i * 100000, want = lo + 30000 + (uint64_t)i;

		digest_of(want, digest);
		ck_assert_int_eq(v->search(digest, lo, lo + 99999, &found, NULL), SEARCH_FOUND);
		ck_assert_uint_eq(found, want);
	}
	ck_assert_uint_lt(v->launcher->gen, 100); /* it did wrap */
}
END_TEST

START_TEST(stop_ends_a_long_search)
{
	uint64_t lo = 0xfeedface00000000 - 12345;
	char why[256];

	ck_assert_msg(cases_stop_during(gpu_host_search, lo, lo - 1, 1000000, why,
					sizeof why) == 0, "%s", why);
}
END_TEST

/* Answers nearer and farther than a search gets in 1 ms. */
START_TEST(stop_never_skips_the_answer)
{
	char why[256];

	for (int bits = 4; bits <= 16; bits += 3) {
		uint64_t lo = (UINT64_C(0x5eed) << 32) - 3 * (uint64_t)bits;

		ck_assert_msg(cases_stop_during(gpu_host_search, lo,
						lo + (UINT64_C(1) << bits) - 1,
						1000000, why, sizeof why) == 0,
			      "%s", why);
	}
}
END_TEST

/* Keys order by generation, newer below, then by value; a halt lies
 * between two generations; decoding gives back what was written. */
START_TEST(keys_order_and_decode)
{
	uint64_t state = seed;

	for (int n = 0; n < 100000; n++) {
		uint32_t gen = (uint32_t)(cases_rand(&state) % (GPU_GEN_MAX - 1)) + 1, low = 0;
		uint32_t a = (uint32_t)cases_rand(&state), b = (uint32_t)cases_rand(&state);

		ck_assert_int_eq(gpu_key(gen, a) < gpu_key(gen, b), a < b);
		ck_assert_uint_lt(gpu_key(gen + 1, 0xffffffff), gpu_halt_key(gen));
		ck_assert_uint_lt(gpu_halt_key(gen), gpu_key(gen, 0));
		ck_assert_uint_lt(gpu_key(gen, 0xffffffff), gpu_halt_key(gen - 1));
		ck_assert_int_eq(gpu_decode(gpu_key(gen, a), gen, &low), GPU_CANDIDATE);
		ck_assert_uint_eq(low, a);
		ck_assert_int_eq(gpu_decode(gpu_halt_key(gen), gen, &low), GPU_HALTED);
		ck_assert_int_eq(gpu_decode(gpu_key(gen - 1, a), gen, &low), GPU_NOTHING);
		ck_assert_int_eq(gpu_decode(GPU_WORD_FRESH, gen, &low), GPU_NOTHING);
	}
}
END_TEST

/* The multiplies some variants do instead of shifts and rotates (shrhi,
 * r24..r72) are identities for any word and any distance: x >> n is the
 * high half of x * 2^(32-n), and a rotate the sum of both halves, which
 * share no bit. The variants' searches check them in use; here every
 * distance, over the words where a carry or a lost bit would show. */
START_TEST(shifts_and_rotates_by_multiplies_are_identities)
{
	uint64_t state = seed;

	for (int n = 1; n < 32; n++)
		for (int i = 0; i < 4000; i++) {
			uint32_t r = (uint32_t)cases_rand(&state), edges[] = {
				0, 1, 0xffffffff, 0x80000000, 0x7fffffff, (uint32_t)1 << n,
				((uint32_t)1 << n) - 1, (uint32_t)-1 << n, r
			};
			uint32_t x = i < 9 ? edges[i] : r, m = s_pow2(32 - n);

			ck_assert_uint_eq(s_mulhi(x, m), x >> n);
			ck_assert_uint_eq(s_mulhi(x, m) & x * m, 0);
			ck_assert_uint_eq(s_ror_mul(x, n), ror32(x, n));
		}
}
END_TEST

/* One launch of the plain variant's threads in turn (or thread only
 * alone, when not -1), over count values from first, looking for answer:
 * the word after, from word. */
static uint64_t launch(uint64_t answer, uint64_t first, uint64_t count, uint32_t gen,
		       uint32_t threads, int64_t only, uint64_t word,
		       const uint32_t *stop, const uint32_t *halt)
{
	struct gpu_job j = { first, count, gen, 0, stop, halt };
	struct lanes_plan plan;
	uint8_t digest[32];

	digest_of(answer, digest);
	lanes_plan_init(&plan, digest, first);
	if (only >= 0)
		gpu_scan(&plan, &j, (uint32_t)only, threads, &word, NULL);
	for (uint32_t t = 0; only < 0 && t < threads; t++)
		gpu_scan(&plan, &j, t, threads, &word, NULL);
	return word;
}

/* A launch reads an older launch's word, or the fresh one, as nothing
 * found, and leaves its own lowest candidate. */
START_TEST(scan_leaves_its_lowest_candidate)
{
	uint64_t first = 0xabcd00001000, answer = first + 777;
	uint64_t olds[] = { GPU_WORD_FRESH, gpu_key(40, 3), gpu_halt_key(40) };

	for (size_t i = 0; i < 3; i++)
		ck_assert_uint_eq(launch(answer, first, 5000, 41, 13, -1, olds[i], NULL, NULL),
				  gpu_key(41, (uint32_t)answer));
}
END_TEST

/* A newer launch's word stops every thread at once: nothing is hashed. */
START_TEST(scan_yields_to_a_newer_word)
{
	uint64_t first = 0xabcd00001000, newer = gpu_key(42, 0xffffffff);

	ck_assert_uint_eq(launch(first + 1, first, 5000, 41, 13, -1, newer, NULL, NULL), newer);
}
END_TEST

/* Thread 0 sees the stop word, or a halt word at or past the launch's
 * generation, and halts the launch: the answer further on is not reached. */
START_TEST(scan_halts_on_the_stop_or_halt_word)
{
	uint64_t first = 0xabcd00001000, answer = first + 4000, word;
	uint32_t on = 1, off = 0, at = 41, before = 40, low = 0;

	word = launch(answer, first, 5000, 41, 13, -1, GPU_WORD_FRESH, &on, NULL);
	ck_assert_int_eq(gpu_decode(word, 41, &low), GPU_HALTED);
	word = launch(answer, first, 5000, 41, 13, -1, GPU_WORD_FRESH, NULL, &at);
	ck_assert_int_eq(gpu_decode(word, 41, &low), GPU_HALTED);
	word = launch(answer, first, 5000, 41, 13, -1, GPU_WORD_FRESH, &off, &before);
	ck_assert_int_eq(gpu_decode(word, 41, &low), GPU_CANDIDATE);
	ck_assert_uint_eq(low, (uint32_t)answer);
}
END_TEST

/* A launch of a whole segment (2^32 values: no uint32 holds its count)
 * with a stride of 2^32 - 1: thread 0 hashes the first and the last value,
 * thread 1 its one value and no other (its next would wrap to the first),
 * the second last thread the second last value. */
START_TEST(scan_covers_a_whole_segment)
{
	uint64_t s = UINT64_C(0x4242) << 32, count = UINT64_C(1) << 32;
	uint32_t threads = 0xffffffff;

	ck_assert_uint_eq(launch(s | 0xffffffff, s, count, 7, threads, 0, GPU_WORD_FRESH,
				 NULL, NULL), gpu_key(7, 0xffffffff));
	ck_assert_uint_eq(launch(s, s, count, 7, threads, 1, GPU_WORD_FRESH, NULL, NULL),
			  GPU_WORD_FRESH);
	ck_assert_uint_eq(launch(s | 0xfffffffe, s, count, 7, threads, 0xfffffffe,
				 GPU_WORD_FRESH, NULL, NULL), gpu_key(7, 0xfffffffe));
}
END_TEST

/* A variant's name is made from its bits (GPU_SAVINGS), and is the one
 * scripts and docs use: each saving alone is its own name, a combination
 * its names in the table's order, and a bit or a value that no saving
 * names has no name (gpu_variant.h then refuses to build it). Every
 * variant of the build is named, each differently. */
START_TEST(variant_names_come_from_their_bits)
{
	static const struct {
		unsigned v;
		const char *name;
	} known[] = {
		{ 0, "base" },
		{ 48, "wpoll-occ" },
		{ 87, "fma-kimm-sigma0-wpoll-grab" },
		{ 215, "fma-kimm-sigma0-wpoll-grab4" },
		{ 471, "fma-kimm-sigma0-wpoll-grab4-b128" },
		{ 12375, "fma-kimm-sigma0-wpoll-grab-r72" },
		{ 11863, "fma-kimm-sigma0-wpoll-grab-shrhi-fold-x2-r48" },
	};
	size_t n = variants();

#define X(bits, value, name) ck_assert_str_eq(gpu_variant_label(value), name);
	GPU_SAVINGS(X)
#undef X
	for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
		ck_assert_str_eq(gpu_variant_label(known[i].v), known[i].name);
	ck_assert_ptr_null(gpu_variant_label(128));     /* grab4's size alone */
	ck_assert_ptr_null(gpu_variant_label(1u << 14)); /* no saving's bit */
	ck_assert_ptr_null(gpu_variant_label(87u | 1u << 31));
	for (size_t i = 0; i < n; i++) {
		const char *name = gpu_variant_label(variant(i)->variant);

		ck_assert_msg(name, "variant %u has no name", variant(i)->variant);
		for (size_t j = 0; j < i; j++)
			ck_assert_str_ne(gpu_variant_label(variant(j)->variant), name);
	}
}
END_TEST

static Suite *gpu_logic_suite(void)
{
	Suite *s = suite_create("gpu_logic");
	TCase *host = tcase_create("host"), *scan = tcase_create("scan");
	int n = (int)variants();

	tcase_set_timeout(host, 120);
	tcase_set_timeout(scan, 30);
	tcase_add_loop_test(host, every_variant_on_random_ranges, 0, n);
	tcase_add_loop_test(host, every_variant_on_the_edges, 0, n);
	tcase_add_loop_test(host, the_top_of_the_range_is_no_candidate, 0, n);
	tcase_add_test(host, variant_names_come_from_their_bits);
	tcase_add_test(host, near_miss_is_rejected);
	tcase_add_test(host, generations_run_out_and_start_again);
	tcase_add_test(host, stop_ends_a_long_search);
	tcase_add_test(host, stop_never_skips_the_answer);
	tcase_add_test(scan, keys_order_and_decode);
	tcase_add_test(scan, shifts_and_rotates_by_multiplies_are_identities);
	tcase_add_test(scan, scan_leaves_its_lowest_candidate);
	tcase_add_test(scan, scan_yields_to_a_newer_word);
	tcase_add_test(scan, scan_halts_on_the_stop_or_halt_word);
	tcase_add_test(scan, scan_covers_a_whole_segment);
	suite_add_tcase(s, host);
	suite_add_tcase(s, scan);
	return s;
}

int main(void)
{
	seed = th_seed();
	if (!seed)
		seed = 1; /* xorshift's one fixed point */
	fprintf(stderr, "check_gpu_logic: seed %llu (TH_SEED=%llu replays)\n",
		(unsigned long long)seed, (unsigned long long)seed);
	return check_run(gpu_logic_suite());
}
