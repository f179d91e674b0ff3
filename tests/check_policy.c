/* shm/policy.c fed numbers worked out by hand: each order, preemption,
 * sharing, the piece sizes (the sweep, the tail, the floor, the slow
 * worker), the table of variants the ideal is sought among, and the
 * switches as the option parsers see them. */
#include "shm/policy.h"
#include "shm/policy_options.h"
#include "tests/check_run.h"
#include "tests/helpers.h"

#include <check.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct rank rk(uint64_t weight, uint64_t remaining, uint64_t seq, int started)
{
	return (struct rank){ weight, remaining, seq, (uint32_t)started };
}

/* The rules in the table. */
static unsigned nrules(void)
{
	unsigned n = 0;

	while (policy_rule(n))
		n++;
	return n;
}

/* a before b, and never both. */
static void before(const struct policy *p, struct rank a, struct rank b)
{
	ck_assert(policy_outranks(p, &a, &b));
	ck_assert(!policy_outranks(p, &b, &a));
}

/* Job x: priority 2 with 1000 values left; y: priority 16 with 10^6. By
 * weight / remaining x goes first (2/1000 > 16/10^6); by priority y; by
 * age the older, whichever it is. */
START_TEST(each_order_ranks_as_worked_out)
{
	struct policy wsrpt = th_policy(POLICY_WSRPT, 1, 1);
	struct policy prio = th_policy(POLICY_PRIORITY, 1, 1);
	struct policy fifo = th_policy(POLICY_FIFO, 1, 1);

	before(&wsrpt, rk(2, 1000, 5, 0), rk(16, 1000000, 1, 0));
	before(&prio, rk(16, 1000000, 5, 0), rk(2, 1000, 1, 0));
	before(&fifo, rk(16, 10, 1, 0), rk(16, 5, 2, 0));
	before(&fifo, rk(1, 1000000, 1, 0), rk(16, 1, 2, 0));
	/* Ties go to the older job, in every order. */
	before(&wsrpt, rk(4, 400, 1, 0), rk(1, 100, 2, 0));
	before(&prio, rk(3, 10, 1, 0), rk(3, 1, 2, 0));
	/* Weights near 2^32 against remainings near 2^64: no overflow. */
	before(&wsrpt, rk(UINT32_MAX, UINT64_MAX, 2, 0), rk(UINT32_MAX - 1, UINT64_MAX, 1, 0));
}
END_TEST

/* Without preemption a started job outranks every job that has not
 * started, in every order; with it, starting changes nothing. */
START_TEST(a_started_job_keeps_the_workers_only_without_preemption)
{
	for (uint32_t order = 0; order < policy_orders(); order++) {
		struct policy keep = th_policy(order, 0, 1), take = th_policy(order, 1, 1);
		struct rank started = rk(1, 1000000, 9, 1), urgent = rk(16, 10, 1, 0);

		before(&keep, started, urgent);
		before(&take, urgent, started);
		ck_assert(policy_keeps_job(&keep));
		ck_assert(!policy_keeps_job(&take));
		ck_assert(policy_preempts(&take, &urgent, &started));
		ck_assert(!policy_preempts(&keep, &urgent, &started));
		ck_assert(!policy_preempts(&take, &started, &urgent));
	}
}
END_TEST

START_TEST(only_a_shared_policy_leases_a_job_twice)
{
	struct policy split = th_policy(POLICY_WSRPT, 1, 1), alone = th_policy(POLICY_WSRPT, 1, 0);

	ck_assert(policy_shares_jobs(&split) && !policy_shares_jobs(&alone));
	ck_assert(policy_leasable(&split, 0) && policy_leasable(&split, 3));
	ck_assert(policy_leasable(&alone, 0) && !policy_leasable(&alone, 1));
}
END_TEST

/* Two workers of 100 M/s each on a job of 64 M values: the sweep's
 * piece is 64e6 * 100e6 / (200e6 * 16) = 2 M, so a 2.5 M chunk is cut to
 * it; a 1 M chunk is not cut. */
