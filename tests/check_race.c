/* End-to-end tests of revhash-bench --race: the real binary against real
 * masters (one worker against two on a CPU-bound workload gives a
 * verdict for two; two identical masters never give a winner; a master
 * that played the race's seeds before is flagged) and against fake
 * servers in threads of the test, which log the order connections reach
 * them (ABBA), answer wrong, close early, send garbage or hang; and its
 * command line, each mistake exiting 2 with its own message. The rules
 * themselves are tested on numbers in check_verdict.c. */
#include "bench/calibrate.h"
#include "bench/race/machine.h"
#include "lib/digest.h"
#include "tests/check_run.h"
#include "tests/race_fixture.h"
#include "tests/helpers.h"

#include <check.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* --- races of real masters ------------------------------------------------ */

/* The values per second master port hashes on one request: a fresh range
 * of 2^24 whose answer is its last value, the fastest of three timings
 * (a slow one says more about the neighbours than about the master). */
static double rate_of(unsigned port)
{
	uint64_t n = 1 << 24, best = UINT64_MAX, x;
	uint8_t d[DIGEST_LEN];

	for (int k = 0; k < 3; k++) {
		uint64_t start = th_rand64() >> 2, t0 = clock_ns();

		digest_of(start + n - 1, d);
		ck_assert_int_eq(th_request(port, d, start, start + n - 1, 1, &x), 0);
		ck_assert_uint_eq(x, start + n - 1);
		if (clock_ns() - t0 < best)
			best = clock_ns() - t0;
	}
	return n / (best / 1e9);
}

/* The seven workload words of n requests of difficulty d, sent every
 * delay_us, from the run's seed: into w (32 bytes a word). */
static void workload(char w[7][32], uint64_t n, uint64_t d, uint64_t delay_us)
{
	snprintf(w[0], 32, "%u", (unsigned)(th_rand64() >> 32));
	snprintf(w[1], 32, "%llu", (unsigned long long)n);
	snprintf(w[2], 32, "0");
	snprintf(w[3], 32, "%llu", (unsigned long long)d);
	snprintf(w[4], 32, "20");
	snprintf(w[5], 32, "%llu", (unsigned long long)delay_us);
	snprintf(w[6], 32, "1.5");
}

/* Race masters a (named na) and b (nb) on workload w over rounds, with
 * probe (seconds) or, when NULL, without probes. */
static void race_masters(const struct tmaster *a, const char *na,
			 const struct tmaster *b, const char *nb,
			 char w[7][32], const char *rounds, const char *probe,
			 struct ran *r)
{
	char sa[64], sb[64];
	const char *args[] = { "--race", server(sa, sizeof sa, na, a->port),
			       server(sb, sizeof sb, nb, b->port), w[0], w[1],
			       w[2], w[3], w[4], w[5], w[6], "--rounds", rounds,
			       "--settle", "0", probe ? "--probe" : "--no-calibrate", probe, NULL };

	run_bench(args, NULL, r);
}

/* The least, over the rounds, of two workers' rate over one's, into
 * *worst, and its round into *at: each leg's rate is its probe's, times
 * its run's efficiency against that probe where the run fell short of it
 * (neighbours can take a CPU between a probe and its run: two workers
 * probed at 195 M hashes/s against one at 113, then ran at half of it).
 * Where neighbours hold a CPU it is near 1, and no race on this machine
 * can tell the two apart then. */
/* A run's share of its probed rate: its efficiency, up to 1 (n/a: it ran
 * faster than probed). */
static double ran_at(double efficiency)
{
	return isnan(efficiency) || efficiency > 1 ? 1 : efficiency;
}

static void two_cpus(const struct ran *r, int rounds, double *worst, int *at)
{
	static char text[sizeof r->out];
	double one[6], two[6];

	*worst = INFINITY;
	for (int round = 1; round <= rounds; round++) {
		char head[32], *table, *end;

		snprintf(head, sizeof head, "round %d of %d,", round, rounds);
		strcpy(text, r->out);
		ck_assert_ptr_nonnull(table = strstr(text, head));
		if ((end = strstr(table, "\n\n")))
			end[1] = '\0'; /* the round's table alone */
		ck_assert_int_eq(row(table, "one", one, 6), 6);
		ck_assert_int_eq(row(table, "two", two, 6), 6);
		double ratio = two[0] * ran_at(two[2]) / (one[0] * ran_at(one[2]));

		if (!(ratio >= *worst)) { /* a failed probe too */
			*worst = isnan(ratio) ? 0 : ratio;
			*at = round;
		}
	}
}

/* The masters' workers float (--no-pin): each master pins worker i to
 * the i-th CPU, as do the masters of anyone else testing on this
 * machine, and a CPU crowded with pinned workers would decide the race. */
/* Two workers against one on a CPU-bound workload: 24 requests of 25 ms
 * of one worker's hashing each, all sent within 0.024 s, 8 rounds (the
 * fewest a 95% interval can come from). Every run is then
 * as long as its server needs to hash the lot, so the ratio of the scores
 * is that of the CPU each server gets, about 2 on a quiet machine of two
 * CPUs, whatever the load estimate. Sizing it on one worker's rate (which
 * a neighbour on one CPU cannot halve, as it can the rate of two) keeps
 * each run near 0.6 s. Each server is rated at its own probe, so the
 * efficiencies say nothing of who wins: the scores do; but the probes
 * tell what the machine gave: where, in some round, two workers probed at
 * under 1.3 times one worker's rate (neighbours holding a CPU: seen here
 * with other masters hashing on both CPUs), no race can tell them apart
 * and the test says SKIP. A verdict for one worker always fails it. */
