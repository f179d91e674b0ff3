/* Finding, mapping and removing shared segments; making one is
 * segment_create.c's, the master's alone (so the exporter, which only
 * reads, links neither the cache nor OpenSSL). Each master's segment is
 * its own, /revhash-PORT-PID, on which it holds an exclusive flock while
 * it lives: the proof of life the sweep and --status go by, which the
 * kernel drops however the master dies (docs/operations.md, "Segments").
 * Anyone may write a file in /dev/shm, and a worker its segment at any
 * time: every segment is checked (seg_check) before any offset in it is
 * used, and by the offsets it checked. A reader looks at a private copy
 * it read; the master guards its own mapping against being cut short. */
#include "shm/segment.h"
#include "lib/clock.h"
#include "lib/log.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define SHM_DIR "/dev/shm"

/* Is name (as in SHM_DIR, no slash) a segment of port, or of any port
 * when port is 0? "revhash-PORT-PID", or "revhash-PORT-PID.N" where the
 * first name was taken (seg_create). */
static int of_port(const char *name, unsigned port)
{
	unsigned p, pid;
	int n = 0;

	if (strlen(name) >= 40 || sscanf(name, "revhash-%u-%u%n", &p, &pid, &n) != 2 ||
	    strncmp(name, "revhash-", 8) != 0 || name[8] < '0' || name[8] > '9')
		return 0;
	if (name[n] == '.' && name[n + 1] >= '0' && name[n + 1] <= '9')
		n += (int)strspn(name + n + 1, "0123456789") + 1;
	if (name[n] != '\0')
		return 0;
	return port == 0 || p == port;
}

/* Open segment name as flags say, only if it is what a master of ours
 * makes: a regular file (never a FIFO or a device: O_NONBLOCK, so that
 * opening one cannot block), owned by this user, with no group or other
 * bits. Anyone may create a name in /dev/shm. The descriptor and its
 * status in *st, or -errno (-EPERM for a file that is not ours). */
static int open_ours(const char *name, int flags, struct stat *st)
{
	int fd = shm_open(name, flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0);

	if (fd < 0)
		return -errno;
	if (fstat(fd, st) < 0 || !S_ISREG(st->st_mode) || st->st_uid != geteuid() ||
	    (st->st_mode & 077)) {
		close(fd);
		return -EPERM;
	}
	return fd;
}

/* The next segment of port (0: any) in d: its name for shm_open in name;
 * 0 when there is none left. */
static int next_of_port(DIR *d, unsigned port, char name[64])
{
	struct dirent *e;

	while ((e = readdir(d)))
		if (of_port(e->d_name, port)) {
			snprintf(name, 64, "/%.40s", e->d_name);
			return 1;
		}
	return 0;
}

/* Does some process hold the lock on fd (a live master)? */
static int held(int fd)
{
	if (flock(fd, LOCK_SH | LOCK_NB) == 0) {
		flock(fd, LOCK_UN);
		return 0;
	}
	return errno == EWOULDBLOCK;
}

/* Is the process whose pid ends the segment name alive? A master that has
 * just created its segment has not locked it yet: its pid tells. */
static int owner_alive(const char *name)
{
	const char *dash = strrchr(name, '-');
	long pid = dash ? strtol(dash + 1, NULL, 10) : 0;

	return pid > 0 && (kill((pid_t)pid, 0) == 0 || errno == EPERM);
}

/* Has the leftover segment open at fd been one for SEG_STALE_S, by when
 * its master last marked itself alive there? One of another version (or
 * damaged) counts as old. */
static int long_dead(int fd)
{
	struct seg_header h;
	uint64_t alive, now = clock_ns();

	/* Read, not mapped: a file cut short reads short, never SIGBUS. */
	if (pread(fd, &h, sizeof h, 0) != (ssize_t)sizeof h)
		return 1;
	alive = h.magic == SEG_MAGIC && h.version == SEG_VERSION ? h.alive_ns : 0;
	return alive > now || now - alive >= (uint64_t)SEG_STALE_S * 1000000000u;
}

