/* master/jobs.c and master/jobset.c driven directly: real client sockets
 * through clients.c, a ring in memory, and the test playing the workers
 * (ring_lease and ring_finish under made-up pids) and the loop (jobs_news,
 * jobs_balance, connection events), so that each interleaving is exact:
 * what becomes of each kind of request, the weight peers give a job, the
 * end of a job, cancellation, the backlog's order, parking, and the
 * latency each reply is counted under (with hist_bucket's buckets,
 * shm/segment_create.c). */
#include "master/jobs.h"
#include "master/jobset.h"
#include "master/net.h"
#include "tests/check_run.h"
#include "tests/accept.h"
#include "tests/helpers.h"
#include "lib/digest.h"
#include "shm/segment.h"
#include "shm/segment_create.h"

#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/mman.h>
#include <unistd.h>

static struct ring *r;
static struct cache_shm *table;
static struct cache cache;
static struct seg_stats stats;
static struct clients cl;
static struct jobs js;
static int epfd, lfd;
static unsigned port;
static uint64_t peer_searches = 1u << 20; /* the caps setup gives jobs.c */

static void setup_attach(struct policy p, int attach)
{
	memset(&stats, 0, sizeof stats);
	r = mmap(NULL, sizeof *r, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(r, MAP_FAILED);
	ck_assert_int_eq(ring_init(r, &p), 0);
	ring_worker_start(r, 0, 100000);
	table = calloc(1, cache_bytes(64));
	cache_init(&cache, table, 64);
	port = th_free_port();
	listen_on(port, &lfd);
	epfd = epoll_create1(EPOLL_CLOEXEC);
	clients_init(&cl, epfd, &stats, 60000, 1u << 20, 1u << 20);
	ck_assert_int_eq(jobs_init(&js, r, &cache, &cl, &stats, &p, attach, peer_searches, 64), 0);
}

static void setup_with(struct policy p)
{
	setup_attach(p, 1);
}

static void teardown(void)
{
	jobs_drop_all(&js);
	clients_close_all(&cl);
	clients_bury(&cl);
	jobs_free(&js);
	clients_free(&cl);
	close(epfd);
	close(lfd);
	free(table);
	ring_free(r);
	munmap(r, sizeof *r);
}

/* A client connected from address from (127.0.0.x: another peer). */
static int connect_from(const char *from)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	ck_assert_int_ge(fd, 0);
	inet_pton(AF_INET, from, &a.sin_addr);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
	a.sin_port = htons((uint16_t)port);
	inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
	ck_assert_int_eq(connect(fd, (struct sockaddr *)&a, sizeof a), 0);
	return fd;
}

/* A client at address from sends a request; the master reads it at accept
 * and dispatches it, as the loop does. Returns the client's socket. */
static int request_from(const char *from, uint64_t answer, uint64_t start, uint64_t end,
			uint8_t prio)
{
	uint8_t d[32];
	int fd;

	digest_of(answer, d);
	fd = connect_from(from);
	ck_assert_int_eq(th_send_request(fd, d, start, end, prio), 0);
	jobs_dispatch(&js, accept_request(&cl, lfd));
	jobs_balance(&js);
	clients_bury(&cl);
	return fd;
}

static int request(uint64_t answer, uint64_t start, uint64_t end, uint8_t prio)
{
	return request_from("127.0.0.1", answer, start, end, prio);
}

/* Connection events for up to timeout_ms, as the loop hands them on (a
 * waiting client's reset is CLIENT_GONE). */
static void connection_events(int timeout_ms)
{
	struct epoll_event ev[16];
	int n = epoll_wait(epfd, ev, 16, timeout_ms);

	for (int i = 0; i < n; i++) {
		struct conn *c = ev[i].data.ptr;
		if (clients_event(&cl, c, ev[i].events) == CLIENT_GONE)
			jobs_client_gone(&js, c);
	}
	jobs_balance(&js);
	clients_bury(&cl);
}

/* The entry of the one job in the table that is the master's. */
static uint32_t the_entry(void)
{
	uint32_t found = RING_NONE;

	for (uint32_t e = 0; e < RING_JOBS; e++) {
		if (jobs_job_in(&js, e)) {
			ck_assert_uint_eq(found, RING_NONE);
			found = e;
		}
	}
	ck_assert_uint_ne(found, RING_NONE);
	return found;
}

/* The entry of the master's job searching from start. */
static uint32_t entry_at(uint64_t start)
{
	for (uint32_t e = 0; e < RING_JOBS; e++)
		if (jobs_job_in(&js, e) && jobs_job_in(&js, e)->key.start == start)
			return e;
	ck_abort_msg("no job at %llu", (unsigned long long)start);
	return RING_NONE;
}

/* The client at fd has no reply (yet). */
static void no_reply(int fd)
{
	uint64_t x;

	ck_assert_int_ne(th_read_reply(fd, &x, 50), 0);
}

static uint64_t reply_of(int fd)
{
	uint64_t x = UINT64_MAX;

	ck_assert_int_eq(th_read_reply(fd, &x, 1000), 0);
	close(fd);
	return x;
}

/* Replies counted in the latency histograms, all outcomes. */
static uint64_t replies_timed(void)
{
	uint64_t n = 0;

	for (int i = 0; i < OUTCOME_COUNT; i++)
		n += hist_count(&stats.latency.reply[i]);
	return n;
}

/* The end of one batch of the loop, after the workers said something. */
static void loop_turn(void)
{
	jobs_news(&js);
	jobs_balance(&js);
	clients_bury(&cl);
}

/* Occupy all but n entries of the table with jobs that are not the
 * master's and that the workers never take in: submitted, and their
 * flags for the workers cleared, as if the workers were yet to look. */
static void fill_table_but(unsigned n)
{
	struct ring_key k = { .start = 0, .end = 0 };
	struct ring_progress from = { .next = 0 };
	uint32_t e;

	while (ring_in_use(r) < RING_JOBS - n)
		ck_assert_int_eq(ring_submit(&js.table, &k, &from, 100, 1000000,
						  RING_HELD_ALONE(&js.table), &e), 0);
	memset(r->pending, 0, sizeof r->pending);
	r->pending_any = 0;
}

/* Occupy all but n entries of the table with searches of the master's
 * that never end, each of a peer of its own at priority 8 (above a
 * request at 1, below one at 16), which the workers are yet to take in
 * (their flags cleared: the audit marks them again). */
static void fill_table_with_jobs_but(unsigned n)
{
	while (ring_in_use(r) < RING_JOBS - n) {
		struct conn c = { .prio = 8 };
		struct job *j;
		int fresh;

		for (int b = 0; b < 16; b++)
			c.peer[b] = (uint8_t)th_rand64();
		memset(c.req.digest, 0x5a, sizeof c.req.digest);
		c.req.start = (1ull << 61) + ring_in_use(r);
		c.req.end = 1ull << 62;
		ck_assert_int_eq(jobset_job_for(&js.set, &c, &j, &fresh), 0);
		jobs_balance(&js);
	}
	memset(r->pending, 0, sizeof r->pending);
	r->pending_any = 0;
}

/* Under the priority order, a job is parked for a heavier one while its
 * last chunk is out; that chunk comes back with nothing found. Every value
 * of its range has now been hashed: its client must hear "not found" --
 * not wait until the job gets an entry again, which, with the table full
 * of heavier searches that never end, is never. */
