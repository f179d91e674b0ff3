/* Hostile clients against the real master: short requests, early closes,
 * trailing bytes, slow senders, connection floods, descriptor exhaustion,
 * huge ranges, resets and garbage; and a worker's writes over the shared
 * segment. After each, the master must still answer a normal request
 * correctly. */
#include "tests/check_run.h"
#include "tests/helpers.h"
#include "tests/fixture.h"
#include "lib/digest.h"
#include "shm/ring_master.h"
#include "proto/proxy.h"

#include <arpa/inet.h>
#include <check.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <stddef.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

static const char *const two[] = { "--workers", "2", NULL };

/* A normal request must still be answered right. */
static void still_serves(void)
{
	uint8_t d[32];
	uint64_t x, base = th_rand64() >> 1, want = base + th_rand64() % 50000;

	digest_of(want, d);
	ck_assert_int_eq(th_request(m.port, d, base, base + 50000, 1, &x), 0);
	ck_assert_uint_eq(x, want);
}

/* Poll until the master has no job in flight (cancelled ones drained);
 * the jobs left. */
static int jobs_drain(int timeout_ms)
{
	struct seg seg;
	int left;

	ck_assert_int_eq(tm_seg(&m, &seg), 0);
	TH_WAIT_UNTIL((left = (int)ring_in_use(seg.ring)) == 0, timeout_ms);
	seg_close(&seg);
	return left;
}

/* Wait until the search just sent runs: a worker holds a lease. */
static void search_runs(void)
{
	ck_assert_msg(tm_worker_with_lease(&m, 5000) > 0, "the search never ran");
}

START_TEST(short_request_then_close)
{
	uint8_t part[20] = { 0 };

	start(NULL, two);
	for (int i = 0; i < 50; i++) {
		int fd = th_connect(m.port);
		ck_assert_int_ge(fd, 0);
		ck_assert_int_eq(send(fd, part, (size_t)(i % 20), 0), i % 20);
		close(fd);
	}
	still_serves();
	ck_assert_uint_eq(stats_now().requests, 1);
	stop();
}
END_TEST

START_TEST(reset_before_the_reply_cancels_the_search)
{
	uint8_t d[32];
	uint64_t base = th_rand64() >> 1;
	int fd;

	start(NULL, two);
	digest_of(base + 1, d); /* answer outside: would search 2^40 values */
	fd = th_connect(m.port);
	ck_assert_int_eq(th_send_request(fd, d, base + 2, base + (1ull << 40), 1), 0);
	search_runs();
	th_reset(fd);
	ck_assert_int_eq(jobs_drain(5000), 0);
	ck_assert_uint_eq(stats_now().cancelled, 1);
	still_serves();
	stop();
}
END_TEST

/* `nc -N`: the request, then shutdown(SHUT_WR). The end of stream is no
 * goodbye: the client still reads, and gets its answer. */
START_TEST(half_closed_client_gets_its_answer)
{
	uint8_t d[32];
	uint64_t x, base = th_rand64() >> 1;
	int fd;

	start(NULL, two);
	digest_of(base + 3000000, d);
	fd = th_connect(m.port);
	ck_assert_int_eq(th_send_request(fd, d, base, base + 4000000, 1), 0);
	ck_assert_int_eq(shutdown(fd, SHUT_WR), 0);
	ck_assert_int_eq(th_read_reply(fd, &x, 30000), 0);
	ck_assert_uint_eq(x, base + 3000000);
	close(fd);
	ck_assert_uint_eq(stats_now().cancelled, 0);
	stop();
}
END_TEST

START_TEST(bytes_after_the_request_are_ignored)
{
	uint8_t d[32], junk[300];
	uint64_t x, base = th_rand64() >> 1;
	int fd;

	start(NULL, two);
	memset(junk, 0xa5, sizeof junk);
	digest_of(base + 4242, d);
	fd = th_connect(m.port);
	ck_assert_int_eq(th_send_request(fd, d, base, base + 10000, 4), 0);
	ck_assert_int_eq(send(fd, junk, sizeof junk, 0), (ssize_t)sizeof junk);
	ck_assert_int_eq(th_read_reply(fd, &x, 30000), 0);
	ck_assert_uint_eq(x, base + 4242);
	close(fd);
	still_serves();
	ck_assert_uint_eq(stats_now().requests, 2);
	stop();
}
END_TEST

START_TEST(slow_sender_is_timed_out_and_delays_nobody)
{
	const char *const args[] = { "--workers", "2", "--idle-timeout", "1.5", NULL };
	uint8_t byte = 7;
	uint64_t t0;
	int fd, closed = 0;

	start(NULL, args);
	fd = th_connect(m.port);
	t0 = clock_ms();
	/* One byte every 300 ms: never silent for long, but never done. */
	while (!closed && clock_ms() - t0 < 5000) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		char c;

		send(fd, &byte, 1, MSG_NOSIGNAL);
		still_serves(); /* others are served meanwhile */
		if (poll(&p, 1, 300) == 1 && recv(fd, &c, 1, MSG_DONTWAIT) <= 0)
			closed = 1;
	}
	ck_assert_msg(closed, "slow sender was never dropped");
	ck_assert_uint_ge(clock_ms() - t0, 1200);
	ck_assert_uint_eq(stats_now().timeouts, 1);
	close(fd);
	stop();
}
END_TEST

/* A connection that sends nothing stays in the kernel: the master hears of
 * it only once it has data, or once the kernel gives up waiting (about a
 * second), and then drops it at the idle timeout as any slow client. */
START_TEST(silent_connection_waits_in_the_kernel)
{
	const char *const args[] = { "--workers", "2", "--idle-timeout", "1", NULL };
	uint64_t t0, before;
	int fd, closed = 0;
	char c;

	start(NULL, args);
	/* start() probed the port by connecting and closing: the kernel hands
	 * those connections over at their FIN; let the master count them first. */
	before = m.conns;
	ck_assert_msg(TH_WAIT_UNTIL(stats_now().accepted == before, 5000),
		      "accepted %llu of the %llu connections start() made",
		      (unsigned long long)stats_now().accepted,
		      (unsigned long long)before);
	fd = th_connect(m.port);
	ck_assert_int_ge(fd, 0);
	/* A sleep: the point is that nothing happens meanwhile. */
	usleep(300000);
	ck_assert_uint_eq(stats_now().accepted, before);
	t0 = clock_ms();
	while (!closed && clock_ms() - t0 < 10000) {
		struct pollfd p = { .fd = fd, .events = POLLIN };

		if (poll(&p, 1, 100) == 1 && recv(fd, &c, 1, MSG_DONTWAIT) <= 0)
			closed = 1;
	}
	ck_assert_msg(closed, "silent connection was never dropped");
	ck_assert_uint_eq(stats_now().accepted, before + 1);
	ck_assert_uint_eq(stats_now().timeouts, 1);
	close(fd);
	still_serves();
	stop();
}
END_TEST