START_TEST(two_workers_beat_one)
{
	const char *w1[] = { "--workers", "1", "--no-pin", NULL };
	const char *w2[] = { "--workers", "2", "--no-pin", NULL };
	struct tmaster one, two;
	static struct ran r;
	char w[7][32];
	double rate, worst;
	uint64_t d;
	int at = 0;

	ck_assert_int_eq(tm_start(&one, NULL, w1), 0);
	ck_assert_int_eq(tm_start(&two, NULL, w2), 0);
	rate = rate_of(one.port);
	d = (uint64_t)(rate * 0.025);
	workload(w, 24, d, 1000);
	race_masters(&one, "one", &two, "two", w, "8", "0.05", &r);
	ck_assert_int_eq(tm_stop(&one), 0);
	ck_assert_int_eq(tm_stop(&two), 0);
	json_agrees(&r);
	/* Where the probes show that two workers never had two CPUs, neither
	 * verdict is the code's: a neighbour held one of them. */
	two_cpus(&r, 8, &worst, &at);
	if (!strstr(r.out, "verdict: two ") && worst < 1.3) {
		th_skip(__func__, "neighbours held a CPU: in round %d two workers "
			"ran at %.2f times one worker's rate", at, worst);
		return;
	}
	ck_assert_ptr_null(strstr(r.out, "verdict: one "));
	expect(&r, "verdict: two is faster than one by ");
	expect(&r, " interval, 8 rounds)\n");
	ck_assert_int_eq(r.status, 0);
}
END_TEST

/* Two masters alike, one worker each, at half load, over eight rounds (no
 * probes: the verdict is on scores): equivalent, or inconclusive, never a
 * winner. Under steady noise a winner comes in under 3% of such races
 * (check_verdict). On a shared machine the first master started can be
 * the slower one round after round (seen under the sanitizer: B faster
 * in 8 of 8 rounds, twice): a race that names a winner is run once more,
 * with fresh masters started the other way round, and the test fails
 * when that race names the same master again. */
static char alike_race_winner(struct ran *r, int b_first)
{
	const char *w1[] = { "--workers", "1", "--no-pin", NULL };
	struct tmaster a, b;
	char w[7][32];
	double rate;
	uint64_t d;

	ck_assert_int_eq(tm_start(b_first ? &b : &a, NULL, w1), 0);
	ck_assert_int_eq(tm_start(b_first ? &a : &b, NULL, w1), 0);
	rate = rate_of(a.port);
	d = (uint64_t)(rate * 0.010);
	workload(w, 40, d, (uint64_t)(0.8 * d / 2 / rate / 0.5 * 1e6));
	race_masters(&a, "A", &b, "B", w, "8", NULL, r);
	ck_assert_int_eq(tm_stop(&a), 0);
	ck_assert_int_eq(tm_stop(&b), 0);
	ck_assert_int_eq(r->status, 0);
	if (strstr(r->out, "\nverdict: A is faster than "))
		return 'A';
	if (strstr(r->out, "\nverdict: B is faster than "))
		return 'B';
	ck_assert(strstr(r->out, "\nno verdict between A and B: inconclusive: ") ||
		  strstr(r->out, "\nverdict: A and B are equivalent within "));
	return 0;
}

START_TEST(identical_servers_no_verdict)
{
	static struct ran r;
	char first, again;

	if (!(first = alike_race_winner(&r, 0)))
		return;
	fprintf(stderr, "identical_servers_no_verdict: %c won between alike servers (chance, "
		"or where it ran): racing once more, started the other way round\n", first);
	again = alike_race_winner(&r, 1);
	ck_assert_msg(again != first, "%c won twice between alike servers:\n%s", first, r.out);
}
END_TEST

/* A master that served the race's seeds before answers from its cache:
 * its run is flagged, with why and what to do, and no verdict involves
 * it; raced again with --seed (seeds it has not played) it is not. */
START_TEST(cached_answers_are_flagged)
{
	const char *w1[] = { "--workers", "1", "--no-pin", NULL };
	struct tmaster warm, fresh;
	static struct ran r;
	char w[7][32], port[16], sw[64], sf[64], other[24];

	ck_assert_int_eq(tm_start(&warm, NULL, w1), 0);
	ck_assert_int_eq(tm_start(&fresh, NULL, w1), 0);
	workload(w, 16, 1000000, 25000); /* 10-30 ms of hashing each */
	snprintf(port, sizeof port, "%u", warm.port);
	{
		const char *prime[] = { "127.0.0.1", port, w[0], w[1], w[2], w[3],
					w[4], w[5], w[6], "--no-calibrate", "--quiet",
					NULL };

		run_bench(prime, NULL, &r);
		ck_assert_int_eq(r.status, 0);
	}
	snprintf(other, sizeof other, "%lu", strtoul(w[0], NULL, 10) ^ 0x5a5a5a);
	{
		const char *args[] = { "--race", server(sw, 64, "warm", warm.port),
				       server(sf, 64, "fresh", fresh.port), w[0], w[1],
				       w[2], w[3], w[4], w[5], w[6], "--rounds", "1",
				       "--settle", "0", "--probe", "0.05", NULL, NULL, NULL };

		run_bench(args, NULL, &r);
		expect(&r, "  warm: faster than hashing allows, by its efficiency at ");
		expect(&r, "restart it, or race with --seed), or it hashes faster "
		       "than any probe showed; no verdict from its rounds\n");
		expect(&r, "\nwarm ran faster than hashing allows in 1 of 1 rounds: ");
		expect(&r, "\nno verdict between warm and fresh: warm ran faster than "
		       "hashing allows in 1 round");
		ck_assert_int_eq(r.status, 0);
		args[16] = "--seed";
		args[17] = other;
		run_bench(args, NULL, &r);
		ck_assert_ptr_null(strstr(r.out, "warm: faster than hashing"));
		ck_assert_ptr_null(strstr(r.out, "warm ran faster"));
		ck_assert_int_eq(r.status, 0);
	}
	ck_assert_int_eq(tm_stop(&warm), 0);
	ck_assert_int_eq(tm_stop(&fresh), 0);
}
END_TEST

