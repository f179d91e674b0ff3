/* Every word a worker can write, one at a time, against the real master:
 * each field of a job entry (the one of a search in flight, and a free
 * one), of a worker slot (a live worker's, and an empty one) and of the
 * segment's header, written with the values that matter (0, 1, all ones,
 * the master's pid, pid 1, a huge rate, every phase, a live worker's slot
 * and pid, a live entry's index). After each write the master lives, and
 * a fresh request is answered right within 10 s. One master serves every
 * write: each must leave it serving, whatever the writes before left;
 * the run prints how many writes it made and how long the slowest answer
 * took.
 *
 * Each write must be seen before the next one undoes it: an entry's is
 * flagged for the master, as a worker ending a job flags it (the fresh
 * request's own news makes the master look at every flag); a live
 * worker's slot's, the header's and what the watchdog reads of an empty
 * slot stay at least a round of the watchdog (WATCH_MS). (The audit's own looks, at keys and cursors every 250 ms,
 * are check_jobs' to test.) */
#include "tests/check_run.h"
#include "tests/helpers.h"
#include "tests/fixture.h"
#include "lib/digest.h"

#include <check.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* What a field names, for the values written into it. */
enum what { NUM, PHASE, PID, SLOT, JOB };

struct field {
	const char *name;
	size_t off, size; /* within its struct: 4 or 8 bytes */
	enum what what;
};

#define F(type, member, what) { #member, offsetof(type, member), sizeof(((type *)0)->member), what }
#define AT(type, name, off, size, what) { name, offsetof(type, off), size, what }

static const struct field entry_fields[] = {
	AT(struct ring_job, "key.digest[0..7]", key.digest, 8, NUM),
	AT(struct ring_job, "key.digest[24..31]", key.digest[24], 8, NUM),
	F(struct ring_job, key.start, NUM),
	F(struct ring_job, key.end, NUM),
	F(struct ring_job, seq, NUM),
	F(struct ring_job, submit_ns, NUM),
	F(struct ring_job, gen, NUM),
	F(struct ring_job, phase, PHASE),
	F(struct ring_job, weight, NUM),
	F(struct ring_job, answer, NUM),
	F(struct ring_job, found_slot, SLOT),
	AT(struct ring_job, "pad[0]", pad, 4, NUM),
	F(struct ring_job, first_lease_ns, NUM),
	F(struct ring_job, found_ns, NUM),
	F(struct ring_job, p.next, NUM),
	F(struct ring_job, p.cursor_done, NUM),
	F(struct ring_job, p.nreturned, NUM),
	F(struct ring_job, p.returned[0].lo, NUM),
	F(struct ring_job, p.returned[0].hi, NUM),
	F(struct ring_job, p.returned[RING_RETURNED - 1].hi, NUM),
	F(struct ring_job, p.started, NUM),
	F(struct ring_job, p.pad, NUM),
	F(struct ring_job, rank.weight, NUM),
	AT(struct ring_job, "rank.remaining (low)", rank.remaining, 8, NUM),
	F(struct ring_job, rank.seq, NUM),
	F(struct ring_job, rank.started, NUM),
	F(struct ring_job, nleases, NUM),
	F(struct ring_job, heap_pos, JOB),
};

static const struct field slot_fields[] = {
	F(struct ring_slot, pid, PID),
	F(struct ring_slot, retire, NUM),
	F(struct ring_slot, state, NUM),
	F(struct ring_slot, has_lease, NUM),
	F(struct ring_slot, lease_pid, PID),
	F(struct ring_slot, lease_job, JOB),
	F(struct ring_slot, lease_gen, NUM),
	F(struct ring_slot, keep_job, JOB),
	F(struct ring_slot, keep_gen, NUM),
	F(struct ring_slot, stop, NUM),
	F(struct ring_slot, lease_lo, NUM),
	F(struct ring_slot, lease_hi, NUM),
	F(struct ring_slot, lease_ns, NUM),
	F(struct ring_slot, beat, NUM),
	F(struct ring_slot, hashes, NUM),
	F(struct ring_slot, chunks, NUM),
	F(struct ring_slot, rate, NUM),
	F(struct ring_slot, hash_ns, NUM),
	F(struct ring_slot, started_ns, NUM),
	F(struct ring_slot, deaths, NUM),
	F(struct ring_slot, stalls, NUM),
	F(struct ring_slot, kind, NUM),
	F(struct ring_slot, unit, NUM),
	AT(struct ring_slot, "wake (first word)", wake, 8, NUM),
};

