/* The owner's calls on its segment (segment_create.c): only the master,
 * which makes the segment, includes this. */
#ifndef REVHASH_SEGMENT_CREATE_H
#define REVHASH_SEGMENT_CREATE_H

#include "shm/segment.h"

/* Create this process's segment for port with room for cache_entries
 * answers, locked for as long as it lives, the leftovers swept first.
 * 0 or -errno (the failing call logged). */
int seg_create(unsigned port, uint64_t cache_entries, const struct policy *policy,
	       struct seg *seg);
/* Unmap and remove the segment seg_create made: its ring's lock and
 * semaphores released, its name unlinked, then its lock (seg_close). */
void seg_remove(struct seg *seg);
/* Guard the master's own mapping of seg: a SIGBUS there (the file cut
 * short by any process of our user) gives the file its size back and the
 * access reads zeros; seg_cut_short() counts them. 0 or -errno. */
int seg_guard(const struct seg *seg);
/* Times the guarded mapping was found cut short and given its size back. */
unsigned seg_cut_short(void);
/* The owner puts back the header's (and the cache head's) words that say
 * what the segment is and where its parts lie, where a worker wrote over
 * them. The number of words put back. */
int seg_restore_header(struct seg *seg);
/* The bucket of a time of ns: the least i with ns <= hist_bound_ns(i),
 * or HIST_BOUNDS for a time above them all. */
unsigned hist_bucket(uint64_t ns);
/* Add a time of ns to h. */
void hist_add(struct seg_hist *h, uint64_t ns);
/* Write the name src into a name of the header, dst of size bytes (a
 * multiple of 8): cut to fit, ended by a NUL, a word at a time. */
void seg_show_name(char *dst, size_t size, const char *src);

#endif