/* A server that answers every request of the race's workload from a
 * table made beforehand, hashing nothing, raced without probes against a
 * master: no probe gives a rate to judge it by, but the machine's peak
 * does (revhash's fastest kernel on every CPU), and its run is flagged as
 * answered from memory, with no verdict; the master's, hashed, is not.
 * Where the machine has a GPU, which its CPUs' peak does not bound, the
 * race says instead that this cannot be caught. */
START_TEST(a_table_is_caught_without_a_probe)
{
	const char *w1[] = { "--workers", "1", "--no-pin", NULL };
	struct fake table = { FAKE_TABLE, 'T', 0, -1, 0 };
	struct wl_params wl = { .total = 3, .difficulty = 80000000, .rep = 0,
				.delay_us = 1000, .lambda = 1.5 };
	struct wl_request *answers;
	struct tmaster m;
	static struct ran r;
	char w[7][32], st[64], sm[64];

	/* 0.3 s of one worker's hashing each, on average: their work at the
	 * peak is 0.5 s, a quarter of which is more than the table took under
	 * a load of 17 runnable processes on 2 CPUs (21 ms a request). */
	workload(w, 3, 80000000, 1000);
	wl.seed = strtoull(w[0], NULL, 10);
	ck_assert_ptr_nonnull(answers = wl_requests(&wl));
	fake_table(answers, wl.total);
	fake_start(&table);
	ck_assert_int_eq(tm_start(&m, NULL, w1), 0);
	{
		const char *args[] = { "--race", server(st, 64, "table", table.port),
				       server(sm, 64, "master", m.port), w[0], w[1], w[2],
				       w[3], w[4], w[5], w[6], "--rounds", "1", "--settle",
				       "0", "--no-calibrate", NULL };

		run_bench(args, NULL, &r);
	}
	ck_assert_int_eq(tm_stop(&m), 0);
	free(answers);
	ck_assert_int_eq(r.status, 0);
	if (strstr(r.out, "this machine has a GPU")) {
		expect(&r, "this machine has a GPU (");
		expect(&r, "\ntable: no peak bounds it (a GPU here): without probes, "
		       "answers from memory cannot be caught\n");
		th_skip(__func__, "a GPU here: the CPUs' peak bounds no server");
		return;
	}
	expect(&r, "this machine's peak: ");
	expect(&r, "\n  table: faster than hashing allows, by its fresh requests' "
	       "latencies, summed, against their hashing at ");
	expect(&r, "this machine's peak (");
	expect(&r, "): it answered from memory, ");
	expect(&r, "\nno verdict between table and master: table ran faster than "
	       "hashing allows in 1 round");
	ck_assert_ptr_null(strstr(r.out, "  master: faster than hashing"));
}
END_TEST

/* --- races of fakes ----------------------------------------------------- */

/* A server's fastest probe so far is its rate: one probed at once in
 * round 1 and slowly in round 2 (as a neighbour can slow a probe), whose
 * runs answer from a table as fast in both rounds, is judged in round 2
 * at round 1's rate, and not flagged; at its own probe's rate its run
 * beats the ideal server about sixteen times over, and is. */
START_TEST(the_fastest_earlier_probe_counts)
{
	struct fake f[2] = { { FAKE_SLOWING, 'S', 10, -1, 0 }, { FAKE_TABLE, 'O', 10, -1, 0 } };
	struct wl_params wl = { .seed = 7, .total = 16, .difficulty = 400000, .rep = 0,
				.delay_us = 20000, .lambda = 1.5 };
	struct wl_request *r1, *r2, both[32];
	static struct ran r;
	double rate[2];
	char ss[64], so[64];

	ck_assert_ptr_nonnull(r1 = wl_requests(&wl));
	wl.seed = 8;
	ck_assert_ptr_nonnull(r2 = wl_requests(&wl));
	memcpy(both, r1, 16 * sizeof *both);
	memcpy(both + 16, r2, 16 * sizeof *both);
	fake_table(both, 32);
	fake_start(&f[0]);
	fake_start(&f[1]);
	{
		const char *args[] = { "--race", server(ss, 64, "S", f[0].port),
				       server(so, 64, "O", f[1].port), "7", "16", "0",
				       "400000", "0", "20000", "1.5", "--rounds", "2",
				       "--settle", "0", "--probe", "0.05", NULL };

		run_bench(args, NULL, &r);
	}
	free(r1);
	free(r2);
	ck_assert_int_eq(r.status, 0);
	for (int round = 0; round < 2; round++) {
		char head[32], *table, *end;
		static char text[sizeof r.out];

		snprintf(head, sizeof head, "round %d of 2,", round + 1);
		strcpy(text, r.out);
		ck_assert_ptr_nonnull(table = strstr(text, head));
		if ((end = strstr(table, "\n\n")))
			end[1] = '\0';
		ck_assert_int_ge(row(table, "S", &rate[round], 1), 1);
	}
	/* 2e6 values in FAKE_SLOW_MS in round 2: far slower. A loaded machine
	 * may end round 1's probe early, so ask only 8 times: judged at
	 * round 2's own probe, the run is flagged past a factor of 4. */
	ck_assert_msg(rate[0] > 8 * rate[1], "%g then %g M/s", rate[0], rate[1]);
	ck_assert_ptr_null(strstr(r.out, "S: faster than hashing"));
	ck_assert_ptr_null(strstr(r.out, "S ran faster"));
}
END_TEST

