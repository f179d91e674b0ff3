/* master/jobs.c driven directly: real client sockets through clients.c, a
 * ring in memory, and the test playing the workers (ring_lease and
 * ring_finish under made-up pids) and the loop (jobs_news, jobs_balance),
 * so that each interleaving is exact. */
#include "master/jobs.h"
#include "master/net.h"
#include "tests/check_run.h"
#include "tests/accept.h"
#include "tests/helpers.h"
#include "lib/digest.h"

#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <unistd.h>

static struct ring *r;
static struct cache *cache;
static struct seg_stats stats;
static struct clients cl;
static struct jobs js;
static int epfd, lfd;
static unsigned port;

static void setup_with(struct policy p)
{
	memset(&stats, 0, sizeof stats);
	r = mmap(NULL, sizeof *r, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(r, MAP_FAILED);
	ck_assert_int_eq(ring_init(r, &p), 0);
	ring_worker_start(r, 0, 100000);
	cache = calloc(1, cache_bytes(64));
	cache_init(cache, 64);
	port = th_free_port();
	ck_assert_int_eq(net_listen(port, &lfd), 0);
	epfd = epoll_create1(EPOLL_CLOEXEC);
	clients_init(&cl, epfd, &stats, 60000);
	ck_assert_int_eq(jobs_init(&js, r, cache, &cl, &stats, &p, 1), 0);
}

static void teardown(void)
{
	jobs_drop_all(&js);
	clients_close_all(&cl);
	clients_bury(&cl);
	jobs_free(&js);
	close(epfd);
	close(lfd);
	free(cache);
	ring_free(r);
	munmap(r, sizeof *r);
}

/* A client sends a request; the master reads it at accept and dispatches
 * it, as the loop does. Returns the client's socket. */
static int request(uint64_t answer, uint64_t start, uint64_t end, uint8_t prio)
{
	uint8_t d[32];
	int fd;

	digest_of(answer, d);
	fd = th_connect(port);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(th_send_request(fd, d, start, end, prio), 0);
	jobs_dispatch(&js, accept_request(&cl, lfd));
	jobs_balance(&js);
	clients_bury(&cl);
	return fd;
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
	uint32_t e;

	while (ring_in_use(r) < RING_JOBS - n)
		ck_assert_int_eq(ring_submit(r, &k, NULL, 100, 1000000, &e), 0);
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

int main(void)
{
	Suite *s = suite_create("jobs");
	TCase *t = tcase_create("jobs");

	tcase_set_timeout(t, 20);
	tcase_add_test(t, job_hashed_to_its_end_while_parking_is_answered);
	suite_add_tcase(s, t);
	return check_run(s);
}
