/* The optional config file, read at start and at every SIGHUP: a few
 * `key = value` lines (see options_set). */
#ifndef REVHASH_CONFIG_H
#define REVHASH_CONFIG_H

#include "master/options.h"

/* Read path into o. 0, or -errno / -EINVAL with the reason logged; o is
 * untouched on error. Only a regular file of at most CONFIG_MAX bytes is
 * read, and it is opened non-blocking, so neither a device that never ends
 * (/dev/zero) nor a FIFO without a writer can hold the master. */
int config_load(const char *path, struct options *o);

#define CONFIG_MAX 65536

#endif