static const struct field header_fields[] = {
	F(struct seg_header, magic, NUM),
	F(struct seg_header, version, NUM),
	F(struct seg_header, size, NUM),
	F(struct seg_header, master_pid, PID),
	F(struct seg_header, port, NUM),
	F(struct seg_header, workers, NUM),
	F(struct seg_header, cpus, NUM),
	F(struct seg_header, ring_off, NUM),
	F(struct seg_header, cache_off, NUM),
	F(struct seg_header, started_ns, NUM),
	F(struct seg_header, alive_ns, NUM),
	AT(struct seg_header, "kernel[0..7]", kernel, 8, NUM),
	AT(struct seg_header, "kinds[0].note[0..7]", kinds[0].note, 8, NUM),
	F(struct seg_header, kinds[0].n, NUM),
	F(struct seg_header, low_latency, NUM),
	F(struct seg_header, low_latency_holds, NUM),
	F(struct seg_header, stats.requests, NUM),
	F(struct seg_header, stats.wakeups, NUM),
	F(struct seg_header, stats.latency.score_ns, NUM),
};

/* Of an empty slot, what the watchdog reads (the master's other reads
 * of slots are on a request's path: the fresh request makes them). */
static const struct field empty_slot_watched[] = {
	F(struct ring_slot, pid, PID),
	F(struct ring_slot, state, NUM),
	F(struct ring_slot, rate, NUM),
};

#define N(a) (sizeof(a) / sizeof(a)[0])
#define WATCH_MS 55 /* a round of the watchdog (50 ms), and a little */

static struct seg seg;
static uint64_t slowest_ms;
static unsigned writes;
static char last[160]; /* the last write, for a failure */
static uint32_t live_entry; /* the entry of the search held in flight */
static int live_slot;       /* a slot with a live worker */

/* A fresh request answered right within 10 s (the master alive). */
static void answers_fresh(const char *what)
{
	uint64_t base = th_rand64() >> 2, want = base + th_rand64() % 20000, x = 0, t0;
	uint8_t d[32];
	int fd;

	digest_of(want, d);
	t0 = clock_ms();
	fd = th_connect(m.port);
	ck_assert_msg(fd >= 0, "%s: the master takes no connection", what);
	ck_assert_int_eq(th_send_request(fd, d, base, base + 20000, 1), 0);
	ck_assert_msg(th_read_reply(fd, &x, 10000) == 0, "%s: no answer within 10 s", what);
	ck_assert_msg(x == want, "%s: answered %llu, not %llu", what, (unsigned long long)x,
		      (unsigned long long)want);
	close(fd);
	ck_assert_msg(kill(m.pid, 0) == 0 && th_proc_state(m.pid) != 'Z', "%s: the master died",
		      what);
	if (clock_ms() - t0 > slowest_ms)
		slowest_ms = clock_ms() - t0;
}

/* The values that matter for a field of what it names. */
static unsigned values_for(enum what what, uint64_t v[16])
{
	unsigned n = 0;

	v[n++] = 0;
	v[n++] = 1;
	v[n++] = UINT64_MAX;
	v[n++] = (uint64_t)m.pid;
	v[n++] = UINT64_C(1) << 60; /* a huge rate, count or time */
	switch (what) {
	case PHASE:
		for (uint64_t p = 2; p <= PHASE_COUNT; p++)
			v[n++] = p; /* FREE and NEW are 0 and 1; and one past the last */
		break;
	case PID: {
		struct ring_slot s;

		ring_slot_view(seg.ring, (unsigned)live_slot, &s);
		v[n++] = (uint64_t)s.pid;
		break;
	}
	case SLOT:
		v[n++] = (uint64_t)live_slot;
		v[n++] = RING_WORKERS;
		break;
	case JOB:
		v[n++] = live_entry;
		v[n++] = RING_JOBS;
		break;
	case NUM:
		break;
	}
	return n;
}

/* The search held in flight: the answer lies near the end of 2^40
 * values, hours away; any reply to it within the test is a wrong one (a
 * "not found", or a lie). */
static uint64_t held_from;
static int held_fd;

static void held_unanswered(const char *after)
{
	uint64_t x;

	ck_assert_msg(th_read_reply(held_fd, &x, 0) != 0,
		      "the search held in flight was answered %llu after %s",
		      (unsigned long long)x, after);
}

/* The entry of the search held in flight now: a write may have had it
 * taken back and given another. */
static uint32_t held_entry(void)
{
	uint32_t at = RING_NONE;

	TH_WAIT_UNTIL(({
		for (uint32_t e = 0; e < RING_JOBS && at == RING_NONE; e++)
			if (seg.ring->jobs[e].key.start == held_from &&
			    ring_phase(seg.ring, e) == PHASE_RUNNING)
				at = e;
		at != RING_NONE; }), 5000);
	if (at == RING_NONE)
		held_unanswered(last); /* gone with a reply: say which */
	ck_assert_msg(at != RING_NONE, "the search held in flight is gone after %s", last);
	return at;
}

/* Where a struct to write lies, looked up before each write; *flag the
 * entry to flag as news (RING_NONE: none). */