START_TEST(job_hashed_to_its_end_while_parking_is_answered)
{
	struct ring_lease l;
	uint64_t x;
	int light, heavy;

	setup_with(th_policy(POLICY_PRIORITY, 1, 1));
	fill_table_but(1);
	/* The light job takes the last entry; a worker leases all of it. */
	light = request(123456789, 0, 999, 1);
	ck_assert_int_eq(ring_lease(r, 0, 100000, 1, &l), 0);
	ck_assert_uint_eq(l.lo, 0);
	ck_assert_uint_eq(l.hi, 999);
	/* A heavier search comes: the table is full, the light job is parked. */
	heavy = request(987654321, 1ull << 40, 1ull << 62, 16);
	ck_assert_uint_eq(stats.parked, 1);
	/* The chunk comes back: nothing in 0..999. */
	ring_finish(r, 0, SEARCH_NONE, 0);
	loop_turn();
	/* The workers go on with the heavy search, as they would for ever. */
	for (int i = 0; i < 3; i++) {
		ck_assert_int_eq(ring_lease(r, 0, 1000, 1, &l), 0);
		ck_assert_uint_ge(l.lo, 1ull << 40);
		ring_finish(r, 0, SEARCH_NONE, 0);
		loop_turn();
	}
	ck_assert_int_eq(th_read_reply(light, &x, 1000), 0);
	ck_assert_uint_eq(x, 0);
	close(light);
	close(heavy);
	teardown();
}
END_TEST

/* An empty range is answered 0 and a cached answer at once, without a
 * job; a cached answer outside the range asked is no answer. */
START_TEST(empty_range_and_cache_hit_are_answered_without_a_job)
{
	uint8_t d[32];
	int fd;

	setup_with(policy_default());
	ck_assert_uint_eq(reply_of(request(5, 10, 9, 1)), 0);
	digest_of(777, d);
	cache_put(&cache, d, 777);
	ck_assert_uint_eq(reply_of(request(777, 700, 800, 1)), 777);
	ck_assert_uint_eq(stats.cache_hits, 1);
	ck_assert_uint_eq(ring_in_use(r), 0);
	ck_assert_uint_eq(jobs_in_flight(&js), 0);
	fd = request(777, 0, 700, 1); /* its answer is not in there */
	no_reply(fd);
	ck_assert_uint_eq(jobs_in_flight(&js), 1);
	ck_assert_uint_eq(stats.jobs, 1);
	close(fd);
	teardown();
}
END_TEST

/* Repeats attach: one job, its weight the sum of the priorities, but at
 * most 16 from one peer address, however many connections it stacks;
 * another peer adds its own. Without attaching, each is a job of its own. */
START_TEST(repeats_attach_and_each_peer_weighs_at_most_16)
{
	int fd[5];

	setup_with(policy_default());
	fd[0] = request(1, 1ull << 40, 1ull << 41, 5);
	fd[1] = request(1, 1ull << 40, 1ull << 41, 7);
	ck_assert_uint_eq(ring_in_use(r), 1);
	ck_assert_uint_eq(stats.attached, 1);
	ck_assert_uint_eq(r->jobs[the_entry()].weight, 12 * JOBSET_UNIT);
	fd[2] = request(1, 1ull << 40, 1ull << 41, 9);
	ck_assert_uint_eq(r->jobs[the_entry()].weight, 16 * JOBSET_UNIT);
	fd[3] = request_from("127.0.0.2", 1, 1ull << 40, 1ull << 41, 3);
	ck_assert_uint_eq(r->jobs[the_entry()].weight, 19 * JOBSET_UNIT);
	fd[4] = request(1, 1ull << 40, (1ull << 41) + 1, 1); /* another range */
	ck_assert_uint_eq(ring_in_use(r), 2);
	for (int i = 0; i < 5; i++)
		close(fd[i]);
	teardown();

	setup_attach(policy_default(), 0);
	fd[0] = request(1, 1ull << 40, 1ull << 41, 5);
	fd[1] = request(1, 1ull << 40, 1ull << 41, 7);
	ck_assert_uint_eq(ring_in_use(r), 2);
	ck_assert_uint_eq(stats.attached, 0);
	close(fd[0]);
	close(fd[1]);
	teardown();
}
END_TEST

/* A waiting client that resets takes its weight with it; the last one
 * gone cancels the job, whose entry is released. */
START_TEST(a_gone_client_takes_its_weight_and_the_last_cancels)
{
	int a, b;
	uint32_t e;

	setup_with(policy_default());
	a = request(1, 1ull << 40, 1ull << 41, 4);
	b = request_from("127.0.0.2", 1, 1ull << 40, 1ull << 41, 6);
	e = the_entry();
	ck_assert_uint_eq(r->jobs[e].weight, 10 * JOBSET_UNIT);
	th_reset(a);
	connection_events(1000);
	ck_assert_uint_eq(r->jobs[e].weight, 6 * JOBSET_UNIT);
	ck_assert_uint_eq(stats.cancelled, 0);
	ck_assert_int_eq(ring_phase(r, e), PHASE_NEW);
	th_reset(b);
	connection_events(1000);
	ck_assert_uint_eq(stats.cancelled, 1);
	ck_assert_int_eq(ring_phase(r, e), PHASE_RELEASING);
	ck_assert_uint_eq(jobs_in_flight(&js), 0);
	/* The workers take the release in; the entry comes back. */
	ck_assert_int_eq(ring_lease(r, 0, 1000, 1, &(struct ring_lease){ 0 }), -EAGAIN);
	loop_turn();
	ck_assert_uint_eq(ring_in_use(r), 0);
	teardown();
}
END_TEST

/* The worker that finds the answer ends the job: every waiter gets it at
 * the next turn of the loop, the cache keeps it, the entry is free. A
 * range without the answer, hashed to its end, is answered 0. */
START_TEST(a_job_ends_with_one_notification)
{
	struct ring_lease l;
	uint8_t d[32];
	uint64_t x;
	int a, b, c;

	setup_with(policy_default());
	a = request(4321, 4000, 4999, 1);
	b = request_from("127.0.0.2", 4321, 4000, 4999, 2);
	ck_assert_int_eq(ring_lease(r, 0, 100000, 1, &l), 0);
	ck_assert_int_eq(ring_finish(r, 0, SEARCH_FOUND, 4321), 1);
	no_reply(a);
	loop_turn();
	ck_assert_uint_eq(reply_of(a), 4321);
	ck_assert_uint_eq(reply_of(b), 4321);
	digest_of(4321, d);
	ck_assert(cache_get(&cache, d, &x) && x == 4321);
	ck_assert_uint_eq(ring_in_use(r), 0);
	ck_assert_uint_eq(jobs_in_flight(&js), 0);

	c = request(1, 10, 19, 1);
	ck_assert_int_eq(ring_lease(r, 0, 100000, 1, &l), 0);
	ck_assert_int_eq(ring_finish(r, 0, SEARCH_NONE, 0), 1);
	loop_turn();
	ck_assert_uint_eq(reply_of(c), 0);
	ck_assert_uint_eq(stats.not_found, 1);
	ck_assert_uint_eq(ring_in_use(r), 0);
	teardown();
}
END_TEST

/* With the table full, new jobs wait in the backlog; as entries free up,
 * the backlog's best (here: the highest priority, ranges alike) gets each
 * in turn. */
