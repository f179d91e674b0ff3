/* Whether the race has the machine to itself: the share of every CPU's
 * time spent busy between two readings of /proc/stat, waited on before a
 * leg (the machine idle) and read after it (a server that keeps the CPUs
 * busy once its run is over); and the most its CPUs can hash, its peak.
 * The arithmetic is pure, so it is tested on text; only machine_read
 * and machine_peak touch the system. */
#ifndef REVHASH_BENCH_MACHINE_H
#define REVHASH_BENCH_MACHINE_H

#include <stddef.h>
#include <stdint.h>

/* The bounds, and why these: docs/race.md (The machine, Bounded probes). */
#define MACHINE_IDLE 0.15     /* of the machine busy over MACHINE_SETTLE_MS */
#define MACHINE_SETTLE_MS 300
#define MACHINE_SETTLE_S 5.0  /* the longest wait for it, by default */
#define MACHINE_AFTER_MS 500  /* the window read after a run */
#define MACHINE_KEPT_CPU 0.25 /* CPUs busier after a run than before it */
/* Others used more than this many CPUs during a run, and more than
 * MACHINE_OTHERS_SLACK ticks (each of its three readings rounds). */
#define MACHINE_OTHERS_CPU 0.25
#define MACHINE_OTHERS_SLACK 3
#define MACHINE_SPARE_CPU 0.5 /* idle, for a search under KEPT_CPU to be over */

/* The CPU time of the whole machine at one instant, in clock ticks. */
struct machine_cpu {
	uint64_t busy;  /* user, nice, system, irq, softirq, steal */
	uint64_t total; /* those, idle and iowait */
	unsigned cpus;  /* the cpuN lines */
};

/* Parse text, the contents of /proc/stat, into c. 0, or -EINVAL when its
 * first line is not the all-CPU "cpu" line. */
int machine_parse(const char *text, struct machine_cpu *c);
/* The busy share of the machine from a to b, 0 to 1; -1 when no time
 * passed or b is not after a. */
double machine_busy(const struct machine_cpu *a, const struct machine_cpu *b);
/* Did a server keep the CPUs busy after its run? before: the machine's
 * busy share just before its leg (0 unknown), after: right after its run,
 * on a machine of cpus CPUs. */
int machine_kept_busy(double before, double after, unsigned cpus);
/* The CPUs that ticks clock ticks of CPU time kept busy on average from
 * a to b (1.0: one CPU all the time); -1 when no time passed or the CPUs
 * are unknown. */
double machine_cpus_used(const struct machine_cpu *a, const struct machine_cpu *b,
			 uint64_t ticks);
/* What everything but own (the ticks of the server under test and of the
 * race) used from a to b: its CPUs on average into *others (-1: unknown,
 * and then the result is 0), and whether that makes the run one on a
 * shared machine (1) or not (0). */
int machine_others(const struct machine_cpu *a, const struct machine_cpu *b,
		   uint64_t own, double *others);
/* Read /proc/stat into c: 0, or -errno. */
int machine_read(struct machine_cpu *c);

/* The most hashes a second this machine's CPUs can do: revhash's fastest
 * kernel on one core (worker/kernel.h's calibration) times every CPU. A
 * run whose fresh requests took less than their hashing at that rate was
 * answered from memory, with no probe needed (docs/race.md: Runs faster
 * than hashing allows). A GPU is no CPU: with one here, there is none. */
struct machine_peak {
	double rate;        /* values per second; 0: none (a GPU) */
	double core;        /* one core's, with the kernel below */
	unsigned cpus;      /* the machine's, online */
	const char *kernel; /* revhash's fastest here, by name */
	char gpu[64];       /* the GPU's device file, where there is one */
};

/* Measure this machine's peak into pk (about 30 ms, once a process). */
void machine_peak(struct machine_peak *pk);
/* Whether the device folder dev (/dev) holds a GPU's device file:
 * nvidia0 and the like (CUDA), kfd (ROCm) or a dri/renderD* (any GPU a
 * program may compute on). 1 and its path into found, else 0. */
int machine_gpu_in(const char *dev, char *found, size_t size);

#endif
