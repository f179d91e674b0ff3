/* The master's option table (master/options.c): each option, walked from
 * the table, lands in its field; each bad value is refused with one line
 * that names the option; --help shows each option and its default; the
 * config file takes the rows' keys; and master/master.1 is what the table
 * makes of it. A row added to the table is tested here by its type,
 * without a line of its own (but for a row that reads its value itself,
 * OPT_OTHER: the_other_options_land_too). */
#include "master/options.h"
#include "master/power.h"
#include "shm/ring.h"
#include "tests/check_run.h"
#include "worker/kernel.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ARGS_MAX 24
#define HELP_COLUMN 25 /* options.c */

/* options_parse("master", words..., NULL) into o, what it wrote on
 * stdout into out and on stderr into err (each len bytes). */
static int parse(struct options *o, char *out, char *err, size_t len, const char *const *words)
{
	char *argv[ARGS_MAX + 2] = { "master" }, *caught[2] = { out, err };
	int argc = 1, saved[2], rc;
	FILE *tmp[2];

	while (*words && argc <= ARGS_MAX)
		argv[argc++] = (char *)*words++;
	fflush(stdout);
	for (int i = 0; i < 2; i++) {
		ck_assert_ptr_nonnull(tmp[i] = tmpfile());
		saved[i] = dup(1 + i);
		dup2(fileno(tmp[i]), 1 + i);
	}
	rc = options_parse(argc, argv, o);
	fflush(stdout);
	for (int i = 0; i < 2; i++) {
		size_t n;

		dup2(saved[i], 1 + i);
		close(saved[i]);
		rewind(tmp[i]);
		n = fread(caught[i], 1, len - 1, tmp[i]);
		caught[i][n] = '\0';
		fclose(tmp[i]);
	}
	return rc;
}

/* words, at most ARGS_MAX - 1 of them, then the port, into all. */
static void with_port(const char **all, const char *const *words)
{
	int n = 0;

	while (words[n] && n < ARGS_MAX - 1) {
		all[n] = words[n];
		n++;
	}
	all[n++] = "5003";
	all[n] = NULL;
}

/* Parse words (a port added) and expect no complaint. */
static void parse_ok(struct options *o, const char *const *words)
{
	const char *all[ARGS_MAX + 1];
	char out[4096], err[4096];

	with_port(all, words);
	ck_assert_msg(parse(o, out, err, sizeof err, all) == 0, "%s %s: %s", words[0],
		      words[1] ? words[1] : "", err);
	ck_assert_str_eq(err, "");
}

/* The option's name, as --help and getopt have it. */
static const char *name_of(const struct opt_row *r, unsigned kind)
{
	static char name[64];

	options_text(r, kind, r->name, 0, name, sizeof name);
	return name;
}

/* "--NAME=value" or "--NAME" then "value" as argv's words. */
static void option_words(const struct opt_row *r, unsigned kind, const char *value,
			 char *word, size_t len, const char *words[3])
{
	if (r->type == OPT_MODE) {
		snprintf(word, len, "--%s%s%s", name_of(r, kind), value ? "=" : "",
			 value ? value : "");
		words[0] = word;
		words[1] = NULL;
	} else {
		snprintf(word, len, "--%s", name_of(r, kind));
		words[0] = word;
		words[1] = value;
		words[2] = NULL;
	}
}

static const void *field(const struct options *o, size_t at)
{
	return (const char *)o + at;
}

/* A value the row takes: where it checks its values, the first it lists,
 * or the first its refusal names; else an empty file's path (a config
 * file is read). */
static const char *valid_value(const struct opt_row *r, unsigned kind)
{
	static char value[256];
	int fd;

	if (!r->check) {
		snprintf(value, sizeof value, "/tmp/revhash-options-XXXXXX");
		ck_assert_int_ge(fd = mkstemp(value), 0);
		close(fd);
		return value;
	}
	options_text(r, kind, r->list ? "%L" : r->values, 0, value, sizeof value);
	value[strcspn(value, ", ")] = '\0';
	return value;
}