START_TEST(a_shared_job_goes_out_in_sweep_pieces)
{
	struct policy p = th_policy(POLICY_WSRPT, 1, 1);
	struct lease_ask a = { .chunk = 2500000, .min_chunk = 10000, .workers = 2,
			       .mine = 100000000, .fastest = 100000000, .all = 200000000,
			       .span = 64000000, .left = 64000000, .work = 64000000 };

	ck_assert_uint_eq(policy_lease_size(&p, &a), 2000000);
	a.chunk = 1000000;
	ck_assert_uint_eq(policy_lease_size(&p, &a), 1000000);
	/* Without split, or alone, the worker gets its chunk. */
	a.chunk = 2500000;
	p = th_policy(POLICY_WSRPT, 1, 0);
	ck_assert_uint_eq(policy_lease_size(&p, &a), 2500000);
	p = th_policy(POLICY_WSRPT, 1, 1);
	a.workers = 1;
	ck_assert_uint_eq(policy_lease_size(&p, &a), 2500000);
}
END_TEST

/* The tail: 3 M values of work left (1 M of it in the other worker's
 * lease) between a worker of 100 M/s and one of 200 M/s: the slower one's
 * share is 1 M, the faster one's 2 M, so they end together; never below
 * the floor, never more than is left to lease. */
START_TEST(the_tail_is_shared_by_rate_down_to_the_floor)
{
	struct policy p = th_policy(POLICY_WSRPT, 1, 1);
	struct lease_ask a = { .chunk = 4000000, .min_chunk = 10000, .workers = 2,
			       .mine = 100000000, .fastest = 200000000, .all = 300000000,
			       .span = 1ull << 40, .left = 2000000, .work = 3000000 };

	ck_assert_uint_eq(policy_lease_size(&p, &a), 1000000);
	a.mine = 200000000;
	ck_assert_uint_eq(policy_lease_size(&p, &a), 2000000);
	a.work = a.left = 3000; /* a share of 2000: the floor */
	ck_assert_uint_eq(policy_lease_size(&p, &a), 3000);
	a.left = 5000;          /* ... but the floor is not a lease of more than is left */
	a.work = 9000;
	a.min_chunk = 8000;
	ck_assert_uint_eq(policy_lease_size(&p, &a), 5000);
	a.min_chunk = 0;        /* no floor asked: 1 */
	a.left = a.work = 1;
	ck_assert_uint_eq(policy_lease_size(&p, &a), 1);
}
END_TEST

/* A CPU of 100 M/s beside a device of 10 G/s (100x, so at least 16x) on a
 * job of 100,000 values: the CPU's piece (its floor, 10,000 values: 100
 * us) would end after the device could have hashed all of it (10 us), so
 * the CPU leaves it (0); the device never does, nor do equals. */
START_TEST(a_slow_worker_leaves_a_small_job_to_a_fast_one)
{
	struct policy p = th_policy(POLICY_WSRPT, 1, 1);
	struct lease_ask cpu = { .chunk = 200000, .min_chunk = 10000, .workers = 2,
				 .mine = 100000000, .fastest = 10000000000ull,
				 .all = 10100000000ull, .span = 100000, .left = 100000,
				 .work = 100000 };
	struct lease_ask gpu = cpu, peer = cpu;

	ck_assert_uint_eq(policy_lease_size(&p, &cpu), 0);
	gpu.mine = gpu.fastest;
	gpu.fastest_other = cpu.mine;
	ck_assert_uint_gt(policy_lease_size(&p, &gpu), 0);
	peer.fastest = peer.fastest_other = peer.mine;
	peer.all = 2 * peer.mine;
	ck_assert_uint_gt(policy_lease_size(&p, &peer), 0);
	/* On a job big enough, the slow worker's piece does not hold it up. */
	cpu.span = cpu.left = cpu.work = 1ull << 40;
	ck_assert_uint_gt(policy_lease_size(&p, &cpu), 0);
}
END_TEST

