/* The owner's side of the master's shared segment (segment_create.h):
 * making it (its name, its memory and its layout: the header, the ring and
 * the cache, each at an offset the header gives and every reader checks),
 * guarding its mapping, putting back its words and removing it. Finding,
 * mapping and closing: segment.c. */
#include "shm/segment_create.h"
#include "lib/clock.h"
#include "lib/log.h"
#include "shm/cache.h"
#include "shm/ring_master.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

/* Make the segment's memory: size bytes, reserved and mapped populated.
 * 0 and *p, or -errno, the failing call logged. */
static int make_memory(const struct seg *seg, size_t size, void **p)
{
	int rc = 0;

	/* The lock (which says this master lives) first. Reserve the memory:
	 * a tmpfs too small fails here, not with SIGBUS while serving. Map it
	 * populated: a page fault on a request's cache probe cost 10-30 us. */
	if (flock(seg->fd, LOCK_EX) < 0) {
		rc = -errno;
		log_error("flock(%s): %s", seg->name, strerror(-rc));
	} else if (ftruncate(seg->fd, (off_t)size) < 0) {
		rc = -errno;
		log_error("ftruncate(%s, %zu): %s", seg->name, size, strerror(-rc));
	} else if ((rc = -posix_fallocate(seg->fd, 0, (off_t)size)) != 0) {
		log_error("posix_fallocate(%s, %zu): %s", seg->name, size, strerror(-rc));
	} else if ((*p = mmap(NULL, size, PROT_READ | PROT_WRITE,
			      MAP_SHARED | MAP_POPULATE, seg->fd, 0)) == MAP_FAILED) {
		rc = -errno;
		log_error("mmap(%s, %zu): %s", seg->name, size, strerror(-rc));
	}
	return rc;
}

/* Create this master's segment name (segment.c's of_port() reads it
 * back): /revhash-PORT-PID, or, where another user holds that name (anyone
 * may create one in /dev/shm, and the sweep cannot remove another's), the
 * same with a random suffix, which nobody can take ahead. Its descriptor
 * into seg; 0 or -errno. */
static int create_name(unsigned port, struct seg *seg)
{
	int err = EEXIST;

	for (int i = 0; i < 8; i++) {
		uint32_t r = 0;

		if (i == 0)
			snprintf(seg->name, sizeof seg->name, "/revhash-%u-%d", port,
				 (int)getpid());
		else if (getrandom(&r, sizeof r, 0) == (ssize_t)sizeof r)
			snprintf(seg->name, sizeof seg->name, "/revhash-%u-%d.%u", port,
				 (int)getpid(), (unsigned)(r % 1000000000u));
		else
			break;
		seg->fd = shm_open(seg->name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
				   0600);
		if (seg->fd >= 0)
			return 0;
		if ((err = errno) != EEXIST)
			break;
		log_warn("shared segment name %s is taken (not by a master of ours): "
			 "trying another", seg->name);
	}
	log_error("shm_open(%s): %s", seg->name, strerror(err));
	return -err;
}

int seg_create(unsigned port, uint64_t cache_entries, const struct policy *policy,
	       struct seg *seg)
{
	struct seg_layout at;
	size_t size = seg_lay_out(cache_bytes(cache_entries), &at);
	void *p = MAP_FAILED;
	struct seg_header *h;
	int rc;

	memset(seg, 0, sizeof *seg);
	seg->fd = -1;
	seg_sweep(port);
	if ((rc = create_name(port, seg)) < 0)
		return rc;
	seg->owner = 1;
	if ((rc = make_memory(seg, size, &p)) < 0)
		goto fail;
	h = p;
	h->ring_off = at.ring_off;
	h->cache_off = at.cache_off;
	seg_point(seg, p, size, &at);
	if ((rc = ring_init(seg->ring, policy)) < 0)
		goto fail;
	cache_lay_out(seg->cache, cache_entries);
	h->size = size;
	h->master_pid = getpid();
	h->port = port;
	h->started_ns = clock_ns_of(CLOCK_REALTIME);
	h->alive_ns = clock_ns();
	h->version = SEG_VERSION;
	__atomic_store_n(&h->magic, SEG_MAGIC, __ATOMIC_RELEASE);
	seg->own = *h;
	seg->cache_nslots = seg->cache->nslots;
	seg->cache_capacity = seg->cache->capacity;
	return 0;
fail:
	if (p != MAP_FAILED)
		munmap(p, size);
	seg->hdr = NULL;
	seg_remove(seg);
	return rc;
}