/* o differs from def in the size bytes at at (and those at at2) alone,
 * but for which rows were given. */
static void only_changed(const struct options *o, const struct options *def, size_t at,
			 size_t size, size_t at2, size_t size2)
{
	struct options rest = *o;

	memcpy((char *)&rest + at, (const char *)def + at, size);
	memcpy((char *)&rest + at2, (const char *)def + at2, size2);
	rest.given = def->given;
	ck_assert_msg(memcmp(&rest, def, sizeof rest) == 0, "a field not its own changed");
}

/* No two rows of a value share a field: a row of the wrong field would
 * share its owner's. (The switches share theirs with their modes.) */
START_TEST(each_row_has_a_field_of_its_own)
{
	for (size_t i = 0; options_row(i); i++)
		for (size_t j = 0; j < i; j++) {
			const struct opt_row *a = options_row(i), *b = options_row(j);

			if (a->type == OPT_SWITCH || a->type == OPT_OTHER || a->type == OPT_POLICY ||
			    b->type == OPT_SWITCH || b->type == OPT_OTHER || b->type == OPT_POLICY)
				continue;
			ck_assert_msg(a->at != b->at, "--%s and --%s share a field", a->name,
				      b->name);
		}
}
END_TEST

START_TEST(each_option_lands_in_its_field)
{
	struct opt_it it = { 0 };
	const struct opt_row *r;
	struct options def, o;
	unsigned kind, tried = 0;
	char word[96], num[32];
	const char *words[3];

	options_defaults(&def);
	while ((r = options_next(&it, &kind))) {
		switch (r->type) {
		case OPT_SWITCH:
			option_words(r, kind, NULL, word, sizeof word, words);
			parse_ok(&o, words);
			ck_assert_int_ne(*(const int *)field(&def, r->at), r->to);
			ck_assert_int_eq(*(const int *)field(&o, r->at), r->to);
			only_changed(&o, &def, r->at, sizeof(int), 0, 0);
			break;
		case OPT_MODE:
			option_words(r, kind, NULL, word, sizeof word, words);
			parse_ok(&o, words);
			ck_assert_int_eq(*(const int *)field(&o, r->at), r->to);
			ck_assert_uint_eq(*(const unsigned *)field(&o, r->ms_at),
					  *(const unsigned *)field(&def, r->ms_at));
			option_words(r, kind, "2.5", word, sizeof word, words);
			parse_ok(&o, words);
			ck_assert_int_eq(*(const int *)field(&o, r->at), r->to);
			ck_assert_uint_eq(*(const unsigned *)field(&o, r->ms_at), 2500);
			only_changed(&o, &def, r->at, sizeof(int), r->ms_at, sizeof(unsigned));
			break;
		case OPT_NUMBER:
			for (int edge = 0; edge < 2; edge++) {
				uint64_t v = edge ? r->max : r->min;

				snprintf(num, sizeof num, "%llu", (unsigned long long)v);
				option_words(r, kind, num, word, sizeof word, words);
				parse_ok(&o, words);
				ck_assert_uint_eq(*(const uint64_t *)field(&o, r->at), v);
				only_changed(&o, &def, r->at, sizeof v, 0, 0);
			}
			if (r->word) {
				option_words(r, kind, r->word, word, sizeof word, words);
				parse_ok(&o, words);
				ck_assert_uint_eq(*(const uint64_t *)field(&o, r->at), 0);
			}
			break;
		case OPT_SECONDS:
			option_words(r, kind, "2.5", word, sizeof word, words);
			parse_ok(&o, words);
			ck_assert_uint_eq(*(const unsigned *)field(&o, r->at), 2500);
			snprintf(num, sizeof num, "%llu", (unsigned long long)r->max);
			option_words(r, kind, num, word, sizeof word, words);
			parse_ok(&o, words);
			ck_assert_uint_eq(*(const unsigned *)field(&o, r->at), r->max * 1000);
			only_changed(&o, &def, r->at, sizeof(unsigned), 0, 0);
			if (!r->min) {
				option_words(r, kind, "0", word, sizeof word, words);
				parse_ok(&o, words);
				ck_assert_uint_eq(*(const unsigned *)field(&o, r->at), 0);
			}
			break;
		case OPT_STRING: {
			const char *value = valid_value(r, kind);
			const char *const *f = field(&o, r->at);

			option_words(r, kind, value, word, sizeof word, words);
			parse_ok(&o, words);
			ck_assert_ptr_eq(f[strstr(r->name, "%K") ? kind : 0], value);
			only_changed(&o, &def, r->at + (strstr(r->name, "%K") ? kind : 0) * sizeof *f,
				     sizeof *f, 0, 0);
			if (!r->check)
				unlink(value);
			break;
		}
		case OPT_OTHER:
		case OPT_POLICY:
			continue; /* the_other_options_land_too */
		}
		if (strstr(r->help, "; 0: ")) { /* a value its sentence offers */
			option_words(r, kind, "0", word, sizeof word, words);
			parse_ok(&o, words);
			ck_assert_uint_eq(r->type == OPT_NUMBER ? *(const uint64_t *)field(&o, r->at) :
					  *(const unsigned *)field(&o, r->at), 0);
		}
		tried++;
	}
	ck_assert_uint_ge(tried, 20);
}
END_TEST

