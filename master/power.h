/* The CPUs' idle states. Between small requests the CPUs of an idle machine
 * sleep, and waking them (a halted virtual CPU most of all) costs tens to
 * hundreds of microseconds per request; the kernel's PM QoS interface can
 * keep them polling instead, for the whole machine, as long as a process
 * holds it. */
#ifndef REVHASH_POWER_H
#define REVHASH_POWER_H

/* Hold every CPU out of deep idle for as long as the returned descriptor is
 * open (/dev/cpu_dma_latency at 0; root only). The descriptor, or -errno
 * (logged: the server runs on, with slower wake-ups). */
int power_low_latency(void);

#endif
