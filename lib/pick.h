/* Choosing the fastest of a few ways of doing one thing, by measurement
 * (the order depends on the machine): the CPU's search kernels and a
 * device's kernel variants. */
#ifndef REVHASH_PICK_H
#define REVHASH_PICK_H

#include <stddef.h>
#include <stdint.h>

#define PICK_MAX 32 /* candidates, at most */

/* The candidates, how to measure them, and the choice. */
struct pick {
	size_t n;                    /* candidates */
	const char *names[PICK_MAX];
	uint64_t probe;      /* values of each one's first, sizing run */
	uint64_t sample_ns;  /* what each later run should take */
	int rounds;          /* runs after the sizing one */
	double rates[PICK_MAX];    /* values/s of its best run; 0: not measured */
	double handicap[PICK_MAX]; /* weighs its rate: pick_weighed (0: none) */
	size_t chosen;
	int forced;          /* chosen by name */
	uint64_t ns;         /* the measuring took */
};

/* The rate of candidate i searching values values (ctx: the caller's). */
typedef double (*pick_run_fn)(void *ctx, size_t i, uint64_t values);

/* A measured rate as the choice weighs it: what a candidate of that
 * handicap must beat. */
static inline double pick_weighed(double rate, double handicap)
{
	return rate / (1 + handicap);
}

/* Measure p's candidates in interleaved rounds (each one's sizing run of
 * p->probe values, then p->rounds runs of about p->sample_ns each, sized
 * by its best rate so far), keep each one's best run, and choose the
 * fastest once each is weighed by its handicap (the first of equals). */
void pick_measure(struct pick *p, pick_run_fn run, void *ctx);

/* p's choice as text: "fma (base 16.10, fma 19.30 G hashes/s, measured in
 * 180 ms)", "fma (forced by name)"; M hashes/s below 1 G. */
void pick_line(const struct pick *p, char *buf, size_t len);

#endif