START_TEST(the_backlog_is_admitted_best_first)
{
	uint32_t e, filler[3];
	int fd[3];
	uint8_t prio[3] = { 3, 16, 8 }, want[3] = { 16, 8, 3 };

	setup_with(policy_default());
	fill_table_but(0);
	for (int i = 0; i < 3; i++)
		fd[i] = request(100 + (uint64_t)i, 1ull << 40, 1ull << 41, prio[i]);
	ck_assert_uint_eq(js.set.nbacklog, 3);
	for (uint32_t i = 0, n = 0; n < 3; i++)
		if (ring_phase(r, i) == PHASE_NEW && !jobs_job_in(&js, i))
			filler[n++] = i;
	for (int i = 0; i < 3; i++) {
		ck_assert_int_eq(ring_release(r, filler[i]), 1);
		ring_lease(r, 0, 1, 1, &(struct ring_lease){ 0 }); /* workers take it in */
		loop_turn();
		ck_assert_uint_eq(js.set.nbacklog, 2 - (uint32_t)i);
		e = filler[i];
		ck_assert_ptr_nonnull(jobs_job_in(&js, e));
		ck_assert_uint_eq(r->jobs[e].weight, want[i] * JOBSET_UNIT);
	}
	for (int i = 0; i < 3; i++)
		close(fd[i]);
	teardown();
}
END_TEST

/* A job parked for a better one keeps its progress: once back in the
 * table, its next lease starts where the last one ended. */
START_TEST(a_parked_job_comes_back_where_it_was)
{
	struct ring_lease l;
	int light, heavy;
	uint32_t e;

	setup_with(th_policy(POLICY_PRIORITY, 1, 1));
	fill_table_but(1);
	light = request(123456789, 0, 99999, 1);
	e = the_entry();
	ck_assert_int_eq(ring_lease(r, 0, 1000, 1000, &l), 0);
	ck_assert_uint_eq(l.hi, 999);
	heavy = request(55, 50, 60, 16); /* the table is full: light is parked */
	ck_assert_uint_eq(stats.parked, 1);
	ck_assert_int_eq(ring_phase(r, e), PHASE_PARKING);
	ring_finish(r, 0, SEARCH_NONE, 0); /* its lease comes back: parked */
	loop_turn();
	ck_assert_uint_eq(js.set.nbacklog, 1); /* light waits; heavy has the entry */
	ck_assert_uint_eq(js.set.backlog[0]->out->next, 1000);
	ck_assert_int_eq(ring_lease(r, 0, 100, 100, &l), 0); /* heavy's */
	ck_assert_uint_eq(l.lo, 50);
	ck_assert_int_eq(ring_finish(r, 0, SEARCH_FOUND, 55), 1);
	loop_turn();
	ck_assert_uint_eq(reply_of(heavy), 55);
	ck_assert_uint_eq(js.set.nbacklog, 0);
	ck_assert_int_eq(ring_lease(r, 0, 1000, 1000, &l), 0); /* light's, again */
	ck_assert_uint_eq(l.lo, 1000);
	close(light);
	teardown();
}
END_TEST

/* A peer may send any 32 bytes as a digest: 300 jobs whose digests share
 * all but their last byte (and their range) still spread over the index's
 * buckets (its hash is keyed), instead of one chain that every lookup
 * would walk. */
START_TEST(crafted_keys_do_not_chain_in_one_bucket)
{
	size_t longest = 0;

	setup_with(policy_default());
	for (int i = 0; i < 300; i++) {
		struct conn c = { .prio = 1 };
		struct job *j;
		int fresh;

		c.req.digest[30] = (uint8_t)(i >> 8);
		c.req.digest[31] = (uint8_t)i;
		c.req.start = 1;
		c.req.end = 1ull << 40;
		ck_assert_int_eq(jobset_job_for(&js.set, &c, &j, &fresh), 0);
		ck_assert(fresh);
	}
	for (size_t b = 0; b < js.set.index_size; b++) {
		size_t n = 0;

		for (struct job *j = js.set.index[b]; j; j = j->hnext)
			n++;
		longest = n > longest ? n : longest;
	}
	ck_assert_uint_le(longest, 12);
	teardown();
}
END_TEST

/* The job searching start.. in the master's record, and its entry's
 * weight, which must be the record's. */
static uint64_t weight_at(uint64_t start)
{
	for (uint32_t e = 0; e < RING_JOBS; e++) {
		struct job *j = jobs_job_in(&js, e);

		if (j && j->key.start == start) {
			ck_assert_uint_eq(r->jobs[e].weight, j->weight);
			return j->weight;
		}
	}
	ck_abort_msg("no job at %llu", (unsigned long long)start);
	return 0;
}

/* One peer's many urgent searches share its budget (64 here): each counts
 * for less than another peer's one, until the peer asks for less again.
 * Without the fair share, its eight would rank ahead of the other's. */
START_TEST(a_peer_of_many_searches_shares_its_weight)
{
	int a[8], b;

	setup_with(policy_default());
	for (int i = 0; i < 8; i++)
		a[i] = request(1, (uint64_t)(i + 1) << 40, ((uint64_t)(i + 1) << 40) + 1000, 16);
	b = request_from("127.0.0.2", 1, 1ull << 50, (1ull << 50) + 1000, 16);
	/* 8 x 16 = 128 over a budget of 64: each of the first peer's counts
	 * half; the second peer's one counts whole. */
	for (int i = 0; i < 8; i++)
		ck_assert_uint_eq(weight_at((uint64_t)(i + 1) << 40), 8 * JOBSET_UNIT);
	ck_assert_uint_eq(weight_at(1ull << 50), 16 * JOBSET_UNIT);
	/* Down to two searches (32, a quarter of 128): whole again. */
	for (int i = 0; i < 6; i++)
		th_reset(a[i]);
	for (int i = 0; i < 10 && jobs_in_flight(&js) > 3; i++)
		connection_events(100);
	ck_assert_uint_eq(jobs_in_flight(&js), 3);
	ck_assert_uint_eq(weight_at(7ull << 40), 16 * JOBSET_UNIT);
	ck_assert_uint_eq(weight_at(8ull << 40), 16 * JOBSET_UNIT);
	close(a[6]);
	close(a[7]);
	close(b);
	teardown();
}
END_TEST

/* ---- what a worker can write ----------------------------------------------- */

/* A worker writes into entry e: its phase, and the flag that the master
 * should look. */
static void scrawl_phase(uint32_t e, uint32_t phase)
{
	r->jobs[e].phase = phase;
	r->changed[e / 64] |= UINT64_C(1) << (e % 64);
}

/* The workers lease from the one job, 500 values at a time, each lease
 * found when it holds answer, else hashed to its end, until it is found
 * or none is left; the loop hears of each. */
static void search_on(uint64_t answer)
{
	struct ring_lease l;

	while (ring_lease(r, 0, 500, 500, &l) == 0) {
		int found = l.lo <= answer && answer <= l.hi;

		ring_finish(r, 0, found ? SEARCH_FOUND : SEARCH_NONE, answer);
		loop_turn();
		if (found)
			return;
	}
	loop_turn();
}

/* A phase out of the table is no abort: the entry is taken back (nobody
 * is blamed: the segment says who, and any worker can write that), and
 * the job searched again from its start, its client answered in the end. */
START_TEST(a_phase_out_of_the_table_is_searched_again)
{
	struct ring_lease l;
	uint32_t e;
	int fd;

	setup_with(policy_default());
	fd = request(4321, 4000, 4999, 1);
	ck_assert_int_eq(ring_lease(r, 0, 100, 100, &l), 0);
	ck_assert_uint_eq(l.lo, 4000);
	scrawl_phase(e = the_entry(), 77);
	loop_turn();
	no_reply(fd);
	ck_assert_uint_eq(jobs_job_in(&js, the_entry())->rewritten, 1);
	ck_assert_int_eq(ring_finish(r, 0, SEARCH_NONE, 0), 0); /* its lease is void */
	ck_assert_int_eq(ring_lease(r, 0, 100000, 1, &l), 0);
	ck_assert_uint_eq(l.lo, 4000);
	ck_assert_int_eq(ring_finish(r, 0, SEARCH_FOUND, 4321), 1);
	loop_turn();
	ck_assert_uint_eq(reply_of(fd), 4321);
	ck_assert_uint_eq(jobs_in_flight(&js), 0);
	teardown();
}
END_TEST

