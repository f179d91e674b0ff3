/* Histograms of times in the shared segment (struct seg_hist): the master
 * adds to them on its request path, with no lock (it is their one writer),
 * and `--status` and the exporter read them as they are. */
#ifndef REVHASH_HIST_H
#define REVHASH_HIST_H

#include <stdint.h>

#include "shm/segment.h"

/* The bucket of a time of ns: the least i with ns <= hist_bound_ns(i), or
 * HIST_BOUNDS for a time above them all. */
unsigned hist_bucket(uint64_t ns);
/* Bucket i's upper bound in ns, i < HIST_BOUNDS: 2^i us. */
uint64_t hist_bound_ns(unsigned i);
/* Add a time of ns to h. */
void hist_add(struct seg_hist *h, uint64_t ns);
/* Times in h: all its buckets' counts. */
uint64_t hist_count(const struct seg_hist *h);
/* The bound that at least the share q (0..1) of h's times are at most, in
 * ns: its bucket's upper bound, UINT64_MAX for the top bucket, 0 when h is
 * empty. */
uint64_t hist_at_most(const struct seg_hist *h, double q);
/* A reply told its client outcome (enum seg_outcome), ns after its accept,
 * for a request of priority prio: into its histogram and the score. */
void hist_reply(struct seg_latency *l, unsigned outcome, unsigned prio, uint64_t ns);

#endif