START_TEST(thousands_of_idle_connections)
{
	enum { N = 3000 };
	static int fds[N];
	struct rlimit rl;
	int n = 0;

	getrlimit(RLIMIT_NOFILE, &rl);
	rl.rlim_cur = rl.rlim_max;
	setrlimit(RLIMIT_NOFILE, &rl);
	start(NULL, two);
	for (; n < N; n++) {
		fds[n] = th_connect(m.port);
		if (fds[n] < 0)
			break;
	}
	ck_assert_int_ge(n, 1000);
	still_serves();
	for (int i = 0; i < n; i++)
		close(fds[i]);
	still_serves();
	stop();
}
END_TEST

START_TEST(out_of_descriptors_keeps_serving)
{
	enum { N = 200 };
	static int fds[N];
	struct rlimit tight = { 64, 64 };
	uint64_t cpu;
	int n = 0, fds_before;

	start(NULL, two);
	fds_before = th_open_fds(m.pid);
	ck_assert_int_gt(fds_before, 0);
	ck_assert_int_eq(prlimit(m.pid, RLIMIT_NOFILE, &tight, NULL), 0);
	/* Each sends the first byte of a request: the listener hands the
	 * master a connection only once it has data. */
	for (; n < N; n++) {
		fds[n] = th_connect(m.port);
		if (fds[n] < 0)
			break;
		ck_assert_int_eq(send(fds[n], "x", 1, MSG_NOSIGNAL), 1);
	}
	ck_assert(TH_WAIT_UNTIL(tm_log_contains(&m, "out of file descriptors"), 5000));
	/* The master is full: it turns connections away instead of spinning
	 * on a listener that stays readable (which would take the 500 ms).
	 * A sleep: the time it does not spin is what is measured. */
	cpu = th_cpu_ms(m.pid);
	usleep(500000);
	ck_assert_int_eq(kill(m.pid, 0), 0);
	ck_assert_uint_lt(th_cpu_ms(m.pid) - cpu, 100);
	for (int i = 0; i < n; i++)
		close(fds[i]);
	/* Once it has closed them, it has room again. */
	ck_assert(TH_WAIT_UNTIL(th_open_fds(m.pid) <= fds_before, 5000));
	still_serves();
	stop();
}
END_TEST

START_TEST(huge_range_does_not_starve_normal_requests)
{
	uint8_t d[32];
	uint64_t t0;
	int fd;

	start(NULL, two);
	digest_of(1, d); /* not in the range below: searched forever */
	fd = th_connect(m.port);
	ck_assert_int_eq(th_send_request(fd, d, 2, (1ull << 63) + 2, 16), 0);
	search_runs();
	t0 = clock_ms();
	for (int i = 0; i < 5; i++)
		still_serves();
	ck_assert_uint_lt(clock_ms() - t0, 20000);
	th_reset(fd);
	ck_assert_int_eq(jobs_drain(5000), 0);
	ck_assert_uint_eq(stats_now().cancelled, 1);
	stop();
}
END_TEST

/* A full job table holds the best-ranked jobs, not the first to come: an
 * urgent request parks the worst job and is answered at once (in under a
 * second, as it would be with the table empty); one that
 * ranks below every job in the table waits, parked, and gets an entry when
 * their clients leave. */
START_TEST(full_table_parks_the_worst_job)
{
	enum { N = RING_JOBS };
	static int fds[N];
	struct rlimit rl;
	uint8_t d[32];
	uint64_t x, t0, urgent_ms, base = th_rand64() >> 2, lowly_at = th_rand64() >> 2;
	int urgent, lowly;
	/* One peer fills the table here: it may (the caps are not this test's). */
	const char *const one[] = { "--workers", "1", "--peer-conns", "8192", "--peer-searches",
				    "8192", NULL };

	getrlimit(RLIMIT_NOFILE, &rl);
	if (rl.rlim_max < N + 64) {
		th_skip(__func__, "needs %d descriptors (hard limit %llu)", N + 64,
			(unsigned long long)rl.rlim_max);
		return;
	}
	rl.rlim_cur = rl.rlim_max;
	setrlimit(RLIMIT_NOFILE, &rl);
	start(NULL, one);
	/* Fill the job table with searches that never end... */
	digest_of(1, d);
	for (int i = 0; i < N; i++) {
		fds[i] = th_connect(m.port);
		ck_assert_int_ge(fds[i], 0);
		ck_assert_int_eq(th_send_request(fds[i], d, base + (uint64_t)i,
						 base + (1ull << 61), 1), 0);
	}
	/* ...then one below all of them: it waits... */
	digest_of(lowly_at + 5, d);
	lowly = th_connect(m.port);
	ck_assert_int_eq(th_send_request(lowly, d, lowly_at, lowly_at + (1ull << 62), 1), 0);
	/* ...and an urgent one: it is answered at once. */
	digest_of(base + 5, d);
	t0 = clock_ms();
	urgent = th_connect(m.port);
	ck_assert_int_eq(th_send_request(urgent, d, base, base + 1000, 16), 0);
	ck_assert_int_eq(th_read_reply(urgent, &x, 10000), 0);
	urgent_ms = clock_ms() - t0;
	ck_assert_uint_eq(x, base + 5);
	fprintf(stderr, "full_table_parks_the_worst_job: urgent request answered "
		"in %llu ms with the table full\n", (unsigned long long)urgent_ms);
	ck_assert_msg(urgent_ms < 1000, "urgent request answered in %llu ms with "
		      "the table full", (unsigned long long)urgent_ms);
	close(urgent);
	ck_assert_uint_ge(stats_now().parked, 1);
	ck_assert_int_eq(th_read_reply(lowly, &x, 300), -1);
	/* When the table's clients leave, the parked one gets an entry. */
	for (int i = 0; i < N; i++)
		th_reset(fds[i]);
	ck_assert_int_eq(th_read_reply(lowly, &x, 10000), 0);
	ck_assert_uint_eq(x, lowly_at + 5);
	close(lowly);
	ck_assert_int_eq(jobs_drain(10000), 0);
	stop();
}
END_TEST