/* A peer with as many searches as it may: a request for another is closed
 * unanswered and counted; a repeat of one of its own attaches; another
 * peer is served. */
START_TEST(a_peer_past_its_search_cap_is_refused_alone)
{
	int fd[5];
	uint8_t got[8];

	peer_searches = 2;
	setup_with(policy_default());
	fd[0] = request(1, 1ull << 40, 1ull << 41, 1);
	fd[1] = request(1, 1ull << 42, 1ull << 43, 1);
	fd[2] = request(1, 1ull << 44, 1ull << 45, 1);
	ck_assert_uint_eq(stats.refused_peer_searches, 1);
	ck_assert_int_eq(recv(fd[2], got, sizeof got, 0), 0); /* a clean end */
	fd[3] = request(1, 1ull << 40, 1ull << 41, 1);
	ck_assert_uint_eq(stats.attached, 1);
	fd[4] = request_from("127.0.0.2", 1, 1ull << 44, 1ull << 45, 1);
	ck_assert_uint_eq(stats.refused_peer_searches, 1);
	ck_assert_uint_eq(jobs_in_flight(&js), 3);
	ck_assert_uint_eq(replies_timed(), 0); /* a refusal is no reply */
	for (int i = 0; i < 5; i++)
		close(fd[i]);
	teardown();
}
END_TEST

/* An entry the master has not taken, flagged with an end by a worker, is
 * not freed a second time: the master's free list stays its own. */
START_TEST(an_end_written_into_a_free_entry_is_ignored)
{
	struct ring_lease l;
	int fd;

	setup_with(policy_default());
	scrawl_phase(7, PHASE_FOUND);
	loop_turn();
	ck_assert_uint_eq(js.table.nfree, RING_JOBS);
	fd = request(55, 50, 60, 1);
	ck_assert_int_eq(ring_lease(r, 0, 100, 100, &l), 0);
	ck_assert_int_eq(ring_finish(r, 0, SEARCH_FOUND, 55), 1);
	loop_turn();
	ck_assert_uint_eq(reply_of(fd), 55);
	ck_assert_uint_eq(js.table.nfree, RING_JOBS);
	teardown();
}
END_TEST

/* The peers' table against a plain array, over a seeded mix of adds and
 * removals that wraps probes around and moves records back. */
START_TEST(the_peers_table_keeps_every_peer)
{
	enum { N = 300, OPS = 20000 };
	static uint8_t addr[N][16];
	static uint32_t count[N];
	struct peers ps;
	uint32_t live = 0;

	peers_init(&ps);
	for (int i = 0; i < N; i++)
		for (int b = 0; b < 16; b++)
			addr[i][b] = (uint8_t)th_rand64();
	for (int op = 0; op < OPS; op++) {
		int i = (int)(th_rand64() % N);
		struct peer *pe;

		if (th_rand64() % 2 || !count[i]) {
			ck_assert_ptr_nonnull(pe = peers_get(&ps, addr[i]));
			live += !count[i];
			pe->conns = ++count[i];
		} else {
			pe = peers_find(&ps, addr[i]);
			ck_assert_ptr_nonnull(pe);
			pe->conns = --count[i];
			live -= !count[i];
			peers_put(&ps, pe);
		}
		ck_assert_uint_eq(ps.n, live);
	}
	for (int i = 0; i < N; i++) {
		struct peer *pe = peers_find(&ps, addr[i]);

		if (count[i])
			ck_assert(pe && pe->conns == count[i]);
		else
			ck_assert_ptr_null(pe);
	}
	peers_free(&ps);
}
END_TEST

/* A parked job whose progress a worker wrote out of its range starts
 * again from its start, instead of handing the workers a range it never
 * had. */
START_TEST(a_parked_progress_out_of_range_is_not_kept)
{
	struct ring_lease l;
	int light, heavy;
	uint32_t e;

	setup_with(th_policy(POLICY_PRIORITY, 1, 1));
	fill_table_but(1);
	light = request(123456789, 0, 99999, 1);
	e = the_entry();
	ck_assert_int_eq(ring_lease(r, 0, 1000, 1000, &l), 0);
	heavy = request(55, 50, 60, 16);
	ring_finish(r, 0, SEARCH_NONE, 0);
	r->jobs[e].p.nreturned = 1000;
	loop_turn();
	ck_assert_uint_eq(js.set.nbacklog, 1);
	ck_assert_uint_eq(js.set.backlog[0]->out->next, 0);
	ck_assert_uint_eq(js.set.backlog[0]->out->nreturned, 0);
	close(light);
	close(heavy);
	teardown();
}
END_TEST

/* Run the audit once, as the loop does a period after the first job. */
static void audit_now(void)
{
	static uint64_t later; /* each call a period past the last */
	uint64_t now = clock_ms() + (later += 10000);

	jobs_audit(&js, now);
	jobs_audit(&js, now + 1000);
	jobs_balance(&js);
	clients_bury(&cl);
}

/* What a worker writes without flagging it is found by the audit: a key
 * that is not the job's (the entry taken back, nobody blamed, the job searched
 * again from its start and answered right), a weight not the published
 * one (published again), an end (taken as news). */
START_TEST(the_audit_finds_what_a_worker_wrote_unflagged)
{
	struct ring_lease l;
	uint32_t e;
	int fd;

	setup_with(policy_default());
	fd = request(4321, 4000, 4999, 3);
	e = the_entry();
	ck_assert_int_eq(ring_lease(r, 0, 100, 100, &l), 0);
	r->jobs[e].key.end = UINT64_MAX; /* the workers would search for ever */
	r->jobs[e].weight = 1u << 30;    /* and rank it first */
	audit_now();
	no_reply(fd);
	e = the_entry();
	ck_assert_uint_eq(r->jobs[e].key.end, 4999);
	ck_assert_uint_eq(r->jobs[e].weight, 3 * JOBSET_UNIT);
	r->jobs[e].weight = 1u << 30; /* alone, it is published again */
	audit_now();
	ck_assert_uint_eq(r->jobs[e].weight, 3 * JOBSET_UNIT);
	ck_assert_uint_eq(jobs_job_in(&js, e)->rewritten, 1);
	ck_assert_int_eq(ring_lease(r, 0, 100000, 1, &l), 0);
	ck_assert_uint_eq(l.lo, 4000);
	ck_assert_int_eq(ring_finish(r, 0, SEARCH_FOUND, 4321), 1);
	r->changed[e / 64] = 0; /* the flag lost */
	audit_now();
	ck_assert_uint_eq(reply_of(fd), 4321);
	ck_assert_uint_eq(jobs_in_flight(&js), 0);
	teardown();
}
END_TEST


/* ---- what a worker can write, against the master's own records -------------- */

/* PARKED written into a live entry the master never parked: the master had
 * no place for its progress (j->out), and died of SIGSEGV taking it. Now
 * it is a phase not asked: the entry is taken back, the search goes on
 * and is answered. */
START_TEST(parked_written_into_a_live_entry_is_taken_back)
{
	struct ring_lease l;
	int fd;

	setup_with(policy_default());
	fd = request(4321, 4000, 4999, 1);
	ck_assert_int_eq(ring_lease(r, 0, 100, 100, &l), 0);
	scrawl_phase(the_entry(), PHASE_PARKED);
	loop_turn();
	no_reply(fd);
	ck_assert_uint_eq(jobs_in_flight(&js), 1);
	ck_assert_int_eq(ring_lease(r, 0, 100000, 1, &l), 0);
	ck_assert_int_eq(ring_finish(r, 0, SEARCH_FOUND, 4321), 1);
	loop_turn();
	ck_assert_uint_eq(reply_of(fd), 4321);
	teardown();
}
END_TEST

