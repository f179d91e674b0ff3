/* The race's judgement, as pure functions of the figures its runs gave:
 * the order the servers run in each round, a spread of figures (median,
 * min, max), and whether two servers' rounds support a verdict. Nothing
 * here sends, prints or allocates, so the rules are tested on numbers. */
#ifndef REVHASH_BENCH_VERDICT_H
#define REVHASH_BENCH_VERDICT_H

#include <stddef.h>
#include <stdint.h>

#define VERDICT_MIN_ROUNDS 3 /* fewer never support a verdict on scores */

/* A median with the least and the largest of the figures it is taken of. */
struct verdict_spread {
	double median, min, max;
};

/* One server's side of a pair: its score in each round (lower is better)
 * and the right answers it gave over every round. */
struct verdict_side {
	const double *score;
	uint64_t ok;
};

enum verdict_kind {
	VERDICT_SCORE,       /* better by the margin in every round */
	VERDICT_RELIABILITY, /* more right answers: it wins whatever its score */
	VERDICT_FEW_ROUNDS,  /* none: fewer than VERDICT_MIN_ROUNDS rounds */
	VERDICT_OVERLAP,     /* none: the rounds do not all agree by the margin
			      * (they lean both ways, or all one way but
			      * not all by the margin) */
	VERDICT_UNRELIABLE,  /* none: both got as many answers wrong or missing */
};

/* The judgement of a pair a (0) and b (1). */
struct verdict {
	enum verdict_kind kind;
	unsigned winner, loser;  /* 0 or 1; with no verdict, 0 and 1 */
	unsigned rounds;
	double ratio;            /* the loser's median score / the winner's */
	double min_ratio, max_ratio; /* the same, round by round (no verdict:
				      * b's score / a's); 0 when none is defined */
	uint64_t ok[2];          /* the sides' right answers */
	uint64_t requests;       /* each side's, over every round */
};

/* The server that runs k-th (0-based) of n in round r (1-based): the
 * listed order in odd rounds, reversed in even ones (A B, B A, A B, ...),
 * so a machine that speeds up or slows down through the race favours each
 * server in turn instead of always the same one. */
unsigned verdict_order(unsigned round, unsigned n, unsigned k);
/* The median (of the middle two when n is even), least and largest of
 * v[0 .. n - 1], n > 0; v itself is left alone. 0, or -EINVAL for n 0. */
int verdict_spread(const double *v, unsigned n, struct verdict_spread *s);
/* Judge a against b over rounds rounds of requests requests each. First
 * reliability: the side with more right answers wins, whatever the
 * scores; as many but not all right is no verdict. Then the scores: a
 * side wins when, in every round, the other's score is at least
 * (1 + margin) times its own, over at least VERDICT_MIN_ROUNDS rounds; a
 * score that is not positive and finite agrees with neither side. 0, or
 * -EINVAL for no rounds or a negative margin. */
int verdict_judge(const struct verdict_side *a, const struct verdict_side *b,
		  unsigned rounds, uint64_t requests, double margin,
		  struct verdict *v);
/* ok of total as a percentage rounded down, so that one answer wrong in
 * a million never reads 100.00 (two decimals). */
double verdict_percent(uint64_t ok, uint64_t total);
/* The verdict as one sentence, naming the sides name[0] and name[1]
 * ("B scores 2.10x better than A in 5 of 5 rounds"), into buf. */
void verdict_text(const struct verdict *v, const char *const name[2],
		  double margin, char *buf, size_t size);

#endif
