/* The test hooks: armed in the segment (a count each, RING_HOOK_MAP), a
 * worker misbehaves where one fires. They ship in every build (why, and
 * their cost: docs/testing.md), behind this process's own switch:
 * REVHASH_TEST_HOOKS in its environment, read once; a forked worker
 * inherits the master's. The segment's word only shows the master's
 * switch, so that --hook can refuse a master without it. */
#ifndef REVHASH_RING_HOOK_H
#define REVHASH_RING_HOOK_H

#include "shm/ring.h"

/* Turn this process's switch on or off (the tests, the fuzzer): where
 * never called, REVHASH_TEST_HOOKS in the environment says. */
void ring_hooks_here(int on);
/* Show this process's switch in r (ring_init: the master's). */
void ring_hooks_show(struct ring *r);
/* Take one arming of a hook: 1 when the caller should misbehave (this
 * process's switch is on, and the hook was armed). */
int ring_hook_fire(struct ring *r, enum ring_hook hook);
/* Arm a hook n more times; -EPERM when r's master has hooks off. */
int ring_arm_hook(struct ring *r, enum ring_hook hook, unsigned n);
/* How many times a hook is still armed. */
unsigned ring_hook_armed(const struct ring *r, enum ring_hook hook);

#endif
