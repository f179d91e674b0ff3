/* The one shared segment: a versioned header, the ring (job table, worker
 * slots, lock, semaphore) and the answer cache, mapped by the master before
 * it forks, so every worker inherits the same mapping. Named after the port,
 * so `master --status PORT` and the tests can find it. */
#ifndef REVHASH_SEGMENT_H
#define REVHASH_SEGMENT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "shm/ring.h"
#include "shm/word.h"

#define SEG_MAGIC 0x31485652u /* "RVH1" */
#define SEG_VERSION 13
#define SEG_KINDS 4    /* worker kinds noted in the header (KINDS_MAX) */
#define SEG_STALE_S 60 /* a leftover of another port is swept after this */

/* Where the time of a request answered by a search goes, in order: from
 * accept to its last byte, to its job's entry, to a worker's first lease,
 * to the answer, to the master hearing of it, to the reply written. Summed
 * in ns over `timed` requests (a cache hit has only the first and the
 * last). XX(stage, name in --status and the exporter). */
#define SEG_STAGE_MAP(XX)                                                     \
	XX(READ, "read")                                                      \
	XX(DISPATCH, "dispatch")                                              \
	XX(WAKE, "wake")                                                      \
	XX(HASH, "hash")                                                      \
	XX(NOTIFY, "notify")                                                  \
	XX(REPLY, "reply")

enum seg_stage {
#define XX(stage, name) STAGE_##stage,
	SEG_STAGE_MAP(XX)
#undef XX
	STAGE_COUNT
};

struct seg_stages {
	uint64_t ns[STAGE_COUNT];
	uint64_t timed;
	uint64_t hit_read_ns, hit_reply_ns, hits_timed;
};

/* Times as histograms, which Prometheus reads quantiles from: bucket i
 * counts the times of at most 2^i us (i < HIST_BOUNDS: 1 us, a stage's
 * least, to 67 s, past a search of a minute), the last bucket the rest.
 * Each bound twice the one below: a quantile is read within a factor of 2
 * everywhere, and a time's bucket is one count of leading zeros
 * (hist_bucket). The counts are not cumulative. */
#define HIST_BOUNDS 27
#define HIST_BUCKETS (HIST_BOUNDS + 1)

struct seg_hist {
	uint64_t sum_ns;
	uint64_t n[HIST_BUCKETS];
};

/* What a reply told its client: an answer from the cache, one a search
 * found, or none in the range. XX(outcome, name in --status and the
 * exporter). */
#define SEG_OUTCOME_MAP(XX)                                                   \
	XX(CACHE_HIT, "cache_hit")                                            \
	XX(FOUND, "found")                                                    \
	XX(NOT_FOUND, "not_found")

enum seg_outcome {
#define XX(outcome, name) OUTCOME_##outcome,
	SEG_OUTCOME_MAP(XX)
#undef XX
	OUTCOME_COUNT
};

/* The master's latency: each connection answered, accept to reply's last
 * byte, by outcome; the stages; and the score, the latency in ns times
 * the priority (1..16) summed over the same replies. */
struct seg_latency {
	struct seg_hist reply[OUTCOME_COUNT];
	struct seg_hist stage[STAGE_COUNT];
	uint64_t score_ns;
};

/* The histograms' calls (segment.c): the master adds to them on its
 * request path, with no lock (it is their one writer: hist_add, in
 * segment_create.h), and `--status` and the exporter read them as they
 * are. Bucket i's upper bound in ns, i < HIST_BOUNDS: 2^i us. */
uint64_t hist_bound_ns(unsigned i);
/* Times in h: all its buckets' counts. */
uint64_t hist_count(const struct seg_hist *h);
/* The bound that at least the share q (0..1) of h's times are at most, in
 * ns: its bucket's upper bound, UINT64_MAX for the top bucket, 0 when h is
 * empty. */
uint64_t hist_at_most(const struct seg_hist *h, double q);

/* Counters the master keeps; they survive any worker's death. */
struct seg_stats {
	uint64_t accepted;     /* connections accepted */
	uint64_t requests;     /* complete requests read */
	uint64_t answered;     /* replies sent in full */
	uint64_t cache_hits;   /* answered from the cache */
	uint64_t attached;     /* attached to a job already in flight */
	uint64_t jobs;         /* jobs created */
	uint64_t not_found;    /* jobs whose range held no answer */
	uint64_t cancelled;    /* jobs dropped: every client gone */
	uint64_t parked;       /* jobs parked for a better one (table full) */
	uint64_t dropped;      /* connections closed early (timeout, error) */
	uint64_t timeouts;     /* of which: too slow to send or read */
	uint64_t worker_deaths;
	uint64_t stalls;       /* of which: killed for making no progress */
	uint64_t respawns;     /* workers started in place of dead ones */
	uint64_t reloads;
	uint64_t dead_hashes;  /* hashes done by workers that have exited */
	uint64_t dead_chunks;
	uint64_t wakeups;      /* times the master's loop woke with events */
	uint64_t wrong_answers; /* answers a worker reported that were none */
	uint64_t refused_full;  /* connections over the master's cap */
	uint64_t refused_peer_conns;    /* over their peer's connection cap */
	uint64_t refused_peer_searches; /* requests over their peer's search cap */
	uint64_t expired;      /* waited past --max-wait: closed unanswered */
	struct seg_stages stages;
	struct seg_latency latency;
};