START_TEST(the_other_options_land_too)
{
	static const uint8_t v4[16] = { [10] = 0xff, [11] = 0xff, [12] = 10, [15] = 7 };
	static const uint8_t v6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };
	struct options o;
	static const char *const hooks[HOOK_COUNT] = {
#define XX(hook, name) [HOOK_##hook] = name,
		RING_HOOK_MAP(XX)
#undef XX
	};

	parse_ok(&o, (const char *[]){ "--listen", "10.0.0.7", "--listen", "2001:db8::1",
				       "--listen", "unix:/run/x/sock", "--proxy-from",
				       "2001:db8::1", NULL });
	ck_assert_uint_eq(o.nlisten, 2);
	ck_assert_mem_eq(o.listen[0], v4, 16);
	ck_assert_mem_eq(o.listen[1], v6, 16);
	ck_assert_str_eq(o.listen_unix, "/run/x/sock");
	ck_assert_uint_eq(o.nproxy, 1);
	ck_assert_mem_eq(o.proxy_from[0], v6, 16);
	for (int i = 0; i < HOOK_COUNT; i++) {
		parse_ok(&o, (const char *[]){ "--hook", hooks[i], NULL });
		ck_assert_int_eq(o.hook, i);
		ck_assert_int_eq(o.status, 1);
	}
	for (uint32_t i = 0; i < policy_orders(); i++) {
		parse_ok(&o, (const char *[]){ "--schedule", policy_order_name(i), NULL });
		ck_assert_uint_eq(o.policy.order, i);
	}
	parse_ok(&o, (const char *[]){ "--no-preempt", "--no-split", NULL });
	ck_assert(!policy_has(&o.policy, POLICY_PREEMPT) && !policy_has(&o.policy, POLICY_SPLIT));
	parse_ok(&o, (const char *[]){ NULL });
	ck_assert(policy_has(&o.policy, POLICY_PREEMPT) && policy_has(&o.policy, POLICY_SPLIT));
	ck_assert_uint_eq(o.port, 5003);
	ck_assert_int_eq(options_parse(3, (char *[]){ "master", "65535", "--json", NULL }, &o), 0);
	ck_assert_uint_eq(o.port, 65535);
	ck_assert_int_eq(o.json, 1);
	ck_assert_int_eq(options_parse(2, (char *[]){ "master", "--status", NULL }, &o), 0);
	ck_assert_int_eq(o.status, 1);
	ck_assert_int_eq(options_parse(3, (char *[]){ "master", "--status", "1", NULL }, &o), 0);
	ck_assert_uint_eq(o.port, 1);
}
END_TEST

/* words (a port added) are refused in one line on stderr that starts
 * with start, and nothing on stdout. */