/* A client streams bytes after its request, as fast as it can, while the
 * search runs: the master reads nothing of it (TCP's window stops the
 * client), so it costs the master no CPU. */
START_TEST(trailing_bytes_cost_the_master_nothing)
{
	uint8_t d[32], junk[65536];
	uint64_t cpu, sent = 0, t0;
	int fd;

	start(NULL, two);
	memset(junk, 0x5a, sizeof junk);
	digest_of(1, d); /* never found: the search runs on */
	fd = th_connect(m.port);
	ck_assert_int_eq(th_send_request(fd, d, 2, 1ull << 60, 1), 0);
	search_runs();
	cpu = th_cpu_ms(m.pid);
	for (t0 = clock_ms(); clock_ms() - t0 < 1000;) {
		struct pollfd p = { .fd = fd, .events = POLLOUT };
		ssize_t n = send(fd, junk, sizeof junk, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n > 0)
			sent += (uint64_t)n;
		else
			poll(&p, 1, 50);
	}
	fprintf(stderr, "trailing_bytes_cost_the_master_nothing: client sent %llu "
		"bytes in 1 s; master used %llu ms of CPU\n", (unsigned long long)sent,
		(unsigned long long)(th_cpu_ms(m.pid) - cpu));
	ck_assert_uint_lt(th_cpu_ms(m.pid) - cpu, 100);
	th_reset(fd);
	still_serves();
	stop();
}
END_TEST

/* One peer stacks 300 connections at priority 16 on one search it knows
 * has no answer in a 2^32 range. What one peer adds to one job is capped
 * at one request's priority, so an honest priority-16 request over 30M
 * values still goes first, as it would against a single such request. */
START_TEST(one_peer_cannot_stack_weight)
{
	enum { N = 300 };
	static int fds[N];
	uint8_t bad[32], d[32];
	uint64_t x, t0, quiet_ms, loud_ms, base = th_rand64() >> 2, junk = th_rand64() >> 2;

	start(NULL, two);
	/* The honest request alone... */
	digest_of(base + 29999999, d);
	t0 = clock_ms();
	ck_assert_int_eq(th_request(m.port, d, base, base + 30000000, 16, &x), 0);
	quiet_ms = clock_ms() - t0;
	/* ...and behind the stack (the same size, its answer not cached). */
	digest_of(junk - 1, bad);
	for (int i = 0; i < N; i++) {
		fds[i] = th_connect(m.port);
		ck_assert_int_ge(fds[i], 0);
		ck_assert_int_eq(th_send_request(fds[i], bad, junk, junk + (1ull << 32), 16), 0);
	}
	ck_assert(TH_WAIT_UNTIL(stats_now().requests == 1 + N, 10000)); /* all read */
	digest_of(base + 60000000 + 29999999, d);
	t0 = clock_ms();
	ck_assert_int_eq(th_request(m.port, d, base + 60000000, base + 90000000, 16, &x), 0);
	loud_ms = clock_ms() - t0;
	ck_assert_uint_eq(x, base + 60000000 + 29999999);
	fprintf(stderr, "one_peer_cannot_stack_weight: 30M values at priority 16 "
		"took %llu ms alone, %llu ms behind %d stacked connections\n",
		(unsigned long long)quiet_ms, (unsigned long long)loud_ms, N);
	/* Uncapped, the stack (weight 4800 over 2^32) ran first: ~25 s. */
	ck_assert_uint_lt(loud_ms, 2 * quiet_ms + 2000);
	for (int i = 0; i < N; i++)
		th_reset(fds[i]);
	ck_assert_int_eq(jobs_drain(5000), 0);
	stop();
}
END_TEST

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* Nearest rank p of n latencies (sorts them). */
static uint64_t percentile(uint64_t *v, int n, int p)
{
	int k = (p * n + 99) / 100;

	qsort(v, (size_t)n, sizeof *v, cmp_u64);
	return v[k > 0 ? k - 1 : 0];
}

/* One peer holds more connections than the master has descriptors, each
 * with a search that never ends; another peer's small requests are all
 * answered, fast. Without the caps the first peer took every descriptor
 * and the second got resets. */
START_TEST(one_peer_cannot_take_the_master)
{
	enum { HELD = 1200, SMALL = 50 };
	static int fds[HELD];
	uint64_t lat[SMALL], x, t0;
	struct seg_stats st;
	uint8_t d[32];
	int held = 0;

	th_master_nofile = 1024; /* caps: 896 connections, 112 a peer */
	start(NULL, two);
	for (int i = 0; i < HELD; i++) {
		uint64_t base = (th_rand64() >> 2) | (1ull << 61);

		if ((fds[i] = th_connect(m.port)) < 0)
			break;
		digest_of(base - 1, d); /* not in its range: searched for ever */
		if (th_send_request(fds[i], d, base, base + (1ull << 40), 16) < 0)
			break;
		held++;
	}
	ck_assert_int_eq(held, HELD);
	/* Each of them read, refused or turned away. */
	ck_assert(TH_WAIT_UNTIL((st = stats_now(), st.requests + st.refused_peer_conns +
				 st.refused_full + st.dropped >= HELD), 10000));
	for (int i = 0; i < SMALL; i++) {
		uint64_t base = th_rand64() >> 2, want = base + th_rand64() % 10000;
		int fd = th_connect_from("127.0.0.2", m.port);

		ck_assert_int_ge(fd, 0);
		digest_of(want, d);
		t0 = clock_ns();
		ck_assert_int_eq(th_send_request(fd, d, base, base + 10000, 1), 0);
		ck_assert_int_eq(th_read_reply(fd, &x, 10000), 0);
		lat[i] = clock_ns() - t0;
		ck_assert_uint_eq(x, want);
		close(fd);
	}
	fprintf(stderr, "one_peer_cannot_take_the_master: %llu refused; another peer's %d "
		"requests: p50 %.2f ms, p99 %.2f ms\n",
		(unsigned long long)stats_now().refused_peer_conns, SMALL,
		percentile(lat, SMALL, 50) / 1e6, percentile(lat, SMALL, 99) / 1e6);
	ck_assert_uint_lt(percentile(lat, SMALL, 99), 50000000);
	ck_assert_uint_ge(stats_now().refused_peer_conns, HELD - 112);
	for (int i = 0; i < held; i++)
		th_reset(fds[i]);
	stop();
}
END_TEST

