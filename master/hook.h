/* master --hook NAME [PORT]: the tests' client that arms a fault hook
 * (shm/ring.h's RING_HOOK_MAP) in a running master started with
 * REVHASH_TEST_HOOKS=1. */
#ifndef REVHASH_HOOK_H
#define REVHASH_HOOK_H

#include <stddef.h>

/* The hook named s (enum ring_hook), or -1. */
int hook_parse(const char *s);
/* The hooks' names, "a, b or c", into buf (truncated to len). */
void hook_names(char *buf, size_t len);
/* Arm hook once in the master on port. 0, -ENOENT (no master), or -EPERM
 * (started without REVHASH_TEST_HOOKS); said on stderr. */
int hook_arm(unsigned port, int hook);

#endif
