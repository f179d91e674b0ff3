/* --preset: a named workload's seven words, printed for the scripts that
 * run it (bench/workload.h's presets). The words are worked out while the
 * command line is read, so that a preset that cannot be printed (no such
 * name, or a delay that follows a rate not given) is a mistake of the
 * command line, said before anything is printed on stdout. */
#include "bench/options.h"

#include <inttypes.h>

struct preset_cmd {
	const char *name;
	double rate; /* --rate (hashes/s); 0: none given */
	struct wl_params wl;
};

static const struct opt opts[] = {
	{ "preset", "NAME", OPT_STRING, OPT_FIELD(struct preset_cmd, name), 0, 0, NULL, NULL },
	{ "rate", "HASHES_PER_S", OPT_CALL, OPT_FIELD(struct preset_cmd, rate), 0, 0,
	  options_rate, "the hash rate a load's delay follows" },
	{ NULL, NULL, 0, 0, 0, 0, 0, NULL, NULL },
};

static int words(int n, char **w, void *params)
{
	struct preset_cmd *p = params;
	const struct wl_preset *preset = wl_preset_find(p->name);
	char names[128];

	(void)w;
	if (n)
		return options_complain("--preset NAME takes no other words or options "
					"but --rate");
	if (!preset) {
		wl_preset_names(names, sizeof names);
		return options_complain("no preset %s (the presets: %s)", p->name, names);
	}
	if (wl_preset_params(preset, p->rate, &p->wl))
		return options_complain("--preset: this one's delay follows a hash rate: "
					"give --rate");
	return 0;
}

/* Print the words on a line: 0. */
static int run(void *params, struct out *o)
{
	const struct wl_params *w = &((struct preset_cmd *)params)->wl;

	out_printf(o, "seed total start difficulty rep delay_us lambda",
		   "%" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %u %" PRIu64 " %g\n",
		   w->seed, w->total, w->start, w->difficulty, w->rep, w->delay_us, w->lambda);
	return 0;
}

const struct mode preset_mode = {
	"--preset", "--preset NAME",
	"--preset prints a preset's seven workload words, its delay set from\n"
	"--rate where it follows one (as the race does from its first probe).\n",
	opts, sizeof(struct preset_cmd), NULL, OPT_NO_POLICY, words, run,
};
