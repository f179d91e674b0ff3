/* The optional config file, read at start and at every SIGHUP: `key =
 * value` lines, each handed to a setter (options.c knows the keys). Only a
 * regular file of at most CONFIG_MAX bytes is read, opened non-blocking:
 * neither /dev/zero nor a FIFO without a writer can hold the master. */
#ifndef REVHASH_CONFIG_H
#define REVHASH_CONFIG_H

#define CONFIG_MAX 65536

/* Set key to value: 0, -ENOENT for an unknown key, -EINVAL for a bad
 * value. */
typedef int (*config_set_fn)(void *ctx, const char *key, const char *value);

/* Hand every `key = value` line of path to set. 0, or -errno / -EINVAL
 * logged (file and line); lines before a bad one have been set. */
int config_read(const char *path, config_set_fn set, void *ctx);

#endif
