/* The man page's OPTIONS between two marks in master/master.1, made from
 * --help's lines (options_usage(out, 1)) in roff: `make man` writes them,
 * check_options fails while the page differs. A synopsis is a tag, its
 * wrapped lines a paragraph, a line further in a line of its own. */
#include "master/options.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MARK ".\\\" made from the options table:\n"
#define END_MARK ".\\\" end of what the table made\n"

/* s's first len bytes in roff (an option's dashes must not become
 * hyphens), the first letter raised where cap. */
static void roff(FILE *out, const char *s, size_t len, int cap)
{
	for (size_t i = 0; i < len && s[i]; i++) {
		if (s[i] == '\\')
			fputs("\\e", out);
		else if (s[i] == '-')
			fputs("\\-", out);
		else
			fputc(i == 0 && cap ? toupper((unsigned char)s[i]) : s[i], out);
	}
}

/* "--NAME ARG" or "--NAME[=S]": NAME bold, ARG italic. */
static void tag(FILE *out, const char *synopsis, size_t len)
{
	size_t name = strcspn(synopsis, " [");

	fputs(".TP\n\\fB", out);
	roff(out, synopsis, name < len ? name : len, 0);
	fputs("\\fR", out);
	if (name < len) {
		fputs(synopsis[name] == '[' ? "[=\\fI" : " \\fI", out);
		roff(out, synopsis + name + (synopsis[name] == '[' ? 2 : 1),
		     len - name - (synopsis[name] == '[' ? 3 : 1), 0);
		fputs(synopsis[name] == '[' ? "\\fR]" : "\\fR", out);
	}
	fputc('\n', out);
}

/* The end of an option's paragraph: a full stop where none is. */
static void end(FILE *out, int *in, char last)
{
	if (*in)
		fputs(*in == 1 && !strchr(".:", last) ? ".\n" : "\n", out);
	*in = 0;
}

static void options(FILE *out)
{
	char *text = NULL, *next, last = 0;
	size_t len = 0;
	int in = 0; /* 1: in an option's sentence, 2: in its lines of their own */
	FILE *f = open_memstream(&text, &len);

	if (!f)
		abort();
	options_usage(f, 1);
	fclose(f);
	for (char *line = text; *line; line = next) {
		size_t indent = strspn(line, " "), n = strcspn(line, "\n"), syn = 2;

		next = line + n + (line[n] == '\n');
		if (indent == 2 && line[2] == '-') { /* an option, and its sentence */
			end(out, &in, last);
			while (syn < n && (line[syn] != ' ' || line[syn + 1] != ' '))
				syn++;
			tag(out, line + 2, syn - 2);
			indent = syn + strspn(line + syn, " ");
		} else if (indent == OPT_HELP_COLUMN && in == 1) { /* it goes on */
			fputc(' ', out);
		} else if (indent > OPT_HELP_COLUMN && in) { /* a line of its own */
			fputs("\n.br\n", out);
			in = 2;
		} else if (indent != OPT_HELP_COLUMN) {
			end(out, &in, last);
			continue;
		}
		roff(out, line + indent, n - indent, !in);
		in += !in;
		last = n > indent ? line[n - 1] : last;
	}
	free(text);
}

int options_man(FILE *in, FILE *out)
{
	char *line = NULL;
	size_t size = 0;
	int made = 0, skip = 0;

	while (getline(&line, &size, in) > 0) {
		if (skip && strcmp(line, END_MARK) != 0)
			continue;
		skip = 0;
		fputs(line, out);
		if (strcmp(line, MARK) == 0) {
			options(out);
			made++;
			skip = 1;
		}
	}
	free(line);
	return made == 1 && !skip ? 0 : -EINVAL;
}