/* A worker at least 16 times as fast as each other one (a device of 17 G/s
 * beside 16 CPUs of 60 M/s) takes a 30M job whole, within its chunk, not
 * in pieces of a sixteenth: the CPUs leave it; a job bigger than its
 * chunk, a chunk; exactly 16 times as fast, the same. Beside a second
 * device, or one 15 times slower, it is held to pieces again. */
START_TEST(a_worker_far_faster_than_each_other_is_not_held_to_pieces)
{
	struct policy p = th_policy(POLICY_WSRPT, 1, 1);
	struct lease_ask gpu = { .chunk = 68000000, .min_chunk = 8500000, .workers = 17,
				 .mine = 17000000000ull, .fastest = 17000000000ull,
				 .fastest_other = 60000000, .all = 17960000000ull,
				 .span = 30000000, .left = 30000000, .work = 30000000 };
	struct lease_ask big = gpu, twin = gpu;

	ck_assert_uint_eq(policy_lease_size(&p, &gpu), 30000000);
	big.span = big.left = big.work = 1ull << 40;
	ck_assert_uint_eq(policy_lease_size(&p, &big), 68000000);
	twin.fastest_other = twin.mine;
	twin.all = 2 * twin.mine + 16 * 60000000ull;
	ck_assert_uint_lt(policy_lease_size(&p, &twin), 30000000);
	twin.fastest_other = twin.mine / 15; /* 15x: not far enough */
	twin.all = twin.mine + twin.fastest_other + 15 * 60000000ull;
	ck_assert_uint_lt(policy_lease_size(&p, &twin), 30000000);
	twin.fastest_other = twin.mine / 16; /* 16x: far enough */
	twin.all = twin.mine + twin.fastest_other + 15 * 60000000ull;
	ck_assert_uint_eq(policy_lease_size(&p, &twin), 30000000);
	gpu.left = 0; /* nothing left to lease: nothing */
	ck_assert_uint_eq(policy_lease_size(&p, &gpu), 0);
}
END_TEST

/* Every order with every combination of the two rules, each once, the
 * default first and each order's rules on before off. */
START_TEST(the_variants_are_every_order_and_rule_once)
{
	unsigned n = policy_variants();
	struct policy d = policy_default();

	ck_assert_uint_eq(n, policy_orders() * 4);
	ck_assert_uint_eq(policy_variant(0).order, d.order);
	ck_assert_uint_eq(policy_variant(0).rules, d.rules);
	ck_assert_uint_eq(policy_variant(1).rules, d.rules & ~POLICY_SPLIT);
	ck_assert_uint_eq(policy_variant(2).rules, d.rules & ~POLICY_PREEMPT);
	ck_assert_uint_eq(policy_variant(3).rules, d.rules & ~(POLICY_PREEMPT | POLICY_SPLIT));
	for (unsigned i = 0; i < n; i++) {
		struct policy a = policy_variant(i);

		ck_assert_uint_lt(a.order, policy_orders());
		ck_assert_uint_eq(a.order, i / 4);
		for (unsigned j = 0; j < i; j++) {
			struct policy b = policy_variant(j);
			ck_assert(a.order != b.order || a.rules != b.rules);
		}
	}
}
END_TEST

/* The switches through getopt_long, as the master and revhash-bench take
 * them; an order that is not in the table is refused. */
