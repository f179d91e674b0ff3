/* libFuzzer target: everything the master reads from the shared segment,
 * fed what a hostile worker could write there. The input is a program of
 * operations, a byte each and their operands after it: requests from
 * clients on real loopback sockets (jobs.c through clients.c, as the loop
 * hands them over), an honest worker's lease and finish (the ring's own
 * calls; its answers are true by construction), a write of any field of
 * a job entry, a slot, the header, the ring's words or a cache slot with
 * a value that matters or any value, a flag, the loop's news, the audit
 * and the watchdog at a fake clock (audit.c, watchdog.c), a client gone,
 * a cache lookup, and the checks a reader makes of a header it maps
 * (seg_check) and the scoreboard's rows and writers. Whatever the program:
 *   - nothing crashes (ASan and UBSan watch every read);
 *   - nothing hangs (every operation is bounded; libFuzzer's -timeout);
 *   - no reply lies: an answer a client gets (from a search or the cache)
 *     hashes to its digest and lies in its range;
 *   - in a run of lies (one run in two), "not found" is true too: a
 *     client whose range holds its answer never hears 0.
 * A run of lies writes only what the master checks before it believes it
 * (an answer, a phase, the key, the generation, a cursor word past its
 * two values, 0 and 1, which a master cannot tell from a worker's
 * own) and words that only rank
 * or stop a search (a weight, the stop word, a rate). A lie must still be
 * there when the master looks: one written and put back before the audit
 * is one no master can see, so an entry gets at most one between audits.
 * Other runs write any field, and there "not found" is not judged: a
 * worker can make a range count as hashed (its progress, a lease), as
 * docs/security.md says.
 * The workers are this process's. One may keep its lease until its next
 * operation, so leases are out when lies and take-backs come. They go on
 * after any write, their own schedule's words too (a heap place, a lease
 * count, a slot's lease: they rebuild what cannot be true). While the
 * lock's word says it is held, they wait, as a worker would. kill() is wrapped (the
 * makefile's --wrap): the watchdog kills no process. */
#include "master/jobs.h"
#include "master/metrics.h"
#include "master/status.h"
#include "master/workers.h"
#include "lib/digest.h"
#include "shm/ring_master.h"
#include "shm/ring_worker.h"
#include "shm/segment.h"

#include <arpa/inet.h>
#include <assert.h>
#include <errno.h>
#include <linux/futex.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

/* The watchdog's kills land here: none reaches a process. */
int __wrap_kill(pid_t pid, int sig);
int __wrap_kill(pid_t pid, int sig)
{
	(void)pid;
	(void)sig;
	return 0;
}

/* ---- the program's operands --------------------------------------------- */

struct in {
	const uint8_t *p;
	size_t n;
};

/* The next bytes of the input as a little-endian number (0 past its end). */
static uint64_t take(struct in *in, unsigned bytes)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < bytes && in->n; i++, in->p++, in->n--)
		v |= (uint64_t)*in->p << (8 * i);
	return v;
}

/* ---- what the master runs over ------------------------------------------ */

#define CAPACITY 64  /* the cache's answers */
#define CLIENTS 8    /* open at once */
#define FAKE_PID 0x3ffffff0 /* the workers' pids in the master's table: none alive */

static struct ring *r;
static struct cache_shm *table;
static struct seg_header *hdr;
static struct seg seg;
static struct cache cache;
static struct clients cl;
static struct jobs js;
static struct workers ws;
static int epfd, lfd, efd;
static struct sockaddr_in at; /* the listener's address */
static uint64_t now_ms;
static int lies_only;    /* a run of lies: "not found" is judged too */
static uint8_t unseen[RING_JOBS]; /* a run of lies: a checked field of the
                                     entry written since the last audit */

/* A lease a worker keeps until its next operation, which finishes it. */
static struct held {
	int on;
	struct ring_lease l;
} held[4];

/* What each client asked, for the oracle. */
static struct client {
	int fd;
	uint8_t digest[32];
	uint64_t lo, hi, answer; /* answer: the value whose digest it is */
} client[CLIENTS];

/* Every digest asked in the run and its value, so the workers find a
 * search's answer after its client left too: a later request for the same
 * digest may have joined that search. */
#define ASKED 256
static struct asked {
	uint8_t digest[32];
	uint64_t answer;
} asked[ASKED];
static unsigned nasked;

