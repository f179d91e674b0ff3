/* shm/ring: lease, finish, cancel, ranking, splitting, parking, the giving
 * back of a dead worker's lease, and a worker killed or stopped while it
 * holds the ring's lock. The test plays the master and the workers (slots
 * registered under made-up pids) in one process. */
#include "shm/ring.h"
#include "shm/ring_master.h"
#include "tests/check_run.h"
#include "tests/helpers.h"
#include "lib/clock.h"
#include "lib/digest.h"

#include <check.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

static struct ring *r;
static struct ring_master own; /* the master's record of r */
static uint64_t seq;

static void setup_with(struct policy p)
{
	r = mmap(NULL, sizeof *r, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(r, MAP_FAILED);
	ring_hooks_here(1); /* some tests arm hooks: the master's switch, on */
	ck_assert_int_eq(ring_init(r, &p), 0);
	ring_master_init(&own, r);
	seq = 0;
	for (unsigned s = 0; s < RING_WORKERS; s++)
		ring_worker_start(r, s, (pid_t)(100000 + s));
}

static void setup(void)
{
	setup_with(policy_default());
}

static void teardown(void)
{
	ring_free(r);
	munmap(r, sizeof *r);
}

static uint32_t submit(uint64_t start, uint64_t end, uint64_t weight)
{
	struct ring_key k = { .start = start, .end = end };
	struct ring_progress from = { .next = start };
	uint32_t job;

	digest_of(start ^ end ^ weight, k.digest);
	ck_assert_int_eq(ring_submit(&own, &k, &from, weight, seq++,
					  RING_HELD_ALONE(&own), &job), 0);
	return job;
}

/* A lease of exactly chunk values (fewer only where the range ends): for
 * the tests of what is leased, not of how much (those call ring_lease). */
static int lease(unsigned slot, uint64_t chunk, struct ring_lease *l)
{
	return ring_lease(r, slot, chunk, chunk, l);
}

/* A lease of at most chunk values, as the ring sizes it for the live
 * workers (the tests of splitting). */
static int lease_any(unsigned slot, uint64_t chunk, struct ring_lease *l)
{
	return ring_lease(r, slot, chunk, 1, l);
}

/* Only slots 0..n-1 have a live worker: the ring splits among n. */
static void live_workers(unsigned n)
{
	uint64_t hashes, chunks;

	for (unsigned s = n; s < RING_WORKERS; s++)
		ring_slot_dead(r, s, EXIT_RETIRED, &hashes, &chunks);
	ck_assert_uint_eq(ring_workers(r), n);
}

/* The phase of job is want, and (FOUND) its answer is x. */
static void phase_is(uint32_t job, enum ring_phase want, uint64_t x)
{
	ck_assert_str_eq(ring_phase_name(ring_phase(r, job)), ring_phase_name(want));
	if (want == PHASE_FOUND)
		ck_assert_uint_eq(ring_answer(r, job), x);
}

/* Slot 0's next lease (10 values) is of job: take it, check, finish it. */
static void next_lease_is(uint32_t job)
{
	struct ring_lease l;

	ck_assert_int_eq(lease(0, 10, &l), 0);
	ck_assert_uint_eq(l.job, job);
	ring_finish(r, 0, SEARCH_NONE, 0);
}

/* Lease everything from slot in chunks, finishing each; count how often
 * each offset was leased (the range must be small). Returns the leases. */
static int drain(unsigned slot, uint64_t chunk, uint64_t start, uint8_t *seen)
{
	struct ring_lease l;
	int n = 0;

	while (lease(slot, chunk, &l) == 0) {
		ck_assert_uint_le(l.lo, l.hi);
		ck_assert_uint_le(l.hi - l.lo + 1, chunk);
		for (uint64_t v = l.lo;; v++) {
			seen[v - start]++;
			if (v == l.hi)
				break;
		}
		ring_finish(r, slot, SEARCH_NONE, 0);
		n++;
	}
	return n;
}

/* Slot drains job (values start .. start + n - 1, n at most 1000) in
 * leases of chunk: that many leases, each value leased once, and the job
 * EXHAUSTED. */
static void drained_whole(unsigned slot, uint64_t chunk, uint32_t job, uint64_t start, int n,
			  int leases)
{
	uint8_t seen[1000] = { 0 };

	ck_assert_int_le(n, 1000);
	ck_assert_int_eq(drain(slot, chunk, start, seen), leases);
	for (int v = 0; v < n; v++)
		ck_assert_uint_eq(seen[v], 1);
	phase_is(job, PHASE_EXHAUSTED, 0);
}

/* A dead worker's slot, as the master reaps it. */
static void dies(unsigned slot)
{
	uint64_t hashes, chunks;

	ring_slot_dead(r, slot, EXIT_DIED, &hashes, &chunks);
}

/* The wake-ups go out fastest first: a GPU worker in a top slot is not
 * left behind the posts (system calls) of the CPU workers asleep below
 * it. No rate yet: last; equal rates: slot order; no worker: no post. */
START_TEST(the_fastest_worker_is_woken_first)
{
	static const struct { unsigned slot; uint64_t rate; } w[] = {
		{ 0, 0 }, { 1, 60000000 }, { 2, 60000000 }, { 5, 59000000 },
		{ RING_WORKERS - 1, 17000000000ull },
	};
	const unsigned want[] = { RING_WORKERS - 1, 1, 2, 5, 0 };
	unsigned order[RING_WORKERS], n;

	for (unsigned s = 0; s < RING_WORKERS; s++)
		dies(s);
	for (unsigned i = 0; i < sizeof w / sizeof w[0]; i++) {
		ring_worker_start(r, w[i].slot, (pid_t)(100000 + w[i].slot));
		ring_slot_account(r, w[i].slot, 0, 0, w[i].rate);
	}
	ring_slot_account(r, 9, 0, 0, ~0ull); /* a rate, no worker */
	for (unsigned s = 0; s < RING_WORKERS; s++)
		while (ring_poll(r, s, 0)) /* the deaths' wake-ups */
			;
	n = ring_wake_order(r, order);
	ck_assert_uint_eq(n, 5);
	for (unsigned k = 0; k < n; k++)
		ck_assert_uint_eq(order[k], want[k]);
	ring_wake(r); /* each posted once */
	for (unsigned k = 0; k < n; k++) {
		ck_assert_int_eq(ring_poll(r, want[k], 0), 1);
		ck_assert_int_eq(ring_poll(r, want[k], 0), 0);
	}
	ck_assert_int_eq(ring_poll(r, 9, 0), 0);
}
END_TEST

/* A worker's poll takes the same wake-up its sleep would (once), and
 * gives up after its time without one. */
START_TEST(a_poll_takes_a_wake_up_once_and_gives_up_without)
{
	uint64_t t0;

	ring_worker_start(r, 0, getpid());
	ring_wake(r);
	ck_assert_int_eq(ring_poll(r, 0, 1000000), 1);
	t0 = clock_ns();
	ck_assert_int_eq(ring_poll(r, 0, 2000000), 0); /* taken: none left */
	ck_assert_uint_ge(clock_ns() - t0, 2000000);
	ring_wake(r);
	ring_wake(r); /* posted once at most */
	ck_assert_int_eq(ring_poll(r, 0, 0), 1);
	ck_assert_int_eq(ring_poll(r, 0, 0), 0);
}
END_TEST

/* A worker's sleep ends at a wake-up, taking it, and without one lasts
 * its whole time. */
START_TEST(a_sleep_takes_a_wake_up_and_lasts_its_time_without)
{
	uint64_t t0;

	ring_worker_start(r, 0, getpid());
	ring_wake(r);
	t0 = clock_ns();
	ring_wait(r, 0, 10000);
	ck_assert_uint_lt(clock_ns() - t0, 5000000000u); /* woken, not timed out */
	t0 = clock_ns();
	ring_wait(r, 0, 30); /* the post was taken: none left */
	ck_assert_uint_ge(clock_ns() - t0, 30000000u);
	ck_assert_int_eq(ring_poll(r, 0, 0), 0);
}
END_TEST

/* The workers move a job on from the phases before an end; FREE and the
 * ends are the master's, and so is any value no phase has (what the
 * master's on_end reads from a scribbled entry). */
START_TEST(the_workers_own_the_phases_before_an_end)
{
	static const enum ring_phase workers[] = { PHASE_NEW, PHASE_RUNNING, PHASE_RELEASING,
						   PHASE_PARKING };
	unsigned n = 0;

	for (unsigned p = 0; p < PHASE_COUNT + 3; p++)
		n += (unsigned)ring_phase_workers((enum ring_phase)p);
	ck_assert_uint_eq(n, 4);
	for (unsigned i = 0; i < 4; i++)
		ck_assert(ring_phase_workers(workers[i]));
	ck_assert(!ring_phase_workers(PHASE_FREE));
	ck_assert(!ring_phase_workers(PHASE_FOUND) && !ring_phase_workers(PHASE_EXHAUSTED));
	ck_assert(!ring_phase_workers(PHASE_PARKED) && !ring_phase_workers(PHASE_CLOSED));
	ck_assert(!ring_phase_workers((enum ring_phase)77));
}
END_TEST

START_TEST(leases_cover_the_range_once)
{
	drained_whole(0, 64, submit(5000, 5999, 1), 5000, 1000, 16);
}
END_TEST

START_TEST(exhausted_only_when_every_lease_is_back)
{
	struct ring_lease a, b;
	uint32_t job = submit(0, 99, 1);

	ck_assert_int_eq(lease(0, 50, &a), 0);
	ck_assert_int_eq(lease(1, 50, &b), 0);
	ck_assert_int_eq(lease(2, 50, &b), -EAGAIN);
	ck_assert_int_eq(ring_finish(r, 0, SEARCH_NONE, 0), 0); /* slot 1 still hashing */
	phase_is(job, PHASE_RUNNING, 0);
	ck_assert_int_eq(ring_finish(r, 1, SEARCH_NONE, 0), 1); /* last one: tell */
	phase_is(job, PHASE_EXHAUSTED, 0);
}
END_TEST

START_TEST(found_answer_is_reported_and_kept)
{
	struct ring_lease l, other;
	uint32_t jobs[RING_JOBS];
	uint32_t job = submit(100, 1000000, 3);

	ck_assert_int_eq(lease(0, 1000, &other), 0);
	ck_assert_int_eq(*other.stop, 0);
	ck_assert_int_eq(lease(1, 1000, &l), 0);
	ck_assert_int_eq(ring_finish(r, 1, SEARCH_FOUND, 1500), 1);
	/* One round trip: the job is at its end, the master's, at once,
	 * though the other lease is still out. */
	phase_is(job, PHASE_FOUND, 1500);
	ck_assert_uint_eq(ring_changed(r, jobs), 1);
	ck_assert_uint_eq(jobs[0], job);
	ck_assert_int_eq(*other.stop, 1); /* the other lease may stop early */
	/* That lease is void now: a second "find" cannot overwrite the
	 * first, says nothing to the master, and nobody leases more. */
	ck_assert_int_eq(ring_finish(r, 0, SEARCH_FOUND, 777), 0);
	phase_is(job, PHASE_FOUND, 1500);
	ck_assert_int_eq(lease(0, 1000, &l), -EAGAIN);
	/* The master may reuse the entry before the void lease is back. */
	ck_assert_int_eq(lease(0, 1000, &other), -EAGAIN);
	ring_free_entry(&own, job, NULL);
	phase_is(job, PHASE_FREE, 0);
}
END_TEST

/* A lease of a job that ended is void, whatever its entry holds by the
 * time the lease comes back: here the entry was freed, filled with
 * another job and that one released; the void lease's return must not
 * count against it (it would never close) nor end it. */
START_TEST(void_lease_leaves_the_entry_s_next_job_alone)
{
	struct ring_lease a, b;
	uint32_t job = submit(0, 999999, 1), next;

	ck_assert_int_eq(lease(0, 1000, &a), 0);
	ck_assert_int_eq(lease(1, 1000, &b), 0);
	ck_assert_int_eq(ring_finish(r, 1, SEARCH_FOUND, b.lo + 3), 1);
	ring_free_entry(&own, job, NULL);
	next = submit(5000000, 5999999, 2);
	ck_assert_uint_eq(next, job); /* the same entry, reused */
	ck_assert_int_eq(ring_release(r, next), 1);
	ck_assert_int_eq(ring_finish(r, 0, SEARCH_NONE, 0), 1); /* takes the release in */
	phase_is(next, PHASE_CLOSED, 0);
	ck_assert_uint_eq(r->jobs[next].nleases, 0);
	ring_free_entry(&own, next, NULL);
	/* The same with an answer: the void lease's does not go to the job
	 * now in its entry. */
	ck_assert_int_eq(lease(0, 1000, &a), -EAGAIN);
	job = submit(0, 999999, 1);
	ck_assert_int_eq(lease(0, 1000, &a), 0);
	ck_assert_int_eq(lease(1, 1000, &b), 0);
	ck_assert_int_eq(ring_finish(r, 1, SEARCH_FOUND, b.lo), 1);
	ring_free_entry(&own, job, NULL);
	next = submit(7000000, 7999999, 2);
	ck_assert_int_eq(ring_finish(r, 0, SEARCH_FOUND, a.lo), 0);
	ck_assert_int_eq(lease(2, 1000, &a), 0);
	phase_is(next, PHASE_RUNNING, 0);
}
END_TEST

START_TEST(range_ending_at_the_top_terminates)
{
	struct ring_lease l;
	uint32_t job = submit(UINT64_MAX - 9, UINT64_MAX, 1);
	int n = 0;

	while (lease(0, 4, &l) == 0) {
		ring_finish(r, 0, SEARCH_NONE, 0);
		ck_assert_int_lt(++n, 10);
	}
	ck_assert_int_eq(n, 3);
	ck_assert_uint_eq(l.hi, UINT64_MAX);
	phase_is(job, PHASE_EXHAUSTED, 0);
}
END_TEST

START_TEST(whole_64bit_range_is_leasable)
{
	struct ring_lease l;

	submit(0, UINT64_MAX, 1);
	ck_assert_int_eq(lease(0, 1000, &l), 0);
	ck_assert_uint_eq(l.lo, 0);
	ck_assert_uint_eq(l.hi, 999);
}
END_TEST

START_TEST(ranking_is_weight_over_remaining)
{
	struct ring_lease l;
	uint32_t low = submit(0, 999, 1);
	uint32_t high = submit(10000, 10999, 4);
	uint32_t small = submit(50000, 50099, 1);

	/* small: 1/100 beats high: 4/1000 beats low: 1/1000. */
	next_lease_is(small);
	ring_set_weight(r, small, 0); /* weight 0 counts as 1 */
	ring_set_weight(r, low, 16);  /* 16/1000 now beats 1/90 and 4/1000 */
	next_lease_is(low);
	ring_set_weight(r, low, 1);
	ring_set_weight(r, small, 1);
	ring_set_weight(r, high, 1);
	/* Equal weights: the one closest to done (small, 90 left). */
	next_lease_is(small);
	ring_set_weight(r, high, 100);
	ck_assert_int_eq(lease(0, 10, &l), 0);
	ck_assert_uint_eq(l.job, high);
}
END_TEST

START_TEST(new_urgent_job_takes_over_at_the_next_lease)
{
	struct ring_lease l;
	uint32_t first = submit(0, 999, 1), urgent;

	next_lease_is(first);
	urgent = submit(5000, 5999, 16);
	next_lease_is(urgent);
	/* Once found, the urgent job is never leased again. */
	ck_assert_int_eq(lease(1, 10, &l), 0);
	ring_finish(r, 1, SEARCH_FOUND, 5015);
	ck_assert_int_eq(lease(0, 10, &l), 0);
	ck_assert_uint_eq(l.job, first);
}
END_TEST

START_TEST(new_job_is_ranked_against_all_when_the_best_ran_out)
{
	struct ring_lease l;
	uint32_t a = submit(0, 9, 100), c = submit(100, 199, 10);

	ck_assert_int_eq(lease(0, 10, &l), 0); /* all of a: best */
	ck_assert_uint_eq(l.job, a);
	submit(1000, 1999999, 1);               /* ranks below c */
	ck_assert_int_eq(lease(1, 10, &l), 0);
	ck_assert_uint_eq(l.job, c);
}
END_TEST

START_TEST(workers_flag_the_jobs_the_master_must_see)
{
	struct ring_lease l;
	uint32_t jobs[RING_JOBS];
	uint32_t a = submit(0, 99, 1), b = submit(1000, 1099, 1);

	ck_assert_uint_eq(ring_changed(r, jobs), 0);
	ck_assert_int_eq(lease(0, 10, &l), 0);
	ck_assert_uint_eq(ring_finish(r, 0, SEARCH_NONE, 0), 0); /* nothing to tell */
	ck_assert_uint_eq(ring_changed(r, jobs), 0);
	ck_assert_int_eq(lease(0, 10, &l), 0);
	ck_assert_uint_eq(l.job, a);
	ck_assert_uint_eq(ring_finish(r, 0, SEARCH_FOUND, 15), 1);  /* found */
	ck_assert_int_eq(lease(0, 100, &l), 0);
	ck_assert_uint_eq(l.job, b);
	ck_assert_uint_eq(ring_finish(r, 0, SEARCH_NONE, 0), 1);   /* exhausted */
	ck_assert_uint_eq(ring_changed(r, jobs), 2);
	ck_assert_uint_eq(jobs[0] == a ? jobs[1] : jobs[0], b);
	ck_assert_uint_eq(ring_changed(r, jobs), 0); /* taken once */
}
END_TEST

START_TEST(ties_go_to_the_older_job)
{
	struct ring_lease l;
	uint32_t first = submit(0, 999, 2);

	submit(5000, 5999, 2);
	ck_assert_int_eq(lease(0, 10, &l), 0);
	ck_assert_uint_eq(l.job, first);
}
END_TEST

START_TEST(release_waits_for_leases_to_drain)
{
	struct ring_lease l, other;
	uint32_t job = submit(0, 999, 1);

	ck_assert_int_eq(lease(0, 10, &l), 0);
	ck_assert_int_eq(ring_release(r, job), 1);
	ck_assert_int_eq(*l.stop, 1);   /* at once, before any worker looks */
	ck_assert_int_eq(lease(1, 10, &other), -EAGAIN); /* no more leases */
	phase_is(job, PHASE_RELEASING, 0);               /* slot 0 still hashing */
	ck_assert_int_eq(ring_finish(r, 0, SEARCH_STOPPED, 5), 1); /* master must hear */
	phase_is(job, PHASE_CLOSED, 0);
	ck_assert_uint_eq(ring_in_use(r), 1);
	ring_free_entry(&own, job, NULL);
	ck_assert_uint_eq(ring_in_use(r), 0);
	ck_assert_int_eq(ring_release(r, submit(0, 9, 1)), 1);
	ck_assert_int_eq(ring_release(r, job), 0); /* it was free, and is new */
}
END_TEST

START_TEST(released_before_any_worker_saw_it)
{
	struct ring_lease l;
	uint32_t job = submit(0, 999, 1);

	ck_assert_int_eq(ring_release(r, job), 1);
	ck_assert_int_eq(lease(0, 10, &l), -EAGAIN);
	phase_is(job, PHASE_CLOSED, 0);
}
END_TEST

START_TEST(late_answer_of_a_cancelled_job_is_kept)
{
	struct ring_lease l;
	uint32_t job = submit(0, 999, 1);

	ck_assert_int_eq(lease(0, 100, &l), 0);
	ring_release(r, job);
	ck_assert_int_eq(ring_finish(r, 0, SEARCH_FOUND, 42), 1);
	phase_is(job, PHASE_FOUND, 42); /* for the cache */
}
END_TEST

START_TEST(stopped_chunk_owes_the_rest)
{
	uint8_t seen[1000] = { 0 };
	struct ring_lease l;

	submit(0, 999, 1);
	ck_assert_int_eq(lease(0, 100, &l), 0); /* 0..99 */
	ring_finish(r, 0, SEARCH_STOPPED, 40);  /* hashed 0..39 only */
	drain(1, 100, 0, seen);
	for (int i = 0; i < 1000; i++)
		ck_assert_uint_eq(seen[i], i < 40 ? 0 : 1);
}
END_TEST

START_TEST(dead_workers_lease_is_leased_again_first)
{
	struct ring_lease l, again;
	uint8_t seen[1000] = { 0 };

	submit(0, 999, 1);
	ck_assert_int_eq(lease(3, 100, &l), 0);  /* 0..99, then dies */
	ck_assert_int_eq(lease(4, 100, &again), 0);
	ring_finish(r, 4, SEARCH_NONE, 0);
	dies(3);
	ck_assert_int_eq(lease(4, 30, &again), 0);
	ck_assert_uint_eq(again.lo, l.lo);       /* the range given back first */
	ck_assert_uint_eq(again.hi, l.lo + 29);
	ring_finish(r, 4, SEARCH_NONE, 0);
	drain(4, 100, 0, seen);
	/* Everything except the two chunks finished above is leased once. */
	for (int i = 0; i < 1000; i++)
		ck_assert_uint_eq(seen[i], (i < 30 || (i >= 100 && i < 200)) ? 0 : 1);
}
END_TEST

START_TEST(many_deaths_lose_nothing_and_never_rewind)
{
	enum { HELD = RING_RETURNED + 8 };
	struct ring_lease l;
	uint8_t seen[4000] = { 0 };
	uint32_t job = submit(0, 3999, 1);

	/* More leases out at once than the returned list holds... */
	for (unsigned i = 0; i < HELD; i++) {
		ck_assert_int_eq(lease(i, 100, &l), 0);
		ck_assert_uint_eq(l.lo, 100 * i);
	}
	/* ...and every holder dies: 16 ranges go back to the list, the rest
	 * widen the nearest of them; the cursor stays where it was, so that
	 * the master can take a cursor that went back for one written over. */
	for (unsigned i = 0; i < HELD; i++)
		dies(i);
	ck_assert_int_eq(lease(40, 1, &l), 0); /* takes the deaths in */
	ck_assert_uint_eq(r->jobs[job].p.next, 100 * HELD);
	ck_assert_uint_eq(r->jobs[job].p.cursor_done, 0);
	seen[l.lo]++;
	ring_finish(r, 40, SEARCH_NONE, 0);
	drain(40, 100, 0, seen);
	for (int i = 0; i < 4000; i++)
		ck_assert_msg(seen[i] == 1, "value %d leased %u times", i, seen[i]);
}
END_TEST

START_TEST(small_job_is_leased_in_pieces_worth_a_lease)
{
	struct ring_lease a, b;

	live_workers(2);
	submit(0, 999, 1);
	/* Pieces of 1/32 of the job would be 31 values: 500 is the least
	 * worth a lease here, so each worker gets half. */
	ck_assert_int_eq(ring_lease(r, 0, 100000, 500, &a), 0);
	ck_assert_int_eq(ring_lease(r, 1, 100000, 500, &b), 0);
	ck_assert_uint_eq(a.hi - a.lo + 1, 500);
	ck_assert_uint_eq(b.lo, 500);
	ck_assert_uint_eq(b.hi, 999);
	ring_finish(r, 0, SEARCH_NONE, 0);
	ck_assert_int_eq(ring_lease(r, 0, 100000, 1, &a), -EAGAIN);
	/* Never below the smallest piece worth a lease, never past the
	 * range, and never empty, even when asked for pieces of 0. */
	submit(5000, 5999, 1);
	ck_assert_int_eq(ring_lease(r, 0, 100000, 800, &a), 0);
	ck_assert_uint_eq(a.hi - a.lo + 1, 800);
	ring_finish(r, 1, SEARCH_NONE, 0);
	ck_assert_int_eq(ring_lease(r, 1, 100000, 800, &b), 0);
	ck_assert_uint_eq(b.lo, 5800);
	ck_assert_uint_eq(b.hi, 5999);
	submit(9000, 9009, 1);
	ring_finish(r, 0, SEARCH_NONE, 0);
	ck_assert_int_eq(ring_lease(r, 0, 0, 0, &a), 0);
	ck_assert_uint_eq(a.lo, 9000);
	ck_assert_uint_ge(a.hi, a.lo);
	ck_assert_uint_le(a.hi, 9009);
}
END_TEST

/* Two workers sweep a shared job side by side, in pieces of 1/32 of it,
 * so that its values are hashed close to their order: both hold a piece
 * at once, the second right after the first, whichever comes back
 * first. */
START_TEST(shared_job_is_swept_in_order)
{
	struct ring_lease l[2];
	uint64_t next = 0;

	live_workers(2);
	submit(0, 31999, 1);
	for (unsigned k = 0; k < 16; k++) {
		unsigned first = (k * 7 / 3) % 2; /* any order of return */

		ck_assert_int_eq(lease_any(first, 100000, &l[first]), 0);
		ck_assert_int_eq(lease_any(!first, 100000, &l[!first]), 0);
		ck_assert_uint_eq(l[first].lo, next);
		ck_assert_uint_eq(l[first].hi - l[first].lo + 1, 1000);
		ck_assert_uint_eq(l[!first].lo, l[first].hi + 1);
		ck_assert_uint_eq(l[!first].hi - l[!first].lo + 1, 1000);
		next = l[!first].hi + 1;
		ring_finish(r, k % 2, SEARCH_NONE, 0);
		ring_finish(r, !(k % 2), SEARCH_NONE, 0);
	}
	ck_assert_uint_eq(next, 32000);
	ck_assert_int_eq(lease_any(0, 100000, &l[0]), -EAGAIN);
	/* A job big enough for whole chunks gets whole chunks. */
	submit(100000, 100000 + 2 * 16 * 500 - 1, 1);
	ck_assert_int_eq(lease_any(0, 500, &l[0]), 0);
	ck_assert_uint_eq(l[0].hi - l[0].lo + 1, 500);
	ring_finish(r, 0, SEARCH_NONE, 0);
	/* One worker alone hashes in order anyway: the rest in one chunk. */
	live_workers(1);
	ck_assert_int_eq(lease_any(0, 100000, &l[0]), 0);
	ck_assert_uint_eq(l[0].lo, 100500);
	ck_assert_uint_eq(l[0].hi, 100000 + 2 * 16 * 500 - 1);
}
END_TEST

/* The tail of a job, less than a chunk for each worker, is shared with a
 * worker about to finish its lease of the same job, and left whole to the
 * first one back while the other's progress is unknown. */
START_TEST(tail_is_shared_with_a_worker_about_done)
{
	struct ring_lease a, b, c;

	for (int about_done = 0; about_done < 2; about_done++) {
		live_workers(2);
		/* Big enough for chunks of 400 (1/32 of it is 406), and its
		 * first 12,000 values hashed before the tail. */
		submit(0, 12999, 1);
		for (int i = 0; i < 30; i++) {
			ck_assert_int_eq(lease_any(0, 400, &a), 0);
			ring_finish(r, 0, SEARCH_NONE, 0);
		}
		ck_assert_int_eq(lease_any(0, 400, &a), 0);
		ck_assert_int_eq(lease_any(1, 400, &b), 0);
		ck_assert_uint_eq(a.lo, 12000);
		ck_assert_uint_eq(a.hi - a.lo + 1, 400); /* chunks while */
		ck_assert_uint_eq(b.hi - b.lo + 1, 400); /* more is left */
		ring_finish(r, 0, SEARCH_NONE, 0);
		/* Slot 1 hashes so fast that it must be all but done. */
		r->slots[1].rate = about_done ? 1000000000000ull : 0;
		r->slots[1].lease_ns -= 1000000; /* leased 1 ms ago */
		ck_assert_int_eq(lease_any(0, 400, &c), 0);
		ck_assert_uint_eq(c.lo, 12800);
		ck_assert_uint_eq(c.hi - c.lo + 1, about_done ? 100 : 200);
		teardown();
		setup();
	}
}
END_TEST

START_TEST(parked_job_keeps_its_progress)
{
	struct ring_progress p;
	struct ring_lease l;
	struct ring_key k;
	uint8_t seen[1000] = { 0 };
	uint32_t job = submit(0, 999, 1), again;

	ck_assert_int_eq(lease(0, 100, &l), 0);      /* 0..99 out */
	ck_assert_int_eq(lease(1, 100, &l), 0);      /* 100..199 out */
	ring_finish(r, 1, SEARCH_NONE, 0);
	dies(0);                                     /* 0..99 goes back */
	ck_assert_int_eq(lease(2, 50, &l), 0);       /* 0..49 out */
	ck_assert_int_eq(ring_park(r, job), 1);
	ck_assert_int_eq(lease(3, 100, &l), -EAGAIN); /* out of the schedule */
	phase_is(job, PHASE_PARKING, 0);             /* 0..49 still out */
	ck_assert_int_eq(ring_finish(r, 2, SEARCH_NONE, 0), 1);
	phase_is(job, PHASE_PARKED, 0);
	k = *ring_key(r, job);
	ring_free_entry(&own, job, &p);
	ck_assert_uint_eq(ring_in_use(r), 0);
	ck_assert(ring_remaining(&k, &p) == 850); /* 50..99 and 200..999 */
	/* It comes back where it was: only the unhashed values are left. */
	ck_assert_int_eq(ring_submit(&own, &k, &p, 1, 0, RING_HELD_ALONE(&own), &again), 0);
	drain(3, 100, 0, seen);
	for (int i = 0; i < 1000; i++)
		ck_assert_uint_eq(seen[i], (i >= 50 && i < 100) || i >= 200);
}
END_TEST

/* A better job stops the chunks of worse ones at once (the rest of each
 * goes back); a worse one stops nothing. */
START_TEST(better_job_preempts_chunks)
{
	struct ring_lease a, b;
	uint8_t seen[1000] = { 0 };
	uint32_t big = submit(0, 999999, 1), worse, better;

	ck_assert_int_eq(lease(0, 1000, &a), 0);
	ck_assert_uint_eq(a.job, big);
	worse = submit(5000000, 9999999, 1);
	ring_preempt(r, worse);
	ck_assert_int_eq(*a.stop, 0);
	better = submit(20000000, 20000999, 16);
	ring_preempt(r, better);
	ck_assert_int_eq(*a.stop, 1);
	ring_finish(r, 0, SEARCH_STOPPED, a.lo + 300); /* stopped after 300 values */
	ck_assert_int_eq(lease(0, 1000, &b), 0);
	ck_assert_uint_eq(b.job, better);
	ck_assert_int_eq(*b.stop, 0);
	ring_finish(r, 0, SEARCH_FOUND, 20000005);
	/* What the stopped chunk did not hash is leased again, once. */
	ck_assert_int_eq(lease(0, 700, &b), 0);
	ck_assert_uint_eq(b.job, big);
	ck_assert_uint_eq(b.lo, 300);
	ck_assert_uint_eq(b.hi, 999);
	for (uint64_t v = b.lo; v <= b.hi; v++)
		seen[v]++;
	for (int i = 300; i < 1000; i++)
		ck_assert_uint_eq(seen[i], 1);
}
END_TEST

START_TEST(no_preemption_stops_nothing)
{
	struct ring_lease a;
	uint32_t better;

	teardown();
	setup_with(th_policy(POLICY_WSRPT, 0, 1));
	submit(0, 999999, 1);
	ck_assert_int_eq(lease(0, 1000, &a), 0);
	better = submit(20000000, 20000999, 16);
	ring_preempt(r, better);
	ck_assert_int_eq(*a.stop, 0);
}
END_TEST

/* ---- each policy's order (the switches of --schedule, --no-preempt,
 * --no-split) ---- */

static void policy(uint32_t order, int preempt, int split)
{
	teardown();
	setup_with(th_policy(order, preempt, split));
}

START_TEST(fifo_takes_the_oldest)
{
	struct ring_lease l;
	uint32_t old;

	policy(POLICY_FIFO, 1, 1);
	old = submit(0, 999999, 1);        /* big, light, first */
	submit(5000000, 5000099, 16);      /* small, heavy, later */
	ck_assert_int_eq(lease(0, 10, &l), 0);
	ck_assert_uint_eq(l.job, old);
}
END_TEST

START_TEST(priority_takes_the_heaviest_then_the_oldest)
{
	struct ring_lease l;
	uint32_t heavy, again;

	policy(POLICY_PRIORITY, 1, 1);
	submit(0, 99, 2);                  /* small but lighter */
	heavy = submit(1000, 999999, 9);   /* big but heavier */
	again = submit(2000000, 2000099, 9); /* as heavy, younger */
	next_lease_is(heavy);
	ring_set_weight(r, again, 10);
	ck_assert_int_eq(lease(0, 10, &l), 0);
	ck_assert_uint_eq(l.job, again);
}
END_TEST

START_TEST(wsrpt_takes_weight_over_remaining)
{
	struct ring_lease l;
	uint32_t small;

	policy(POLICY_WSRPT, 1, 1);
	submit(0, 999999, 9);              /* 9 / 1e6 */
	small = submit(2000000, 2000099, 1); /* 1 / 100: more urgent */
	ck_assert_int_eq(lease(0, 10, &l), 0);
	ck_assert_uint_eq(l.job, small);
}
END_TEST

START_TEST(run_to_completion_keeps_its_job)
{
	struct ring_lease l;
	uint32_t first, urgent;

	policy(POLICY_WSRPT, 0, 1);
	first = submit(0, 999, 1);
	next_lease_is(first);
	urgent = submit(5000, 5009, 16);   /* outranks it by far... */
	for (int i = 0; i < 99; i++) {     /* ...but first runs to its end */
		ck_assert_int_eq(lease(0, 10, &l), 0);
		ck_assert_uint_eq(l.job, first);
		ring_finish(r, 0, SEARCH_NONE, 0);
	}
	ck_assert_int_eq(lease(0, 10, &l), 0);
	ck_assert_uint_eq(l.job, urgent);
}
END_TEST

START_TEST(no_split_leases_one_worker_per_job)
{
	struct ring_lease a, b, c;
	uint32_t one, two;

	policy(POLICY_WSRPT, 1, 0);
	one = submit(0, 999999, 1);
	two = submit(2000000, 2999999, 1);
	ck_assert_int_eq(ring_lease(r, 0, 100000, 1, &a), 0);
	ck_assert_int_eq(ring_lease(r, 1, 100000, 1, &b), 0);
	ck_assert_uint_eq(a.job, one);
	ck_assert_uint_eq(b.job, two);      /* not a second worker on one */
	ck_assert_uint_eq(a.hi - a.lo + 1, 100000); /* whole chunks: no split */
	ck_assert_int_eq(ring_lease(r, 2, 100000, 1, &c), -EAGAIN);
	ring_finish(r, 0, SEARCH_NONE, 0);
	ck_assert_int_eq(ring_lease(r, 2, 100000, 1, &c), 0);
	ck_assert_uint_eq(c.job, one);
}
END_TEST

START_TEST(worker_killed_inside_the_lock)
{
	struct ring_lease l;
	uint8_t seen[1000] = { 0 };
	int status;
	pid_t pid;

	submit(0, 999, 1);
	ck_assert_int_eq(ring_arm_hook(r, HOOK_DIE_IN_LOCK, 1), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		ring_worker_start(r, 7, getpid());
		lease(7, 100, &l); /* dies half-way, holding the lock */
		_exit(0);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	ck_assert_int_eq(r->slots[7].has_lease, 1); /* died with its lease out */
	ck_assert_uint_eq(r->repairs, 0);           /* not yet recovered */
	if (th_no_robust_locks()) {
		th_skip(__func__, "the recovery: %s", th_no_robust_locks());
		return;
	}
	/* The master reaps it; the next locker recovers the lock and the
	 * range is given back. */
	dies(7);
	drain(0, 100, 0, seen);
	ck_assert_uint_eq(r->repairs, 1);
	for (int i = 0; i < 1000; i++)
		ck_assert_uint_ge(seen[i], 1);
	ck_assert_uint_eq(ring_hook_armed(r, HOOK_DIE_IN_LOCK), 0);
}
END_TEST

START_TEST(worker_stopped_inside_the_lock_blocks_no_master_call)
{
	struct ring_lease l;
	uint32_t jobs[RING_JOBS], job, more;
	int status;
	pid_t pid;

	job = submit(0, 999, 1);
	ck_assert_int_eq(ring_arm_hook(r, HOOK_STOP_IN_LOCK, 1), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		ring_worker_start(r, 7, getpid());
		lease(7, 100, &l); /* stops half-way, holding the lock */
		_exit(0);
	}
	ck_assert_int_eq(waitpid(pid, &status, WUNTRACED), pid);
	ck_assert(WIFSTOPPED(status));
	ck_assert_int_eq(ring_lock_holder(r), pid); /* the word it wrote on taking it */
	/* Every call the master makes returns (the test's timeout fails it
	 * otherwise). */
	more = submit(5000, 5999, 2);
	ring_set_weight(r, job, 3);
	ck_assert_int_eq(ring_release(r, more), 1);
	phase_is(job, PHASE_RUNNING, 0);
	phase_is(more, PHASE_RELEASING, 0);
	ring_changed(r, jobs);
	ring_wake(r);
	/* The master kills it (SIGKILL ends a stopped process) and reaps it. */
	kill(pid, SIGKILL);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	if (th_no_robust_locks()) {
		th_skip(__func__, "the recovery: %s", th_no_robust_locks());
		return;
	}
	dies(7);
	ck_assert_int_eq(lease(0, 100, &l), 0);
	ck_assert_uint_eq(r->repairs, 1);
	ck_assert_uint_eq(l.job, job);
	phase_is(more, PHASE_CLOSED, 0);
}
END_TEST

START_TEST(lock_of_a_killed_holder_does_not_hang_others)
{
	int status;
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		ring_lock(r, getpid());
		pause();
		_exit(0);
	}
	for (int i = 0; i < 5000 && ring_lock_holder(r) != pid; i++)
		usleep(1000);
	ck_assert_int_eq(ring_lock_holder(r), pid); /* the lock knows its holder */
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	if (th_no_robust_locks()) {
		th_skip(__func__, "the recovery: %s", th_no_robust_locks());
		return;
	}
	/* its holder is gone: the kernel cleared its id from the lock's word */
	ck_assert_int_eq(ring_lock_holder(r), 0);
	ring_lock(r, getpid()); /* would hang forever without recovery: the timeout fails */
	ring_unlock(r);
	ck_assert_uint_eq(r->repairs, 1);
}
END_TEST

START_TEST(full_table_says_so)
{
	struct ring_key k = { .start = 0, .end = 10 };
	struct ring_progress from = { .next = 0 };
	struct ring_lease l;
	uint32_t job;

	for (int i = 0; i < RING_JOBS; i++)
		ck_assert_int_eq(ring_submit(&own, &k, &from, 1, (uint64_t)i,
						  RING_HELD_ALONE(&own), &job), 0);
	ck_assert_int_eq(ring_submit(&own, &k, &from, 1, 0, RING_HELD_ALONE(&own), &job), -ENOSPC);
	ring_release(r, 5);
	lease(0, 1, &l); /* a worker takes it in */
	phase_is(5, PHASE_CLOSED, 0);
	ring_free_entry(&own, 5, NULL);
	ck_assert_int_eq(ring_submit(&own, &k, &from, 1, 0, RING_HELD_ALONE(&own), &job), 0);
	ck_assert_uint_eq(job, 5);
}
END_TEST


/* ---- workers of unequal rates (a GPU beside CPUs) ---- */

/* Slots 0 and 1 live, hashing at rate0 and rate1 (0: not yet known). */
static void two_workers(uint64_t rate0, uint64_t rate1)
{
	live_workers(2);
	r->slots[0].rate = rate0;
	r->slots[1].rate = rate1;
}

/* A shared job goes out in pieces by rate: each worker's part of the
 * sweep's piece is its part of the rate of both. */
START_TEST(pieces_are_shared_by_rate)
{
	struct ring_lease fast, slow;

	two_workers(3000000, 1000000);
	submit(0, 63999, 1);
	/* Pieces of 1/16 of the range for both together: 3/4 and 1/4. */
	ck_assert_int_eq(lease_any(0, 1000000, &fast), 0);
	ck_assert_int_eq(lease_any(1, 1000000, &slow), 0);
	ck_assert_uint_eq(fast.hi - fast.lo + 1, 3000);
	ck_assert_uint_eq(slow.hi - slow.lo + 1, 1000);
	ck_assert_uint_eq(slow.lo, fast.hi + 1);
	ring_finish(r, 0, SEARCH_NONE, 0);
	ring_finish(r, 1, SEARCH_NONE, 0);
	/* Equal rates, or none known: equal pieces. */
	two_workers(0, 0);
	ck_assert_int_eq(lease_any(0, 1000000, &fast), 0);
	ck_assert_uint_eq(fast.hi - fast.lo + 1, 2000);
}
END_TEST

/* A tail shared by expected finish time: the last 1,000 values of a job
 * (less than a piece each) go 3/4 to the worker three times as fast, the
 * rest to the other, counting what the first has left of its lease. */
START_TEST(tail_is_shared_by_finish_time)
{
	struct ring_lease fast, slow;

	two_workers(3000000, 1000000);
	submit(0, 31999, 1);
	for (int i = 0; i < 31; i++) {
		ck_assert_int_eq(lease(0, 1000, &fast), 0);
		ring_finish(r, 0, SEARCH_NONE, 0);
	}
	ck_assert_int_eq(lease_any(0, 1000000, &fast), 0);
	ck_assert_uint_eq(fast.lo, 31000);
	ck_assert_uint_eq(fast.hi - fast.lo + 1, 750);
	r->slots[0].lease_ns = clock_ns() + 1000000000; /* none of it hashed yet */
	ck_assert_int_eq(lease_any(1, 1000000, &slow), 0);
	ck_assert_uint_eq(slow.lo, 31750);
	ck_assert_uint_eq(slow.hi, 31999);
}
END_TEST

/* A worker 16 times slower than another leaves a job it would only hold
 * up (its smallest piece would end after the fast one could hash all of
 * it) and takes the second best job instead; a big job it shares; the
 * fastest worker never leaves a job, and, at least 16 times as fast as
 * the other, takes it whole (within its chunk), not a piece; equals
 * never leave one. */
START_TEST(slow_worker_leaves_a_small_job_to_a_fast_one)
{
	struct ring_lease l;
	uint32_t small, big;

	two_workers(1600000000ull, 1000000); /* a GPU and a CPU, 1600:1 */
	small = submit(0, 99999, 16);         /* the best-ranked */
	/* Alone in the table: the CPU's 10,000-value piece would take 10 ms,
	 * the GPU hashes all of it in 62 us. */
	ck_assert_int_eq(ring_lease(r, 1, 1000000, 10000, &l), -EAGAIN);
	big = submit(1000000, 1000000 + (1ull << 40), 1);
	ck_assert_int_eq(ring_lease(r, 1, 1000000, 10000, &l), 0);
	ck_assert_uint_eq(l.job, big);        /* the second best */
	ring_finish(r, 1, SEARCH_NONE, 0);
	ck_assert_int_eq(ring_lease(r, 0, 1000000, 10000, &l), 0);
	ck_assert_uint_eq(l.job, small);      /* the GPU takes the best, */
	ck_assert_uint_eq(l.lo, 0);           /* whole */
	ck_assert_uint_eq(l.hi, 99999);
	ring_finish(r, 0, SEARCH_NONE, 0);
	/* Equal workers, however small the job, take it, in pieces. */
	two_workers(1000000, 1000000);
	small = submit(200000000, 200099999, 16);
	ck_assert_int_eq(ring_lease(r, 1, 1000000, 100, &l), 0);
	ck_assert_uint_eq(l.job, small);
	ck_assert_uint_lt(l.hi - l.lo + 1, 100000);
}
END_TEST

/* New work posts each live worker's own semaphore, once however often it
 * is woken, and none of an empty slot: a worker the schedule passes over
 * can no longer take another's wake-up (one semaphore for all let a CPU
 * worker take the GPU worker's, which then slept its idle wait). */
START_TEST(each_worker_is_woken_on_its_own_semaphore)
{
	int v;

	live_workers(2);
	for (unsigned i = 0; i < RING_WORKERS; i++) /* the posts so far */
		while (sem_trywait(&r->slots[i].wake) == 0)
			;
	submit(0, 99999, 1); /* wakes them */
	ring_wake(r);        /* again: still one post each */
	for (unsigned i = 0; i < 3; i++) {
		ck_assert_int_eq(sem_getvalue(&r->slots[i].wake, &v), 0);
		ck_assert_int_eq(v, i < 2 ? 1 : 0);
	}
	ring_wait(r, 0, 1000); /* takes its own post, at once */
	ck_assert_int_eq(sem_getvalue(&r->slots[0].wake, &v), 0);
	ck_assert_int_eq(v, 0);
	ck_assert_int_eq(sem_getvalue(&r->slots[1].wake, &v), 0);
	ck_assert_int_eq(v, 1); /* the other's is still there */
}
END_TEST

/* What the master takes back from a parked job is checked: counts within
 * their table, ranges within the key's. */
START_TEST(progress_out_of_its_key_is_refused)
{
	struct ring_key k = { .start = 100, .end = 999 };
	struct ring_progress p = { .next = 100 }, q;

	ck_assert_int_eq(ring_progress_check(&k, &p), 0);
	p.nreturned = 1;
	p.returned[0] = (struct ring_range){ 200, 300 };
	p.started = 1;
	ck_assert_int_eq(ring_progress_check(&k, &p), 0);
	q = p;
	q.nreturned = RING_RETURNED + 1;
	ck_assert_int_eq(ring_progress_check(&k, &q), -EINVAL);
	q = p;
	q.returned[0].hi = 1000;
	ck_assert_int_eq(ring_progress_check(&k, &q), -EINVAL);
	q = p;
	q.returned[0] = (struct ring_range){ 300, 200 };
	ck_assert_int_eq(ring_progress_check(&k, &q), -EINVAL);
	q = p;
	q.next = 99;
	ck_assert_int_eq(ring_progress_check(&k, &q), -EINVAL);
	q.cursor_done = 1; /* the cursor no longer counts */
	ck_assert_int_eq(ring_progress_check(&k, &q), 0);
	q.cursor_done = 2;
	ck_assert_int_eq(ring_progress_check(&k, &q), -EINVAL);
}
END_TEST

/* The schedule's own fields live in the segment, where any worker can
 * write them: a heap place and a lease count written over must cost a
 * rebuild, never a job left out of the schedule for ever, a lease given
 * twice or a worker's abort. Values a place can be written to: in the
 * heap but another job's, past its end, the table's size, none. */
static const uint32_t places[] = { 0, 1, RING_JOBS, RING_JOBS + 1, RING_NONE - 1, RING_NONE };

/* Jobs ja (values 0..999) and jb (1000..1999), leased 50 at a time from
 * slot 0 until none is left; after the first lease, ja's heap place is
 * written to place where over_ja says. Every value must be leased once,
 * and both jobs end. */
static void both_leased_once(uint32_t ja, uint32_t jb, uint32_t place, int over_ja)
{
	uint8_t seen[2000] = { 0 };
	struct ring_lease l;
	int n = 0;

	for (int first = 1; lease(0, 50, &l) == 0 && n++ < 100; first = 0) {
		for (uint64_t v = l.lo; v <= l.hi; v++)
			seen[v]++;
		ring_finish(r, 0, SEARCH_NONE, 0);
		if (first && over_ja)
			r->jobs[ja].heap_pos = place;
	}
	for (int v = 0; v < 2000; v++)
		ck_assert_msg(seen[v] == 1, "place %#x: value %d leased %u times", place, v, seen[v]);
	phase_is(ja, PHASE_EXHAUSTED, 0);
	phase_is(jb, PHASE_EXHAUSTED, 0);
	teardown();
	setup();
}

/* A place written into a free entry stays there for its next job (the
 * master does not write the workers' fields): that job is still leased,
 * all of it once. */
START_TEST(a_heap_place_written_into_a_free_entry_is_healed)
{
	for (unsigned i = 0; i < sizeof places / sizeof places[0]; i++) {
		uint32_t ja = submit(0, 999, 1);

		for (uint32_t e = 0; e < RING_JOBS; e++)
			if (e != ja)
				r->jobs[e].heap_pos = places[i];
		both_leased_once(ja, submit(1000, 1999, 1000) /* ranks first */, places[i], 0);
	}
}
END_TEST

/* A place written over a job in the heap, between two leases: both jobs
 * are still leased, every value once, and both end. */
START_TEST(a_heap_place_written_over_a_running_job_is_healed)
{
	for (unsigned i = 0; i < sizeof places / sizeof places[0]; i++) {
		uint32_t ja = submit(0, 999, 1);

		both_leased_once(ja, submit(1000, 1999, 1), places[i], 1);
	}
}
END_TEST

/* A lease count written to 0 while a lease is out: the lease comes back,
 * and the job goes on to its end (a worker aborted, and each worker after
 * it on the same count). */
START_TEST(a_lease_count_written_over_is_counted_again)
{
	uint8_t seen[1000] = { 0 };
	uint32_t job = submit(0, 999, 1);
	struct ring_lease l;

	ck_assert_int_eq(lease(0, 100, &l), 0);
	for (uint64_t v = l.lo; v <= l.hi; v++)
		seen[v]++;
	r->jobs[job].nleases = 0;
	ring_finish(r, 0, SEARCH_NONE, 0);
	phase_is(job, PHASE_RUNNING, 0);
	ck_assert_int_eq(drain(1, 100, 0, seen), 9);
	for (int v = 0; v < 1000; v++)
		ck_assert_uint_eq(seen[v], 1);
	phase_is(job, PHASE_EXHAUSTED, 0);
}
END_TEST

/* A worker writes PARKING over a job another found while a third still
 * held a lease of it: that lease, no longer counted since the end, comes
 * back to a live phase. The honest worker recounts (it aborted, and each
 * one after it), and the schedule still leases the next job whole. */
START_TEST(a_parking_written_over_a_found_job_is_counted_again)
{
	uint32_t job = submit(0, 19, 1);
	struct ring_lease held, l;

	live_workers(2);
	ck_assert_int_eq(lease(0, 10, &held), 0);
	ck_assert_int_eq(lease(1, 10, &l), 0);
	ring_finish(r, 1, SEARCH_FOUND, l.lo);
	phase_is(job, PHASE_FOUND, l.lo);
	r->jobs[job].phase = PHASE_PARKING;
	ring_finish(r, 0, SEARCH_NONE, 0);
	phase_is(job, PHASE_EXHAUSTED, 0); /* every value leased: the master judges it */
	drained_whole(0, 10, submit(100, 199, 1), 100, 100, 10);
}
END_TEST

/* A job leased whole whose lease is lost to a write of its slot: nothing
 * is left to lease and no lease comes back to end it. A rebuild of the
 * schedule (here for a heap place written over) has the workers take
 * every live job in again at their next call, and this one ends; it
 * stayed RUNNING for ever, its client unanswered. */
START_TEST(a_job_whose_lease_was_lost_ends_at_a_rebuild)
{
	uint32_t job = submit(0, 99, 1), other = submit(1000, 1999, 1);
	struct ring_lease l;

	ck_assert_int_eq(lease(0, 100, &l), 0);
	ck_assert_uint_eq(l.job, job);
	ck_assert_uint_eq(l.hi, 99); /* all of it */
	r->slots[0].has_lease = 0;   /* the lease lost */
	ring_finish(r, 0, SEARCH_NONE, 0);
	phase_is(job, PHASE_RUNNING, 0);
	r->jobs[other].heap_pos = RING_JOBS;
	ck_assert_int_eq(lease(1, 10, &l), 0); /* finds the place wrong: rebuilds */
	ck_assert_uint_eq(l.job, other);
	ring_finish(r, 1, SEARCH_NONE, 0);
	phase_is(job, PHASE_EXHAUSTED, 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("ring");
	TCase *t = tcase_create("ring");

	tcase_set_timeout(t, 20);
	tcase_add_checked_fixture(t, setup, teardown);
	tcase_add_test(t, the_workers_own_the_phases_before_an_end);
	tcase_add_test(t, a_heap_place_written_into_a_free_entry_is_healed);
	tcase_add_test(t, a_heap_place_written_over_a_running_job_is_healed);
	tcase_add_test(t, a_lease_count_written_over_is_counted_again);
	tcase_add_test(t, a_parking_written_over_a_found_job_is_counted_again);
	tcase_add_test(t, a_job_whose_lease_was_lost_ends_at_a_rebuild);
	tcase_add_test(t, leases_cover_the_range_once);
	tcase_add_test(t, a_poll_takes_a_wake_up_once_and_gives_up_without);
	tcase_add_test(t, a_sleep_takes_a_wake_up_and_lasts_its_time_without);
	tcase_add_test(t, the_fastest_worker_is_woken_first);
	tcase_add_test(t, exhausted_only_when_every_lease_is_back);
	tcase_add_test(t, found_answer_is_reported_and_kept);
	tcase_add_test(t, void_lease_leaves_the_entry_s_next_job_alone);
	tcase_add_test(t, range_ending_at_the_top_terminates);
	tcase_add_test(t, whole_64bit_range_is_leasable);
	tcase_add_test(t, ranking_is_weight_over_remaining);
	tcase_add_test(t, progress_out_of_its_key_is_refused);
	tcase_add_test(t, ties_go_to_the_older_job);
	tcase_add_test(t, new_urgent_job_takes_over_at_the_next_lease);
	tcase_add_test(t, new_job_is_ranked_against_all_when_the_best_ran_out);
	tcase_add_test(t, workers_flag_the_jobs_the_master_must_see);
	tcase_add_test(t, release_waits_for_leases_to_drain);
	tcase_add_test(t, released_before_any_worker_saw_it);
	tcase_add_test(t, late_answer_of_a_cancelled_job_is_kept);
	tcase_add_test(t, stopped_chunk_owes_the_rest);
	tcase_add_test(t, dead_workers_lease_is_leased_again_first);
	tcase_add_test(t, many_deaths_lose_nothing_and_never_rewind);
	tcase_add_test(t, small_job_is_leased_in_pieces_worth_a_lease);
	tcase_add_test(t, shared_job_is_swept_in_order);
	tcase_add_test(t, tail_is_shared_with_a_worker_about_done);
	tcase_add_test(t, parked_job_keeps_its_progress);
	tcase_add_test(t, fifo_takes_the_oldest);
	tcase_add_test(t, priority_takes_the_heaviest_then_the_oldest);
	tcase_add_test(t, wsrpt_takes_weight_over_remaining);
	tcase_add_test(t, run_to_completion_keeps_its_job);
	tcase_add_test(t, no_split_leases_one_worker_per_job);
	tcase_add_test(t, better_job_preempts_chunks);
	tcase_add_test(t, no_preemption_stops_nothing);
	tcase_add_test(t, worker_killed_inside_the_lock);
	tcase_add_test(t, worker_stopped_inside_the_lock_blocks_no_master_call);
	tcase_add_test(t, lock_of_a_killed_holder_does_not_hang_others);
	tcase_add_test(t, full_table_says_so);
	tcase_add_test(t, pieces_are_shared_by_rate);
	tcase_add_test(t, tail_is_shared_by_finish_time);
	tcase_add_test(t, slow_worker_leaves_a_small_job_to_a_fast_one);
	tcase_add_test(t, each_worker_is_woken_on_its_own_semaphore);
	suite_add_tcase(s, t);
	return check_run(s);
}