/* A fast server that answers wrong against a slow one that answers right:
 * the fast one's score is the better, and it loses, on reliability, which
 * is said before the verdict. */
START_TEST(wrong_answers_lose_on_reliability)
{
	struct fake wrong = { FAKE_WRONG, 'W', 0, -1, 0 };
	struct fake right = { FAKE_RIGHT, 'R', 3, -1, 0 };
	char sw[64], sr[64];
	static struct ran r;
	double fw[4], fr[4];
	const char *said, *verdict;

	fake_start(&wrong);
	fake_start(&right);
	{
		const char *args[] = { "--race", server(sw, sizeof sw, "wrong", wrong.port),
				       server(sr, sizeof sr, "right", right.port),
				       "5", "10", "0", "300", "20", "1000", "1.5",
				       "--rounds", "3", "--settle", "0", "--no-calibrate", NULL };

		run_bench(args, NULL, &r);
	}
	said = expect(&r, "\nwrong answered 30 of 30 requests wrong or not at all "
		      "(0.00% right)");
	verdict = expect(&r, "\nverdict: right beats wrong on reliability: 30 of "
			 "30 answers right, wrong 0 (0.00%)\n");
	ck_assert(said < verdict);
	expect(&r, "  wrong: 10 wrong of 10 answers\n");
	/* summary rows: reliability, median score, min, "-", max */
	ck_assert_int_eq(row(r.out, "wrong", fw, 4), 4);
	ck_assert_int_eq(row(r.out, "right", fr, 4), 4);
	ck_assert(fw[0] == 0 && fr[0] == 100);
	ck_assert(fw[1] < fr[1]); /* the faster one */
	ck_assert_int_eq(r.status, 1);
}
END_TEST

/* --ask checks what a server replies: a reply out of the range (a fake
 * that answers END + 1) is said to be no answer and the exit is 1; the
 * right one is printed, exit 0. It printed whatever came. */
START_TEST(ask_checks_the_reply)
{
	struct fake wrong = { FAKE_WRONG, 'W', 0, -1, 0 };
	struct fake right = { FAKE_RIGHT, 'R', 0, -1, 0 };
	char pw[16], pr[16], hex[65];
	static struct ran r;
	uint8_t d[32];

	digest_of(1234, d);
	for (int i = 0; i < 32; i++)
		snprintf(hex + 2 * i, 3, "%02x", d[i]);
	fake_start(&wrong);
	fake_start(&right);
	snprintf(pw, sizeof pw, "%u", wrong.port);
	snprintf(pr, sizeof pr, "%u", right.port);
	{
		const char *args[] = { "127.0.0.1", pw, "--ask", hex, "1000", "2000", NULL };

		run_bench(args, NULL, &r);
		ck_assert_int_eq(r.status, 1);
		ck_assert_msg(strstr(r.err, "replied 2001, which is no answer"), "stderr: %s",
			      r.err);
	}
	{
		const char *args[] = { "127.0.0.1", pr, "--ask", hex, "1000", "2000", NULL };

		run_bench(args, NULL, &r);
		ck_assert_int_eq(r.status, 0);
		expect(&r, "1234\n");
	}
}
END_TEST

/* A server that never replies holds --ask no longer than its --timeout
 * (it waited for ever). */
START_TEST(ask_gives_up_on_a_silent_server)
{
	struct fake hang = { FAKE_HANG, 'H', 0, -1, 0 };
	char port[16], hex[65];
	static struct ran r;
	uint64_t t0;
	uint8_t d[32];

	digest_of(1234, d);
	for (int i = 0; i < 32; i++)
		snprintf(hex + 2 * i, 3, "%02x", d[i]);
	fake_start(&hang);
	snprintf(port, sizeof port, "%u", hang.port);
	{
		const char *args[] = { "127.0.0.1", port, "--ask", hex, "1000", "2000",
				       "--timeout", "0.5", NULL };

		t0 = clock_ms();
		run_bench(args, NULL, &r);
		ck_assert_uint_lt(clock_ms() - t0, 5000);
		ck_assert_int_eq(r.status, 1);
		ck_assert_msg(strstr(r.err, "no answer within 0.5 s"), "stderr: %s", r.err);
	}
}
END_TEST

/* Three servers, three rounds: the connections reach them A B C, C B A,
 * A B C, a leg at a time; the CSV has every request of every leg. */