void seg_show_name(char *dst, size_t size, const char *src)
{
	shm_word name[16] = { 0 }, *to = (shm_word *)dst;

	if (size > sizeof name)
		size = sizeof name;
	snprintf((char *)name, size, "%s", src);
	for (size_t i = 0; i < size / 8; i++)
		__atomic_store_n(&to[i], name[i], __ATOMIC_RELAXED);
}

/* ---- the master's own mapping, cut short ---------------------------------- */

/* The one mapping guarded in this process, for the handler. */
static struct {
	char *at;
	size_t size;
	int fd;
	pid_t pid; /* the process that guards it (a forked worker is not it) */
} guarded;
static volatile sig_atomic_t cut_short;

/* SIGBUS in the guarded mapping (see seg_guard): the file gets its size
 * back, and the access, tried again on return, reads zeros. Any other
 * SIGBUS is what it would have been. Only async-signal-safe calls. */
static void on_sigbus(int sig, siginfo_t *si, void *ctx)
{
	char *a = si->si_addr;

	(void)ctx;
	if (guarded.at && a >= guarded.at && a < guarded.at + guarded.size &&
	    getpid() == guarded.pid && ftruncate(guarded.fd, (off_t)guarded.size) == 0) {
		cut_short++;
		return;
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

int seg_guard(const struct seg *seg)
{
	struct sigaction sa = { .sa_sigaction = on_sigbus, .sa_flags = SA_SIGINFO | SA_NODEFER };

	guarded.at = (char *)seg->hdr;
	guarded.size = seg->size;
	guarded.fd = seg->fd;
	guarded.pid = getpid();
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGBUS, &sa, NULL) < 0) {
		int err = errno;
		log_error("sigaction(SIGBUS): %s", strerror(err));
		return -err;
	}
	return 0;
}

unsigned seg_cut_short(void)
{
	return (unsigned)cut_short;
}

int seg_restore_header(struct seg *seg)
{
	struct seg_header *h = seg->hdr;
	const struct seg_header *o = &seg->own;

	if (!seg->owner)
		return 0;
	return shm_restore(h->magic, o->magic) + shm_restore(h->version, o->version) +
	       shm_restore(h->size, o->size) + shm_restore(h->master_pid, o->master_pid) +
	       shm_restore(h->port, o->port) + shm_restore(h->ring_off, o->ring_off) +
	       shm_restore(h->cache_off, o->cache_off) +
	       shm_restore(h->started_ns, o->started_ns) +
	       shm_restore(seg->cache->nslots, seg->cache_nslots) +
	       shm_restore(seg->cache->capacity, seg->cache_capacity);
}

void seg_remove(struct seg *seg)
{
	if (seg->hdr && seg->owner)
		ring_free(seg->ring);
	if (guarded.at == (char *)seg->hdr)
		guarded.at = NULL;
	if (seg->owner && seg->name[0])
		shm_unlink(seg->name); /* our own name: nobody else's */
	seg_close(seg);
}

/* The histograms of times: a time's bucket is a division by a constant
 * and a count of leading zeros, no loop over the bounds. */
unsigned hist_bucket(uint64_t ns)
{
	/* ns <= 2^i us exactly when ns in whole microseconds, rounded up, is */
	uint64_t us = ns / 1000 + (ns % 1000 != 0);
	unsigned i;

	if (us <= 1)
		return 0;
	i = 64 - (unsigned)__builtin_clzll(us - 1); /* the least i with 2^i >= us */
	return i < HIST_BOUNDS ? i : HIST_BOUNDS;
}

void hist_add(struct seg_hist *h, uint64_t ns)
{
	shm_count(h->n[hist_bucket(ns)], 1);
	shm_count(h->sum_ns, ns);
}
