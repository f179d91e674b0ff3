/* The request's trip through the master's files, traced: linked into a
 * master built with -finstrument-functions (scripts/trip.sh), it writes
 * every function entered and left while jobs_dispatch() runs, as offsets
 * in the binary, to the file $REVHASH_TRIP; the script maps them to source
 * files and counts how often the trip comes back to a file it had left.
 * Nothing here is instrumented itself, and a master built without it is
 * untouched. */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define NO_TRACE __attribute__((no_instrument_function))

struct conn;
struct jobs;
void jobs_dispatch(struct jobs *js, struct conn *c);

static FILE *out;
static int depth = -1; /* calls deep inside jobs_dispatch; -1: outside */

NO_TRACE static uintptr_t offset(void *fn)
{
	Dl_info info;

	return dladdr(fn, &info) && info.dli_fbase ? (uintptr_t)fn - (uintptr_t)info.dli_fbase
						   : (uintptr_t)fn;
}

NO_TRACE static void note(char what, void *fn)
{
	const char *path;

	if (!out && (!(path = getenv("REVHASH_TRIP")) || !(out = fopen(path, "a"))))
		return;
	fprintf(out, "%c %lx\n", what, (unsigned long)offset(fn));
}

NO_TRACE void __cyg_profile_func_enter(void *fn, void *site)
{
	(void)site;
	if (depth < 0 && fn == (void *)jobs_dispatch)
		depth = 0;
	if (depth < 0)
		return;
	depth++;
	note('>', fn);
}

NO_TRACE void __cyg_profile_func_exit(void *fn, void *site)
{
	(void)site;
	if (depth < 0)
		return;
	note('<', fn);
	if (--depth > 0)
		return;
	depth = -1;
	if (out) { /* none without REVHASH_TRIP, or when it would not open */
		fputs("end\n", out);
		fflush(out);
	}
}
