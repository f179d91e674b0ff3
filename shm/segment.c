/* Creating, finding and removing the shared segment. The name is derived
 * from the port: one master per port is all the kernel allows, so once the
 * port is bound, a segment under our name is stale and may be removed. */
#include "shm/segment.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static void seg_name(unsigned port, char *buf, size_t len)
{
	snprintf(buf, len, "/revhash-%u", port);
}

static size_t align_up(size_t n)
{
	return (n + 4095) & ~(size_t)4095;
}

/* Remove a segment left under our name. The caller has bound the port, so
 * no live master owns it: its master died without cleaning up (and its pid
 * may since have been reused, so the pid says nothing). */
static int remove_stale(const char *name)
{
	if (shm_unlink(name) == 0) {
		fprintf(stderr, "removed stale shared segment %s\n", name);
		return 0;
	}
	return errno == ENOENT ? 0 : -errno;
}

int seg_create(unsigned port, uint64_t cache_entries,
	       const struct rank_policy *policy, struct seg *seg)
{
	size_t ring_off = align_up(sizeof(struct seg_header));
	size_t cache_off = ring_off + align_up(sizeof(struct ring));
	size_t size = cache_off + align_up(cache_bytes(cache_entries));
	struct timespec now;
	void *p;
	int fd, rc;

	memset(seg, 0, sizeof *seg);
	seg_name(port, seg->name, sizeof seg->name);
	if ((rc = remove_stale(seg->name)) < 0)
		return rc;
	fd = shm_open(seg->name, O_RDWR | O_CREAT | O_EXCL, 0600);
	if (fd < 0)
		return -errno;
	/* Reserve the memory now: a tmpfs too small must fail here with a
	 * clear error, not later with SIGBUS in the middle of serving. */
	rc = ftruncate(fd, (off_t)size) < 0 ? errno : posix_fallocate(fd, 0, (off_t)size);
	if (rc) {
		close(fd);
		shm_unlink(seg->name);
		return -rc;
	}
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	rc = -errno;
	close(fd);
	if (p == MAP_FAILED) {
		shm_unlink(seg->name);
		return rc;
	}
	seg->hdr = p;
	seg->ring = (struct ring *)((char *)p + ring_off);
	seg->cache = (struct cache *)((char *)p + cache_off);
	seg->size = size;
	seg->owner = 1;
	if ((rc = ring_init(seg->ring, policy)) < 0) {
		munmap(p, size);
		shm_unlink(seg->name);
		return rc;
	}
	cache_init(seg->cache, cache_entries);
	clock_gettime(CLOCK_REALTIME, &now);
	seg->hdr->size = size;
	seg->hdr->master_pid = getpid();
	seg->hdr->port = port;
	seg->hdr->ring_off = ring_off;
	seg->hdr->cache_off = cache_off;
	seg->hdr->started_ns = (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
	seg->hdr->version = SEG_VERSION;
	__atomic_store_n(&seg->hdr->magic, SEG_MAGIC, __ATOMIC_RELEASE);
	return 0;
}

int seg_open(unsigned port, int rw, struct seg *seg)
{
	struct stat st;
	void *p;
	int fd, rc;

	memset(seg, 0, sizeof *seg);
	seg_name(port, seg->name, sizeof seg->name);
	fd = shm_open(seg->name, rw ? O_RDWR : O_RDONLY, 0);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || (size_t)st.st_size < sizeof(struct seg_header)) {
		close(fd);
		return -EPROTO;
	}
	p = mmap(NULL, (size_t)st.st_size, PROT_READ | (rw ? PROT_WRITE : 0),
		 MAP_SHARED, fd, 0);
	rc = -errno;
	close(fd);
	if (p == MAP_FAILED)
		return rc;
	seg->hdr = p;
	seg->size = (size_t)st.st_size;
	if (seg->hdr->magic != SEG_MAGIC || seg->hdr->version != SEG_VERSION ||
	    seg->hdr->size != seg->size) {
		munmap(p, seg->size);
		return -EPROTO;
	}
	seg->ring = (struct ring *)((char *)p + seg->hdr->ring_off);
	seg->cache = (struct cache *)((char *)p + seg->hdr->cache_off);
	return 0;
}

void seg_close(struct seg *seg)
{
	if (!seg->hdr)
		return;
	if (seg->owner) {
		ring_free(seg->ring);
		shm_unlink(seg->name);
	}
	munmap(seg->hdr, seg->size);
	seg->hdr = NULL;
}