/* CLOSED (a job let go) written into the entry of a job its clients wait
 * on: they were told "not found", of a range that holds the answer. Now
 * a phase not asked: the search goes on. */
START_TEST(closed_written_into_a_live_entry_is_no_not_found)
{
	struct ring_lease l;
	int fd;

	setup_with(policy_default());
	fd = request(4321, 4000, 4999, 1);
	ck_assert_int_eq(ring_lease(r, 0, 100, 100, &l), 0);
	scrawl_phase(the_entry(), PHASE_CLOSED);
	loop_turn();
	no_reply(fd);
	ck_assert_int_eq(ring_lease(r, 0, 100000, 1, &l), 0);
	ck_assert_int_eq(ring_finish(r, 0, SEARCH_FOUND, 4321), 1);
	loop_turn();
	ck_assert_uint_eq(reply_of(fd), 4321);
	teardown();
}
END_TEST

/* A worker that writes a wrong answer again and again (naming slot 0, an
 * honest worker, as the finder): each lie only takes the entry back with
 * its progress and the leases out on it, so the search gets on and ends,
 * answered right. (Each lie sent it back to its start: it never ended.) */
START_TEST(lies_again_and_again_do_not_keep_a_search_from_ending)
{
	struct ring_lease l;
	uint64_t at;
	uint32_t e;
	int fd;

	setup_with(policy_default());
	fd = request(9999, 0, 9999, 1);
	for (int lie = 0; lie < 10; lie++) {
		ck_assert_int_eq(ring_lease(r, 0, 500, 500, &l), 0);
		/* On from the lease that was out at the last lie. */
		ck_assert_uint_eq(l.lo, 500 * (uint64_t)lie);
		at = l.lo;
		ring_finish(r, 0, SEARCH_NONE, 0);
		ck_assert_int_eq(ring_lease(r, 0, 500, 500, &l), 0); /* out at the lie */
		ck_assert_uint_eq(l.lo, at + 500);
		e = the_entry();
		r->jobs[e].answer = 1;
		r->jobs[e].found_slot = 0;
		scrawl_phase(e, PHASE_FOUND);
		loop_turn();
		no_reply(fd);
		ck_assert_int_eq(ring_finish(r, 0, SEARCH_NONE, 0), 0); /* void */
	}
	ck_assert_uint_eq(stats.wrong_answers, 10);
	/* The lies cost nothing leased: from 0, 500 at a time, and the lease
	 * out at each lie given back. */
	while (ring_lease(r, 0, 500, 500, &l) == 0) {
		int found = l.lo <= 9999 && 9999 <= l.hi;

		ck_assert_int_eq(ring_finish(r, 0, found ? SEARCH_FOUND : SEARCH_NONE, 9999), found);
		loop_turn();
		if (found)
			break;
	}
	ck_assert_uint_eq(reply_of(fd), 9999);
	teardown();
}
END_TEST

/* A worker writes the cursor back (the values ahead of it hashed again,
 * for ever if it keeps at it). The cursor only goes forward, so the audit
 * takes the entry back within its period. */
START_TEST(a_cursor_written_back_is_found_by_the_audit)
{
	struct ring_lease l;
	uint32_t e;
	int fd;

	setup_with(policy_default());
	fd = request(1, 1000, 100999, 1);
	e = the_entry();
	for (int i = 0; i < 3; i++) {
		ck_assert_int_eq(ring_lease(r, 0, 1000, 1000, &l), 0);
		ring_finish(r, 0, SEARCH_NONE, 0);
	}
	audit_now();
	ck_assert_uint_eq(jobs_job_in(&js, e)->rewritten, 0);
	r->jobs[e].p.next = 1000;
	audit_now();
	ck_assert_uint_eq(jobs_job_in(&js, the_entry())->rewritten, 1);
	close(fd);
	teardown();
}
END_TEST

/* A generation written over a running job: the worker whose lease holds
 * the answer takes its lease for one of an earlier use and drops it, and
 * the workers' count of leases out keeps it, so the search never ended.
 * The audit finds the generation not the master's and takes the entry
 * back; the answer is found on a pass searched again. */
START_TEST(a_generation_written_over_is_found_by_the_audit)
{
	struct ring_lease l;
	int fd;

	setup_with(policy_default());
	fd = request(4321, 4000, 5999, 1);
	ck_assert_int_eq(ring_lease(r, 0, 500, 500, &l), 0);
	r->jobs[the_entry()].gen += 77;
	ck_assert_int_eq(ring_finish(r, 0, SEARCH_FOUND, 4321), 0); /* dropped */
	audit_now();
	ck_assert_uint_eq(jobs_job_in(&js, the_entry())->rewritten, 1);
	search_on(4321);
	search_on(4321);
	ck_assert_uint_eq(reply_of(fd), 4321);
	teardown();
}
END_TEST

/* EXHAUSTED written over a running job with values left: its clients were
 * told "not found" at once. The entry's own progress says otherwise. */
START_TEST(exhausted_with_values_left_is_no_not_found)
{
	struct ring_lease l;
	int fd;

	setup_with(policy_default());
	fd = request(99999, 0, 99999, 1);
	ck_assert_int_eq(ring_lease(r, 0, 1000, 1000, &l), 0);
	scrawl_phase(the_entry(), PHASE_EXHAUSTED);
	loop_turn();
	no_reply(fd);
	ck_assert_uint_eq(stats.not_found, 0);
	ck_assert_uint_eq(jobs_in_flight(&js), 1);
	close(fd);
	teardown();
}
END_TEST

/* A cursor word written past the values it may hold (any but 0 or 1),
 * with a lease out: the lease comes back and the worker, reading "every
 * value leased", ends the job EXHAUSTED. Its client was told "not found"
 * of a range never hashed. An end is believed only where the entry's
 * progress is one the job can have: taken back, searched again, found. */
START_TEST(exhausted_with_its_cursor_written_out_of_range_is_no_not_found)
{
	static const uint32_t written[] = { 2, 0x57cd, UINT32_MAX };

	for (unsigned i = 0; i < sizeof written / sizeof written[0]; i++) {
		struct ring_lease l;
		int fd;

		setup_with(policy_default());
		fd = request(1999, 0, 1999, 1);
		ck_assert_int_eq(ring_lease(r, 0, 500, 500, &l), 0);
		r->jobs[the_entry()].p.cursor_done = written[i];
		ck_assert_int_eq(ring_finish(r, 0, SEARCH_NONE, 0), 1);
		loop_turn();
		no_reply(fd);
		ck_assert_uint_eq(stats.not_found, 0);
		ck_assert_uint_eq(jobs_in_flight(&js), 1);
		search_on(1999);
		ck_assert_uint_eq(reply_of(fd), 1999);
		teardown();
	}
}
END_TEST

/* The worker that found the answer finishes just after a liar wrote FOUND
 * (a wrong answer) into the entry: the job looks ended to it, so its
 * answer and its lease are dropped, and the master's take-back, which
 * reads the leases out, finds none. Where a worker looked at the ring
 * between the take-back and the job's next entry, the search went on from
 * where it got and ended EXHAUSTED: "not found", of a range holding the
 * answer; where none did, the workers still counted the lease dropped as
 * out on the entry, and the search never ended. Now a job taken back is
 * unsure, and its "not found" is searched again from its start, which
 * finds the answer; and the workers count the leases of an entry's new
 * use afresh. Both interleavings, forced. */
