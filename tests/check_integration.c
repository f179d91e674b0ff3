/* The real master end to end: start it on a free port with 2 workers and
 * talk TCP to it. Concurrency, repeats, not-found, start > end, the edges
 * of the number line, IPv4 and IPv6, a worker killed mid-request and inside
 * the ring's lock, a crash loop, counters, the latency histograms, slow and
 * idle clients, pinning.
 * What an operator does to it is in check_operator.c. */
#include "tests/check_run.h"
#include "tests/helpers.h"
#include "tests/fixture.h"
#include "lib/digest.h"
#include "shm/ring_master.h"
#include "shm/segment.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

/* Wait until the master has counted n worker deaths (reaping is async);
 * the deaths it counted. */
static uint64_t wait_deaths(uint64_t n)
{
	TH_WAIT_UNTIL(stats_now().worker_deaths >= n, 5000);
	return stats_now().worker_deaths;
}

/* Kill (SIGKILL) a worker of the master that holds a lease, waiting up to
 * 5 s for one: the test fails unless the kill hits one mid-lease. */
static void kill_worker_with_lease(void)
{
	pid_t victim = tm_freeze_worker_with_lease(&m, 5000);

	ck_assert_msg(victim > 0, "no worker held a lease to be killed with");
	ck_assert_int_eq(kill(victim, SIGKILL), 0);
}

static const char *const two[] = { "--workers", "2", NULL };

struct req {
	uint8_t d[32];
	uint64_t start, end, want;
	uint8_t prio;
	int fd;
	uint64_t got;
	int done;
};

/* Send every request at once on its own connection, then collect. */
static void run_all(struct req *q, int n)
{
	for (int i = 0; i < n; i++) {
		q[i].fd = th_connect(m.port);
		ck_assert_int_ge(q[i].fd, 0);
		ck_assert_int_eq(th_send_request(q[i].fd, q[i].d, q[i].start, q[i].end,
						 q[i].prio), 0);
	}
	for (int i = 0; i < n; i++) {
		q[i].done = th_read_reply(q[i].fd, &q[i].got, 60000) == 0;
		close(q[i].fd);
	}
}

START_TEST(fifty_concurrent_requests)
{
	struct req q[50];
	struct seg_stats st;

	start(NULL, two);
	for (int i = 0; i < 50; i++) {
		uint64_t base = th_rand64() >> 1;
		q[i].prio = (uint8_t)(1 + i % 16);
		if (i % 10 == 7 && i > 10) { /* repeat of an earlier request */
			q[i] = q[i - 5];
			continue;
		}
		q[i].start = base;
		q[i].end = base + 200000;
		q[i].want = base + th_rand64() % 200001;
		digest_of(q[i].want, q[i].d);
		if (i % 10 == 3) { /* answer outside the range: not found */
			digest_of(base + 300000, q[i].d);
			q[i].want = 0;
			q[i].end = base + 50000;
		}
		if (i % 10 == 5) { /* start > end */
			q[i].start = base + 10;
			q[i].end = base;
			q[i].want = 0;
		}
	}
	run_all(q, 50);
	for (int i = 0; i < 50; i++) {
		ck_assert_msg(q[i].done, "request %d got no reply", i);
		ck_assert_msg(q[i].got == q[i].want, "request %d: got %llu want %llu", i,
			      (unsigned long long)q[i].got, (unsigned long long)q[i].want);
	}
	/* The master counts a reply just after writing it. */
	ck_assert(TH_WAIT_UNTIL((st = stats_now()).answered == 50, 5000));
	ck_assert_uint_eq(st.requests, 50);
	ck_assert_uint_eq(st.answered, 50);
	ck_assert_uint_ge(st.not_found, 1);
	stop();
}
END_TEST

