/* Finding, mapping and removing shared segments; a new one is made in
 * segment_create.c, by the master alone (which is why the processes that
 * only read one, as the exporter, link neither the cache nor OpenSSL).
 *
 * Each master's segment is its own: /revhash-PORT-PID, on which it holds an
 * exclusive flock for as long as it lives. The lock is the proof of life:
 * the kernel drops it when the master and its workers (whose mappings of
 * the segment hold the same open file) are gone, however they die, and a
 * reused pid cannot inherit it. So a starting master removes only segments nobody
 * holds (left by killed masters: each takes 52 MB of RAM in /dev/shm) and
 * never one of a master still draining its last requests; each master
 * unlinks only its own name; and `--status` can tell a live master from a
 * leftover. A leftover of the starting master's own port goes at once (it
 * is the one a restart replaces); one of another port only once it has
 * been a leftover for SEG_STALE_S, by the time its master last marked
 * itself alive in it: until then someone may still be looking at it (an
 * operator's --status, a test), and another service's start must not
 * take it from under them. Every mapping is checked (sane()) before any
 * offset in it is used: anyone may write a file in /dev/shm. */
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

/* Has the leftover segment open at fd (st its status) been one for
 * SEG_STALE_S? Its master marked itself alive in it at every turn of its
 * loop; a segment of another version (or a damaged one) says nothing,
 * and counts as old. */
static int long_dead(int fd, const struct stat *st)
{
	const struct seg_header *h;
	uint64_t alive, now = clock_ns();

	if (st->st_size < (off_t)sizeof *h ||
	    (h = mmap(NULL, sizeof *h, PROT_READ, MAP_SHARED, fd, 0)) == MAP_FAILED)
		return 1;
	alive = h->magic == SEG_MAGIC && h->version == SEG_VERSION ? h->alive_ns : 0;
	munmap((void *)h, sizeof *h);
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
		} else if ((mine || long_dead(fd, &st)) && shm_unlink(name) == 0) {
			log_info("removed stale shared segment %s", name);
		}
		close(fd);
	}
	closedir(d);
}

void seg_point(struct seg *seg, void *p, size_t size)
{
	seg->hdr = p;
	seg->ring = (struct ring *)((char *)p + seg->hdr->ring_off);
	seg->cache = (struct cache_shm *)((char *)p + seg->hdr->cache_off);
	seg->size = size;
}

/* Is the mapping of size bytes at p a segment whose every offset and size
 * can be trusted? */
static int sane(const void *p, size_t size)
{
	const struct seg_header *h = p;
	const struct cache_shm *c;

	/* The magic first, acquired: its creator stores it last, released
	 * (segment_create.c), so a segment still being laid out reads as
	 * none, on any CPU, never as one with its offsets yet to come. */
	if (size < sizeof *h || __atomic_load_n(&h->magic, __ATOMIC_ACQUIRE) != SEG_MAGIC ||
	    h->version != SEG_VERSION || h->size != size)
		return 0;
	if (h->ring_off < sizeof *h || h->ring_off > size ||
	    size - h->ring_off < sizeof(struct ring) ||
	    h->cache_off < h->ring_off + sizeof(struct ring) || h->cache_off > size ||
	    size - h->cache_off < sizeof(struct cache_shm) ||
	    h->ring_off % 64 || h->cache_off % 64)
		return 0;
	c = (const struct cache_shm *)((const char *)p + h->cache_off);
	return c->nslots >= 16 && (c->nslots & (c->nslots - 1)) == 0 &&
	       c->nslots <= (size - h->cache_off - sizeof *c) / sizeof(struct cache_entry) &&
	       c->capacity < c->nslots && c->count <= c->capacity;
}

/* Map the segment name; it must be sane. 0, -EPROTO or -errno. */
static int map(const char *name, int rw, struct seg *seg)
{
	struct stat st;
	void *p;
	int rc;

	memset(seg, 0, sizeof *seg);
	snprintf(seg->name, sizeof seg->name, "%s", name);
	seg->fd = open_ours(name, rw ? O_RDWR : O_RDONLY, &st);
	if (seg->fd < 0)
		return seg->fd;
	if (st.st_size < (off_t)sizeof(struct seg_header)) {
		rc = -EPROTO;
		goto fail;
	}
	p = mmap(NULL, (size_t)st.st_size, PROT_READ | (rw ? PROT_WRITE : 0),
		 MAP_SHARED, seg->fd, 0);
	if (p == MAP_FAILED) {
		rc = -errno;
		goto fail;
	}
	if (!sane(p, (size_t)st.st_size)) {
		munmap(p, (size_t)st.st_size);
		rc = -EPROTO;
		goto fail;
	}
	seg_point(seg, p, (size_t)st.st_size);
	seg->alive = held(seg->fd);
	return 0;
fail:
	close(seg->fd);
	seg->fd = -1;
	return rc;
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
		/* A live master before a leftover; the newest of either. */
		better = !best.hdr || one.alive > best.alive ||
			 (one.alive == best.alive && one.hdr->started_ns > best.hdr->started_ns);
		if (better) {
			seg_close(&best);
			best = one;
		} else {
			seg_close(&one);
		}
	}
	closedir(d);
	if (!best.hdr)
		return err;
	*seg = best;
	return 0;
}

void seg_alive(struct seg *seg)
{
	__atomic_store_n(&seg->hdr->alive_ns, clock_ns(), __ATOMIC_RELAXED);
}

void seg_close(struct seg *seg)
{
	if (seg->hdr) {
		if (seg->owner)
			ring_free(seg->ring);
		munmap(seg->hdr, seg->size);
		seg->hdr = NULL;
	}
	if (seg->owner && seg->name[0])
		shm_unlink(seg->name); /* our own name: nobody else's */
	if (seg->fd >= 0)
		close(seg->fd); /* for the owner, releases the lock */
	seg->fd = -1;
	seg->owner = 0;
}

struct seg *seg_view(const struct seg *seg, struct seg_header *copy, struct seg *view)
{
	shm_copy_in(copy, seg->hdr, sizeof *copy);
	*view = *seg;
	view->hdr = copy;
	return view;
}

void seg_show_name(char *dst, size_t size, const char *src)
{
	char name[128] = { 0 };

	if (size > sizeof name)
		size = sizeof name;
	snprintf(name, size, "%s", src);
	shm_copy_out(dst, name, size);
}