static void once(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof at;

	r = mmap(NULL, sizeof *r, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	table = malloc(cache_bytes(CAPACITY));
	hdr = malloc(sizeof *hdr);
	assert(r != MAP_FAILED && table && hdr);
	inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
	lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	assert(lfd >= 0 && bind(lfd, (struct sockaddr *)&a, sizeof a) == 0 &&
	       listen(lfd, 64) == 0 && getsockname(lfd, (struct sockaddr *)&at, &len) == 0);
	epfd = epoll_create1(EPOLL_CLOEXEC);
	efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	assert(epfd >= 0 && efd >= 0);
	ring_hooks_here(0);
	log_set_level(LL_ERROR); /* the writes make the master say much */
}

/* A fresh master: ring, cache, header, clients, jobs, workers' table, and
 * four honest workers shown in their slots. */
static void set_up(struct in *in)
{
	struct policy p = policy_default();
	uint64_t pick = take(in, 1);

	if (pick & 1)
		p.order = POLICY_PRIORITY;
	if (pick & 2)
		p.rules &= ~POLICY_SPLIT;
	lies_only = (pick & 8) != 0;
	nasked = 0;
	memset(unseen, 0, sizeof unseen);
	memset(held, 0, sizeof held);
	memset(r, 0, sizeof *r);
	assert(ring_init(r, &p) == 0);
	memset(hdr, 0, sizeof *hdr);
	memset(table, 0, cache_bytes(CAPACITY));
	cache_init(&cache, table, CAPACITY);
	memset(&seg, 0, sizeof seg);
	seg.hdr = hdr;
	seg.ring = r;
	seg.cache = table;
	seg.size = sizeof *hdr + sizeof *r + cache_bytes(CAPACITY);
	seg.owner = 1;
	seg.fd = -1;
	hdr->magic = SEG_MAGIC;
	hdr->version = SEG_VERSION;
	hdr->size = seg.size;
	hdr->ring_off = sizeof *hdr;
	hdr->cache_off = sizeof *hdr + sizeof *r;
	seg.own = *hdr;
	seg.cache_nslots = table->nslots;
	seg.cache_capacity = table->capacity;
	clients_init(&cl, epfd, &hdr->stats, 60000, 1u << 20, 1u << 20);
	assert(jobs_init(&js, r, &cache, &cl, &hdr->stats, &p, !(pick & 4), 1u << 20, 64) == 0);
	memset(&ws, 0, sizeof ws);
	ws.seg = &seg;
	ws.ring = r;
	ws.master = getpid();
	ws.notify_fd = efd;
	ws.policy = p;
	for (unsigned i = 0; i < 4; i++) {
		ws.w[i].pid = FAKE_PID + (pid_t)i;
		ws.w[i].kind = 0;
		ring_worker_start(r, i, FAKE_PID + (pid_t)i);
	}
	for (unsigned i = 0; i < CLIENTS; i++)
		client[i].fd = -1;
	now_ms = 1000000;
}

/* Close fd with a reset, which leaves no TIME_WAIT: at thousands of
 * connections a second, the loopback's ports would run out. */
static void hang_up(int fd)
{
	struct linger lg = { 1, 0 };

	setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
	close(fd);
}

/* A client that asks again closes its last connection: with a reset if
 * the master has closed its side already (no TIME_WAIT), else with a FIN,
 * as a client still waiting for its answer does (a reset would cancel the
 * search); that leaves a TIME_WAIT, whose port the loopback reuses. */
static void gone_or_half_closed(int fd)
{
	char b;

	if (recv(fd, &b, 1, MSG_PEEK | MSG_DONTWAIT) == 0)
		hang_up(fd);
	else
		close(fd);
}

static void tear_down(void)
{
	/* The clients first, with a reset: the master's side then leaves no
	 * TIME_WAIT either. */
	for (unsigned i = 0; i < CLIENTS; i++)
		if (client[i].fd >= 0)
			hang_up(client[i].fd);
	jobs_drop_all(&js);
	clients_close_all(&cl);
	clients_bury(&cl);
	jobs_free(&js);
	clients_free(&cl);
	/* Connections the master never took, or the next run would read
	 * their requests as its own, for digests its workers never saw. */
	for (int fd; (fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC)) >= 0;)
		hang_up(fd);
	ring_free(r);
}

/* ---- the oracle ---------------------------------------------------------- */