START_TEST(repeat_is_answered_from_the_cache)
{
	uint8_t d[32];
	uint64_t x, base = th_rand64() >> 1;
	struct seg_stats st;

	start(NULL, two);
	digest_of(base + 777, d);
	ck_assert_int_eq(th_request(m.port, d, base, base + 100000, 1, &x), 0);
	ck_assert_uint_eq(x, base + 777);
	ck_assert_int_eq(th_request(m.port, d, base, base + 100000, 5, &x), 0);
	ck_assert_uint_eq(x, base + 777);
	/* Same digest, another range holding the answer: still the cache. */
	ck_assert_int_eq(th_request(m.port, d, base + 700, base + 800, 5, &x), 0);
	ck_assert_uint_eq(x, base + 777);
	/* A range without the answer must not be answered from the cache. */
	ck_assert_int_eq(th_request(m.port, d, base, base + 500, 5, &x), 0);
	ck_assert_uint_eq(x, 0);
	st = stats_now();
	ck_assert_uint_eq(st.cache_hits, 2);
	ck_assert_uint_eq(st.jobs, 2);
	stop();
}
END_TEST

START_TEST(concurrent_repeat_attaches_to_the_search)
{
	struct req q[2];
	uint64_t base = th_rand64() >> 1;
	struct seg_stats st;
	const char *const one[] = { "--workers", "1", "--kernel", "openssl", NULL };

	start(NULL, one);
	q[0].start = base;
	q[0].end = base + 3000000;
	q[0].want = base + 2900000;
	q[0].prio = 1;
	digest_of(q[0].want, q[0].d);
	q[1] = q[0];
	q[1].prio = 9;
	run_all(q, 2);
	ck_assert(q[0].done && q[1].done);
	ck_assert_uint_eq(q[0].got, q[0].want);
	ck_assert_uint_eq(q[1].got, q[0].want);
	ck_assert(TH_WAIT_UNTIL((st = stats_now()).answered == 2, 5000));
	ck_assert_uint_eq(st.jobs, 1);
	ck_assert_uint_eq(st.attached, 1);
	/* each connection's reply is timed, the one that attached too */
	ck_assert_uint_eq(hist_count(&st.latency.reply[OUTCOME_FOUND]), 2);
	stop();
}
END_TEST

/* --status --json's count of replies of outcome: -1 when it has none. */
static long long json_replies(const char *outcome)
{
	char cmd[256], json[16384], key[64], *p;
	size_t len;
	FILE *f;

	snprintf(cmd, sizeof cmd, "%s --status %u --json", th_master_path(), m.port);
	ck_assert_ptr_nonnull(f = popen(cmd, "r"));
	len = fread(json, 1, sizeof json - 1, f);
	pclose(f);
	json[len] = '\0';
	snprintf(key, sizeof key, "{\"outcome\":\"%s\",\"count\":", outcome);
	return (p = strstr(json, key)) ? atoll(p + strlen(key)) : -1;
}

/* N requests of each outcome, of known priorities: the master's latency
 * histograms count N of each, in the segment and in --status --json, none
 * past the top bound; the score is their latency x priority. */
