/* revhash-bench's command line: its modes (each one in a *_cmd.c beside
 * what it drives, or in it) and what they share. A mode's options are
 * rows of one table, which revhash-bench.c parses into the mode's struct
 * and prints as its lines of --help, each default read from the mode's
 * defaults. */
#ifndef REVHASH_BENCH_OPTIONS_H
#define REVHASH_BENCH_OPTIONS_H

#include <stddef.h>
#include <stdint.h>

#include "bench/out.h"
#include "bench/simulate.h"
#include "bench/workload.h"
#include "shm/policy.h"
#include "shm/ring.h"

/* The words, as the messages about them name them. */
#define OPTIONS_HOST_WORDS "HOST PORT (a port from 1 to 65535)"
#define OPTIONS_WORKLOAD_WORDS "SEED TOTAL START DIFFICULTY REP DELAY_US LAMBDA " \
	"(whole numbers, REP 0 .. 100, SEED below 2^32)"

/* What an option's argument is, and where it goes. */
enum opt_kind {
	OPT_NONE,   /* taken, and nothing stored (a mode's own option) */
	OPT_FLAG,   /* an int set to 1 */
	OPT_STRING, /* a const char *: the argument itself */
	OPT_WHOLE,  /* a whole number in [min, max], into 1, 4 or 8 bytes */
	OPT_MS,     /* seconds, into unsigned milliseconds in [min, max] */
	OPT_NUMBER, /* a double in [min, max] */
	OPT_CALL,   /* call(arg, field): 0, or -EINVAL (said) */
};

/* One option of a mode. */
struct opt {
	const char *name;  /* without its "--" */
	const char *arg;   /* its argument, as --help names it; NULL: none */
	enum opt_kind kind;
	size_t at, size;   /* its field in the mode's struct: OPT_FIELD */
	uint64_t min, max; /* OPT_WHOLE's, OPT_MS's (ms), OPT_NUMBER's */
	int (*call)(const char *arg, void *field);
	const char *help;  /* its line of --help; NULL: not listed */
};

#define OPT_FIELD(type, field) offsetof(type, field), sizeof(((type *)0)->field)
#define OPT_NO_POLICY SIZE_MAX

/* A mode of revhash-bench. */
struct mode {
	const char *name;       /* "--race": the option that chooses it,
	                           opts[0]; the default's: "the replay" */
	const char *words;      /* its synopsis's words; the options not
	                           named in them follow, in brackets */
	const char *help;       /* its paragraph of --help, its options'
	                           lines after it */
	const struct opt *opts; /* ended by a row of NULL name */
	size_t size;            /* of its parameters' struct */
	const void *defaults;   /* size bytes of them; NULL: zeros */
	size_t policy;          /* its struct options_policy's offset, when
	                           the policy's switches are its too */
	/* Read the n words left after the options: 0, or -EINVAL (said). */
	int (*words_of)(int n, char **words, void *params);
	int (*run)(void *params, struct out *o); /* its exit status */
};

/* HOST PORT. */
struct options_host {
	const char *host, *port;
};

/* The modes, in the order --help lists them. */
extern const struct mode replay_mode, rescore_mode, closed_mode, ask_mode, race_mode,
	preset_mode;

/* Say on stderr, after "revhash-bench: ", what is wrong; -EINVAL. */
int options_complain(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* --rate's arg, hashes per second above 0, into the double rate: 0, or
 * -EINVAL (said). */
int options_rate(const char *arg, void *rate);

/* HOST PORT from words[0 .. 1]: 0, or -EINVAL when PORT is not 1 .. 65535
 * (not said: the caller names the words it wanted). */
int options_host(char *const words[2], struct options_host *h);
/* A workload's seven words into w: 0; -EINVAL when a word is not a
 * number within its bounds (not said, as options_host); -ERANGE after
 * saying that DIFFICULTY, or START with it, makes no request. */
int options_workload(char *const words[7], struct wl_params *w);

/* The server under test's policy, given with the master's switches, for
 * the ideal server's: sim.shares points into shares (--worker-rates), so
 * the struct stays where revhash-bench put it. */
struct options_policy {
	struct sim_policy sim;
	double shares[RING_WORKERS];
};

#endif