/* One host, from three addresses (127.0.0.1, its IPv6 twin ::1, and
 * 127.0.0.3, which the master cannot tell from another host's), each
 * sending 300 searches of every 64-bit value (a digest nobody's: never
 * found). 127.0.0.1 and ::1 share one cap; each share is an eighth of
 * the connections: another client's requests are all answered, fast.
 * (With half the connections a peer, and ::1 a peer of its own, the
 * first two filled the master: the third client was refused.) */
START_TEST(one_host_cannot_take_the_master)
{
	enum { EACH = 300, SOURCES = 3, SMALL = 50 };
	static const char *const from[SOURCES] = { "127.0.0.1", "::1", "127.0.0.3" };
	static int fds[SOURCES * EACH];
	uint64_t lat[SMALL], x, t0;
	struct seg_stats st;
	uint8_t d[32];
	int n = 0, fd;

	th_master_nofile = 1024; /* caps: 896 connections, 112 a peer */
	start(NULL, two);
	for (int s = 0; s < SOURCES; s++) {
		for (int i = 0; i < EACH; i++) {
			struct proto_request q = { .start = 0, .end = UINT64_MAX, .priority = 16 };
			uint8_t buf[PROTO_REQUEST_LEN];

			for (int k = 0; k < 4; k++) {
				uint64_t r = th_rand64();
				memcpy(q.digest + 8 * k, &r, 8);
			}
			fd = th_connect_from(from[s], m.port);
			if (fd < 0 && s == 1) {
				th_skip(__func__, "no IPv6 loopback here");
				stop();
				return;
			}
			ck_assert_int_ge(fd, 0);
			proto_encode_request(&q, buf);
			(void)!send(fd, buf, sizeof buf, MSG_NOSIGNAL);
			fds[n++] = fd;
		}
	}
	ck_assert(TH_WAIT_UNTIL((st = stats_now(), st.requests + st.refused_peer_conns +
				 st.refused_full + st.dropped >= (uint64_t)n), 10000));
	for (int i = 0; i < SMALL; i++) {
		uint64_t base = th_rand64() >> 2, want = base + th_rand64() % 10000;

		fd = th_connect_from("127.0.0.2", m.port);
		ck_assert_int_ge(fd, 0);
		digest_of(want, d);
		t0 = clock_ns();
		ck_assert_int_eq(th_send_request(fd, d, base, base + 10000, 1), 0);
		ck_assert_int_eq(th_read_reply(fd, &x, 10000), 0);
		lat[i] = clock_ns() - t0;
		ck_assert_uint_eq(x, want);
		close(fd);
	}
	st = stats_now();
	fprintf(stderr, "one_host_cannot_take_the_master: %llu searches held, %llu refused "
		"(peer), %llu (full); another client's %d requests: p50 %.2f ms, p99 %.2f ms\n",
		(unsigned long long)st.requests, (unsigned long long)st.refused_peer_conns,
		(unsigned long long)st.refused_full, SMALL, percentile(lat, SMALL, 50) / 1e6,
		percentile(lat, SMALL, 99) / 1e6);
	ck_assert_uint_eq(st.refused_full, 0);
	ck_assert_uint_ge(st.refused_peer_conns, SOURCES * EACH - 2 * 112);
	ck_assert_uint_lt(percentile(lat, SMALL, 99), 50000000);
	for (int i = 0; i < n; i++)
		th_reset(fds[i]);
	stop();
}
END_TEST

/* A client whose search runs past --max-wait (1 s here) has its
 * connection closed, unanswered (no false "not found"), counted as
 * expired; its search, which nobody else waits for, is cancelled. A
 * client whose search ends in time is answered. */
START_TEST(a_client_that_waits_past_max_wait_is_closed)
{
	const char *const args[] = { "--workers", "2", "--max-wait", "1", NULL };
	uint64_t base = th_rand64() >> 2, x = 7, t0, took;
	uint8_t d[32];
	int fd;

	start(NULL, args);
	digest_of(base - 1, d); /* not in its range: never found */
	fd = th_connect(m.port);
	ck_assert_int_ge(fd, 0);
	t0 = clock_ms();
	ck_assert_int_eq(th_send_request(fd, d, base, base + (1ull << 40), 1), 0);
	digest_of(base + 4242, d);
	ck_assert_int_eq(th_request(m.port, d, base, base + 10000, 1, &x), 0);
	ck_assert_uint_eq(x, base + 4242);
	ck_assert_int_eq(th_read_reply(fd, &x, 5000), -1);
	took = clock_ms() - t0;
	close(fd);
	fprintf(stderr, "a_client_that_waits_past_max_wait_is_closed: closed after %llu ms\n",
		(unsigned long long)took);
	ck_assert_uint_ge(took, 900);
	ck_assert_uint_lt(took, 4000);
	ck_assert_uint_eq(stats_now().expired, 1);
	ck_assert(TH_WAIT_UNTIL(stats_now().cancelled == 1, 2000));
	ck_assert(tm_log_contains(&m, "unanswered after --max-wait 1 s"));
	stop();
}
END_TEST

/* A connection from the balancer's address (127.0.0.1 here) that names
 * client (an IPv4 address) in its PROXY v2 header, then sends a request
 * for want in [base, base + span]. The socket. */
static int via_proxy(const char *client, uint64_t want, uint64_t base, uint64_t span)
{
	uint8_t buf[16 + 12 + PROTO_REQUEST_LEN];
	struct proto_request q = { .start = base, .end = base + span, .priority = 1 };
	int fd = th_connect_from("127.0.0.1", m.port);

	ck_assert_int_ge(fd, 0);
	memcpy(buf, proxy_sig, PROXY_SIG_LEN);
	buf[12] = 0x21;
	buf[13] = 0x11;
	buf[14] = 0;
	buf[15] = 12;
	memset(buf + 16, 0, 12);
	ck_assert_int_eq(inet_pton(AF_INET, client, buf + 16), 1);
	digest_of(want, q.digest);
	proto_encode_request(&q, buf + 28);
	ck_assert_int_eq(send(fd, buf, sizeof buf, MSG_NOSIGNAL), (ssize_t)sizeof buf);
	return fd;
}