START_TEST(latency_is_counted_by_outcome)
{
	enum { N = 4 };
	struct req q[N];
	uint64_t x, base = th_rand64() >> 1, sum = 0;
	struct seg_stats st;
	struct seg_latency *l = &st.latency;

	start(NULL, two);
	for (int i = 0; i < N; i++) { /* found, at priority 2 */
		q[i].start = base + (uint64_t)i * 1000;
		q[i].end = q[i].start + 999;
		q[i].want = q[i].start + 500;
		q[i].prio = 2;
		digest_of(q[i].want, q[i].d);
	}
	run_all(q, N);
	for (int i = 0; i < N; i++) /* cache hits, at priority 3 */
		ck_assert(th_request(m.port, q[i].d, q[i].start, q[i].end, 3, &x) == 0 &&
			  x == q[i].want);
	for (int i = 0; i < N; i++) /* not found (searched, or an empty range), at 5 */
		ck_assert(th_request(m.port, q[i].d, q[i].want + 1 + (uint64_t)(i % 2) * 10,
				     q[i].want + 10, 5, &x) == 0 && x == 0);
	ck_assert(TH_WAIT_UNTIL((st = stats_now()).answered == 3 * N, 5000));
	ck_assert_uint_eq(st.cache_hits, N);
	for (int i = 0; i < OUTCOME_COUNT; i++) {
		ck_assert_uint_eq(hist_count(&l->reply[i]), N);
		ck_assert_uint_eq(l->reply[i].n[HIST_BOUNDS], 0);
		ck_assert_int_eq(json_replies(i == OUTCOME_CACHE_HIT ? "cache_hit" :
					      i == OUTCOME_FOUND ? "found" : "not_found"), N);
	}
	sum = 2 * l->reply[OUTCOME_FOUND].sum_ns + 3 * l->reply[OUTCOME_CACHE_HIT].sum_ns +
	      5 * l->reply[OUTCOME_NOT_FOUND].sum_ns;
	ck_assert_uint_eq(l->score_ns, sum);
	ck_assert_uint_eq(hist_count(&l->stage[STAGE_HASH]), st.stages.timed);
	stop();
}
END_TEST

START_TEST(answers_at_the_edges_of_the_number_line)
{
	static const uint64_t answers[] = { 0, 1, 0xffffffffull, 0x100000000ull,
					    UINT64_MAX - 1, UINT64_MAX };
	uint8_t d[32];
	uint64_t x;

	start(NULL, two);
	for (size_t i = 0; i < sizeof answers / sizeof answers[0]; i++) {
		uint64_t a = answers[i];
		uint64_t lo = a < 5000 ? 0 : a - 5000;
		uint64_t hi = a > UINT64_MAX - 5000 ? UINT64_MAX : a + 5000;
		digest_of(a, d);
		ck_assert_int_eq(th_request(m.port, d, lo, hi, 1, &x), 0);
		ck_assert_uint_eq(x, a);
		/* range of one value */
		ck_assert_int_eq(th_request(m.port, d, a, a, 1, &x), 0);
		ck_assert_uint_eq(x, a);
	}
	stop();
}
END_TEST

/* Can this host use the IPv6 loopback at all? */
static int have_ipv6_loopback(void)
{
	struct sockaddr_in6 a = { .sin6_family = AF_INET6, .sin6_addr = IN6ADDR_LOOPBACK_INIT };
	int fd = socket(AF_INET6, SOCK_STREAM, 0), ok;

	if (fd < 0)
		return 0;
	ok = bind(fd, (struct sockaddr *)&a, sizeof a) == 0;
	close(fd);
	return ok;
}

START_TEST(ipv4_and_ipv6_alike)
{
	struct sockaddr_in6 a = { .sin6_family = AF_INET6, .sin6_addr = IN6ADDR_LOOPBACK_INIT };
	uint8_t d[32];
	uint64_t x, base = th_rand64() >> 1;
	int fd;

	start(NULL, two);
	digest_of(base + 21, d);
	ck_assert_int_eq(th_request(m.port, d, base, base + 100, 1, &x), 0); /* IPv4 */
	ck_assert_uint_eq(x, base + 21);
	if (!have_ipv6_loopback()) {
		stop();
		th_skip(__func__, "no IPv6 loopback here (IPv4 alone was checked)");
		return;
	}
	a.sin6_port = htons((uint16_t)m.port);
	fd = socket(AF_INET6, SOCK_STREAM, 0);
	ck_assert_int_eq(connect(fd, (struct sockaddr *)&a, sizeof a), 0);
	digest_of(base + 22, d);
	ck_assert_int_eq(th_send_request(fd, d, base, base + 100, 1), 0);
	ck_assert_int_eq(th_read_reply(fd, &x, 30000), 0);
	ck_assert_uint_eq(x, base + 22);
	close(fd);
	stop();
}
END_TEST

