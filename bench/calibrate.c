/* Calibration: the server's hash rate, timed from outside. A request whose
 * range holds no answer (its digest is that of the value just before it),
 * at a random start no cache can know, makes the server hash all of it
 * before it may say 0, whatever order it searches in: an answer at the
 * range's end would be found early by a server that cuts the range into
 * parts side by side, or searches from the top. The range grows until one
 * request takes long enough to trust, and the fastest of a few timings
 * counts. */
#include "bench/calibrate.h"
#include "lib/digest.h"
#include "proto/proto.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <sys/random.h>

#define CAL_FIRST 2000000     /* values in the first calibration request */
#define CAL_REPEAT 2          /* then timed again; the fastest counts */
#define CAL_AIM 2.0           /* the next, larger one aims at this many
			       * times the length trusted */
#define CAL_ROUNDS 8
#define CAL_MAX (1ULL << 40)  /* hours of hashing: only a bug gets here */

/* Time one request for n values that hold no answer, at a random start
 * so that no cache can know it: the server must hash all n of them and
 * reply 0 (anything else is -EPROTO). */
static int time_full_range(struct target *t, uint64_t n, double *secs)
{
	struct wl_request q = { .priority = 1, .copy_of = -1, .answer = 0 };
	uint64_t reply = 0;
	int64_t begin, end;
	int err;

	if (getrandom(&q.start, sizeof q.start, 0) != sizeof q.start)
		return -errno;
	q.start = q.start >> 2 | 1; /* room for any n up to CAL_MAX, and below */
	q.end = q.start + n - 1;
	digest_of(q.start - 1, q.digest);
	err = client_exchange(t, &q, &reply, &begin, &end);
	if (!err && reply != 0)
		err = -EPROTO;
	*secs = (end - begin) / 1e9;
	return err;
}

/* Grow the range until one request takes enough_s, then time that size
 * CAL_REPEAT times more and keep the fastest: on a shared machine a slow
 * sample says more about the neighbours than about the server. */
int calibrate_rate(struct target *t, double enough_s, int verbose,
		   double *rate)
{
	uint64_t n = CAL_FIRST;
	double secs = 0, best;

	for (int round = 0; round < CAL_ROUNDS + CAL_REPEAT; round++) {
		int err = time_full_range(t, n, &secs);

		if (err) {
			errno = -err;
			if (verbose)
				fprintf(stderr, "calibration (%" PRIu64
					" values): %m\n", n);
			return err;
		}
		if (verbose)
			printf("calibration: %" PRIu64 " values in %.3f s\n", n, secs);
		if (secs >= enough_s || round >= CAL_ROUNDS - 1 || n >= CAL_MAX)
			break;
		n = (uint64_t)fmin(n * fmin(fmax(CAL_AIM * enough_s / secs, 2), 64),
				   CAL_MAX);
	}
	best = secs;
	for (int again = 0; again < CAL_REPEAT; again++) {
		if (time_full_range(t, n, &secs) == 0 && secs < best)
			best = secs;
		if (verbose)
			printf("calibration: %" PRIu64 " values in %.3f s\n", n, secs);
	}
	*rate = n / best;
	return 0;
}
