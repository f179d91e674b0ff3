/* The --hook client: its names from the hooks' one list, and the arming. */
#include "master/hook.h"
#include "master/status.h"
#include "shm/ring_hook.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static const char *const names[HOOK_COUNT] = {
#define XX(hook, name) [HOOK_##hook] = name,
	RING_HOOK_MAP(XX)
#undef XX
};

int hook_parse(const char *s)
{
	for (int i = 0; i < HOOK_COUNT; i++)
		if (strcmp(s, names[i]) == 0)
			return i;
	return -1;
}

void hook_names(char *buf, size_t len)
{
	size_t at = 0;

	buf[0] = '\0';
	for (int i = 0; i < HOOK_COUNT && at < len; i++)
		at += (size_t)snprintf(buf + at, len - at, "%s%s",
				       !i ? "" : i + 1 < HOOK_COUNT ? ", " : " or ", names[i]);
}

int hook_arm(unsigned port, int hook)
{
	struct seg seg = { .fd = -1 };
	int rc = status_open("--hook", port, 1, &seg);

	if (rc == 0 && (rc = ring_arm_hook(seg.ring, (enum ring_hook)hook, 1)) < 0)
		fprintf(stderr, "master --hook: the master on port %u was started "
			"without REVHASH_TEST_HOOKS\n", port);
	seg_close(&seg);
	return rc;
}