/* Every reply a client has is true; "not found" too, in a run of lies. */
static void replies_are_true(void)
{
	for (unsigned i = 0; i < CLIENTS; i++) {
		const struct client *c = &client[i];
		uint8_t b[PROTO_REPLY_LEN];
		uint64_t x;

		if (c->fd < 0 || recv(c->fd, b, sizeof b, MSG_DONTWAIT) != (ssize_t)sizeof b)
			continue;
		x = proto_decode_reply(b);
		assert(x == 0 || digest_answers(x, c->digest, c->lo, c->hi));
		assert(x != 0 || !lies_only || c->answer < c->lo || c->answer > c->hi);
	}
}

/* ---- the operations ------------------------------------------------------ */

/* Connect fd to the master's listener: 0 or -errno. A connect cut short
 * by a signal (libFuzzer's timer) goes on in the kernel: it is waited for. */
static int dial(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLOUT };
	socklen_t len = sizeof(int);
	int err = 0;

	if (connect(fd, (struct sockaddr *)&at, sizeof at) == 0)
		return 0;
	if (errno != EINTR)
		return -errno;
	while (poll(&p, 1, -1) < 0 && errno == EINTR)
		;
	getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
	return -err;
}

/* A client asks for the value whose digest it sends, in a range that holds
 * it or not; the master reads and dispatches it as the loop does. */
static void op_request(struct in *in)
{
	unsigned k = (unsigned)take(in, 1) % CLIENTS;
	struct client *c = &client[k];
	uint64_t answer = 1 + take(in, 3), below = take(in, 2), span = take(in, 2);
	struct proto_request q = { .priority = (uint8_t)(1 + take(in, 1) % 16) };
	uint8_t buf[PROTO_REQUEST_LEN];
	struct conn *conn = NULL;

	if (c->fd >= 0)
		gone_or_half_closed(c->fd);
	c->answer = answer;
	c->lo = answer > below ? answer - below : 1;
	c->hi = c->lo + span;
	if (take(in, 1) & 1) /* a range without it */
		c->lo = c->hi = answer + 1 + span;
	digest_of(answer, c->digest);
	if (nasked < ASKED) {
		memcpy(asked[nasked].digest, c->digest, 32);
		asked[nasked++].answer = answer;
	}
	memcpy(q.digest, c->digest, 32);
	q.start = c->lo;
	q.end = c->hi;
	proto_encode_request(&q, buf);
	c->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert(c->fd >= 0 && dial(c->fd) == 0);
	assert(send(c->fd, buf, sizeof buf, MSG_NOSIGNAL) == (ssize_t)sizeof buf);
	for (int i = 0; i < 1000 && !conn; i++) {
		clients_accept(&cl, lfd);
		conn = clients_ready(&cl);
	}
	if (conn)
		jobs_dispatch(&js, conn);
	jobs_balance(&js);
	clients_bury(&cl);
}

/* May the workers (this process) take the lock? Not while its word says
 * someone holds it (they would wait). */
static int workers_can_run(void)
{
	uint32_t word = (uint32_t)__atomic_load_n(&r->lock.__data.__lock, __ATOMIC_RELAXED);

	return word == 0 || word == FUTEX_OWNER_DIED;
}

/* An honest worker of slot s leases and reports: the answer, when its
 * lease holds a value asked for in the run (true by construction), else
 * none, or it stops part-way. Or it keeps its lease, silent, and its
 * next operation reports it. */
static void op_worker(struct in *in)
{
	unsigned s = (unsigned)take(in, 1) % 4, how = (unsigned)take(in, 1);
	uint64_t chunk = 1 + take(in, 2), x = 0;
	enum search_result res = SEARCH_NONE;
	struct ring_lease l;

	if (!workers_can_run())
		return;
	if (held[s].on) {
		l = held[s].l;
		held[s].on = 0;
	} else if (ring_lease(r, s, chunk, 1, &l) < 0) {
		return;
	} else if (how % 8 == 1) {
		held[s] = (struct held){ 1, l };
		return;
	}
	for (unsigned i = 0; i < nasked; i++) {
		const struct asked *a = &asked[i];

		if (memcmp(l.digest, a->digest, 32) == 0 && a->answer >= l.lo && a->answer <= l.hi) {
			res = SEARCH_FOUND;
			x = a->answer;
		}
	}
	if (res == SEARCH_NONE && how % 4 == 0 && l.hi > l.lo) {
		res = SEARCH_STOPPED;
		x = l.lo + (l.hi - l.lo) / 2;
	}
	ring_finish(r, s, res, x);
}

/* A field: where in its struct, how wide. */
struct field {
	size_t off, size;
};

#define FLD(type, member) { offsetof(type, member), sizeof(((type *)0)->member) }

