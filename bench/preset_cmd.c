/* --preset (see preset_cmd.h). The words are worked out while the command
 * line is read, so that a preset that cannot be printed (no such name, or
 * a delay that follows a rate not given) is a mistake of the command line,
 * said before anything is printed on stdout. */
#include "bench/preset_cmd.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

const char preset_cmd_usage[] = "--preset NAME [--rate HASHES_PER_S]\n";

const char preset_cmd_help[] =
	"--preset prints a preset's seven workload words, its delay set from\n"
	"--rate where it follows one (as the race does from its first probe).\n";

static const struct option options[] = {
	{ "preset", required_argument, NULL, 'W' },
	{ "rate", required_argument, NULL, 'r' },
	{ NULL, 0, NULL, 0 },
};

static void init(void *params)
{
	struct preset_cmd *p = params;

	*p = (struct preset_cmd){ 0 };
}

static int option(int c, const char *arg, void *params)
{
	struct preset_cmd *p = params;

	if (c == 'r')
		return options_rate(arg, &p->rate);
	p->name = arg;
	return 0;
}

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

const struct options_parser preset_cmd_parser = {
	sizeof(struct preset_cmd), options, NULL, init, option, words,
};

int preset_cmd_run(void *params, struct out *o)
{
	const struct wl_params *w = &((struct preset_cmd *)params)->wl;

	out_printf(o, "seed total start difficulty rep delay_us lambda",
		   "%" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %u %" PRIu64 " %g\n",
		   w->seed, w->total, w->start, w->difficulty, w->rep, w->delay_us, w->lambda);
	return 0;
}
