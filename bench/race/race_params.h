/* What a race is asked to do: its servers and its workload, the rounds,
 * the rule of its verdicts, its bounds; filled by the command line
 * (race_cmd.c) and read by every part of the race. Data alone, below
 * them all, so that the parts include it and never each other's
 * headers for it. */
#ifndef REVHASH_BENCH_RACE_PARAMS_H
#define REVHASH_BENCH_RACE_PARAMS_H

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

#endif