typedef char *where_fn(uint32_t *flag);

static char *live_entry_at(uint32_t *flag)
{
	*flag = live_entry = held_entry();
	return (char *)&seg.ring->jobs[live_entry];
}

static char *free_entry_at(uint32_t *flag)
{
	*flag = RING_JOBS - 1;
	return (char *)&seg.ring->jobs[RING_JOBS - 1];
}

static char *live_slot_at(uint32_t *flag)
{
	*flag = RING_NONE;
	ck_assert_int_eq(tm_wait_workers(&m, 2, 10000), 0);
	live_slot = -1;
	for (int s = 0; s < RING_WORKERS && live_slot < 0; s++)
		if (__atomic_load_n(&seg.ring->slots[s].pid, __ATOMIC_ACQUIRE))
			live_slot = s;
	return (char *)&seg.ring->slots[live_slot];
}

static char *empty_slot_at(uint32_t *flag)
{
	*flag = RING_NONE;
	return (char *)&seg.ring->slots[RING_WORKERS - 10];
}

static char *header_at(uint32_t *flag)
{
	*flag = RING_NONE;
	return (char *)seg.hdr;
}

/* Write each field of the struct where says (what: which, for the
 * failure), each value of its own, one at a time, each followed by a
 * fresh request: the write flagged as news of the entry where names, or
 * left for hold_ms at least. */
static void write_each(where_fn *where, const struct field *f, size_t nf, const char *what,
		       uint64_t hold_ms)
{
	char name[160];
	uint64_t v[16];

	for (size_t i = 0; i < nf; i++) {
		uint32_t flag;
		unsigned n;

		where(&flag); /* values_for names the live entry and slot */
		n = values_for(f[i].what, v);
		for (unsigned k = 0; k < n; k++) {
			char *at = where(&flag) + f[i].off;
			uint64_t t0 = clock_ms();

			if (f[i].size == 4)
				__atomic_store_n((uint32_t *)at, (uint32_t)v[k], __ATOMIC_RELEASE);
			else
				__atomic_store_n((uint64_t *)at, v[k], __ATOMIC_RELEASE);
			if (flag != RING_NONE)
				__atomic_fetch_or(&seg.ring->changed[flag / 64],
						  UINT64_C(1) << (flag % 64), __ATOMIC_RELEASE);
			writes++;
			snprintf(name, sizeof name, "%s %s = %#llx", what, f[i].name,
				 (unsigned long long)v[k]);
			answers_fresh(name);
			held_unanswered(name);
			snprintf(last, sizeof last, "%s", name);
			if (clock_ms() - t0 < hold_ms)
				usleep((useconds_t)(hold_ms - (clock_ms() - t0)) * 1000);
		}
	}
}

START_TEST(every_field_written_leaves_the_master_serving)
{
	static const char *const args[] = { "--workers", "2", "--cache-entries", "1000", NULL };
	uint64_t t0 = clock_ms();
	uint8_t d[32];

	start(NULL, args);
	ck_assert_int_eq(tm_seg(&m, &seg), 0);
	ck_assert_int_eq(tm_wait_workers(&m, 2, 5000), 0);
	held_from = th_rand64() >> 2;
	digest_of(held_from + (1ull << 40) - 5, d);
	ck_assert_int_ge(held_fd = th_connect(m.port), 0);
	ck_assert_int_eq(th_send_request(held_fd, d, held_from, held_from + (1ull << 40), 1), 0);
	snprintf(last, sizeof last, "the start");
	write_each(live_entry_at, entry_fields, N(entry_fields),
		   "the entry of a search in flight:", 0);
	write_each(free_entry_at, entry_fields, N(entry_fields), "a free entry:", 0);
	write_each(live_slot_at, slot_fields, N(slot_fields), "a live worker's slot:", WATCH_MS);
	write_each(empty_slot_at, slot_fields, N(slot_fields), "an empty slot:", 0);
	write_each(empty_slot_at, empty_slot_watched, N(empty_slot_watched), "an empty slot:",
		   WATCH_MS);
	write_each(header_at, header_fields, N(header_fields), "the header:", WATCH_MS);
	held_entry(); /* still searched */
	printf("every_field_written_leaves_the_master_serving: %u writes, each followed by a "
	       "fresh request answered right; the slowest in %llu ms; %.1f s in all\n", writes,
	       (unsigned long long)slowest_ms, (clock_ms() - t0) / 1e3);
	th_reset(held_fd);
	seg_close(&seg);
	stop();
}
END_TEST

int main(void)
{
	Suite *s = suite_create("fields");
	TCase *t = tcase_create("fields");

	tcase_set_timeout(t, 240);
	tcase_add_test(t, every_field_written_leaves_the_master_serving);
	suite_add_tcase(s, t);
	return check_run(s);
}
