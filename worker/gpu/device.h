/* What the GPU worker (gpu_main.c) searches with: a CUDA device
 * (device_cuda.c), or the stand-in (device_standin.c), a CPU kernel behind
 * the same door, so that an exec'd worker's path is tested on any machine.
 * A device offers kernel variants; device_pick.c chooses one at start. */
#ifndef REVHASH_DEVICE_H
#define REVHASH_DEVICE_H

#include <stddef.h>

#include "lib/pick.h"
#include "worker/kernel.h"

#define DEVICE_NAME_LEN 64
/* A variant that lets go of a stopped lease later (sparse: 0.4 ms against
 * 12 us) is chosen only when this much faster than the best of the others:
 * within the noise of three 10 ms runs a faster stop is worth more. */
#define DEVICE_SLOW_STOP 0.05

/* The handicap of a variant whose threads hash halt_every values between
 * their reads of the candidate word (gpu_variant_halt_every). */
static inline double device_stop_handicap(unsigned halt_every)
{
	return halt_every > 1 ? DEVICE_SLOW_STOP : 0;
}

/* The devices there are; their names into names[0..max). */
int device_count(char names[][DEVICE_NAME_LEN], int max);

/* An opened device, as its worker serves with it. */
struct device {
	const struct kernel *kernel; /* the search chosen */
	const char *choice;    /* the device's name and what was chosen, how:
	                          "NVIDIA H100 80GB HBM3: fma (base 16.10, fma
	                          19.30 G hashes/s, measured in 180 ms)" */
	uint64_t rate;         /* the choice's measured rate, hashes/s; 0:
	                          forced by name */
	uint64_t lease_ns;     /* a lease's length, ns; 0: its kind's */
	uint64_t idle_poll_ms; /* how long after its last lease the worker
	                          polls for the next: a GPU's worker, with a
	                          CPU of its own, a second (a sleep cost it a
	                          wake-up from idle a lease); the stand-in on
	                          a shared CPU, 0 */
};

/* Open device index into *out and choose its kernel: name, when it names
 * one of the device's variants; the fastest by measurement for NULL,
 * "auto" or a CPU kernel's name (what the master passes). From then on,
 * wait for launches expected to take less than spin_ns by spinning,
 * awake, instead of sleeping on the device's event (a wake-up from idle).
 * 0; -EINVAL when name is none of these; another negative errno when the
 * device fails. Why, in err (errlen bytes). */
int device_open(int index, const char *name, uint64_t spin_ns, struct device *out, char *err,
		size_t errlen);

/* Choose among p's variants (p otherwise zeroed: their names, probe,
 * sample_ns, rounds and handicaps filled in; DEVICE_SLOW_STOP for one whose stops are slower):
 * want names one (forced), or, when want is NULL, "auto" or a CPU kernel's
 * name, measure the first measured of them, the others being taken by
 * name only (pick_measure: run(ctx, i, values) is the rate of variant i
 * searching that many values without the answer). 0, or -EINVAL when want
 * names none of these, and why in err: "unknown kernel X (this device's:
 * base, fma, ...; or auto)". */
int device_pick(struct pick *p, size_t measured, const char *want, pick_run_fn run, void *ctx,
		char *err, size_t len);

#endif