START_TEST(priority_zero_and_255_are_served)
{
	uint8_t d[32];
	uint64_t x, base = th_rand64() >> 1;

	start(NULL, two);
	digest_of(base + 5, d);
	ck_assert_int_eq(th_request(m.port, d, base, base + 10000, 0, &x), 0);
	ck_assert_uint_eq(x, base + 5);
	digest_of(base + 6, d);
	ck_assert_int_eq(th_request(m.port, d, base, base + 10000, 255, &x), 0);
	ck_assert_uint_eq(x, base + 6);
	stop();
}
END_TEST

/* Two workers killed, one after the other, each while it holds a lease of
 * the search (a second or two of hashing for two workers): the search
 * still finds its answer, and both are replaced. */
START_TEST(worker_killed_mid_request)
{
	uint8_t d[32];
	uint64_t x, base = th_rand64() >> 1;
	int fd;
	const char *const args[] = { "--workers", "2", "--kernel", "openssl", NULL };

	start(NULL, args);
	ck_assert_int_eq(tm_wait_workers(&m, 2, 5000), 0);
	digest_of(base + 50000000, d);
	fd = th_connect(m.port);
	ck_assert_int_eq(th_send_request(fd, d, base, base + 60000000, 3), 0);
	kill_worker_with_lease();
	kill_worker_with_lease();
	ck_assert_int_eq(th_read_reply(fd, &x, 60000), 0);
	close(fd);
	ck_assert_uint_eq(x, base + 50000000);
	ck_assert_uint_eq(wait_deaths(2), 2);
	ck_assert_int_eq(tm_wait_workers(&m, 2, 5000), 0); /* replaced */
	stop();
}
END_TEST

START_TEST(worker_killed_inside_the_lock)
{
	uint8_t d[32];
	uint64_t x, base = th_rand64() >> 1;
	struct seg seg;

	start("REVHASH_TEST_HOOKS=1", two);
	ck_assert_int_eq(tm_seg(&m, &seg), 0);
	ck_assert_int_eq(ring_arm_hook(seg.ring, HOOK_DIE_IN_LOCK, 3), 0);
	digest_of(base + 1500000, d);
	ck_assert_int_eq(th_request(m.port, d, base, base + 2000000, 2, &x), 0);
	ck_assert_uint_eq(x, base + 1500000);
	/* three died in the lock */
	ck_assert_uint_eq(ring_hook_armed(seg.ring, HOOK_DIE_IN_LOCK), 0);
	ck_assert_uint_ge(seg.ring->repairs, 1);
	seg_close(&seg);
	ck_assert_uint_eq(wait_deaths(3), 3);
	stop();
}
END_TEST

START_TEST(crash_loop_is_restarted_with_back_off)
{
	struct seg seg;
	pid_t pids[2];
	uint8_t d[32];
	uint64_t t0, x, base = th_rand64() >> 1;

	start("REVHASH_TEST_HOOKS=1", two);
	ck_assert_int_eq(tm_wait_workers(&m, 2, 5000), 0);
	/* Both workers are past their start (a worker shows its pid once it
	 * is). A sleep, as what must pass is time itself: they must be older
	 * than a crash loop's deaths (100 ms) for the death below to be none. */
	usleep(200000);
	ck_assert_int_eq(tm_seg(&m, &seg), 0);
	ck_assert_int_eq(ring_arm_hook(seg.ring, HOOK_DIE_AT_START, 4), 0);
	ck_assert_int_eq(tm_workers(&m, pids, 2), 2);
	t0 = clock_ms();
	kill(pids[0], SIGKILL);
	/* Meanwhile the other worker serves. */
	digest_of(base + 500, d);
	ck_assert_int_eq(th_request(m.port, d, base, base + 1000, 1, &x), 0);
	ck_assert_uint_eq(x, base + 500);
	/* Four starts die at once: restarts wait 0, 100, 200, then 400 ms. */
	ck_assert(TH_WAIT_UNTIL(ring_hook_armed(seg.ring, HOOK_DIE_AT_START) == 0,
				10000));
	seg_close(&seg);
	/* The fourth death is reaped (and logged) before its slot empties:
	 * only then does "two workers" mean the fifth start. */
	ck_assert(TH_WAIT_UNTIL(tm_log_contains(&m, "died 4 times in a row"), 10000));
	ck_assert_int_eq(tm_wait_workers(&m, 2, 5000), 0);
	ck_assert_uint_ge(clock_ms() - t0, 650);
	ck_assert(!tm_log_contains(&m, "died 5 times in a row"));
	stop();
}
END_TEST