START_TEST(the_switches_set_the_policy)
{
	struct option opts[POLICY_OPTIONS_MAX + 1];
	size_t n = policy_getopt(opts);
	char *argv[] = { "x", "--schedule", "fifo", "--no-split", NULL };
	struct policy p = policy_default();
	char words[64];
	int c;

	opts[n] = (struct option){ NULL, 0, NULL, 0 };
	ck_assert_uint_eq(n, 1 + nrules());
	optind = 1;
	while ((c = getopt_long(4, argv, "", opts, NULL)) != -1)
		ck_assert_int_eq(policy_option(c, optarg, &p), 1);
	ck_assert_uint_eq(p.order, POLICY_FIFO);
	ck_assert_uint_eq(p.rules, policy_default().rules & ~POLICY_SPLIT);
	ck_assert_str_eq(policy_describe(&p, words, sizeof words),
			 "fifo, preemptive, no split");
	ck_assert_int_eq(policy_option(POLICY_OPT_BASE, "lifo", &p), -1);
	ck_assert_int_eq(policy_option('w', "2", &p), 0);
	for (uint32_t i = 0; i < policy_orders(); i++) {
		struct policy back = { 99, 0 };
		ck_assert_int_eq(policy_option(POLICY_OPT_BASE, policy_order_name(i), &back), 1);
		ck_assert_uint_eq(back.order, i);
	}
	ck_assert_str_eq(policy_order_name(policy_orders()), "?");
}
END_TEST

/* The orders' list names each order of the table once, in its order, and
 * is cut short safely; the switches are one line a rule, each an option
 * the getopt table takes; each rule's state is a sentence. */
START_TEST(the_lists_name_every_order_and_switch)
{
	struct option opts[POLICY_OPTIONS_MAX + 1];
	size_t n = policy_getopt(opts), len = 0;
	char list[256], tiny[8], *text = NULL, *line, *save;
	const char *at = list;
	FILE *out = open_memstream(&text, &len);
	unsigned lines = 0;

	policy_order_list(list, sizeof list);
	for (uint32_t i = 0; i < policy_orders(); i++) {
		const char *name = policy_order_name(i);

		ck_assert_msg(strncmp(at, name, strlen(name)) == 0, "%s not next in %s", name, list);
		at += strlen(name);
		if (i + 1 < policy_orders()) {
			ck_assert_msg(strncmp(at, ", ", 2) == 0, "no ', ' after %s in %s", name, list);
			at += 2;
		} else {
			ck_assert_str_eq(at, "");
		}
	}
	policy_order_list(tiny, sizeof tiny);
	ck_assert_uint_eq(strlen(tiny), sizeof tiny - 1);
	ck_assert(strncmp(tiny, list, sizeof tiny - 1) == 0);

	ck_assert_ptr_nonnull(out);
	policy_switches(out);
	fclose(out);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		int found = 0;

		ck_assert(strncmp(line, "--no-", 5) == 0);
		for (size_t i = 0; i < n; i++)
			found |= strcmp(opts[i].name, line + 2) == 0 && opts[i].has_arg == no_argument;
		ck_assert_msg(found, "%s is not an option", line);
		lines++;
	}
	ck_assert_uint_eq(lines, nrules());
	free(text);
	for (unsigned i = 0; i < nrules(); i++)
		ck_assert_msg(strncmp(policy_rule(i)->state, "1 when ", 7) == 0, "rule %s: %s",
			      policy_rule(i)->key, policy_rule(i)->state);
	ck_assert_ptr_null(policy_rule(lines)); /* --help's count, not the table's */
	ck_assert_ptr_null(policy_rule(UINT_MAX));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("policy");
	TCase *t = tcase_create("policy");

	tcase_set_timeout(t, 10);
	tcase_add_test(t, each_order_ranks_as_worked_out);
	tcase_add_test(t, a_started_job_keeps_the_workers_only_without_preemption);
	tcase_add_test(t, only_a_shared_policy_leases_a_job_twice);
	tcase_add_test(t, the_lists_name_every_order_and_switch);
	tcase_add_test(t, a_shared_job_goes_out_in_sweep_pieces);
	tcase_add_test(t, the_tail_is_shared_by_rate_down_to_the_floor);
	tcase_add_test(t, a_slow_worker_leaves_a_small_job_to_a_fast_one);
	tcase_add_test(t, a_worker_far_faster_than_each_other_is_not_held_to_pieces);
	tcase_add_test(t, the_variants_are_every_order_and_rule_once);
	tcase_add_test(t, the_switches_set_the_policy);
	suite_add_tcase(s, t);
	return check_run(s);
}
