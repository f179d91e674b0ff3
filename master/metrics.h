/* A master's scoreboard in the Prometheus text format (version 0.0.4), for
 * the exporter revhash-metrics: the figures of master/status.c (counters
 * as counters, the rest as gauges, the words as labels of one info
 * metric), each worker's rate and hashes, the workers by kind, and the
 * stage times as summaries (sum and count). */
#ifndef REVHASH_METRICS_H
#define REVHASH_METRICS_H

#include <stdio.h>

#include "shm/segment.h"

/* Write the metrics of the master whose segment is seg (mapped, alive) to
 * out, revhash_up 1 first. */
void metrics_write(FILE *out, const struct seg *seg);
/* Write what is known without a master: revhash_up 0. */
void metrics_write_down(FILE *out, unsigned port);
/* Render the metrics of the master on port into a new buffer (*body, to
 * free; *len bytes): its segment mapped read-only for the time it takes,
 * or revhash_up 0 when no live master serves the port. 0 or -ENOMEM. */
int metrics_render(unsigned port, char **body, size_t *len);

#endif
