/* The public client's workload, reproduced request for request: the same
 * seed gives the same digests, ranges, repeats and priorities, so a bench
 * run can be compared with what the graders' client would send. */
#ifndef REVHASH_WORKLOAD_H
#define REVHASH_WORKLOAD_H

#include <stddef.h>
#include <stdio.h>
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

/* A named workload of the benchmarks and races, defined once (scripts ask
 * revhash-bench --preset). Its delay is fixed, or set from a hash rate so
 * that a server of that rate is busy load of the time. */
struct wl_preset {
	const char *name;
	uint64_t seed, total, difficulty;
	uint64_t delay_us;   /* when load is 0 */
	double load;         /* 0 < load: the delay follows the rate */
};

/* The preset called name, or NULL. */
const struct wl_preset *wl_preset_find(const char *name);
/* The presets' names, "milestone, final, ...", into buf (for messages). */
void wl_preset_names(char *buf, size_t size);
/* The presets, a line each (name, requests, difficulty, delay or load),
 * then the repeats and priorities they share. */
void wl_preset_help(FILE *out);
/* Fill p with preset w, its delay set from rate (hashes/s) when its load
 * asks for one. 0, or -EINVAL when it does and rate is not positive. */
int wl_preset_params(const struct wl_preset *w, double rate,
		     struct wl_params *p);

/* 0 when the client can represent p, else -EINVAL. */
int wl_check(const struct wl_params *p);
/* Fill out[0 .. p->total - 1] with the workload for p, through the
 * process-wide rand() (not thread-safe). 0, or -EINVAL when wl_check
 * refuses p. */
int wl_generate(const struct wl_params *p, struct wl_request *out);
/* The workload for p (which wl_check took) in a new array of p->total
 * requests, the caller's to free; NULL when out of memory (said). */
struct wl_request *wl_requests(const struct wl_params *p);

#endif