START_TEST(abba_order_reaches_the_servers)
{
	struct fake f[3] = { { FAKE_RIGHT, 'A', 0, -1, 0 }, { FAKE_RIGHT, 'B', 0, -1, 0 },
			     { FAKE_RIGHT, 'C', 0, -1, 0 } };
	char s[3][64], csv[] = "/tmp/revhash-race-XXXXXX", line[512];
	unsigned count[4][3] = { { 0 } }, round, rows = 0;
	static struct ran r;
	FILE *in;
	int fd = mkstemp(csv);

	ck_assert_int_ge(fd, 0);
	close(fd);
	for (int i = 0; i < 3; i++)
		fake_start(&f[i]);
	{
		const char *args[] = { "--race", server(s[0], 64, "A", f[0].port),
				       server(s[1], 64, "B", f[1].port),
				       server(s[2], 64, "C", f[2].port),
				       "77", "4", "0", "200", "20", "0", "1.5",
				       "--rounds", "3", "--settle", "0", "--no-calibrate",
				       "--csv", csv, NULL };

		run_bench(args, NULL, &r);
	}
	ck_assert_int_eq(r.status, 0);
	json_agrees(&r);
	ck_assert_str_eq(fake_log(), "AAAABBBBCCCC" "CCCCBBBBAAAA" "AAAABBBBCCCC");
	expect(&r, "round 1 of 3, seed 77: A, B, then C\n");
	expect(&r, "round 2 of 3, seed 78: C, B, then A\n");
	expect(&r, "round 3 of 3, seed 79: A, B, then C\n");
	ck_assert_ptr_nonnull(in = fopen(csv, "r"));
	ck_assert_ptr_nonnull(fgets(line, sizeof line, in));
	ck_assert(strncmp(line, "round,server,seed,rate,index,", 29) == 0);
	while (fgets(line, sizeof line, in)) {
		char name;

		ck_assert_int_eq(sscanf(line, "%u,%c,", &round, &name), 2);
		ck_assert(round >= 1 && round <= 3 && name >= 'A' && name <= 'C');
		count[round][name - 'A']++;
		rows++;
	}
	fclose(in);
	unlink(csv);
	ck_assert_uint_eq(rows, 36);
	for (round = 1; round <= 3; round++)
		for (int i = 0; i < 3; i++)
			ck_assert_uint_eq(count[round][i], 4);
}
END_TEST

/* A master raced against servers that close without a reply, send three
 * bytes, hang, or refuse: a line for each of them in every round, the
 * hung requests given up at --timeout, and the race on to its end. */
START_TEST(hostile_servers_race_goes_on)
{
	const char *w1[] = { "--workers", "1", NULL };
	struct fake closer = { FAKE_CLOSE, 'c', 0, -1, 0 };
	struct fake garbage = { FAKE_GARBAGE, 'g', 0, -1, 0 };
	struct fake hang = { FAKE_HANG, 'h', 0, -1, 0 };
	char s[5][64];
	struct tmaster rh;
	static struct ran r;
	double v[6];

	ck_assert_int_eq(tm_start(&rh, NULL, w1), 0);
	fake_start(&closer);
	fake_start(&garbage);
	fake_start(&hang);
	{
		const char *args[] = { "--race", server(s[0], 64, "rh", rh.port),
				       server(s[1], 64, "closer", closer.port),
				       server(s[2], 64, "garbage", garbage.port),
				       server(s[3], 64, "hang", hang.port),
				       server(s[4], 64, "refused", th_free_port()),
				       "9", "6", "0", "100000", "20", "2000", "1.5",
				       "--rounds", "2", "--settle", "0", "--timeout", "1", "--probe",
				       "0.05", NULL };

		run_bench(args, NULL, &r);
	}
	ck_assert_int_eq(tm_stop(&rh), 0);
	json_agrees(&r);
	expect(&r, "round 2 of 2, seed 10: refused, hang, garbage, closer, then rh\n");
	expect(&r, "  closer: probe failed (closed before the full reply)");
	expect(&r, "  closer: 6 missing of 6 answers (closed before the full reply: 6)\n");
	expect(&r, "  garbage: 6 missing of 6 answers (closed before the full reply: 6)\n");
	expect(&r, "  hang: probe timed out: no reply within its bound (10 times "
	       "--probe, at least 5 s, at most --timeout); the race closed it");
	expect(&r, "  hang: 6 missing of 6 answers (timed out: 6)\n");
	expect(&r, "  refused: probe failed (Connection refused)");
	expect(&r, "  refused: 6 missing of 6 answers (Connection refused: 6)\n");
	expect(&r, "\nverdict: rh beats hang on reliability");
	/* Round 2's table (rate, score, efficiency, reliability, p50, p99):
	 * the master served, the hang cost its timeout. */
	*strstr(r.out, "\nsummary") = '\0';
	ck_assert_int_eq(row(r.out, "rh", v, 6), 6);
	ck_assert(v[0] > 0 && v[3] == 100);
	ck_assert_int_eq(row(r.out, "hang", v, 6), 6);
	ck_assert(isnan(v[0]) && isnan(v[2]) && v[3] == 0);
	ck_assert(v[4] >= 1000 && v[4] < 10000); /* p50, ms */
	ck_assert_int_eq(r.status, 1);
}
END_TEST

/* Race two fake servers for rounds rounds with --plot png; r says how it
 * ran. */
static void race_plotted(const char *png, const char *rounds, struct ran *r)
{
	struct fake a = { FAKE_RIGHT, 'a', 0, -1, 0 }, b = { FAKE_RIGHT, 'b', 0, -1, 0 };
	char sa[64], sb[64];
	const char *args[] = { "--race", server(sa, 64, "a", 0), server(sb, 64, "b", 0), "3", "3",
			       "0", "100", "20", "0", "1.5", "--rounds", rounds, "--no-calibrate",
			       "--settle", "0", "--plot", png, NULL };

	fake_start(&a);
	fake_start(&b);
	args[1] = server(sa, 64, "a", a.port);
	args[2] = server(sb, 64, "b", b.port);
	run_bench(args, NULL, r);
}

/* Whether the file at path starts as a PNG does. */
static int is_png(const char *path)
{
	unsigned char magic[8];
	FILE *f = fopen(path, "rb");
	int yes = f && fread(magic, 1, 8, f) == 8 && memcmp(magic, "\x89PNG\r\n\x1a\n", 8) == 0;

	if (f)
		fclose(f);
	return yes;
}

/* --plot draws a PNG: with 8 rounds the ratios per pair (with their
 * interval) beside the scores, with 1 the scores alone; without gnuplot
 * on the PATH, the race does not start (see bad_arguments_exit_2). */