static const struct field entry_fields[] = {
	FLD(struct ring_job, key.digest[0]), FLD(struct ring_job, key.start),
	FLD(struct ring_job, key.end), FLD(struct ring_job, seq),
	FLD(struct ring_job, submit_ns), FLD(struct ring_job, gen),
	FLD(struct ring_job, phase), FLD(struct ring_job, phase),
	FLD(struct ring_job, weight), FLD(struct ring_job, answer),
	FLD(struct ring_job, found_slot), FLD(struct ring_job, first_lease_ns),
	FLD(struct ring_job, found_ns), FLD(struct ring_job, p.next),
	FLD(struct ring_job, p.cursor_done), FLD(struct ring_job, p.nreturned),
	FLD(struct ring_job, p.returned[0].lo), FLD(struct ring_job, p.returned[0].hi),
	FLD(struct ring_job, p.returned[1].lo), FLD(struct ring_job, p.started),
	FLD(struct ring_job, rank.weight), FLD(struct ring_job, rank.seq),
	FLD(struct ring_job, nleases), FLD(struct ring_job, heap_pos),
};

static const struct field slot_fields[] = {
	FLD(struct ring_slot, pid), FLD(struct ring_slot, retire),
	FLD(struct ring_slot, state), FLD(struct ring_slot, has_lease),
	FLD(struct ring_slot, lease_pid), FLD(struct ring_slot, lease_job),
	FLD(struct ring_slot, lease_gen), FLD(struct ring_slot, keep_job),
	FLD(struct ring_slot, keep_gen), FLD(struct ring_slot, stop),
	FLD(struct ring_slot, lease_lo), FLD(struct ring_slot, lease_hi),
	FLD(struct ring_slot, lease_ns), FLD(struct ring_slot, beat),
	FLD(struct ring_slot, hashes), FLD(struct ring_slot, chunks),
	FLD(struct ring_slot, rate), FLD(struct ring_slot, hash_ns),
	FLD(struct ring_slot, started_ns), FLD(struct ring_slot, deaths),
	FLD(struct ring_slot, kind), FLD(struct ring_slot, unit),
};

static const struct field ring_fields[] = {
	{ offsetof(struct ring, lock), sizeof(int) }, /* the lock's word alone */
	FLD(struct ring, lock_owner), FLD(struct ring, repairs),
	FLD(struct ring, shutdown), FLD(struct ring, dead_leases),
	FLD(struct ring, policy.order), FLD(struct ring, policy.rules),
	FLD(struct ring, hooks), FLD(struct ring, hook[0]),
	FLD(struct ring, nheap), FLD(struct ring, heap[0]),
	FLD(struct ring, heap[1]), FLD(struct ring, pending_any),
	FLD(struct ring, pending[0]), FLD(struct ring, changed[0]),
};

static const struct field header_fields[] = {
	FLD(struct seg_header, magic), FLD(struct seg_header, version),
	FLD(struct seg_header, size), FLD(struct seg_header, master_pid),
	FLD(struct seg_header, ring_off), FLD(struct seg_header, cache_off),
	FLD(struct seg_header, kernel), FLD(struct seg_header, kinds[0].note),
	FLD(struct seg_header, kinds[0].n), FLD(struct seg_header, stats.requests),
	FLD(struct seg_header, stats.latency.score_ns),
};

static const struct field cache_fields[] = {
	FLD(struct cache_entry, hash), FLD(struct cache_entry, answer),
	FLD(struct cache_entry, used), FLD(struct cache_entry, ref),
};

/* A run of lies writes only these (see the top). */
static const struct field lie_entry_fields[] = {
	FLD(struct ring_job, key.digest[0]), FLD(struct ring_job, key.start),
	FLD(struct ring_job, key.end), FLD(struct ring_job, gen),
	FLD(struct ring_job, phase), FLD(struct ring_job, phase),
	FLD(struct ring_job, weight), FLD(struct ring_job, answer),
	FLD(struct ring_job, found_slot), FLD(struct ring_job, p.cursor_done),
};

static const struct field lie_slot_fields[] = {
	FLD(struct ring_slot, stop), FLD(struct ring_slot, rate),
	FLD(struct ring_slot, beat),
};

#define N(a) (sizeof(a) / sizeof(a)[0])

