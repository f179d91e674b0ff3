/* A master's scoreboard in the Prometheus text format (version 0.0.4), for
 * the exporter revhash-metrics: the figures of master/status.c (counters
 * as counters, the rest as gauges, the words as labels of one info
 * metric), each worker's rate and hashes, the workers by kind, the
 * latency by outcome and the stage times as histograms, the score's sum
 * and count, and a cache hit's stages as a summary (sum and count). */
#ifndef REVHASH_METRICS_H
#define REVHASH_METRICS_H

#include <stddef.h>

/* Render the metrics of the master on port into a new buffer (*body, to
 * free; *len bytes): its segment mapped read-only for the time it takes,
 * or revhash_up 0 when no live master serves the port. 0 or -ENOMEM. */
int metrics_render(unsigned port, char **body, size_t *len);

#endif