static void refused(const char *start, const char *const *words)
{
	const char *all[ARGS_MAX + 1];
	char out[4096], err[4096];
	struct options o;

	with_port(all, words);
	ck_assert_int_eq(parse(&o, out, err, sizeof err, all), -EINVAL);
	ck_assert_str_eq(out, "");
	ck_assert_msg(strncmp(err, start, strlen(start)) == 0, "%s %s: '%s' is not '%s...'",
		      words[0], words[1] ? words[1] : "", err, start);
	ck_assert_msg(strchr(err, '\n') == err + strlen(err) - 1, "not one line: %s", err);
}

START_TEST(each_bad_value_is_refused_in_one_line)
{
	struct opt_it it = { 0 };
	const struct opt_row *r;
	unsigned kind, tried = 0;
	char word[96], start[128], big[32], small[32];

	while ((r = options_next(&it, &kind))) {
		const char *bad[8] = { "", "x", "-1", " 1", NULL }, *words[3];

		if (!r->arg || r->type == OPT_POLICY)
			continue;
		snprintf(big, sizeof big, "%llu", (unsigned long long)r->max + 1);
		snprintf(small, sizeof small, "%llu", (unsigned long long)r->min - 1);
		if (r->type == OPT_NUMBER || r->type == OPT_SECONDS || r->type == OPT_MODE) {
			bad[4] = big;
			bad[5] = r->min ? (r->type == OPT_NUMBER ? small : "0") : NULL;
		} else if (r->type == OPT_STRING) {
			bad[1] = r->check ? "nonsense" : NULL;
		} else {
			bad[1] = "nonsense";
			bad[2] = NULL;
		}
		snprintf(start, sizeof start, "master: invalid --%s (", name_of(r, kind));
		for (int i = 0; bad[i]; i++, tried++) {
			if (r->type == OPT_MODE && !*bad[i])
				continue; /* --NAME= is --NAME */
			option_words(r, kind, bad[i], word, sizeof word, words);
			refused(start, words);
		}
	}
	ck_assert_uint_ge(tried, 60);
	refused("master: invalid --schedule (wsrpt, priority, fifo): 'lifo'",
		(const char *[]){ "--schedule", "lifo", NULL });
	refused("master: invalid --listen (", (const char *[]){ "--listen", "localhost", NULL });
	refused("master: invalid --listen (", (const char *[]){ "--listen", "unix:/a", "--listen",
							     "unix:/b", NULL });
	refused("master: invalid --listen (", (const char *[]){ "--listen", "unix:", NULL });
	refused("master: invalid --proxy-from (", (const char *[]){ "--proxy-from", "1.2.3.4",
		"--proxy-from", "1.2.3.4", "--proxy-from", "1.2.3.4", "--proxy-from", "1.2.3.4",
		"--proxy-from", "1.2.3.4", "--proxy-from", "1.2.3.4", "--proxy-from", "1.2.3.4",
		"--proxy-from", "1.2.3.4", "--proxy-from", "1.2.3.4", NULL });
	refused("master: invalid --workers (1..64 or auto): '65'",
		(const char *[]){ "--workers", "65", NULL });
	refused("master: invalid --workers (1..64 or auto): '0'",
		(const char *[]){ "--workers", "0", NULL });
	refused("master: no such option: '--frobnicate'", (const char *[]){ "--frobnicate", NULL });
	refused("master: invalid PORT (1..65535): '0'", (const char *[]){ "--json", "0", NULL });
	refused("master: invalid PORT (1..65535): '65536'", (const char *[]){ "65536", NULL });
	refused("master: an argument too many: '5003'", (const char *[]){ "1", NULL });
}
END_TEST

/* Words a port cannot be added to: without one, and with one before an
 * option that wants a value. */
