/* revhash-bench --race: one seeded workload played against two or more
 * servers, any servers, in rounds of alternating order, each server's hash
 * rate probed before each of its runs; a table per round, a summary, and
 * for each pair the ratio of their scores with its interval and a verdict
 * where the interval gives one (bench/race/verdict.h). */
#ifndef REVHASH_BENCH_RACE_H
#define REVHASH_BENCH_RACE_H

#include <stdint.h>

#include "bench/client.h"
#include "bench/race/proctree.h" /* a server's processes, given by --pid */
#include "bench/workload.h"

#define RACE_MAX_SERVERS 8
#define RACE_NAME_MAX 16      /* characters of a server's name */
#define RACE_MAX_ROUNDS 1000
#define RACE_ROUNDS 10        /* by default: a 95% interval needs 8 */
#define RACE_MARGIN 0.10      /* by default: equivalent within 10% */
#define RACE_TIMEOUT_S CLIENT_TIMEOUT_S /* a request's bound by default */
#define RACE_PROBE_FLOOR_S 5.0 /* the least bound of a probe request */

struct race_server {
	char name[RACE_NAME_MAX + 1];
	char host[256];   /* an IPv6 address without its brackets */
	char port[6];
	const char *spec; /* HOST:PORT as given */
	struct proctree pid; /* --pid's processes; none: found from the port */
};

struct race_params {
	struct race_server server[RACE_MAX_SERVERS];
	unsigned n;                     /* servers, 2 .. RACE_MAX_SERVERS */
	struct wl_params wl;            /* round 1's; round r's seed is + r - 1 */
	const struct wl_preset *preset; /* NULL: the seven words gave wl */
	unsigned rounds;                /* at most, with until_decided */
	int until_decided;              /* stop once every pair is decided */
	double margin;                  /* of equivalence: 0.10 is 10% */
	double alpha;                   /* the intervals' level (race_run's) */
	int64_t seed;                   /* --seed's, for round 1; -1: none */
	int calibrate;                  /* probe each server before its run */
	double probe_s;                 /* a probe request trusted this long */
	double settle_s;                /* the longest wait for an idle machine
					 * before a leg; 0: the machine is
					 * neither waited for nor watched,
					 * during the runs either */
	unsigned timeout_ms;            /* one request's bound */
	const char *csv, *plot;         /* files to write, or NULL */
};

/* Run the race of p (its workload checked: wl_check) and print it. The
 * exit status: 0 when every server answered every request right; 1 when
 * one did not, or a file could not be written (the race still runs to its
 * end), or a preset whose delay follows the rate found no rate at the
 * race's first probe (the race ends there); 2 when it could not start (a
 * server's name that does not resolve, a file that cannot be opened, no
 * gnuplot for --plot). */
int race_run(const struct race_params *p);

#endif
