/* Choosing a device's kernel variant, the way kernel_dispatch.c chooses a
 * CPU kernel: measured, not ranked in advance, because the order depends
 * on the device (what wins on an H100 need not win on an RTX 4090 or an
 * A100). Rounds run each variant in turn and keep its best run: a busy
 * moment slows some runs, never speeds one up. The first run of each only
 * sizes the later ones to about sample_ns. */
#include "worker/device.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lib/clock.h"

/* Is name one of the CPU kernels compiled in? */
static int cpu_kernel(const char *name)
{
	size_t n;
	const struct kernel *const *all = kernel_all(&n);

	for (size_t i = 0; i < n; i++)
		if (strcmp(all[i]->name, name) == 0)
			return 1;
	return 0;
}

/* The rounds: a sizing run of p->probe values, then p->rounds runs of
 * about sample_ns each; every variant's best rate. */
static void measure(struct device_pick *p,
		    double (*run)(void *ctx, size_t i, uint64_t values), void *ctx)
{
	for (int round = 0; round <= p->rounds; round++)
		for (size_t i = 0; i < p->n; i++) {
			uint64_t values = round ? (uint64_t)(p->rates[i] / 1e9 *
							     (double)p->sample_ns) + 1
						: p->probe;
			double rate = run(ctx, i, values);

			if (rate > p->rates[i])
				p->rates[i] = rate;
		}
}

int device_pick(struct device_pick *p, const char *want,
		double (*run)(void *ctx, size_t i, uint64_t values), void *ctx)
{
	uint64_t t0 = clock_ns();

	memset(p->rates, 0, sizeof p->rates);
	p->chosen = 0;
	p->forced = 0;
	p->ns = 0;
	if (want && strcmp(want, "auto") != 0 && !cpu_kernel(want)) {
		for (size_t i = 0; i < p->n; i++)
			if (strcmp(p->names[i], want) == 0) {
				p->chosen = i;
				p->forced = 1;
				return 0;
			}
		return -EINVAL;
	}
	measure(p, run, ctx);
	for (size_t i = 1; i < p->n; i++)
		if (device_weighed(p->rates[i], p->handicap[i]) >
		    device_weighed(p->rates[p->chosen], p->handicap[p->chosen]))
			p->chosen = i;
	p->ns = clock_ns() - t0;
	return 0;
}

void device_pick_unknown(const struct device_pick *p, const char *want,
			 char *err, size_t len)
{
	size_t at = (size_t)snprintf(err, len, "unknown kernel %s (this device's:", want);

	for (size_t i = 0; i < p->n && at < len; i++)
		at += (size_t)snprintf(err + at, len - at, "%s %s", i ? "," : "",
				       p->names[i]);
	if (at < len)
		snprintf(err + at, len - at, "; or auto)");
}

void device_pick_line(const struct device_pick *p, char *buf, size_t len)
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