/* How many workers of seg hold a lease (lease 1), or have finished one
 * (lease 0). */
static unsigned workers_with(const struct seg *seg, int lease)
{
	struct ring_slot v;
	unsigned n = 0;

	for (unsigned w = 0; w < RING_WORKERS; w++) {
		ring_slot_view(seg->ring, w, &v);
		n += lease ? v.has_lease != 0 : v.pid > 0 && v.chunks > 0;
	}
	return n;
}

/* A worker killed mid-lease, having finished some before: what it hashed
 * still counts. */
START_TEST(counters_survive_a_workers_death)
{
	struct ring_slot v;
	struct seg seg;
	uint8_t d[32];
	uint64_t x, hashed, n = 40000000, base = th_rand64() >> 1;
	int fd;
	const char *const args[] = { "--workers", "2", "--kernel", "openssl", NULL };

	start(NULL, args);
	ck_assert_int_eq(tm_wait_workers(&m, 2, 5000), 0);
	ck_assert_int_eq(tm_seg(&m, &seg), 0);
	digest_of(base - 1, d); /* no answer: every value must be hashed */
	fd = th_connect(m.port);
	ck_assert_int_eq(th_send_request(fd, d, base, base + n - 1, 1), 0);
	ck_assert_msg(TH_WAIT_UNTIL(workers_with(&seg, 0) == 2, 10000),
		      "the two workers did not both finish a lease");
	kill_worker_with_lease();
	ck_assert_int_eq(th_read_reply(fd, &x, 60000), 0);
	close(fd);
	ck_assert_uint_eq(x, 0);
	ck_assert_uint_eq(wait_deaths(1), 1);
	/* Every value of the range was hashed by someone, the dead worker
	 * included: the totals must account for all of them. */
	ck_assert_msg(TH_WAIT_UNTIL(workers_with(&seg, 1) == 0, 5000),
		      "chunks still out");
	hashed = seg.hdr->stats.dead_hashes;
	for (unsigned i = 0; i < RING_WORKERS; i++) {
		ring_slot_view(seg.ring, i, &v);
		hashed += v.hashes;
	}
	ck_assert_uint_gt(seg.hdr->stats.dead_hashes, 0);
	ck_assert_uint_ge(hashed, n);
	seg_close(&seg);
	stop();
}
END_TEST

/* Each worker's hashing time is its own and no longer than the search it
 * served, so the rate it implies is at least what the client saw: the
 * figure a benchmark rates the server at (busy_rate in --status). */
START_TEST(hashing_time_is_accounted)
{
	struct ring_slot v;
	struct seg seg;
	uint8_t d[32];
	uint64_t x, t0, wall_ns, busy_ns = 0, hashed = 0, n = 4000000;
	uint64_t base = th_rand64() >> 1;
	double rate = 0;
	const char *const args[] = { "--workers", "2", "--kernel", "openssl", NULL };

	start(NULL, args);
	ck_assert_int_eq(tm_wait_workers(&m, 2, 5000), 0);
	digest_of(base - 1, d); /* no answer: every value is hashed */
	t0 = clock_ns();
	ck_assert_int_eq(th_request(m.port, d, base, base + n - 1, 1, &x), 0);
	wall_ns = clock_ns() - t0;
	ck_assert_uint_eq(x, 0);
	ck_assert_int_eq(tm_seg(&m, &seg), 0);
	for (unsigned i = 0; i < 2; i++) {
		ring_slot_view(seg.ring, i, &v);
		ck_assert_uint_le(v.hash_ns, wall_ns);
		ck_assert(v.hashes == 0 || v.hash_ns > 0);
		busy_ns += v.hash_ns;
		hashed += v.hashes;
		if (v.hash_ns)
			rate += v.hashes * 1e9 / v.hash_ns;
	}
	seg_close(&seg);
	ck_assert_uint_eq(hashed, n);
	ck_assert_uint_gt(busy_ns, wall_ns / 4); /* they did hash, in ns */
	ck_assert_msg(rate >= n * 1e9 / wall_ns, "busy rate %.0f, seen %.0f",
		      rate, n * 1e9 / wall_ns);
	stop();
}
END_TEST