START_TEST(a_missing_port_or_value_is_refused_in_one_line)
{
	char out[4096], err[4096];
	struct options o;

	ck_assert_int_eq(parse(&o, out, err, sizeof err, (const char *[]){ "--json", NULL }),
			 -EINVAL);
	ck_assert_str_eq(err, "master: missing PORT (see master --help)\n");
	ck_assert_int_eq(parse(&o, out, err, sizeof err,
			       (const char *[]){ "5003", "--workers", NULL }), -EINVAL);
	ck_assert_str_eq(err, "master: a value missing after: '--workers' (see master --help)\n");
	ck_assert_str_eq(out, "");
}
END_TEST

/* --help: a line for each option, its default where its sentence has one
 * (from the value the parser starts from), no placeholder left, nothing
 * past column 79. */
START_TEST(the_help_shows_each_option_and_its_default)
{
	static char out[32768], err[4096];
	struct opt_it it = { 0 };
	const struct opt_row *r;
	struct options o, def;
	unsigned kind;
	char want[96];

	options_defaults(&def);
	ck_assert_int_eq(parse(&o, out, err, sizeof out, (const char *[]){ "--help", NULL }), 0);
	ck_assert_int_eq(o.help, 1);
	ck_assert_str_eq(err, "");
	while ((r = options_next(&it, &kind))) {
		const char *at;

		if (r->type == OPT_POLICY)
			continue;
		snprintf(want, sizeof want, "\n  --%s%s", name_of(r, kind),
			 r->arg ? r->arg[0] == '[' ? "[" : " " : "");
		ck_assert_msg((at = strstr(out, want)), "no %s in --help", want + 1);
		if (!strstr(r->help, "%D"))
			continue;
		if (r->type == OPT_NUMBER)
			snprintf(want, sizeof want, "(default %llu",
				 (unsigned long long)*(const uint64_t *)field(&def, r->at));
		else
			snprintf(want, sizeof want, "(default %g", *(const unsigned *)field(&def,
				 r->type == OPT_MODE ? r->ms_at : r->at) / 1000.0);
		ck_assert_msg(strstr(at, want) && strstr(at + 1, "\n  --") &&
			      strstr(at, want) < strstr(at + 1, "\n  --"),
			      "--%s: no %s", name_of(r, kind), want);
	}
	ck_assert_ptr_null(strstr(out, "%"));
	for (char *line = out, *end; *line; line = end + 1) {
		ck_assert_ptr_nonnull(end = strchr(line, '\n'));
		ck_assert_msg(end - line <= 79 || strspn(line, " ") > HELP_COLUMN, /* the orders' */
			      "too long: %.*s", (int)(end - line), line);
	}
	ck_assert_ptr_nonnull(strstr(out, "\n  --schedule ORDER"));
	ck_assert_ptr_nonnull(strstr(out, "\n  --no-preempt"));
}
END_TEST

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

/* The keys are the rows': each is read as its option; one given on the
 * command line is checked, and left as given; an unknown key or a bad
 * value leaves the options as they were. */