/* Behind a balancer named by --proxy-from, the per-peer caps see the
 * clients it names, not the balancer; from anyone else a PROXY header is
 * refused, and the balancer must send one. */
START_TEST(proxy_from_names_the_real_clients)
{
	static const char *const args[] = { "--workers", "2", "--proxy-from", "127.0.0.1",
					    "--peer-conns", "2", NULL };
	uint64_t base = th_rand64() >> 2, x;
	uint8_t d[32];
	int held[2], fd;

	start(NULL, args);
	/* Two searches that never end, for client 10.0.0.1: its cap. */
	for (int i = 0; i < 2; i++) {
		held[i] = via_proxy("10.0.0.1", 0, base + 1 + (uint64_t)i * (1ull << 40),
				    1ull << 40);
		ck_assert(TH_WAIT_UNTIL(stats_now().requests == (uint64_t)i + 1, 5000));
	}
	/* Its third is refused; client 10.0.0.2, behind the same balancer,
	 * is served. */
	fd = via_proxy("10.0.0.1", base - 5, base - 10, 100);
	ck_assert_int_eq(th_read_reply(fd, &x, 5000), -1);
	close(fd);
	ck_assert_uint_eq(stats_now().refused_peer_conns, 1);
	fd = via_proxy("10.0.0.2", base - 5, base - 10, 100);
	ck_assert_int_eq(th_read_reply(fd, &x, 5000), 0);
	ck_assert_uint_eq(x, base - 5);
	close(fd);
	/* A header from 127.0.0.2, which is no balancer: refused. */
	fd = th_connect_from("127.0.0.2", m.port);
	digest_of(base - 5, d);
	{
		uint8_t buf[PROTO_REQUEST_LEN];
		struct proto_request q = { .start = 0, .end = 1, .priority = 1 };

		memcpy(q.digest, proxy_sig, PROXY_SIG_LEN);
		memcpy(q.digest + PROXY_SIG_LEN, d, sizeof d - PROXY_SIG_LEN);
		proto_encode_request(&q, buf);
		ck_assert_int_eq(send(fd, buf, sizeof buf, MSG_NOSIGNAL), (ssize_t)sizeof buf);
	}
	ck_assert_int_eq(th_read_reply(fd, &x, 5000), -1);
	close(fd);
	ck_assert(tm_log_contains(&m, "PROXY header(s) from sources not named"));
	/* The balancer without its header: no request is taken from it. */
	digest_of(base - 5, d);
	fd = th_connect_from("127.0.0.1", m.port);
	ck_assert_int_eq(th_send_request(fd, d, base - 10, base + 90, 1), 0);
	ck_assert_int_eq(th_read_reply(fd, &x, 5000), -1);
	close(fd);
	for (int i = 0; i < 2; i++)
		th_reset(held[i]);
	stop();
}
END_TEST

START_TEST(resets_and_garbage)
{
	uint8_t junk[49];
	struct linger lg = { 1, 0 };

	start(NULL, two);
	for (int i = 0; i < 100; i++) {
		int fd = th_connect(m.port);
		ck_assert_int_ge(fd, 0);
		for (size_t b = 0; b < sizeof junk; b++)
			junk[b] = (uint8_t)th_rand64();
		if (i % 2)
			send(fd, junk, (size_t)(i % 49) + 1, MSG_NOSIGNAL);
		setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
		close(fd); /* RST */
	}
	still_serves();
	ck_assert_int_eq(jobs_drain(5000), 0);
	stop();
}
END_TEST

/* ---- a worker's writes ----------------------------------------------------- */

/* Is [off, off + 8) of the segment clear of the lock and the slots'
 * semaphores? A worker that breaks those stops the searching, and the
 * master cannot mend them (docs/security.md); everything else a worker
 * can write is fair game. */
static int scribble_ok(const struct seg *seg, size_t off)
{
	size_t ring = (size_t)((char *)seg->ring - (char *)seg->hdr);
	size_t lock = ring + offsetof(struct ring, lock);

	if (off + 8 > lock && off < lock + sizeof(pthread_mutex_t))
		return 0;
	for (unsigned i = 0; i < RING_WORKERS; i++) {
		size_t sem = ring + offsetof(struct ring, slots) + i * sizeof(struct ring_slot) +
			     offsetof(struct ring_slot, wake);
		if (off + 8 > sem && off < sem + sizeof(sem_t))
			return 0;
	}
	return 1;
}

/* One random 8-byte store past the header page, as a worker could make. */
static void scribble(const struct seg *seg)
{
	size_t off;
	uint64_t v = th_rand64();

	do
		off = 4096 + (th_rand64() % ((seg->size - 4096) / 8)) * 8;
	while (!scribble_ok(seg, off));
	memcpy((char *)seg->hdr + off, &v, sizeof v);
}

/* A reply x to the request for d over lo..hi: 0, or a true answer. */
static void no_lie(uint64_t x, const uint8_t d[32], uint64_t lo, uint64_t hi)
{
	ck_assert_msg(x == 0 || digest_answers(x, d, lo, hi),
		      "the master replied %llu, which is no answer", (unsigned long long)x);
}

START_TEST(random_writes_over_the_segment_leave_the_master_serving)
{
	static const char *const args[] = { "--workers", "2", "--cache-entries", "1000", NULL };
	enum { REQUESTS = 200, WRITES = 10, SPAN = 2000 };
	static uint8_t d[REQUESTS][32];
	uint64_t lo[REQUESTS], x, until;
	int fd[REQUESTS], answered = 0;
	struct seg seg;

	start(NULL, args);
	ck_assert_int_eq(tm_seg(&m, &seg), 0);
	for (int i = 0; i < REQUESTS; i++) {
		lo[i] = th_rand64() >> 1;
		digest_of(lo[i] + th_rand64() % SPAN, d[i]);
		ck_assert_int_ge(fd[i] = th_connect(m.port), 0);
		ck_assert_int_eq(th_send_request(fd[i], d[i], lo[i], lo[i] + SPAN, 1), 0);
		for (int w = 0; w < WRITES; w++)
			scribble(&seg);
	}
	seg_close(&seg);
	/* A search whose entry was written over may never be answered; an
	 * answer that comes must be true. */
	until = clock_ms() + 3000;
	for (int i = 0; i < REQUESTS; i++) {
		int left = until > clock_ms() ? (int)(until - clock_ms()) : 1;
		if (th_read_reply(fd[i], &x, left) == 0) {
			no_lie(x, d[i], lo[i], lo[i] + SPAN);
			answered++;
		}
		close(fd[i]);
	}
	ck_assert_msg(kill(m.pid, 0) == 0 && th_proc_state(m.pid) != 'Z', "the master died");
	{
		uint64_t base = th_rand64() >> 1, want = base + th_rand64() % SPAN;
		int one = th_connect(m.port);

		digest_of(want, d[0]);
		ck_assert_int_ge(one, 0);
		ck_assert_int_eq(th_send_request(one, d[0], base, base + SPAN, 1), 0);
		ck_assert_msg(th_read_reply(one, &x, 10000) == 0, "no answer within 10 s");
		ck_assert_uint_eq(x, want);
		close(one);
	}
	printf("%d of %d requests answered under the writes\n", answered, REQUESTS);
	stop();
}
END_TEST