START_TEST(slow_client_does_not_delay_others)
{
	uint8_t d[32], part[10] = { 1, 2, 3 };
	uint64_t x, t0, base = th_rand64() >> 1;
	int slow;

	start(NULL, two);
	slow = th_connect(m.port);
	ck_assert_int_eq(send(slow, part, sizeof part, 0), 10);
	t0 = clock_ms();
	for (int i = 0; i < 5; i++) {
		digest_of(base + (uint64_t)i * 1000, d);
		ck_assert_int_eq(th_request(m.port, d, base, base + 10000, 1, &x), 0);
		ck_assert_uint_eq(x, base + (uint64_t)i * 1000);
	}
	/* Served while the slow client still holds its connection open. */
	ck_assert_int_eq(th_read_reply(slow, &x, 10), -1);
	ck_assert_uint_lt(clock_ms() - t0, 10000);
	close(slow);
	stop();
}
END_TEST

START_TEST(idle_client_is_dropped_after_the_timeout)
{
	uint8_t b;
	int fd;
	uint64_t t0;
	struct pollfd p;
	struct seg_stats st;
	const char *const args[] = { "--workers", "1", "--idle-timeout", "0.3", NULL };

	start(NULL, args);
	fd = th_connect(m.port);
	t0 = clock_ms();
	p.fd = fd;
	p.events = POLLIN;
	ck_assert_int_eq(poll(&p, 1, 5000), 1);
	ck_assert_int_eq(recv(fd, &b, 1, 0), 0); /* closed by the master */
	ck_assert_uint_ge(clock_ms() - t0, 250);
	close(fd);
	st = stats_now();
	ck_assert_uint_eq(st.timeouts, 1);
	stop();
}
END_TEST

static void cpus_of(pid_t pid, cpu_set_t *set)
{
	ck_assert_int_eq(sched_getaffinity(pid, sizeof *set, set), 0);
}

START_TEST(workers_are_pinned_one_per_cpu)
{
	pid_t pids[RING_WORKERS];
	cpu_set_t mine, seen, one;
	int n, want;

	cpus_of(0, &mine);
	want = CPU_COUNT(&mine) < RING_WORKERS ? CPU_COUNT(&mine) : RING_WORKERS;
	CPU_ZERO(&seen);
	start(NULL, NULL); /* one worker per CPU */
	ck_assert_int_eq(tm_wait_workers(&m, want, 5000), 0);
	n = tm_workers(&m, pids, RING_WORKERS);
	ck_assert_int_eq(n, want);
	for (int i = 0; i < n; i++) {
		cpus_of(pids[i], &one);
		ck_assert_int_eq(CPU_COUNT(&one), 1); /* one CPU each */
		CPU_AND(&one, &one, &mine);
		ck_assert_int_eq(CPU_COUNT(&one), 1); /* one of ours */
		CPU_OR(&seen, &seen, &one);
	}
	ck_assert_int_eq(CPU_COUNT(&seen), want); /* all different */
	stop();
}
END_TEST

/* Workers are batch tasks, pinned or not: woken for a new job, they wait
 * for the master to block instead of taking its CPU halfway through
 * waking the others. */