/* A value that matters, or any: the operand says which. */
static uint64_t value(struct in *in)
{
	unsigned pick = (unsigned)take(in, 1);

	switch (pick % 12) {
	case 0: return 0;
	case 1: return 1;
	case 2: return UINT64_MAX;
	case 3: return (uint64_t)getpid();
	case 4: return FAKE_PID + take(in, 1) % 4; /* a live worker's pid */
	case 5: return take(in, 1) % PHASE_COUNT + (pick & 0x80 ? PHASE_COUNT : 0);
	case 6: return take(in, 2) % RING_JOBS; /* an entry */
	case 7: return take(in, 1) % RING_WORKERS; /* a slot */
	case 8: return UINT64_C(1) << 60; /* a huge rate, count, time */
	case 9: return client[take(in, 1) % CLIENTS].lo + take(in, 1);
	case 10: return FUTEX_OWNER_DIED;
	default: return take(in, 8);
	}
}

/* Write value into field f of the struct at base. */
static void write_field(char *base, const struct field *f, uint64_t v)
{
	char *at = base + f->off;

	if (f->size == 4)
		__atomic_store_n((uint32_t *)at, (uint32_t)v, __ATOMIC_RELAXED);
	else if (f->size == 8)
		__atomic_store_n((uint64_t *)at, v, __ATOMIC_RELAXED);
	else
		memcpy(at, &v, f->size < 8 ? f->size : 8);
}

/* An entry to write: one the master gave a job, or any. */
static uint32_t some_entry(struct in *in)
{
	uint32_t pick = (uint32_t)take(in, 2);

	for (uint32_t e = 0; e < RING_JOBS && (pick & 1); e++)
		if (jobs_job_in(&js, (e + (pick >> 1)) % RING_JOBS))
			return (e + (pick >> 1)) % RING_JOBS;
	return (pick >> 1) % RING_JOBS;
}

/* The phases a run of lies writes. Not RUNNING or EXHAUSTED: the workers
 * write those themselves, so the lie looks like their work. */
static int a_lie(uint32_t phase)
{
	return phase != PHASE_RUNNING && phase != PHASE_EXHAUSTED;
}

/* A lie into entry e's field f. A checked field is not written again
 * before the audit has looked (see the top). */
static void lie(uint32_t e, const struct field *f, uint64_t v)
{
	int cursor = f->off == offsetof(struct ring_job, p.cursor_done);
	int judged = f->off == offsetof(struct ring_job, phase) ||
		     f->off == offsetof(struct ring_job, gen) || f->off < sizeof(struct ring_key) ||
		     cursor;

	if (judged && unseen[e])
		return;
	if (f->off == offsetof(struct ring_job, phase) && !a_lie((uint32_t)v))
		return;
	if (cursor && (uint32_t)v <= 1)
		return; /* 0 and 1 are a cursor's own values: no master can tell */
	unseen[e] |= judged;
	write_field((char *)&r->jobs[e], f, v);
}

/* A run of lies: an entry's field or a slot's (see the top). */
static void op_lie(struct in *in)
{
	unsigned what = (unsigned)take(in, 1) % 2, k = (unsigned)take(in, 1);

	if (what == 0) {
		uint32_t e = some_entry(in);

		lie(e, &lie_entry_fields[k % N(lie_entry_fields)], value(in));
		return;
	}
	write_field((char *)&r->slots[take(in, 1) % RING_WORKERS],
		    &lie_slot_fields[k % N(lie_slot_fields)], value(in));
}

static void op_write(struct in *in)
{
	unsigned what = (unsigned)take(in, 1) % 5, k = (unsigned)take(in, 1);
	uint32_t e;

	if (lies_only) {
		op_lie(in);
		return;
	}
	switch (what) {
	case 0:
		e = some_entry(in);
		write_field((char *)&r->jobs[e], &entry_fields[k % N(entry_fields)], value(in));
		break;
	case 1:
		write_field((char *)&r->slots[take(in, 1) % RING_WORKERS],
			    &slot_fields[k % N(slot_fields)], value(in));
		break;
	case 2:
		write_field((char *)r, &ring_fields[k % N(ring_fields)], value(in));
		break;
	case 3:
		write_field((char *)hdr, &header_fields[k % N(header_fields)], value(in));
		break;
	default:
		write_field((char *)&table->slots[take(in, 2) & (cache.nslots - 1)],
			    &cache_fields[k % N(cache_fields)], value(in));
		break;
	}
}

/* An entry flagged for the master, as a worker that ended its job does. */
static void op_flag(struct in *in)
{
	uint32_t e = some_entry(in);

	__atomic_fetch_or(&r->changed[e / 64], UINT64_C(1) << (e % 64), __ATOMIC_RELEASE);
}