void seg_sweep(unsigned port)
{
	DIR *d = opendir(SHM_DIR);
	char name[64];

	if (!d)
		return;
	while (next_of_port(d, 0, name)) {
		int fd, mine = of_port(name + 1, port);
		struct stat st;

		if ((fd = open_ours(name, O_RDWR, &st)) < 0)
			continue;
		if (held(fd) || owner_alive(name)) {
			if (mine)
				log_info("shared segment %s: its master still runs "
					 "(draining or starting), left alone", name);
		} else if ((mine || long_dead(fd)) && shm_unlink(name) == 0) {
			log_info("removed stale shared segment %s", name);
		}
		close(fd);
	}
	closedir(d);
}

static size_t page_up(size_t n)
{
	return (n + 4095) & ~(size_t)4095;
}

size_t seg_lay_out(size_t cache_bytes, struct seg_layout *at)
{
	at->ring_off = page_up(sizeof(struct seg_header));
	at->cache_off = at->ring_off + page_up(sizeof(struct ring));
	return at->cache_off + page_up(cache_bytes);
}

void seg_point(struct seg *seg, void *p, size_t size, const struct seg_layout *at)
{
	seg->hdr = p;
	seg->ring = (struct ring *)((char *)p + at->ring_off);
	seg->cache = (struct cache_shm *)((char *)p + at->cache_off);
	seg->size = size;
}

/* Does header h say a segment of size bytes whose ring and cache fit? The
 * offsets it checked into *at: read once, they are what is used (a worker
 * may change the header meanwhile). */
static int sane_header(const struct seg_header *h, size_t size, struct seg_layout *at)
{
	/* The magic first, acquired: its creator stores it last, released, so
	 * a segment still being laid out reads as none. */
	if (__atomic_load_n(&h->magic, __ATOMIC_ACQUIRE) != SEG_MAGIC)
		return 0;
	at->ring_off = __atomic_load_n(&h->ring_off, __ATOMIC_RELAXED);
	at->cache_off = __atomic_load_n(&h->cache_off, __ATOMIC_RELAXED);
	return h->version == SEG_VERSION && h->size == size &&
	       at->ring_off >= sizeof *h && at->ring_off <= size &&
	       size - at->ring_off >= sizeof(struct ring) &&
	       at->cache_off >= at->ring_off + sizeof(struct ring) && at->cache_off <= size &&
	       size - at->cache_off >= sizeof(struct cache_shm) &&
	       at->ring_off % 64 == 0 && at->cache_off % 64 == 0;
}

/* Is c the head of a cache table that fits in the size - cache_off bytes
 * it has? Its figures are only shown, but a reader divides by them. */
static int sane_cache(const struct cache_shm *c, size_t size, const struct seg_layout *at)
{
	uint64_t nslots = c->nslots;

	return nslots >= 16 && (nslots & (nslots - 1)) == 0 &&
	       nslots <= (size - at->cache_off - sizeof *c) / sizeof(struct cache_entry) &&
	       c->capacity < nslots && c->count <= c->capacity;
}

int seg_check(const void *p, size_t size, struct seg_layout *at)
{
	if (size < sizeof(struct seg_header) || !sane_header(p, size, at))
		return -EPROTO;
	return sane_cache((const struct cache_shm *)((const char *)p + at->cache_off), size, at)
		       ? 0 : -EPROTO;
}

/* Map the segment open at fd (st its status), writable: what a worker
 * and the tests use. It must be sane. 0, -EPROTO or -errno. */
static int map_live(struct seg *seg, const struct stat *st)
{
	struct seg_layout at;
	void *p = mmap(NULL, (size_t)st->st_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		       seg->fd, 0);

	if (p == MAP_FAILED)
		return -errno;
	if (seg_check(p, (size_t)st->st_size, &at) < 0) {
		munmap(p, (size_t)st->st_size);
		return -EPROTO;
	}
	seg_point(seg, p, (size_t)st->st_size, &at);
	return 0;
}