START_TEST(the_config_file_takes_the_rows_keys)
{
	char path[] = "/tmp/revhash-options-XXXXXX", text[256], out[4096], err[4096], num[32];
	int fd = mkstemp(path);
	struct options o, before;
	const char *words[3];
	size_t keys = 0;

	ck_assert_int_ge(fd, 0);
	close(fd);
	for (size_t i = 0; options_row(i); i++) {
		const struct opt_row *r = options_row(i);

		if (!r->key)
			continue;
		/* The file's text does not outlive its reading. */
		ck_assert_int_ne(r->type, OPT_STRING);
		/* KEY = MAX does what --NAME MAX does. */
		snprintf(num, sizeof num, "%llu", (unsigned long long)r->max);
		snprintf(text, sizeof text, "%s = %s", r->key, num);
		write_file(path, text);
		parse_ok(&o, (const char *[]){ NULL });
		ck_assert_msg(options_load(&o, path) == 0, "the config file refuses %s", text);
		option_words(r, 0, r->type == OPT_SWITCH ? NULL : num, out, sizeof out, words);
		parse_ok(&before, words);
		o.given = before.given;
		ck_assert_msg(memcmp(&o, &before, sizeof o) == 0, "%s is not --%s %s", text,
			      r->name, num);
		keys++;
	}
	ck_assert_uint_ge(keys, 1);
	write_file(path, "# a comment\nworkers = 3\n  idle_timeout = 2.5  \n");
	parse_ok(&o, (const char *[]){ NULL });
	ck_assert_int_eq(options_load(&o, path), 0);
	ck_assert_uint_eq(o.workers, 3);
	ck_assert_uint_eq(o.idle_timeout_ms, 2500);
	parse_ok(&o, (const char *[]){ "--workers", "2", "--idle-timeout", "7", NULL });
	ck_assert_int_eq(options_load(&o, path), 0);
	ck_assert_uint_eq(o.workers, 2);
	ck_assert_uint_eq(o.idle_timeout_ms, 7000);
	write_file(path, "workers = 0\n");
	ck_assert_int_eq(options_load(&o, path), -EINVAL); /* checked, though given */
	parse_ok(&o, (const char *[]){ NULL });
	before = o;
	write_file(path, "workers = 4\nidle_timeout = soon\n");
	ck_assert_int_eq(options_load(&o, path), -EINVAL);
	ck_assert_mem_eq(&o, &before, sizeof o);
	write_file(path, "workers = 4\nstop_timeout = 3\n");
	ck_assert_int_eq(options_load(&o, path), -EINVAL);
	ck_assert_mem_eq(&o, &before, sizeof o);
	snprintf(text, sizeof text, "--config=%s", path);
	write_file(path, "workers = auto\n");
	ck_assert_int_eq(parse(&o, out, err, sizeof err,
			       (const char *[]){ text, "--workers", "5", "5003", NULL }), 0);
	ck_assert_uint_eq(o.workers, 5);
	ck_assert_ptr_nonnull(strstr(err, "config: workers left as --workers gave it"));
	unlink(path);
}
END_TEST

/* master/master.1 is what `make man` makes of the table (run from the
 * top of the tree, as make check does), and names every option. */
START_TEST(the_man_page_is_what_the_table_makes)
{
	FILE *in = fopen("master/master.1", "r"), *made;
	char *page = NULL, *want = NULL, tag[96];
	size_t len = 0, size = 0;
	struct opt_it it = { 0 };
	const struct opt_row *r;
	unsigned kind;
	long got;

	ck_assert_msg(in != NULL, "no master/master.1 here: run from the top of the tree");
	ck_assert_ptr_nonnull(made = open_memstream(&page, &len));
	ck_assert_int_eq(options_man(in, made), 0);
	fclose(made);
	rewind(in);
	ck_assert_int_ge(got = getdelim(&want, &size, '\0', in), 0);
	fclose(in);
	ck_assert_msg((size_t)got == len && memcmp(want, page, len) == 0,
		      "master/master.1 is not what the option table makes: run make man");
	while ((r = options_next(&it, &kind))) {
		const char *name = r->type == OPT_POLICY ? "schedule" : name_of(r, kind);
		char *d = tag + snprintf(tag, sizeof tag, ".TP\n\\fB");

		for (const char *s = "--"; *s; s++)
			d += sprintf(d, "\\-");
		for (const char *s = name; *s; s++)
			d += *s == '-' ? sprintf(d, "\\-") : sprintf(d, "%c", *s);
		ck_assert_msg(strstr(page, tag), "no %s in the man page", tag);
	}
	free(page);
	free(want);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("options");
	TCase *t = tcase_create("options");

	tcase_set_timeout(t, 20);
	tcase_add_test(t, each_row_has_a_field_of_its_own);
	tcase_add_test(t, each_option_lands_in_its_field);
	tcase_add_test(t, the_other_options_land_too);
	tcase_add_test(t, each_bad_value_is_refused_in_one_line);
	tcase_add_test(t, a_missing_port_or_value_is_refused_in_one_line);
	tcase_add_test(t, the_help_shows_each_option_and_its_default);
	tcase_add_test(t, the_config_file_takes_the_rows_keys);
	tcase_add_test(t, the_man_page_is_what_the_table_makes);
	suite_add_tcase(s, t);
	return check_run(s);
}
