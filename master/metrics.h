/* A master's scoreboard in the Prometheus text format (0.0.4), for the
 * exporter revhash-metrics: the third writer of status.c's rows. */
#ifndef REVHASH_METRICS_H
#define REVHASH_METRICS_H

#include "master/status.h"

#include <stddef.h>
#include <stdio.h>

/* The metrics of the rows st, revhash_up 1 first. */
void metrics_write(FILE *out, const struct status *st);
/* The metrics of the master on port into a new buffer (*body, to free;
 * *len bytes), or revhash_up 0 when none serves it. 0 or -ENOMEM. */
int metrics_render(unsigned port, char **body, size_t *len);

#endif