START_TEST(a_lease_dropped_after_a_lie_is_searched_again)
{
	struct ring_lease l;
	uint32_t e;
	int fd;

	for (int look_between = 0; look_between < 2; look_between++) {
		setup_with(policy_default());
		fd = request(4321, 4000, 5999, 1);
		for (int lie = 0; lie < 2; lie++) {
			ck_assert_int_eq(ring_lease(r, 0, 500, 500, &l), 0);
			ck_assert_uint_eq(l.lo, 4000);
			e = the_entry();
			r->jobs[e].answer = 1;
			scrawl_phase(e, PHASE_FOUND);
			if (lie == 1) /* the answer found after the lie: dropped */
				ck_assert_int_eq(ring_finish(r, 0, SEARCH_FOUND, 4321), 0);
			jobs_news(&js); /* taken back */
			if (look_between)
				ck_assert_int_eq(ring_lease(r, 0, 500, 500, &l), -EAGAIN);
			jobs_balance(&js); /* in an entry again */
			clients_bury(&cl);
			if (lie == 0) /* after the take-back, which gave it back */
				ck_assert_int_eq(ring_finish(r, 0, SEARCH_NONE, 0), 0);
			no_reply(fd);
		}
		ck_assert_uint_eq(stats.wrong_answers, 2);
		while (ring_lease(r, 0, 500, 500, &l) == 0) /* 4500..5999: not there */
			ring_finish(r, 0, SEARCH_NONE, 0);
		ck_assert_int_eq(ring_phase(r, e), PHASE_EXHAUSTED);
		loop_turn();
		no_reply(fd);
		ck_assert_uint_eq(stats.not_found, 0);
		search_on(4321); /* again from 4000 */
		ck_assert_uint_eq(reply_of(fd), 4321);
		ck_assert_uint_eq(jobs_in_flight(&js), 0);
		teardown();
	}
}
END_TEST

/* EXHAUSTED written while the last lease is still out (nothing left to
 * lease: the entry's progress agreed): its clients were told "not found"
 * while a worker hashed the range that held the answer. A lease out is
 * a value not hashed yet. */
START_TEST(exhausted_with_a_lease_out_is_no_not_found)
{
	struct ring_lease l;
	int fd;

	setup_with(policy_default());
	fd = request(321, 0, 999, 1);
	ck_assert_int_eq(ring_lease(r, 0, 100000, 1, &l), 0);
	ck_assert_uint_eq(l.hi, 999); /* all of it */
	scrawl_phase(the_entry(), PHASE_EXHAUSTED);
	loop_turn();
	no_reply(fd);
	ck_assert_uint_eq(stats.not_found, 0);
	ck_assert_int_eq(ring_finish(r, 0, SEARCH_FOUND, 321), 0); /* void now */
	search_on(321);
	ck_assert_uint_eq(reply_of(fd), 321);
	teardown();
}
END_TEST

/* A digest written over a running job, and the job hashed to its end
 * before the audit came (the workers search what the entry says): its
 * clients were told "not found". An end is believed only under the
 * job's own key. */
START_TEST(exhausted_under_another_key_is_no_not_found)
{
	struct ring_lease l;
	int fd;

	setup_with(policy_default());
	fd = request(4321, 4000, 4999, 1);
	r->jobs[the_entry()].key.digest[0] ^= 1;
	ck_assert_int_eq(ring_lease(r, 0, 100000, 1, &l), 0);
	ck_assert_uint_eq(l.hi, 4999); /* all of it, under the other digest */
	ck_assert_int_eq(ring_finish(r, 0, SEARCH_NONE, 0), 1);
	loop_turn();
	no_reply(fd);
	ck_assert_uint_eq(stats.not_found, 0);
	search_on(4321);
	search_on(4321);
	ck_assert_uint_eq(reply_of(fd), 4321);
	teardown();
}
END_TEST

/* NEW written over a running job, unflagged: NEW is not a job's end, so
 * the worker whose lease holds the answer drops it (the job is not live
 * to it), and NEW is a phase the master asked for. A repeat of the
 * request then changed the job's weight, which marked the entry for the
 * workers: they took the NEW in and leased on, but their count of leases
 * out kept the one dropped, so the job never ended (or, once a lock's
 * repair counted again, ended "not found"). NEW is asked only while no
 * worker has leased from the entry: the audit takes it back, and the
 * weight is not published to it meanwhile. */
START_TEST(new_written_over_a_running_job_is_taken_back)
{
	struct ring_lease l;
	int fd, again;

	setup_with(policy_default());
	fd = request(4321, 4000, 5999, 1);
	ck_assert_int_eq(ring_lease(r, 0, 500, 500, &l), 0);
	ck_assert_uint_eq(l.lo, 4000);
	r->jobs[the_entry()].phase = PHASE_NEW;
	ck_assert_int_eq(ring_finish(r, 0, SEARCH_FOUND, 4321), 0); /* dropped */
	again = request_from("127.0.0.2", 4321, 4000, 5999, 4); /* attached */
	ck_assert_uint_eq(stats.attached, 1);
	search_on(4321);
	audit_now();
	search_on(4321);
	search_on(4321);
	ck_assert_uint_eq(reply_of(fd), 4321);
	ck_assert_uint_eq(reply_of(again), 4321);
	teardown();
}
END_TEST

/* PARKED written while the master parks a job whose lease is still out:
 * the master took the entry's progress for the job's and the range leased
 * was lost (the worker drops it: the job is parked). An end that says
 * every lease is back must show none out: the entry is taken back with
 * the lease in its progress. */
START_TEST(parked_with_a_lease_out_keeps_the_lease)
{
	struct ring_lease l;
	int light, heavy;
	uint32_t e;

	setup_with(th_policy(POLICY_PRIORITY, 1, 1));
	fill_table_but(1);
	light = request(123456789, 0, 99999, 1);
	e = the_entry();
	ck_assert_int_eq(ring_lease(r, 0, 1000, 1000, &l), 0);
	heavy = request(55, 50, 60, 16); /* the table is full: light is parked */
	ck_assert_int_eq(ring_phase(r, e), PHASE_PARKING);
	scrawl_phase(e, PHASE_PARKED);
	loop_turn();
	ck_assert_int_eq(ring_finish(r, 0, SEARCH_NONE, 0), 0); /* void */
	ck_assert_uint_eq(js.set.nbacklog, 1);
	ck_assert_uint_eq(js.set.backlog[0]->out->next, 1000);
	ck_assert_uint_eq(js.set.backlog[0]->out->nreturned, 1);
	ck_assert_uint_eq(js.set.backlog[0]->out->returned[0].lo, 0);
	ck_assert_uint_eq(js.set.backlog[0]->out->returned[0].hi, 999);
	ck_assert_uint_eq(js.set.backlog[0]->unsure, 1);
	close(light);
	close(heavy);
	teardown();
}
END_TEST

/* A job written into an entry the master never gave out, marked for the
 * workers to take in: they searched it for ever at the top of their
 * heap. The audit takes it back, and the workers lease the master's job
 * and nothing else. */