/* A turn of the loop: the workers' news, the balance, the dead freed. */
static void op_news(void)
{
	jobs_news(&js);
	jobs_balance(&js);
	clients_bury(&cl);
}

static void op_audit(struct in *in)
{
	uint64_t due = js.audit_ms;

	now_ms += 1 + take(in, 2) % 1200;
	if (jobs_audit(&js, now_ms) == UINT64_MAX || (due && now_ms >= due))
		memset(unseen, 0, sizeof unseen); /* it looked at every entry (or holds none) */
	jobs_balance(&js);
	clients_bury(&cl);
}

/* A round of the watchdog, or of a reset under way, as workers_tick runs
 * them; the workers it kills (on the wrapped kill) are reaped. */
static void op_watch(struct in *in)
{
	now_ms += 1 + take(in, 2) % 3000;
	if (!workers_resetting(&ws, now_ms))
		workers_watch(&ws, now_ms);
	for (unsigned i = 0; i < 4; i++) {
		uint64_t hashes, chunks;

		if (!ws.w[i].reset && !ws.w[i].killed)
			continue;
		ring_slot_dead(r, i, EXIT_STALLED, &hashes, &chunks);
		held[i].on = 0; /* its successor does not hold it */
		ws.w[i].pid = FAKE_PID + (pid_t)i; /* its successor */
		ws.w[i].reset = ws.w[i].killed = 0;
		ws.w[i].shown_ms = 0;
		if (!ws.resetting && workers_can_run())
			ring_worker_start(r, i, FAKE_PID + (pid_t)i);
	}
}

/* A client resets its connection: the loop hears CLIENT_GONE. */
static void op_gone(struct in *in)
{
	struct client *c = &client[take(in, 1) % CLIENTS];
	struct epoll_event ev[16];
	int n;

	if (c->fd < 0)
		return;
	hang_up(c->fd);
	c->fd = -1;
	n = epoll_wait(epfd, ev, 16, 0);
	for (int i = 0; i < n; i++) {
		struct conn *conn = ev[i].data.ptr;

		if (clients_event(&cl, conn, ev[i].events) == CLIENT_GONE)
			jobs_client_gone(&js, conn);
	}
	jobs_balance(&js);
	clients_bury(&cl);
}

/* The cache, as a request's lookup and a found answer's insert see it. */
static void op_cache(struct in *in)
{
	struct client *c = &client[take(in, 1) % CLIENTS];
	uint64_t x;

	if (take(in, 1) & 1)
		cache_put(&cache, c->digest, c->answer);
	if (cache_get(&cache, c->digest, &x))
		assert(digest_answers(x, c->digest, 0, UINT64_MAX));
}

/* What a reader checks of a segment it maps, and what --status and the
 * exporter then make of it: the rows, and each writer's page. */
static void op_reader(void)
{
	static char *copy;
	static size_t size;
	static FILE *sink;
	struct status st = { 0 };
	struct seg_layout lay;
	struct seg s = { .fd = -1 };

	if (!copy) {
		size = sizeof *hdr + sizeof *r + cache_bytes(CAPACITY);
		copy = malloc(size);
		assert(copy);
	}
	memcpy(copy, hdr, sizeof *hdr);
	memcpy(copy + sizeof *hdr, r, sizeof *r);
	memcpy(copy + sizeof *hdr + sizeof *r, table, cache_bytes(CAPACITY));
	if (seg_check(copy, size, &lay) < 0)
		return;
	seg_point(&s, copy, size, &lay);
	if (!sink)
		assert((sink = fopen("/dev/null", "w")));
	if (status_make(&s, &st) == 0) {
		status_text(sink, &st);
		status_json(sink, &st);
		metrics_write(sink, &st);
	}
	status_free(&st);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int ready;
	struct in in = { data, size };
	unsigned ops = 0;

	if (!ready) {
		once();
		ready = 1;
	}
	set_up(&in);
	while (in.n && ops++ < 200) {
		switch (take(&in, 1) % 11) {
		case 0: op_request(&in); break;
		case 1: case 2: op_worker(&in); break;
		case 3: op_write(&in); break;
		case 4: op_flag(&in); break;
		case 5: op_news(); break;
		case 6: op_audit(&in); break;
		case 7: op_watch(&in); break;
		case 8: op_gone(&in); break;
		case 9: op_cache(&in); break;
		default: op_reader(); break;
		}
		replies_are_true();
	}
	op_news();
	replies_are_true();
	tear_down();
	return 0;
}