START_TEST(plot_draws_the_scores)
{
	char png[] = "/tmp/revhash-race-XXXXXX.png";
	const char *rounds[] = { "8", "1" };
	static struct ran r;
	int fd;

	if (system("command -v gnuplot >/dev/null 2>&1") != 0) {
		th_skip(__func__, "no gnuplot (scripts/install-deps.sh --plot)");
		return;
	}
	ck_assert_int_ge(fd = mkstemps(png, 4), 0);
	close(fd);
	for (int k = 0; k < 2; k++) {
		race_plotted(png, rounds[k], &r);
		ck_assert_int_eq(r.status, 0);
		expect(&r, "\nplot: ");
		ck_assert(is_png(png));
	}
	unlink(png);
}
END_TEST

/* The --plot file's name goes into gnuplot's script: whatever it holds
 * (quotes, a backslash, a `command` that gnuplot would run within double
 * quotes, a system() call, a macro), it names the file and nothing runs.
 * The race runs in a folder of its own, where a command would leave its
 * mark. (A backquoted command in the name ran; quotes were refused.) */
START_TEST(plot_file_name_is_only_a_name)
{
	static const char *const names[] = {
		"a`touch ran`b.png",
		"a'b\"c\\d system(\"touch ran\") @x.png",
	};
	char dir[] = "/tmp/revhash-plot-XXXXXX", bench[PATH_MAX];
	static struct ran r;

	if (system("command -v gnuplot >/dev/null 2>&1") != 0) {
		th_skip(__func__, "no gnuplot (scripts/install-deps.sh --plot)");
		return;
	}
	ck_assert_ptr_nonnull(realpath(th_bench_path(), bench));
	setenv("REVHASH_BENCH", bench, 1);
	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_int_eq(chdir(dir), 0);
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		race_plotted(names[i], "8", &r);
		ck_assert_msg(access("ran", F_OK) != 0, "--plot '%s' ran a command", names[i]);
		ck_assert_msg(r.status == 0, "--plot '%s': exit %d", names[i], r.status);
		ck_assert(is_png(names[i]));
		unlink(names[i]);
	}
	ck_assert_int_eq(chdir("/"), 0);
	ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

/* Each mistake exits 2 before anything is sent, saying what is wrong. */
START_TEST(bad_arguments_exit_2)
{
#define A "A=127.0.0.1:1"
#define B "B=127.0.0.1:2"
	static const struct {
		const char *args[16];
		const char *says;
	} bad[] = {
		{ { "--race", A, "milestone" }, "two servers or more" },
		{ { "--race", A, B, "nope" }, "no preset nope (the presets: milestone," },
		{ { "--race", A, "A=127.0.0.1:3", "final" }, "a name given twice" },
		{ { "--race", A, "B=127.0.0.1:1", "final" }, "the same server as another" },
		{ { "--race", "A=127.0.0.1", B, "final" }, "not NAME=HOST:PORT" },
		{ { "--race", "A=127.0.0.1:0", B, "final" }, "a port from 1 to 65535" },
		{ { "--race", "A=[::1]:65536", B, "final" }, "a port from 1 to 65535" },
		{ { "--race", "=127.0.0.1:1", B, "final" }, "a NAME is 1 to 16" },
		{ { "--race", "a b=127.0.0.1:1", B, "final" }, "a NAME is 1 to 16" },
		{ { "--race", "seventeen_chars_x=127.0.0.1:1", B, "final" }, "a NAME is 1 to 16" },
		{ { "--race", "A=:1", B, "final" }, "no host" },
		{ { "--race", A, B, "1", "2", "3" }, "after the servers, SEED TOTAL" },
		{ { "--race", A, B, "1", "9", "0", "99", "101", "0", "1" }, "after the servers" },
		{ { "--race", A, B, "final", "C=127.0.0.1:3" }, "after the servers" },
		{ { "--race", A, B, "final", "--rounds", "0" }, "--rounds: a whole number" },
		{ { "--race", A, B, "final", "--rounds", "x" }, "--rounds: a whole number" },
		{ { "--race", A, B, "final", "--margin", "-1" }, "--margin: a number from 0 to 1000" },
		{ { "--race", A, B, "final", "--timeout", "0" }, "--timeout: seconds" },
		{ { "--race", A, B, "final", "--probe", "61" }, "--probe: seconds" },
		{ { "--race", A, B, "final", "--plot", "a\nb.png" }, "--plot: a file name" },
		{ { "--race", A, B, "1M", "--no-calibrate" }, "cannot run with --no-calibrate" },
		{ { "--race", A, B, "final", "--quiet" }, "--quiet belongs to the replay" },
		{ { "--race", A, B, "final", "--concurrency", "2" }, "--race and --concurrency are two" },
		{ { "--race", A, B, "final", "--ask" }, "--race and --ask are two modes" },
		{ { "--race", A, B, "1", "9", "0", "0", "20", "0", "1" }, "DIFFICULTY must be 1" },
		{ { "127.0.0.1", "1", "1", "1", "0", "9", "0", "0", "1", "--rounds", "3" },
		  "--rounds belongs to --race" },
		{ { "--race", A, B, "C=h:3", "D=h:4", "E=h:5", "F=h:6", "G=h:7", "H=h:8",
		    "I=h:9", "final" }, "too many servers" },
	};
	const char *plot[] = { "--race", A, B, "final", "--plot", "x.png", NULL };
	static struct ran r;

	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		run_bench(bad[i].args, NULL, &r);
		if (r.status != 2 || !strstr(r.err, bad[i].says))
			fprintf(stderr, "case %zu: exit %d, stderr:\n%s", i, r.status, r.err);
		ck_assert_int_eq(r.status, 2);
		ck_assert_ptr_nonnull(strstr(r.err, bad[i].says));
		ck_assert_str_eq(r.out, "");
	}
	/* A dependency that is not there: no gnuplot, no race. */
	run_bench(plot, "/nonexistent", &r);
	ck_assert_int_eq(r.status, 2);
	ck_assert_ptr_nonnull(strstr(r.err, "--plot needs gnuplot"));
	ck_assert_str_eq(r.out, "");