START_TEST(a_phantom_job_in_a_free_entry_is_taken_back)
{
	struct ring_lease l;
	uint32_t ph = 77;
	int fd;

	setup_with(th_policy(POLICY_PRIORITY, 1, 1)); /* the heaviest first */
	fd = request(4321, 4000, 4999, 1);
	ck_assert(!jobs_job_in(&js, ph));
	memset(r->jobs[ph].key.digest, 0xab, 32);
	r->jobs[ph].key.start = r->jobs[ph].p.next = 0;
	r->jobs[ph].key.end = UINT64_MAX;
	r->jobs[ph].weight = UINT32_MAX;
	r->jobs[ph].phase = PHASE_NEW;
	r->pending[ph / 64] |= UINT64_C(1) << (ph % 64);
	r->pending_any |= UINT64_C(1) << (ph / 64);
	ck_assert_int_eq(ring_lease(r, 0, 100, 100, &l), 0);
	ck_assert_uint_eq(l.job, ph); /* the workers took it, first */
	audit_now();
	ck_assert_int_eq(ring_phase(r, ph), PHASE_FREE);
	ring_finish(r, 0, SEARCH_NONE, 0);
	for (int i = 0; i < 20; i++) {
		ck_assert_int_eq(ring_lease(r, 0, 100, 100, &l), 0);
		ck_assert_uint_ne(l.job, ph);
		if (l.lo <= 4321 && 4321 <= l.hi) {
			ring_finish(r, 0, SEARCH_FOUND, 4321);
			break;
		}
		ring_finish(r, 0, SEARCH_NONE, 0);
	}
	loop_turn();
	ck_assert_uint_eq(reply_of(fd), 4321);
	teardown();
}
END_TEST

/* PARKING written into the running job of a full table: the master took
 * it for a park of its own under way and parked nothing more, for good;
 * a better job waited for ever. Now the entry is a phase not asked,
 * found by the audit: taken back, and the better job gets in. */
START_TEST(parking_written_into_an_entry_stops_no_park)
{
	struct ring_lease l;
	int light, heavy;

	setup_with(th_policy(POLICY_PRIORITY, 1, 1));
	fill_table_with_jobs_but(1);
	light = request(123456789, 0, 99999, 1);
	ck_assert_int_eq(ring_lease(r, 0, 1000, 1000, &l), 0);
	ring_finish(r, 0, SEARCH_NONE, 0);
	r->jobs[entry_at(0)].phase = PHASE_PARKING; /* unflagged */
	heavy = request(55, 50, 60, 16);
	ck_assert_uint_eq(js.set.nbacklog, 1);
	audit_now();
	ck_assert_int_eq(ring_lease(r, 0, 100, 100, &l), 0);
	ck_assert_uint_eq(l.lo, 50);
	ck_assert_int_eq(ring_finish(r, 0, SEARCH_FOUND, 55), 1);
	loop_turn();
	ck_assert_uint_eq(reply_of(heavy), 55);
	close(light);
	teardown();
}
END_TEST

/* A park of the master's whose lease never comes back (its worker silent,
 * or a count of leases written over): after PARK_WAIT_MS the audit does
 * the park itself, the lease out given back into the parked job's
 * progress, and the better job gets in. */
START_TEST(a_park_whose_lease_never_comes_back_is_done_by_the_master)
{
	struct ring_lease l;
	int light, heavy;

	setup_with(th_policy(POLICY_PRIORITY, 1, 1));
	fill_table_with_jobs_but(1);
	light = request(123456789, 0, 99999, 1);
	ck_assert_int_eq(ring_lease(r, 0, 1000, 1000, &l), 0); /* held for ever */
	heavy = request(55, 50, 60, 16);
	ck_assert_uint_eq(stats.parked, 1);
	audit_now();
	ck_assert_uint_eq(js.set.nbacklog, 1);
	ck_assert_uint_eq(js.set.backlog[0]->out->next, 1000);
	ck_assert_uint_eq(js.set.backlog[0]->out->nreturned, 1);
	ck_assert_uint_eq(js.set.backlog[0]->out->returned[0].lo, 0);
	ck_assert_uint_eq(js.set.backlog[0]->out->returned[0].hi, 999);
	ck_assert_int_eq(ring_finish(r, 0, SEARCH_NONE, 0), 0); /* void now */
	ck_assert_int_eq(ring_lease(r, 0, 100, 100, &l), 0);
	ck_assert_uint_eq(l.lo, 50);
	ck_assert_int_eq(ring_finish(r, 0, SEARCH_FOUND, 55), 1);
	loop_turn();
	ck_assert_uint_eq(reply_of(heavy), 55);
	close(light);
	teardown();
}
END_TEST

/* A job let go whose lease never comes back: its entry is the master's
 * again after RELEASE_WAIT_MS, not held for ever. */
START_TEST(a_release_whose_lease_never_comes_back_is_done_by_the_master)
{
	struct ring_lease l;
	int fd;

	setup_with(policy_default());
	fd = request(1, 1ull << 40, 1ull << 41, 1);
	ck_assert_int_eq(ring_lease(r, 0, 1000, 1000, &l), 0); /* held for ever */
	th_reset(fd);
	connection_events(1000);
	ck_assert_uint_eq(stats.cancelled, 1);
	ck_assert_uint_eq(ring_in_use(r), 1);
	audit_now();
	ck_assert_uint_eq(ring_in_use(r), 0);
	ck_assert_uint_eq(js.table.nfree, RING_JOBS);
	teardown();
}
END_TEST

/* The bits of the ring's pending map that are set. */
static unsigned pending_bits(void)
{
	unsigned n = 0;

	for (unsigned w = 0; w < RING_JOBS / 64; w++)
		n += (unsigned)__builtin_popcountll(r->pending[w]);
	return n;
}

/* A peer's fair share moves (here: a fifth urgent search takes it over
 * its budget of 64): the master reweighs and republishes that peer's own
 * jobs, not every job. The work is counted as the entries marked for the
 * workers: 5, where it was all 65. */
START_TEST(a_peers_shift_reweighs_its_own_jobs_alone)
{
	int a[60], b[5];

	setup_with(policy_default());
	for (int i = 0; i < 60; i++) /* another peer's, under its budget */
		a[i] = request_from("127.0.0.3", 1, (uint64_t)(i + 1) << 40,
				    ((uint64_t)(i + 1) << 40) + 1000, 1);
	for (int i = 0; i < 4; i++)
		b[i] = request_from("127.0.0.2", 1, (uint64_t)(i + 1) << 50,
				    ((uint64_t)(i + 1) << 50) + 1000, 16);
	ck_assert_uint_eq(weight_at(1ull << 50), 16 * JOBSET_UNIT);
	memset(r->pending, 0, sizeof r->pending);
	r->pending_any = 0;
	b[4] = request_from("127.0.0.2", 1, 5ull << 50, (5ull << 50) + 1000, 16);
	ck_assert_uint_eq(weight_at(1ull << 50), 8 * JOBSET_UNIT); /* its shift moved */
	ck_assert_uint_eq(weight_at(1ull << 40), 1 * JOBSET_UNIT);
	fprintf(stderr, "a_peers_shift_reweighs_its_own_jobs_alone: %u entries marked "
		"for the workers of %u in the table\n", pending_bits(), ring_in_use(r));
	ck_assert_uint_eq(pending_bits(), 5);
	for (int i = 0; i < 60; i++)
		close(a[i]);
	for (int i = 0; i < 5; i++)
		close(b[i]);
	teardown();
}
END_TEST

/* A time's bucket is the first whose bound it is at most: 0 and 1 ns in
 * the first, each bound exactly in its own and a nanosecond more in the
 * next, anything above the top bound in the last; the bounds cover 20 us
 * to a minute. */
