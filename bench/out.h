/* revhash-bench's output, written once and sent out as text, as JSON or
 * both (--json, --json=FILE). A figure is one out_printf(): printf's
 * format for the text, and beside it the names its conversions have in
 * JSON, in their order: out_printf(o, "p50 p99", "p50 %.3f ms, p99 %.3f
 * ms\n", a, b) is the line as text and "p50":a,"p99":b as JSON. A
 * conversion named "-", or past the names, is the text's alone. Objects
 * and arrays shape the JSON only; a "lines" array takes the text's lines
 * as its strings (notes, verdicts). A number keeps the text's precision;
 * inf and nan are null. */
#ifndef REVHASH_BENCH_OUT_H
#define REVHASH_BENCH_OUT_H

#include <stddef.h>
#include <stdio.h>

#define OUT_DEPTH 8 /* objects and arrays nested, the root included */

struct out {
	FILE *text, *json;     /* NULL: that format is not written */
	int depth;             /* of the JSON: 0 before the root object */
	char kind[OUT_DEPTH];  /* at each depth: '{', '[', or 'l' (lines) */
	char more[OUT_DEPTH];  /* at each depth: a member is written */
	char *line;            /* a lines array's line so far */
	size_t len;
};

/* Write text to text and JSON to json (either NULL: not that one); the
 * JSON's root object opens here. */
void out_init(struct out *o, FILE *text, FILE *json);
/* The figures of fmt, as text and as the members names says (above). */
void out_printf(struct out *o, const char *names, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Open an object, an array, or an array of the text's lines, as member
 * key of the object around (in an array, key is not written). */
void out_object(struct out *o, const char *key);
void out_array(struct out *o, const char *key);
void out_lines(struct out *o, const char *key);
/* Close the innermost object or array. */
void out_end(struct out *o);
/* Close what is open, the root too, and flush: 0, or -EIO when a format
 * could not be written. */
int out_finish(struct out *o);

#endif