#undef A
#undef B
}
END_TEST

/* --preset prints a preset's seven words, which scripts/lib-bench.sh
 * reads (by name, with --json): its delay from --rate where it follows
 * one, which it must then have. Each mistake says what is wrong. */
START_TEST(preset_prints_its_words)
{
	const char *one_m[] = { "--preset", "1M", "--rate", "142.7e6", NULL };
	const char *final[] = { "--preset", "final", NULL };
	static const struct {
		const char *args[5];
		const char *says;
	} bad[] = {
		{ { "--preset", "1M" }, "give --rate" },
		{ { "--preset", "nope", "--rate", "1e8" }, "no preset nope" },
		{ { "--preset", "final", "extra" }, "takes no other words or options" },
		{ { "--preset", "final", "--quiet" }, "--quiet belongs to the replay" },
	};
	static struct ran r;

	run_bench(one_m, NULL, &r);
	ck_assert_int_eq(r.status, 0);
	ck_assert_str_eq(r.out, "3435245 200 0 1000000 20 11212 1.5\n");
	ck_assert_str_eq(r.json, "{\"seed\":3435245,\"total\":200,\"start\":0,\"difficulty\":"
			 "1000000,\"rep\":20,\"delay_us\":11212,\"lambda\":1.5}\n");
	run_bench(final, NULL, &r);
	ck_assert_int_eq(r.status, 0);
	ck_assert_str_eq(r.out, "3435245 500 0 30000000 20 600000 1.5\n");
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		run_bench(bad[i].args, NULL, &r);
		ck_assert_int_eq(r.status, 2);
		ck_assert_str_eq(r.out, "");
		ck_assert_ptr_nonnull(strstr(r.err, "revhash-bench: "));
		ck_assert_ptr_nonnull(strstr(r.err, bad[i].says));
	}
}
END_TEST

/* The busy share from two readings of /proc/stat: user, nice, system,
 * irq, softirq and steal over those and idle and iowait, on every CPU. */
START_TEST(machine_busy_share)
{
	static const char a[] = "cpu  100 0 50 800 50 0 0 0 0 0\n"
		"cpu0 50 0 25 400 25 0 0 0 0 0\ncpu1 50 0 25 400 25 0 0 0 0 0\n"
		"intr 1 2 3\n";
	static const char b[] = "cpu  160 10 70 880 60 5 5 0 7 0\n"
		"cpu0 80 5 35 440 30 2 3 0 7 0\ncpu1 80 5 35 440 30 3 2 0 0 0\n";
	struct machine_cpu x, y;

	ck_assert_int_eq(machine_parse(a, &x), 0);
	ck_assert_int_eq(machine_parse(b, &y), 0);
	ck_assert(x.busy == 150 && x.total == 1000 && x.cpus == 2);
	/* busy 60 + 10 + 20 + 5 + 5 more, of those, 80 idle and 10 iowait: 7 guest
	 * is inside user already */
	ck_assert(y.busy == 250 && y.total == 1190 && y.cpus == 2);
	ck_assert_double_eq_tol(machine_busy(&x, &y), 100.0 / 190, 1e-12);
	ck_assert(machine_busy(&y, &x) < 0 && machine_busy(&x, &x) < 0);
	ck_assert_int_eq(machine_parse("intr 1\ncpu 1 2 3 4\n", &x), -EINVAL);
	/* a quarter of one CPU busier than before the leg, on 2 CPUs: 12.5% */
	ck_assert(machine_kept_busy(0.05, 0.20, 2));
	ck_assert(!machine_kept_busy(0.05, 0.15, 2));
	ck_assert(!machine_kept_busy(0.10, -1, 2));
	ck_assert(!machine_kept_busy(0, 0.003, 64) && machine_kept_busy(0, 0.005, 64));
}
END_TEST

/* A probe's requests grow towards twice the time trusted at the rate
 * the one before showed, at least doubling and at most 64 times; a bound
 * keeps each within most_s of hashing at the slowest rate the server
 * showed, so that one that never cancels is done with a closed request
 * within the race's wait; the first request is cut as the others. */
START_TEST(probe_requests_are_bounded)
{
	struct calibrate_bound b = { 10, 1e6 }, none = { 10, 0 }, off = { 0, 1e6 };

	ck_assert_uint_eq(calibrate_next(CALIBRATE_FIRST, 0, 0.5, NULL), CALIBRATE_FIRST);
	ck_assert_uint_eq(calibrate_next(2000000, 0.02, 0.5, NULL), 100000000);
	ck_assert_uint_eq(calibrate_next(2000000, 0.002, 0.5, NULL), 128000000);
	ck_assert_uint_eq(calibrate_next(2000000, 0.4, 0.5, NULL), 5000000);
	/* 10 s at 1M a second: 10M values at most, the first request too. */
	ck_assert_uint_eq(calibrate_next(2000000, 0.02, 0.5, &b), 10000000);
	ck_assert_uint_eq(calibrate_next(2000000, 0.4, 0.5, &b), 5000000);
	b.slowest = 1e5;
	ck_assert_uint_eq(calibrate_next(CALIBRATE_FIRST, 0, 0.5, &b), 1000000);
	/* No rate seen yet, or no bound: as without one. */
	ck_assert_uint_eq(calibrate_next(2000000, 0.02, 0.5, &none), 100000000);
	ck_assert_uint_eq(calibrate_next(2000000, 0.02, 0.5, &off), 100000000);
	/* Never under one value. */
	b.slowest = 1e-3;
	ck_assert_uint_eq(calibrate_next(2000000, 0.02, 0.5, &b), 1);
}
END_TEST

