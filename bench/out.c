/* revhash-bench's output (see out.h). The text is printf's own; the JSON
 * walks the same format, conversion by conversion, taking each argument
 * as printf would, so that one call and one argument list feed both.
 * JSON is written as it comes, never held: a race's rounds are out as
 * soon as they are played. */
#include "bench/out.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(sizeof(long) == 8 && sizeof(size_t) == 8 && sizeof(intmax_t) == 8 &&
	       sizeof(ptrdiff_t) == 8, "every length modifier but h is 64 bits (next_conv)");

/* One conversion of a format, its argument taken. */
struct conv {
	char letter;   /* d, u, f, s, m, ... */
	int prec;      /* -1: none given */
	long long i;   /* d, i */
	unsigned long long u; /* u, x, o, c */
	long double d; /* e, f, g, a */
	const char *s;
};

void out_init(struct out *o, FILE *text, FILE *json)
{
	*o = (struct out){ .text = text, .json = json };
	if (json) {
		fputc('{', json);
		o->depth = 1;
		o->kind[1] = '{';
	}
}

static void json_string(FILE *f, const char *s)
{
	if (!s) {
		fputs("null", f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/* Start a member (or an element) named key at the present depth. */
static void member(struct out *o, const char *key)
{
	if (o->more[o->depth])
		fputc(',', o->json);
	o->more[o->depth] = 1;
	if (o->kind[o->depth] == '{') {
		json_string(o->json, key ? key : "");
		fputc(':', o->json);
	}
}

static void begin(struct out *o, const char *key, char kind)
{
	if (!o->json)
		return;
	if (o->depth + 1 >= OUT_DEPTH)
		abort(); /* OUT_DEPTH is too small for the caller */
	member(o, key);
	fputc(kind == '{' ? '{' : '[', o->json);
	o->depth++;
	o->kind[o->depth] = kind;
	o->more[o->depth] = 0;
}

void out_object(struct out *o, const char *key) { begin(o, key, '{'); }
void out_array(struct out *o, const char *key) { begin(o, key, '['); }
void out_lines(struct out *o, const char *key) { begin(o, key, 'l'); }

/* The line of a lines array, its indent dropped, as one of its strings. */
static void flush_line(struct out *o, size_t len)
{
	size_t skip = strspn(o->line, " \t");

	o->line[len] = '\0';
	if (skip < len) {
		member(o, NULL);
		json_string(o->json, o->line + skip);
	}
}

/* Add text to a lines array: each whole line becomes one of its strings. */
static void add_lines(struct out *o, const char *text)
{
	size_t n = strlen(text);
	char *nl, *line = realloc(o->line, o->len + n + 1);

	if (!line)
		return; /* the JSON loses a line; the text has it */
	o->line = line;
	memcpy(line + o->len, text, n + 1);
	o->len += n;
	while ((nl = strchr(o->line, '\n'))) {
		size_t whole = (size_t)(nl - o->line);

		flush_line(o, whole);
		o->len -= whole + 1;
		memmove(o->line, nl + 1, o->len + 1);
	}
}

void out_end(struct out *o)
{
	if (!o->json || o->depth <= 1)
		return;
	if (o->kind[o->depth] == 'l' && o->len)
		flush_line(o, o->len);
	o->len = 0;
	fputc(o->kind[o->depth] == '{' ? '}' : ']', o->json);
	o->depth--;
}

int out_finish(struct out *o)
{
	int err = 0;

	if (o->json) {
		while (o->depth > 1)
			out_end(o);
		fputs("}\n", o->json);
		err |= fflush(o->json) | ferror(o->json);
	}
	if (o->text)
		err |= fflush(o->text) | ferror(o->text);
	free(o->line);
	o->line = NULL;
	return err ? -EIO : 0;
}

/* The next conversion of *f, its argument taken from ap (and those of a
 * '*' width or precision); 0 at the format's end. */
static int next_conv(const char **f, va_list *ap, struct conv *c)
{
	const char *p = *f;
	char len[3] = "";

	*c = (struct conv){ 0 };
	while ((p = strchr(p, '%')) && p[1] == '%')
		p += 2;
	if (!p)
		return 0;
	p += 1 + strspn(p + 1, "-+ #0'");
	if (*p == '*') {
		(void)va_arg(*ap, int);
		p++;
	}
	p += strspn(p, "0123456789");
	c->prec = -1;
	if (*p == '.') {
		p++;
		c->prec = *p == '*' ? va_arg(*ap, int) : atoi(p);
		p += *p == '*' ? 1 : strspn(p, "0123456789");
	}
	for (size_t k = 0; k < 2 && strchr("hljztL", *p); k++)
		len[k] = *p++;
	c->letter = *p;
	*f = *p ? p + 1 : p;
	switch (c->letter) {
	case 'd': case 'i':
		c->i = *len && *len != 'h' ? va_arg(*ap, long long) : va_arg(*ap, int);
		break;
	case 'u': case 'x': case 'X': case 'o': case 'c':
		c->u = *len && *len != 'h' ? va_arg(*ap, unsigned long long) :
		       va_arg(*ap, unsigned);
		break;
	case 'e': case 'E': case 'f': case 'F': case 'g': case 'G': case 'a': case 'A':
		c->d = !strcmp(len, "L") ? va_arg(*ap, long double) : va_arg(*ap, double);
		break;
	case 's':
		c->s = va_arg(*ap, const char *);
		break;
	case 'p':
		(void)va_arg(*ap, void *);
		break;
	}
	return 1;
}

/* The next name of names (advanced past it) into name; "-" when none is
 * left. */
static void next_name(const char **names, char name[64])
{
	int used = 0;

	if (sscanf(*names, " %63s%n", name, &used) != 1)
		strcpy(name, "-");
	*names += used;
	if (**names && !isspace((unsigned char)**names)) { /* too long: none */
		strcpy(name, "-");
		*names += strcspn(*names, " \t\n");
	}
}

/* Conversion c's value as JSON; err: errno at the call, for %m. */
static void json_value(FILE *f, const struct conv *c, int err)
{
	char spec[8];

	switch (c->letter) {
	case 'd': case 'i':
		fprintf(f, "%lld", c->i);
		break;
	case 'u': case 'x': case 'X': case 'o':
		fprintf(f, "%llu", c->u);
		break;
	case 'c':
		json_string(f, (char[]){ (char)c->u, '\0' });
		break;
	case 's':
		json_string(f, c->s);
		break;
	case 'm':
		json_string(f, strerror(err));
		break;
	case 'e': case 'E': case 'f': case 'F': case 'g': case 'G':
		snprintf(spec, sizeof spec, "%%.*L%c", c->letter | 0x20);
		if (isfinite(c->d))
			fprintf(f, spec, c->prec < 0 ? 6 : c->prec, c->d);
		else
			fputs("null", f);
		break;
	default:
		fputs("null", f);
	}
}

/* The members of fmt's named conversions, its arguments in ap. */
static void json_members(struct out *o, const char *names, const char *fmt,
			 va_list ap, int err)
{
	struct conv c = { 0 };
	char name[64];
	va_list args;

	va_copy(args, ap);
	while (next_conv(&fmt, &args, &c)) {
		next_name(&names, name);
		if (strcmp(name, "-") == 0)
			continue;
		member(o, name);
		json_value(o->json, &c, err);
	}
	va_end(args);
}

void out_printf(struct out *o, const char *names, const char *fmt, ...)
{
	int err = errno;
	va_list ap;
	char *text;

	va_start(ap, fmt);
	if (o->text) {
		va_list args;

		va_copy(args, ap);
		vfprintf(o->text, fmt, args);
		va_end(args);
	}
	errno = err;
	if (o->json && o->kind[o->depth] == 'l') {
		if (vasprintf(&text, fmt, ap) >= 0) {
			add_lines(o, text);
			free(text);
		}
	} else if (o->json) {
		json_members(o, names, fmt, ap, err);
	}
	va_end(ap);
	errno = err;
}