/* The private copy a reader (--status, the exporter) looks at: the
 * header, the ring and the cache's head, read (a file cut short reads
 * short, where a mapping raised SIGBUS) and checked. 0, -EPROTO or
 * -ENOMEM. */
static int copy_of(struct seg *seg, const struct stat *st)
{
	size_t size = (size_t)st->st_size, ring = sizeof *seg->ring, cache = sizeof *seg->cache;
	struct seg_layout at, mine;
	char *p = aligned_alloc(4096, seg_lay_out(cache, &mine)); /* as a segment is */

	if (!p)
		return -ENOMEM;

	if (pread(seg->fd, p, sizeof *seg->hdr, 0) != (ssize_t)sizeof *seg->hdr ||
	    !sane_header((struct seg_header *)p, size, &at) ||
	    pread(seg->fd, p + mine.ring_off, ring, (off_t)at.ring_off) != (ssize_t)ring ||
	    pread(seg->fd, p + mine.cache_off, cache, (off_t)at.cache_off) != (ssize_t)cache ||
	    !sane_cache((struct cache_shm *)(p + mine.cache_off), size, &at)) {
		free(p);
		return -EPROTO;
	}
	seg_point(seg, p, size, &mine);
	seg->copy = 1;
	return 0;
}

/* Open the segment name: a private copy, or mapped writable when rw.
 * 0, -EPROTO or -errno. */
static int map(const char *name, int rw, struct seg *seg)
{
	struct stat st;
	int rc;

	memset(seg, 0, sizeof *seg);
	snprintf(seg->name, sizeof seg->name, "%s", name);
	seg->fd = open_ours(name, rw ? O_RDWR : O_RDONLY, &st);
	if (seg->fd < 0)
		return seg->fd;
	if (st.st_size < (off_t)sizeof(struct seg_header))
		rc = -EPROTO;
	else
		rc = rw ? map_live(seg, &st) : copy_of(seg, &st);
	if (rc < 0) {
		close(seg->fd);
		seg->fd = -1;
		return rc;
	}
	seg->alive = held(seg->fd);
	return 0;
}

int seg_map(const char *name, struct seg *seg)
{
	return map(name, 1, seg);
}

int seg_open(unsigned port, int rw, struct seg *seg)
{
	DIR *d = opendir(SHM_DIR);
	struct seg best = { .fd = -1 }, one;
	char name[64];
	int err = -ENOENT;

	if (!d)
		return -errno;
	while (next_of_port(d, port, name)) {
		int better, rc;

		if ((rc = map(name, rw, &one)) < 0) {
			err = rc; /* say why, if nothing better turns up */
			continue;
		}
		better = !best.hdr || one.alive > best.alive ||
			 (one.alive == best.alive && one.hdr->started_ns > best.hdr->started_ns);
		seg_close(better ? &best : &one);
		if (better)
			best = one;
	}
	closedir(d);
	if (!best.hdr)
		return err;
	*seg = best;
	return 0;
}

void seg_close(struct seg *seg)
{
	if (seg->hdr) {
		if (seg->copy)
			free(seg->hdr);
		else
			munmap(seg->hdr, seg->size);
		seg->hdr = NULL;
	}
	if (seg->fd >= 0)
		close(seg->fd); /* for the owner, releases the lock */
	seg->fd = -1;
	seg->owner = seg->copy = 0;
}

uint64_t hist_bound_ns(unsigned i)
{
	return UINT64_C(1000) << i;
}

uint64_t hist_count(const struct seg_hist *h)
{
	uint64_t n = 0;

	for (unsigned i = 0; i < HIST_BUCKETS; i++)
		n += h->n[i];
	return n;
}

uint64_t hist_at_most(const struct seg_hist *h, double q)
{
	uint64_t total = hist_count(h), seen = 0;

	if (!total)
		return 0;
	for (unsigned i = 0; i < HIST_BOUNDS; i++) {
		seen += h->n[i];
		if ((double)seen >= q * (double)total)
			return hist_bound_ns(i);
	}
	return UINT64_MAX;
}