/* A GPU's device file in a folder laid out as /dev: CUDA's nvidia0
 * (not its control file alone), ROCm's kfd, a dri/renderD*; none in a
 * folder of other files, or one that is not there. */
START_TEST(a_gpu_is_found_in_dev)
{
	static const struct {
		const char *files[3];
		const char *found; /* NULL: none */
	} c[] = {
		{ { "null", "nvidiactl", "tty0" }, NULL },
		{ { "nvidiactl", "nvidia0" }, "/nvidia0" },
		{ { "kfd" }, "/kfd" },
		{ { "dri/card0", "dri/renderD128" }, "/dri/renderD128" },
		{ { "dri/card0" }, NULL },
	};
	char found[128], path[256];

	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		char dev[] = "/tmp/revhash-dev-XXXXXX";
		FILE *f;

		ck_assert_ptr_nonnull(mkdtemp(dev));
		for (int k = 0; k < 3 && c[i].files[k]; k++) {
			snprintf(path, sizeof path, "%s/dri", dev);
			if (strchr(c[i].files[k], '/'))
				mkdir(path, 0700);
			snprintf(path, sizeof path, "%s/%s", dev, c[i].files[k]);
			ck_assert_ptr_nonnull(f = fopen(path, "w"));
			fclose(f);
		}
		found[0] = '\0';
		ck_assert_int_eq(machine_gpu_in(dev, found, sizeof found), c[i].found != NULL);
		if (c[i].found) {
			snprintf(path, sizeof path, "%s%s", dev, c[i].found);
			ck_assert_str_eq(found, path);
		}
		snprintf(path, sizeof path, "rm -r '%s'", dev);
		ck_assert_int_eq(system(path), 0);
	}
	ck_assert_int_eq(machine_gpu_in("/nonexistent", found, sizeof found), 0);
}
END_TEST

/* A server that keeps a CPU busy for a second after each answer, raced
 * against one that does not: it is named under each round it ran in and
 * in the summary, and no verdict comes from the race (with two rounds the
 * verdict would otherwise be "too few"); the other, run after it once the
 * machine was idle again, is not named. Both are threads of this
 * process, which holds their ports: the CPU after each run is this
 * process's, and a neighbour's build does not count (it did, when the
 * machine's share was read). */
START_TEST(busy_after_its_run_is_named)
{
	struct fake busy = { FAKE_BUSY, 'K', 0, -1, 0 };
	struct fake calm = { FAKE_RIGHT, 'C', 0, -1, 0 };
	char sb[64], sc[64];
	static struct ran r;

	fake_start(&busy);
	fake_start(&calm);
	{
		const char *args[] = { "--race", server(sb, sizeof sb, "busy", busy.port),
				       server(sc, sizeof sc, "calm", calm.port),
				       "5", "3", "0", "300", "0", "1000", "1.5",
				       "--rounds", "2", "--settle", "3", "--no-calibrate", NULL };

		run_bench(args, NULL, &r);
	}
	expect(&r, "\nround 1 of 2, seed 5: busy, then calm\n");
	expect(&r, "\n  busy kept ");
	expect(&r, " CPUs busy after its run (its processes, over 0.5 s): searches "
	       "it was not asked for any more? no verdict from its rounds\n");
	expect(&r, "\nbusy kept the CPUs busy after its run in 2 of 2 rounds: ");
	expect(&r, "\nno verdict between busy and calm: busy kept the CPUs busy "
	       "after its run in 2 rounds (the other's runs shared the machine "
	       "with it)\n");
	if (strstr(r.out, "calm kept"))
		fprintf(stderr, "--- stdout\n%s", r.out);
	ck_assert_ptr_null(strstr(r.out, "calm kept"));
	ck_assert_int_eq(r.status, 0);
}
END_TEST

static Suite *race_suite(void)
{
	Suite *s = suite_create("race");
	TCase *masters = tcase_create("masters"), *fakes = tcase_create("fakes");

	tcase_set_timeout(masters, 120);
	tcase_add_test(masters, two_workers_beat_one);
	tcase_add_test(masters, identical_servers_no_verdict);
	tcase_add_test(masters, cached_answers_are_flagged);
	tcase_add_test(masters, a_table_is_caught_without_a_probe);
	tcase_add_test(masters, hostile_servers_race_goes_on);
	suite_add_tcase(s, masters);
	tcase_set_timeout(fakes, 30);
	tcase_add_test(fakes, wrong_answers_lose_on_reliability);
	tcase_add_test(fakes, abba_order_reaches_the_servers);
	tcase_add_test(fakes, the_fastest_earlier_probe_counts);
	tcase_add_test(fakes, plot_draws_the_scores);
	tcase_add_test(fakes, plot_file_name_is_only_a_name);
	tcase_add_test(fakes, bad_arguments_exit_2);
	tcase_add_test(fakes, ask_checks_the_reply);
	tcase_add_test(fakes, ask_gives_up_on_a_silent_server);
	tcase_add_test(fakes, preset_prints_its_words);
	tcase_add_test(fakes, machine_busy_share);
	tcase_add_test(fakes, a_gpu_is_found_in_dev);
	tcase_add_test(fakes, probe_requests_are_bounded);
	tcase_add_test(fakes, busy_after_its_run_is_named);
	suite_add_tcase(s, fakes);
	return s;
}

int main(void)
{
	return check_run(race_suite());
}