START_TEST(workers_do_not_preempt_the_master)
{
	const char *const pinned[] = { "--workers", "2", NULL };
	const char *const unpinned[] = { "--workers", "2", "--no-pin", NULL };
	const char *const *args[] = { pinned, unpinned };
	pid_t pids[RING_WORKERS];
	int n;

	for (int a = 0; a < 2; a++) {
		start(NULL, args[a]);
		ck_assert_int_eq(tm_wait_workers(&m, 2, 5000), 0);
		n = tm_workers(&m, pids, RING_WORKERS);
		ck_assert_int_eq(n, 2);
		for (int i = 0; i < n; i++)
			ck_assert_int_eq(sched_getscheduler(pids[i]), SCHED_BATCH);
		ck_assert_int_eq(sched_getscheduler(m.pid), SCHED_OTHER);
		stop();
	}
}
END_TEST

/* The experiment switches, end to end: every policy answers right; with
 * no cache a repeat is searched again, and with no attach a repeat in
 * flight starts a second search instead of joining the first. */
START_TEST(every_policy_answers_right)
{
	const char *const lean[] = { "--workers", "2", "--schedule", "fifo",
				     "--no-preempt", "--no-split", "--no-attach",
				     "--cache-entries", "0", "--kernel", "openssl", NULL };
	const char *const prio[] = { "--workers", "2", "--schedule", "priority", NULL };
	struct req q[6];
	struct seg_stats st;
	uint64_t base = th_rand64() >> 1;

	start(NULL, lean);
	for (int i = 0; i < 6; i++) {
		q[i].start = base + (uint64_t)i * 10000000;
		q[i].end = q[i].start + 2000000;
		q[i].want = q[i].start + 1900000;
		q[i].prio = (uint8_t)(1 + 3 * i);
		digest_of(q[i].want, q[i].d);
	}
	q[5] = q[4]; /* a repeat in flight */
	run_all(q, 6);
	for (int i = 0; i < 6; i++)
		ck_assert(q[i].done && q[i].got == q[i].want);
	st = stats_now();
	ck_assert_uint_eq(st.jobs, 6);     /* no attach */
	ck_assert_uint_eq(st.attached, 0);
	run_all(q, 1);                      /* a repeat after the answer */
	ck_assert(q[0].done && q[0].got == q[0].want);
	st = stats_now();
	ck_assert_uint_eq(st.cache_hits, 0); /* no cache */
	ck_assert_uint_eq(st.jobs, 7);
	stop();
	start(NULL, prio);
	run_all(q, 6);
	for (int i = 0; i < 6; i++)
		ck_assert(q[i].done && q[i].got == q[i].want);
	stop();
}
END_TEST

int main(void)
{
	Suite *s = suite_create("integration");
	TCase *t = tcase_create("master");

	tcase_set_timeout(t, 120);
	tcase_add_test(t, fifty_concurrent_requests);
	tcase_add_test(t, repeat_is_answered_from_the_cache);
	tcase_add_test(t, concurrent_repeat_attaches_to_the_search);
	tcase_add_test(t, latency_is_counted_by_outcome);
	tcase_add_test(t, answers_at_the_edges_of_the_number_line);
	tcase_add_test(t, ipv4_and_ipv6_alike);
	tcase_add_test(t, priority_zero_and_255_are_served);
	tcase_add_test(t, worker_killed_mid_request);
	tcase_add_test(t, worker_killed_inside_the_lock);
	tcase_add_test(t, crash_loop_is_restarted_with_back_off);
	tcase_add_test(t, counters_survive_a_workers_death);
	tcase_add_test(t, hashing_time_is_accounted);
	tcase_add_test(t, slow_client_does_not_delay_others);
	tcase_add_test(t, idle_client_is_dropped_after_the_timeout);
	tcase_add_test(t, workers_are_pinned_one_per_cpu);
	tcase_add_test(t, workers_do_not_preempt_the_master);
	tcase_add_test(t, every_policy_answers_right);
	suite_add_tcase(s, t);
	return check_run(s);
}
