/* The test hooks: armed in the segment (a count each, RING_HOOK_MAP), a
 * worker misbehaves where one fires. They ship in every build (why, and
 * their cost: docs/testing.md), behind this process's own switch:
 * REVHASH_TEST_HOOKS in its environment, read once; a forked worker
 * inherits the master's. The switch is never the segment's word (one
 * random store there once armed a hook that killed every worker at its
 * start, for ever), which only shows the master's, so that --hook can
 * refuse a master without it. */
#include "shm/ring_job.h"
#include "shm/ring_master.h"
#include "shm/ring_worker.h"

#include <errno.h>
#include <stdlib.h>

static int allowed = -1; /* this process's switch; -1: not read yet */

static int hooks_allowed(void)
{
	if (allowed < 0)
		allowed = getenv("REVHASH_TEST_HOOKS") != NULL;
	return allowed;
}

void ring_hooks_here(int on)
{
	allowed = on != 0;
}

void ring_hooks_show(struct ring *r)
{
	publish(r->hooks, (uint32_t)hooks_allowed());
}

int ring_hook_fire(struct ring *r, enum ring_hook hook)
{
	uint32_t n;

	if (!hooks_allowed())
		return 0;
	n = peek(r->hook[hook]);
	while (n && !__atomic_compare_exchange_n(&r->hook[hook], &n, n - 1, 0,
						 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		;
	return n != 0;
}

int ring_arm_hook(struct ring *r, enum ring_hook hook, unsigned n)
{
	if (!peek(r->hooks) || hook >= HOOK_COUNT)
		return -EPERM;
	__atomic_fetch_add(&r->hook[hook], n, __ATOMIC_ACQ_REL);
	return 0;
}

unsigned ring_hook_armed(const struct ring *r, enum ring_hook hook)
{
	return hook < HOOK_COUNT ? peek(r->hook[hook]) : 0;
}
