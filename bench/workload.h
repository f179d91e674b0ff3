/* The public client's workload, reproduced request for request: the same
 * seed gives the same digests, ranges, repeats and priorities, so a bench
 * run can be compared with what the graders' client would send. */
#ifndef REVHASH_WORKLOAD_H
#define REVHASH_WORKLOAD_H

#include <stdint.h>

/* The public client's positional parameters (HOST and PORT aside). */
struct wl_params {
	uint64_t seed;       /* passed to srand() */
	uint64_t total;      /* number of requests */
	uint64_t start;      /* 0: random start per request, else fixed */
	uint64_t difficulty; /* range length: end = start + difficulty */
	unsigned rep;        /* percent of repeats, 0..100 */
	uint64_t delay_us;   /* interval between requests (not used here) */
	double lambda;       /* priority distribution; 0 = all priorities 1 */
};

/* One request and the answer the server must give. */
struct wl_request {
	uint8_t digest[32];
	uint64_t start, end;
	uint64_t answer;
	uint8_t priority;    /* 1..16 */
	int64_t copy_of;     /* -1, or the index of the request it repeats */
};

/* Fill out[0 .. p->total - 1] with the workload for p. Reseeds and consumes
 * the process-wide rand() state, so it is not thread-safe and disturbs any
 * other rand() user. Returns 0, or -EINVAL for parameters the client cannot
 * represent (difficulty 0 or too large, fixed start + difficulty overflowing,
 * rep above 100, negative or non-finite lambda). */
int wl_generate(const struct wl_params *p, struct wl_request *out);

#endif
