/* Choosing by measurement (see pick.h). The rounds interleave: each times
 * every candidate once, and each candidate keeps its best run, so that a
 * noisy neighbour, which slows some runs and never speeds one up, is
 * outrun rather than averaged in. The first run of each only sizes the
 * later ones to about sample_ns (and counts, as any run does). */
#include "lib/pick.h"

#include <stdio.h>
#include <string.h>

#include "lib/clock.h"

void pick_measure(struct pick *p, pick_run_fn run, void *ctx)
{
	uint64_t t0 = clock_ns();

	memset(p->rates, 0, sizeof p->rates);
	p->chosen = 0;
	p->forced = 0;
	for (int round = 0; round <= p->rounds; round++)
		for (size_t i = 0; i < p->n; i++) {
			uint64_t values = round ? (uint64_t)(p->rates[i] / 1e9 *
							     (double)p->sample_ns) + 1
						: p->probe;
			double rate = run(ctx, i, values);

			if (rate > p->rates[i])
				p->rates[i] = rate;
		}
	for (size_t i = 1; i < p->n; i++)
		if (pick_weighed(p->rates[i], p->handicap[i]) >
		    pick_weighed(p->rates[p->chosen], p->handicap[p->chosen]))
			p->chosen = i;
	p->ns = clock_ns() - t0;
}

void pick_line(const struct pick *p, char *buf, size_t len)
{
	double unit = 1e9;
	size_t at;

	at = (size_t)snprintf(buf, len, "%s (", p->n ? p->names[p->chosen] : "none");
	if (p->forced) {
		snprintf(buf + (at < len ? at : len), at < len ? len - at : 0,
			 "forced by name)");
		return;
	}
	for (size_t i = 0; i < p->n; i++)
		if (p->rates[i] && p->rates[i] < unit)
			unit = 1e6;
	for (size_t i = 0; i < p->n && at < len; i++)
		at += (size_t)snprintf(buf + at, len - at, "%s%s %.2f", i ? ", " : "",
				       p->names[i], p->rates[i] / unit);
	if (at < len)
		snprintf(buf + at, len - at, " %s hashes/s, measured in %llu ms)",
			 unit == 1e9 ? "G" : "M", (unsigned long long)(p->ns / 1000000));
}