/* A request for want in base..base + span, answered right within 5 s by
 * the running master: how long it took, in ms. */
static uint64_t answered_in_5s(uint64_t base, uint64_t span, uint64_t want)
{
	uint64_t x, t0 = clock_ms();
	uint8_t d[32];
	int fd;

	digest_of(want, d);
	ck_assert_int_ge(fd = th_connect(m.port), 0);
	ck_assert_int_eq(th_send_request(fd, d, base, base + span, 1), 0);
	ck_assert_msg(th_read_reply(fd, &x, 5000) == 0, "no answer within 5 s");
	ck_assert_uint_eq(x, want);
	close(fd);
	return clock_ms() - t0;
}

/* A slot no worker holds, written to show a live worker of an absurd
 * rate (what one of the random writes above did): every real worker left
 * each job to it, the fastest, and nothing was searched. The master puts
 * the slot back from its own table and the request is answered. */
START_TEST(a_phantom_worker_in_a_slot_starves_nothing)
{
	static const char *const args[] = { "--workers", "1", NULL };
	enum { PHANTOM = 20, SPAN = 2000000 };
	uint64_t base = th_rand64() >> 1, want = base + th_rand64() % SPAN, ms;
	struct seg seg;

	start(NULL, args);
	ck_assert_int_eq(tm_seg(&m, &seg), 0);
	__atomic_store_n(&seg.ring->slots[PHANTOM].rate, UINT64_C(1) << 60, __ATOMIC_RELEASE);
	__atomic_store_n(&seg.ring->slots[PHANTOM].pid, 143602954, __ATOMIC_RELEASE);
	ms = answered_in_5s(base, SPAN, want);
	/* A watchdog pass between the two stores above puts back the rate
	 * alone: the job is shared, answered, and the pid waits for the next
	 * pass. */
	ck_assert(TH_WAIT_UNTIL(__atomic_load_n(&seg.ring->slots[PHANTOM].pid,
						__ATOMIC_ACQUIRE) == 0, 2000));
	seg_close(&seg);
	ck_assert(tm_log_contains(&m, "written over"));
	printf("a_phantom_worker_in_a_slot_starves_nothing: answered in %llu ms\n",
	       (unsigned long long)ms);
	stop();
}
END_TEST

/* The ring-wide words the master owns, written over as one random store
 * did (seed 1795719039446961412: the hooks allowed and the die-at-start
 * hook armed 2.6 billion times, so that every worker died at its start,
 * for ever), and the shutdown flag and the policy with them. In a master
 * that allows no hooks, the workers fire none (their switch is their
 * own, not the segment's word, which only shows the master's), and the
 * watchdog puts the policy and the shutdown flag back: the request is
 * answered. */
START_TEST(ring_words_written_over_are_put_back)
{
	static const char *const args[] = { "--workers", "2", NULL };
	enum { SPAN = 2000000 };
	uint64_t base = th_rand64() >> 1, want = base + th_rand64() % SPAN, ms;
	struct policy was;
	struct seg seg;

	start(NULL, args);
	ck_assert_int_eq(tm_seg(&m, &seg), 0);
	was = seg.ring->policy;
	__atomic_store_n(&seg.ring->hooks, 1, __ATOMIC_RELEASE);
	__atomic_store_n(&seg.ring->hook[HOOK_DIE_AT_START], 2603209956u, __ATOMIC_RELEASE);
	__atomic_store_n(&seg.ring->hook[HOOK_DIE_IN_LOCK], 2603209956u, __ATOMIC_RELEASE);
	__atomic_store_n(&seg.ring->shutdown, 1, __ATOMIC_RELEASE);
	__atomic_store_n(&seg.ring->policy.order, 0x9b29d4f7u, __ATOMIC_RELEASE);
	__atomic_store_n(&seg.ring->policy.rules, 0u, __ATOMIC_RELEASE);
	ms = answered_in_5s(base, SPAN, want);
	ck_assert(TH_WAIT_UNTIL(__atomic_load_n(&seg.ring->shutdown, __ATOMIC_ACQUIRE) == 0 &&
				seg.ring->policy.order == was.order &&
				seg.ring->policy.rules == was.rules, 2000));
	/* Not one arming taken: no worker fired a hook. (The shutdown flag
	 * may have let workers exit, to be started again.) */
	ck_assert_uint_eq(ring_hook_armed(seg.ring, HOOK_DIE_AT_START), 2603209956u);
	ck_assert_uint_eq(ring_hook_armed(seg.ring, HOOK_DIE_IN_LOCK), 2603209956u);
	seg_close(&seg);
	ck_assert(tm_log_contains(&m, "written over"));
	printf("ring_words_written_over_are_put_back: answered in %llu ms\n",
	       (unsigned long long)ms);
	stop();
}
END_TEST

/* ---- a worker's lies, judged by the master's own records -------------------- */

/* The entry of the search over base.. in flight, as the segment shows it,
 * waiting up to 5 s for a worker to take it in; RING_NONE when its client
 * at fd (>= 0) has its reply meanwhile. */
