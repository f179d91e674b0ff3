/* A master's scoreboard in the Prometheus text format (version 0.0.4), for
 * the exporter revhash-metrics: the rows of master/status.c, counters as
 * counters, the rest as gauges, the words as labels of one info metric,
 * the latency by outcome and the stage times as histograms, the means as
 * summaries. */
#ifndef REVHASH_METRICS_H
#define REVHASH_METRICS_H

#include "master/status.h"

#include <stddef.h>
#include <stdio.h>

/* The metrics of the rows st, revhash_up 1 first. */
void metrics_write(FILE *out, const struct status *st);
/* Render the metrics of the master on port into a new buffer (*body, to
 * free; *len bytes): its segment mapped read-only for the time it takes,
 * or revhash_up 0 when no live master serves the port. 0 or -ENOMEM. */
int metrics_render(unsigned port, char **body, size_t *len);

#endif
