/* The CPUs' idle states. Between small requests the CPUs of an idle machine
 * sleep, and waking them (a halted virtual CPU most of all) costs tens of
 * microseconds per wake-up, several per request; the kernel's PM QoS
 * interface (/dev/cpu_dma_latency, root only, machine-wide) can keep them
 * polling instead while a process asks for it. The master asks only while it
 * is busy: from the first search handed to the workers until none has been
 * in flight for a grace period, so that the gaps between the requests of a
 * run are spent polling and an idle server lets the CPUs sleep. A client
 * that only connects, or trickles its bytes, or asks what the cache holds,
 * does not take the CPUs. */
#ifndef REVHASH_POWER_H
#define REVHASH_POWER_H

#include <stdint.h>

enum power_mode {
	POWER_AUTO = 0, /* when permitted (the default); quiet when not */
	POWER_ON,       /* asked for: a warning when not permitted */
	POWER_OFF       /* never */
};

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

/* Open the PM QoS device for mode (released at first). 0, or -errno when
 * mode is not off and it cannot be had (logged; the server runs on with
 * slower wake-ups and p->fd at -1). */
int power_init(struct power *p, enum power_mode mode, uint64_t grace_ms);
/* Tell whether searches are in flight at now_ms: hold the CPUs as they
 * start, let them go grace_ms after the last has ended. Returns when it
 * must be called again (UINT64_MAX: only on the next event). */
uint64_t power_update(struct power *p, int busy, uint64_t now_ms);
/* What it does now (enum power_state). */
enum power_state power_state(const struct power *p);
/* Let the CPUs go and close the device. */
void power_free(struct power *p);

#endif