static uint32_t entry_of(const struct seg *seg, uint64_t base, int fd)
{
	uint32_t at = RING_NONE;
	int replied = 0;

	TH_WAIT_UNTIL(({
		struct pollfd p = { .fd = fd, .events = POLLIN };

		for (uint32_t e = 0; e < RING_JOBS && at == RING_NONE; e++)
			if (seg->ring->jobs[e].key.start == base &&
			    ring_phase(seg->ring, e) == PHASE_RUNNING)
				at = e;
		replied = at == RING_NONE && fd >= 0 && poll(&p, 1, 0) == 1;
		at != RING_NONE || replied; }), 5000);
	ck_assert_msg(at != RING_NONE || replied, "the search never ran");
	return at;
}

/* The pid in each slot now. */
static void slot_pids(const struct seg *seg, pid_t pids[RING_WORKERS])
{
	for (unsigned i = 0; i < RING_WORKERS; i++)
		pids[i] = __atomic_load_n(&seg->ring->slots[i].pid, __ATOMIC_ACQUIRE);
}

/* A worker writes FOUND with a wrong answer into a search's entry, naming
 * a live honest worker as the finder, flagged, every 100 ms while the
 * search runs; and rewrites the key of the entry the honest workers
 * lease. The master blames nobody (the named worker lives on: it was
 * killed, and backed off up to 10 s), and each lie takes the search on
 * from where it got: it ends, answered right, while the lies go on (each
 * sent it back to its start: it never ended). A lease the workers dropped
 * at a lie could hold the answer: the search then ended "not found" (2
 * runs in 20 under make sanitize); now that "not found" is searched
 * again. */
START_TEST(lies_naming_honest_workers_kill_nobody_and_end)
{
	static const char *const args[] = { "--workers", "2", NULL };
	uint64_t base = th_rand64() >> 2, want = base + 59000000, x = 0, t0;
	pid_t before[RING_WORKERS], after[RING_WORKERS];
	int fd, lies = 0, got = -1;
	uint8_t d[32];
	struct seg seg;

	start(NULL, args);
	ck_assert_int_eq(tm_seg(&m, &seg), 0);
	ck_assert_int_eq(tm_wait_workers(&m, 2, 5000), 0);
	slot_pids(&seg, before);
	digest_of(want, d);
	ck_assert_int_ge(fd = th_connect(m.port), 0);
	ck_assert_int_eq(th_send_request(fd, d, base, base + 60000000, 1), 0);
	t0 = clock_ms();
	while (got != 0 && clock_ms() - t0 < 30000) {
		uint32_t e = entry_of(&seg, base, fd);
		struct ring_job *j = &seg.ring->jobs[e % RING_JOBS];

		if (e == RING_NONE) {
			got = th_read_reply(fd, &x, 100);
			break;
		}
		if (lies % 4 == 3) {
			__atomic_store_n(&j->key.end, UINT64_MAX, __ATOMIC_RELEASE);
		} else {
			__atomic_store_n(&j->answer, base + 1, __ATOMIC_RELEASE);
			__atomic_store_n(&j->found_slot, 0, __ATOMIC_RELEASE);
			__atomic_store_n(&j->phase, PHASE_FOUND, __ATOMIC_RELEASE);
			__atomic_fetch_or(&seg.ring->changed[e / 64], UINT64_C(1) << (e % 64),
					  __ATOMIC_RELEASE);
		}
		lies++;
		got = th_read_reply(fd, &x, 100);
	}
	slot_pids(&seg, after);
	fprintf(stderr, "lies_naming_honest_workers_kill_nobody_and_end: answered after %d "
		"lies, %llu ms\n", lies, (unsigned long long)(clock_ms() - t0));
	ck_assert_msg(got == 0, "no answer in 30 s of lies (%d lies)", lies);
	ck_assert_uint_eq(x, want);
	ck_assert_int_eq(before[0], after[0]);
	ck_assert_int_eq(before[1], after[1]);
	ck_assert_uint_ge(stats_now().wrong_answers, 1);
	ck_assert_uint_eq(stats_now().worker_deaths, 0);
	close(fd);
	seg_close(&seg);
	stop();
}
END_TEST

/* A worker stops inside the lock (a test hook) after writing pid 1 as the
 * lock's owner: nobody was ever the culprit, every other worker waited
 * for ever, and no search ended. The holder is the one the lock's own
 * word names, checked against the master's table: it is killed, the lock
 * recovered, the search answered. */
START_TEST(a_lock_owner_written_over_hides_no_holder)
{
	static const char *const two[] = { "--workers", "2", NULL };
	uint64_t x, base = th_rand64() >> 1, t0;
	uint8_t d[32];
	struct seg seg;
	int fd;

	start("REVHASH_TEST_HOOKS=1", two);
	ck_assert_int_eq(tm_seg(&m, &seg), 0);
	ck_assert_int_eq(ring_arm_hook(seg.ring, HOOK_STOP_IN_LOCK, 1), 0);
	digest_of(base + 1500000, d);
	fd = th_connect(m.port);
	ck_assert_int_eq(th_send_request(fd, d, base, base + 2000000, 2), 0);
	ck_assert(TH_WAIT_UNTIL(ring_hook_armed(seg.ring, HOOK_STOP_IN_LOCK) == 0 &&
				ring_lock_holder(seg.ring) != 0, 5000));
	__atomic_store_n(&seg.ring->lock_owner, 1, __ATOMIC_RELEASE);
	t0 = clock_ms();
	ck_assert_msg(th_read_reply(fd, &x, 10000) == 0, "no answer within 10 s");
	ck_assert_uint_eq(x, base + 1500000);
	fprintf(stderr, "a_lock_owner_written_over_hides_no_holder: answered in %llu ms\n",
		(unsigned long long)(clock_ms() - t0));
	ck_assert(tm_log_contains(&m, "inside the ring's lock"));
	close(fd);
	seg_close(&seg);
	stop();
}
END_TEST

/* The lock held by a process that is none of the master's workers (this
 * test, as a worker could make the lock's word say): nothing of ours will
 * ever free it. Within LOCK_JAM_MS the master kills every worker, makes
 * the lock anew and starts them again: the search is answered. */