/* What the master found of a kind of worker (worker/kind.h). */
struct seg_kind {
	char note[96];         /* its units' names, "off", or why none */
	uint32_t n;            /* workers of it the master runs */
	uint32_t pad;
};

struct seg_header {
	uint32_t magic;
	uint32_t version;
	uint64_t size;         /* bytes of the whole segment */
	int32_t master_pid;
	uint32_t port;
	uint32_t workers;      /* the CPU worker count the master aims for,
	                          shown (its own record: master/workers.c) */
	uint32_t cpus;         /* CPUs the master may run on */
	uint64_t ring_off;
	uint64_t cache_off;
	uint64_t started_ns;   /* CLOCK_REALTIME at start */
	uint64_t alive_ns;     /* clock_ns() of the master's last loop turn:
	                          how long a leftover has been one */
	char kernel[16];       /* search kernel in use */
	struct seg_kind kinds[SEG_KINDS];
	uint32_t low_latency;  /* enum power_state (master/power.h) */
	uint32_t pad;
	uint64_t low_latency_holds; /* times the CPUs were held polling */
	struct seg_stats stats;
};

/* --status of another build reads it too: the sizes are fixed, and checked. */
_Static_assert(sizeof(struct seg_stages) == 8 * (STAGE_COUNT + 4), "stages");
_Static_assert(sizeof(struct seg_latency) ==
	       8 * ((OUTCOME_COUNT + STAGE_COUNT) * (HIST_BUCKETS + 1) + 1), "latency");
_Static_assert(sizeof(struct seg_stats) % 8 == 0, "stats");
_Static_assert(sizeof(struct seg_header) % 8 == 0, "header");
_Static_assert(sizeof(struct seg_header) <= 4096, "header in its first page");
/* The names are written a word at a time (seg_show_name). */
_Static_assert(offsetof(struct seg_header, kernel) % 8 == 0 &&
	       sizeof(((struct seg_header *)0)->kernel) % 8 == 0 &&
	       offsetof(struct seg_header, kinds) % 8 == 0 &&
	       sizeof(struct seg_kind) % 8 == 0, "names in whole words");

/* The answer cache's table (shm/cache.h: the master's calls on it). */
struct cache_entry {
	uint64_t hash;   /* the digest's keyed hash */
	uint64_t answer;
	uint32_t used;
	uint32_t ref;    /* clock's second-chance bit */
};

/* The cache's part of the segment: the figures --status shows (the master
 * writes them and never reads them back) and the table. */
struct cache_shm {
	uint64_t nslots;   /* a power of two */
	uint64_t capacity; /* answers held at most (under 3/4 of nslots) */
	uint64_t count;
	uint64_t hits, misses, evictions;
	struct cache_entry slots[];
};

/* Where a segment's ring and cache lie: offsets from its start. */
struct seg_layout {
	uint64_t ring_off, cache_off;
};

/* A mapping of the segment in this process, or a private copy of it. */
struct seg {
	struct seg_header *hdr;
	struct ring *ring;
	struct cache_shm *cache;
	size_t size;
	char name[64];  /* /revhash-PORT-PID */
	int fd;         /* kept open: the owner's lock lives on it */
	int owner;      /* this process created it and removes it */
	int alive;      /* (seg_open) its master holds it: it runs */
	int copy;       /* hdr is a private copy (read, not mapped): the
	                   header, the ring and the cache's head only */
	struct seg_header own; /* the owner's: its header as laid out (the
	                          words seg_restore_header puts back) */
	uint64_t cache_nslots, cache_capacity; /* ... and its cache's head */
};

/* Remove the segments that no live master holds: of port at once, of any
 * other port once they have been left over for SEG_STALE_S; say so for
 * port's own live ones (a master draining or starting). seg_create's,
 * kept beside seg_open, whose finding of segments it shares. */
void seg_sweep(unsigned port);
/* Lay out a segment whose cache takes cache_bytes: the header, the ring
 * and the cache, each on pages of its own. Its size. */
size_t seg_lay_out(size_t cache_bytes, struct seg_layout *at);
/* Point seg's views at the segment of size bytes at p, by the offsets at
 * (checked, or its own). */
void seg_point(struct seg *seg, void *p, size_t size, const struct seg_layout *at);
/* Can every offset and size of the segment of size bytes at p be
 * trusted? 0 and the offsets it checked (the ones to use) in *at, or
 * -EPROTO. */
int seg_check(const void *p, size_t size, struct seg_layout *at);
/* Open the segment of the master on port: a live master's before a
 * leftover (seg->alive), the newest of either. Mapped writable when rw
 * (the tests, --hook), else a private copy of its header, ring and cache
 * head (seg->copy). 0, -ENOENT, -EPROTO (not a sane segment) or -errno. */
int seg_open(unsigned port, int rw, struct seg *seg);
/* Map the segment called name (seg->name), writable: an exec'd worker's
 * of its master. 0, -EPROTO or -errno. */
int seg_map(const char *name, struct seg *seg);
/* Unmap and close (the owner's segment: seg_remove, segment_create.h). */
void seg_close(struct seg *seg);

#endif
