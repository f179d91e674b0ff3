/* PM QoS (see power.h): one request per open file, 0 holds every CPU
 * polling, the default (2000 s) frees them. Only the edges write; the
 * hold is taken after the search is handed to the workers, never on its
 * way. The grace counts from the first update that finds nothing in
 * flight (the loop may have slept since the last that found some). */
#include "master/power.h"
#include "lib/log.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#define QOS_DEVICE "/dev/cpu_dma_latency"
#define QOS_HOLD 0
#define QOS_RELEASE 2000000000 /* the kernel's default: no constraint */

/* Ask the kernel for a latency of us on fd. 0 or -errno. */
static int put(int fd, int32_t us)
{
	return write(fd, &us, sizeof us) == (ssize_t)sizeof us ? 0 : -errno;
}

/* put() while serving: a device that fails turns the hold off for good. */
static int ask(struct power *p, int32_t us)
{
	int rc = put(p->fd, us);

	if (rc < 0) {
		log_warn("write(%s): %s; low latency off", QOS_DEVICE, strerror(-rc));
		power_free(p);
	}
	return rc;
}

int power_init(struct power *p, enum opt_auto mode, uint64_t grace_ms)
{
	int err;

	*p = (struct power){ .fd = -1, .grace_ms = grace_ms };
	if (mode == OPT_OFF)
		return 0;
	p->fd = open(QOS_DEVICE, O_WRONLY | O_CLOEXEC);
	err = p->fd < 0 ? -errno : put(p->fd, QOS_RELEASE);
	if (err == 0) {
		log_info("low latency: CPUs held polling while busy and %.3g s after",
			 (double)grace_ms / 1000);
		return 0;
	}
	power_free(p);
	if (mode == OPT_ON)
		log_warn("--low-latency: %s: %s; CPUs may idle deeply", QOS_DEVICE,
			 strerror(-err));
	else
		log_info("low latency off: %s: %s", QOS_DEVICE, strerror(-err));
	return err;
}

uint64_t power_update(struct power *p, int busy, uint64_t now_ms)
{
	if (p->fd < 0)
		return UINT64_MAX;
	if (busy) {
		p->busy = 1;
		if (!p->held && ask(p, QOS_HOLD) == 0) {
			p->held = 1;
			p->holds++;
		}
		return UINT64_MAX;
	}
	if (p->busy) {
		p->busy = 0;
		p->busy_ms = now_ms;
	}
	if (p->held && now_ms - p->busy_ms >= p->grace_ms && ask(p, QOS_RELEASE) == 0)
		p->held = 0;
	return p->held ? p->busy_ms + p->grace_ms : UINT64_MAX;
}

enum power_state power_state(const struct power *p)
{
	return p->fd < 0 ? POWER_STATE_OFF :
	       p->held ? POWER_STATE_HELD : POWER_STATE_RELEASED;
}

void power_free(struct power *p)
{
	if (p->fd >= 0)
		close(p->fd);
	p->fd = -1;
	p->held = 0;
}
