/* Calibration (see calibrate.h). A request whose range holds no answer
 * (its digest is that of the value just before it), at a random start no
 * cache knows, makes any server hash all of it before it may say 0,
 * whatever order it searches in. The fastest of a few timings counts. */
#include "bench/calibrate.h"
#include "lib/digest.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <sys/random.h>

#define CAL_REPEAT 2          /* then timed again; the fastest counts */
#define CAL_AIM 2.0           /* the next, larger one aims at this many
			       * times the length trusted */
#define CAL_ROUNDS 8
#define CAL_MAX (1ULL << 40)  /* hours of hashing: only a bug gets here */

uint64_t calibrate_next(uint64_t n, double secs, double enough_s,
			const struct calibrate_bound *b)
{
	double next = n;

	if (secs > 0)
		next = fmin(n * fmin(fmax(CAL_AIM * enough_s / secs, 2), 64), CAL_MAX);
	if (b && b->most_s > 0 && b->slowest > 0)
		next = fmin(next, b->slowest * b->most_s);
	return next >= 1 ? (uint64_t)next : 1;
}

/* Time one request for n values that hold no answer, at a random start
 * so that no cache can know it: the server must hash all n of them and
 * reply 0 (anything else is -EPROTO). Learn from it the slowest rate. */
static int timed(struct target *t, uint64_t n, struct calibrate_bound *b,
		 double *secs)
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
	if (!err && b && *secs > 0 && (!b->slowest || n / *secs < b->slowest))
		b->slowest = n / *secs;
	return err;
}

/* One timing, as an element of the calibration's array (o NULL: none). */
static void said(struct out *o, uint64_t n, double secs)
{
	if (!o)
		return;
	out_object(o, NULL);
	out_printf(o, "values seconds", "calibration: %" PRIu64 " values in %.3f s\n", n, secs);
	out_end(o);
}

/* The fastest timing counts: on a shared machine a slow sample says more
 * about the neighbours than about the server. A range that b keeps from
 * growing is as long as any will be: it is timed. */
int calibrate_rate(struct target *t, double enough_s, struct out *o,
		   struct calibrate_bound *b, double *rate)
{
	uint64_t n = calibrate_next(CALIBRATE_FIRST, 0, enough_s, b), next;
	double secs = 0, best;

	for (int round = 0;; round++) {
		int err = timed(t, n, b, &secs);

		if (err) {
			errno = -err;
			if (o)
				fprintf(stderr, "calibration (%" PRIu64
					" values): %m\n", n);
			return err;
		}
		said(o, n, secs);
		if (secs >= enough_s || round == CAL_ROUNDS - 1 || n >= CAL_MAX)
			break;
		if ((next = calibrate_next(n, secs, enough_s, b)) <= n)
			break;
		n = next;
	}
	best = secs;
	for (int again = 0; again < CAL_REPEAT; again++) {
		if (timed(t, n, b, &secs) == 0 && secs < best)
			best = secs;
		said(o, n, secs);
	}
	*rate = n / best;
	return 0;
}