START_TEST(a_time_falls_in_the_first_bucket_it_fits)
{
	struct seg_hist h = { 0 };

	ck_assert_uint_eq(hist_bucket(0), 0);
	ck_assert_uint_eq(hist_bucket(1), 0);
	ck_assert_uint_eq(hist_bucket(999), 0);
	for (unsigned i = 0; i < HIST_BOUNDS; i++) {
		uint64_t b = hist_bound_ns(i);

		ck_assert_uint_eq(b, UINT64_C(1000) << i);
		ck_assert_uint_eq(hist_bucket(b - 1), i);
		ck_assert_uint_eq(hist_bucket(b), i);
		ck_assert_uint_eq(hist_bucket(b + 1), i + 1);
	}
	ck_assert_uint_eq(hist_bucket(hist_bound_ns(HIST_BOUNDS - 1) + 1), HIST_BOUNDS);
	ck_assert_uint_eq(hist_bucket(UINT64_MAX), HIST_BOUNDS);
	ck_assert_uint_le(hist_bound_ns(0), 20000);
	ck_assert_uint_ge(hist_bound_ns(HIST_BOUNDS - 1), UINT64_C(60000000000));
	/* What --status reads of them: the bound a share of the times is at most. */
	ck_assert_uint_eq(hist_at_most(&h, 0.99), 0);
	for (int i = 0; i < 99; i++)
		hist_add(&h, 3000);
	hist_add(&h, UINT64_C(100000000000));
	ck_assert_uint_eq(hist_count(&h), 100);
	ck_assert_uint_eq(h.n[2], 99);
	ck_assert_uint_eq(h.n[HIST_BOUNDS], 1);
	ck_assert_uint_eq(h.sum_ns, 99 * 3000 + UINT64_C(100000000000));
	ck_assert_uint_eq(hist_at_most(&h, 0.99), 4000);
	ck_assert_uint_eq(hist_at_most(&h, 1), UINT64_MAX);
}
END_TEST

/* Each reply's latency counts once, under what it said: the cache's
 * answer, a search's answer (every connection that attached to it too),
 * or none (an empty range, a range searched to its end). A client gone
 * before its answer is no reply. The score sums latency x priority over
 * the same replies, and a searched request's stages go into their own
 * histograms, summing to what the means are made of. */
START_TEST(each_reply_is_timed_under_its_outcome)
{
	const struct seg_latency *l = &stats.latency;
	uint64_t t0 = clock_ns(), score;
	struct ring_lease l0;
	uint8_t d[32];
	int a, b, gone;

	setup_with(policy_default());
	ck_assert_uint_eq(reply_of(request(5, 10, 9, 5)), 0);
	digest_of(777, d);
	cache_put(&cache, d, 777);
	ck_assert_uint_eq(reply_of(request(777, 700, 800, 3)), 777);
	a = request(4321, 4000, 4999, 2);
	b = request_from("127.0.0.2", 4321, 4000, 4999, 2);
	gone = request_from("127.0.0.3", 4321, 4000, 4999, 9);
	th_reset(gone);
	connection_events(1000);
	ck_assert_int_eq(ring_lease(r, 0, 100000, 1, &l0), 0);
	ck_assert_int_eq(ring_finish(r, 0, SEARCH_FOUND, 4321), 1);
	loop_turn();
	ck_assert_uint_eq(reply_of(a), 4321);
	ck_assert_uint_eq(reply_of(b), 4321);
	a = request(1, 10, 19, 5);
	ck_assert_int_eq(ring_lease(r, 0, 100000, 1, &l0), 0);
	ck_assert_int_eq(ring_finish(r, 0, SEARCH_NONE, 0), 1);
	loop_turn();
	ck_assert_uint_eq(reply_of(a), 0);

	ck_assert_uint_eq(hist_count(&l->reply[OUTCOME_CACHE_HIT]), 1);
	ck_assert_uint_eq(hist_count(&l->reply[OUTCOME_FOUND]), 2);
	ck_assert_uint_eq(hist_count(&l->reply[OUTCOME_NOT_FOUND]), 2);
	ck_assert_uint_eq(replies_timed(), stats.answered);
	for (int i = 0; i < OUTCOME_COUNT; i++) {
		ck_assert_uint_gt(l->reply[i].sum_ns, 0);
		ck_assert_uint_lt(l->reply[i].sum_ns, 2 * (clock_ns() - t0));
		ck_assert_uint_eq(l->reply[i].n[HIST_BOUNDS], 0);
	}
	score = 3 * l->reply[OUTCOME_CACHE_HIT].sum_ns + 2 * l->reply[OUTCOME_FOUND].sum_ns +
		5 * l->reply[OUTCOME_NOT_FOUND].sum_ns;
	ck_assert_uint_eq(l->score_ns, score);
	ck_assert_uint_eq(stats.stages.timed, 1); /* the found search; not found has no hash stage */
	for (int i = 0; i < STAGE_COUNT; i++) {
		ck_assert_uint_eq(hist_count(&l->stage[i]), 1);
		ck_assert_uint_eq(l->stage[i].sum_ns, stats.stages.ns[i]);
	}
	teardown();
}
END_TEST

int main(void)
{
	Suite *s = suite_create("jobs");
	TCase *t = tcase_create("jobs");

	tcase_set_timeout(t, 20);
	tcase_add_test(t, empty_range_and_cache_hit_are_answered_without_a_job);
	tcase_add_test(t, repeats_attach_and_each_peer_weighs_at_most_16);
	tcase_add_test(t, a_gone_client_takes_its_weight_and_the_last_cancels);
	tcase_add_test(t, a_job_ends_with_one_notification);
	tcase_add_test(t, the_backlog_is_admitted_best_first);
	tcase_add_test(t, a_parked_job_comes_back_where_it_was);
	tcase_add_test(t, job_hashed_to_its_end_while_parking_is_answered);
	tcase_add_test(t, crafted_keys_do_not_chain_in_one_bucket);
	tcase_add_test(t, a_peer_of_many_searches_shares_its_weight);
	tcase_add_test(t, a_peer_past_its_search_cap_is_refused_alone);
	tcase_add_test(t, the_peers_table_keeps_every_peer);
	tcase_add_test(t, a_phase_out_of_the_table_is_searched_again);
	tcase_add_test(t, an_end_written_into_a_free_entry_is_ignored);
	tcase_add_test(t, a_parked_progress_out_of_range_is_not_kept);
	tcase_add_test(t, the_audit_finds_what_a_worker_wrote_unflagged);
	tcase_add_test(t, parked_written_into_a_live_entry_is_taken_back);
	tcase_add_test(t, closed_written_into_a_live_entry_is_no_not_found);
	tcase_add_test(t, lies_again_and_again_do_not_keep_a_search_from_ending);
	tcase_add_test(t, a_cursor_written_back_is_found_by_the_audit);
	tcase_add_test(t, exhausted_with_values_left_is_no_not_found);
	tcase_add_test(t, exhausted_with_its_cursor_written_out_of_range_is_no_not_found);
	tcase_add_test(t, a_generation_written_over_is_found_by_the_audit);
	tcase_add_test(t, a_lease_dropped_after_a_lie_is_searched_again);
	tcase_add_test(t, exhausted_with_a_lease_out_is_no_not_found);
	tcase_add_test(t, exhausted_under_another_key_is_no_not_found);
	tcase_add_test(t, new_written_over_a_running_job_is_taken_back);
	tcase_add_test(t, parked_with_a_lease_out_keeps_the_lease);
	tcase_add_test(t, a_phantom_job_in_a_free_entry_is_taken_back);
	tcase_add_test(t, parking_written_into_an_entry_stops_no_park);
	tcase_add_test(t, a_park_whose_lease_never_comes_back_is_done_by_the_master);
	tcase_add_test(t, a_release_whose_lease_never_comes_back_is_done_by_the_master);
	tcase_add_test(t, a_peers_shift_reweighs_its_own_jobs_alone);
	tcase_add_test(t, a_time_falls_in_the_first_bucket_it_fits);
	tcase_add_test(t, each_reply_is_timed_under_its_outcome);
	suite_add_tcase(s, t);
	return check_run(s);
}