START_TEST(a_lock_held_by_none_of_the_workers_is_made_anew)
{
	static const char *const two[] = { "--workers", "2", NULL };
	uint64_t x, base = th_rand64() >> 1, t0;
	uint8_t d[32];
	struct seg seg;
	int fd, rc;

	start(NULL, two);
	ck_assert_int_eq(tm_seg(&m, &seg), 0);
	rc = pthread_mutex_lock(&seg.ring->lock);
	ck_assert(rc == 0 || rc == EOWNERDEAD);
	__atomic_store_n(&seg.ring->lock_owner, m.pid, __ATOMIC_RELEASE);
	digest_of(base + 1500000, d);
	fd = th_connect(m.port);
	t0 = clock_ms();
	ck_assert_int_eq(th_send_request(fd, d, base, base + 2000000, 2), 0);
	ck_assert_msg(th_read_reply(fd, &x, 10000) == 0, "no answer within 10 s");
	ck_assert_uint_eq(x, base + 1500000);
	fprintf(stderr, "a_lock_held_by_none_of_the_workers_is_made_anew: answered in %llu ms\n",
		(unsigned long long)(clock_ms() - t0));
	ck_assert(tm_log_contains(&m, "none of ours"));
	close(fd);
	seg_close(&seg); /* the lock it held is no more: nothing to unlock */
	stop();
}
END_TEST

/* The segment cut short by a process of the master's user (ftruncate):
 * a reader's copy (--status, the exporter) is read, not mapped, and
 * stands; the master's own mapping faults, gets its size back, resets
 * its workers (the lock and the semaphores were cut too) and answers.
 * Both died of SIGBUS. */
START_TEST(a_segment_cut_short_kills_no_reader_nor_the_master)
{
	static const char *const two[] = { "--workers", "2", NULL };
	uint64_t x, base = th_rand64() >> 1;
	struct seg live, copy;
	uint8_t d[32];
	char cmd[256];

	start(NULL, two);
	ck_assert_int_eq(seg_open(m.port, 0, &copy), 0);
	ck_assert_int_eq(tm_seg(&m, &live), 0);
	ck_assert_int_eq(ftruncate(live.fd, 4096), 0);
	seg_close(&live);
	ck_assert_uint_eq(ring_in_use(copy.ring), 0); /* reads the whole table */
	ck_assert_uint_eq(ring_workers(copy.ring), 2);
	seg_close(&copy);
	digest_of(base + 700000, d);
	ck_assert_msg(th_request(m.port, d, base, base + 1000000, 1, &x) == 0, "no answer");
	ck_assert_uint_eq(x, base + 700000);
	ck_assert(tm_log_contains(&m, "cut short"));
	snprintf(cmd, sizeof cmd, "%s --status %u >/dev/null", th_master_path(), m.port);
	ck_assert_int_eq(system(cmd), 0);
	stop();
}
END_TEST

/* A worker sets "used" across the cache's table (2 M slots by default):
 * every miss walked every slot, a few milliseconds of the master's CPU a
 * request, and it fell to a few hundred requests a second. Each probe
 * now stops CACHE_PROBE_MAX slots from its home: 500 requests, each a
 * miss and an insert, cost the master little CPU, and are answered. */
START_TEST(a_cache_of_used_slots_costs_the_master_little)
{
	static const char *const two[] = { "--workers", "2", NULL };
	enum { N = 500 };
	uint64_t cpu, x, t0;
	struct seg seg;
	uint8_t d[32];

	start(NULL, two);
	ck_assert_int_eq(tm_seg(&m, &seg), 0);
	for (uint64_t i = 0; i < seg.cache->nslots; i++)
		seg.cache->slots[i] = (struct cache_entry){ .hash = i * 2 + 1, .used = 1, .ref = 1 };
	cpu = th_cpu_ms(m.pid);
	t0 = clock_ms();
	for (int i = 0; i < N; i++) {
		uint64_t v = (th_rand64() >> 2) + 1;

		digest_of(v, d);
		ck_assert_int_eq(th_request(m.port, d, v, v, 1, &x), 0);
		ck_assert_uint_eq(x, v);
	}
	cpu = th_cpu_ms(m.pid) - cpu;
	fprintf(stderr, "a_cache_of_used_slots_costs_the_master_little: %d requests over a "
		"table of %llu used slots in %llu ms, %llu ms of the master's CPU\n", N,
		(unsigned long long)seg.cache->nslots, (unsigned long long)(clock_ms() - t0),
		(unsigned long long)cpu);
	ck_assert_uint_lt(cpu, 500);
	seg_close(&seg);
	stop();
}
END_TEST

int main(void)
{
	Suite *s = suite_create("hostile");
	TCase *t = tcase_create("clients");

	tcase_set_timeout(t, 120);
	tcase_add_test(t, short_request_then_close);
	tcase_add_test(t, silent_connection_waits_in_the_kernel);
	tcase_add_test(t, reset_before_the_reply_cancels_the_search);
	tcase_add_test(t, half_closed_client_gets_its_answer);
	tcase_add_test(t, bytes_after_the_request_are_ignored);
	tcase_add_test(t, slow_sender_is_timed_out_and_delays_nobody);
	tcase_add_test(t, thousands_of_idle_connections);
	tcase_add_test(t, out_of_descriptors_keeps_serving);
	tcase_add_test(t, huge_range_does_not_starve_normal_requests);
	tcase_add_test(t, full_table_parks_the_worst_job);
	tcase_add_test(t, resets_and_garbage);
	tcase_add_test(t, trailing_bytes_cost_the_master_nothing);
	tcase_add_test(t, one_peer_cannot_stack_weight);
	tcase_add_test(t, one_peer_cannot_take_the_master);
	tcase_add_test(t, one_host_cannot_take_the_master);
	tcase_add_test(t, a_client_that_waits_past_max_wait_is_closed);
	tcase_add_test(t, proxy_from_names_the_real_clients);
	suite_add_tcase(s, t);
	t = tcase_create("worker writes");
	tcase_set_timeout(t, 60);
	tcase_add_test(t, random_writes_over_the_segment_leave_the_master_serving);
	tcase_add_test(t, a_phantom_worker_in_a_slot_starves_nothing);
	tcase_add_test(t, ring_words_written_over_are_put_back);
	suite_add_tcase(s, t);
	t = tcase_create("worker lies");
	tcase_set_timeout(t, 60);
	tcase_add_test(t, lies_naming_honest_workers_kill_nobody_and_end);
	tcase_add_test(t, a_lock_owner_written_over_hides_no_holder);
	tcase_add_test(t, a_lock_held_by_none_of_the_workers_is_made_anew);
	tcase_add_test(t, a_segment_cut_short_kills_no_reader_nor_the_master);
	tcase_add_test(t, a_cache_of_used_slots_costs_the_master_little);
	suite_add_tcase(s, t);
	return check_run(s);
}
