/* The CPUs' idle states. Waking a sleeping CPU costs tens of microseconds,
 * several times a request; PM QoS (/dev/cpu_dma_latency, root only,
 * machine-wide) keeps them polling while asked. The master asks only while
 * searches are in flight and a grace period after: a client that only
 * connects, or hits the cache, does not take the CPUs. */
#ifndef REVHASH_POWER_H
#define REVHASH_POWER_H

#include <stdint.h>

#include "master/options.h"

/* What the master tells --status (seg_header.low_latency), and the name
 * --status gives it: XX(state, name). */
#define POWER_STATE_MAP(XX)                                                   \
	XX(OFF, "off")           /* off, or not permitted */                  \
	XX(RELEASED, "released") /* idle: the CPUs may sleep */               \
	XX(HELD, "held")         /* busy: the CPUs are held polling */

enum power_state {
#define XX(state, name) POWER_STATE_##state,
	POWER_STATE_MAP(XX)
#undef XX
	POWER_STATE_COUNT
};

struct power {
	int fd;              /* /dev/cpu_dma_latency, -1 when off */
	int held;
	int busy;            /* work was in flight at the last update */
	uint64_t grace_ms;   /* held this long after the last search */
	uint64_t busy_ms;    /* when work was last seen to end */
	uint64_t holds;      /* times it was taken */
};

/* Open the PM QoS device for mode (released at first): when permitted
 * (OPT_AUTO, quiet when not), asked for (OPT_ON, a warning when not), or
 * never (OPT_OFF). 0, or -errno when it cannot be had (logged; p->fd is
 * -1 and the server runs on). */
int power_init(struct power *p, enum opt_auto mode, uint64_t grace_ms);
/* Searches are in flight (busy) at now_ms or not: hold the CPUs, or let
 * them go grace_ms after the last. When to call again (UINT64_MAX: at the
 * next event). */
uint64_t power_update(struct power *p, int busy, uint64_t now_ms);
/* What it does now (enum power_state). */
enum power_state power_state(const struct power *p);
/* Let the CPUs go and close the device. */
void power_free(struct power *p);

#endif
