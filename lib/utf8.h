/* Whether bytes are UTF-8, for the writers of text that must be: JSON
 * (--status --json) and Prometheus's format both are, and the strings they
 * carry from the shared segment are anyone's bytes who can write it. Only
 * the shortest forms of code points up to U+10FFFF pass, no surrogates. */
#ifndef REVHASH_UTF8_H
#define REVHASH_UTF8_H

#include <stddef.h>

/* The length of the UTF-8 character s starts with (1 for ASCII, a NUL
 * included), or 0 where its bytes are none. Reads no byte past a NUL. */
static inline size_t utf8_char(const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n;

	if (u[0] < 0x80)
		return 1;
	if (u[0] >= 0xc2 && u[0] <= 0xdf) {
		n = 2;
	} else if (u[0] >= 0xe0 && u[0] <= 0xef) {
		n = 3;
		lo = u[0] == 0xe0 ? 0xa0 : 0x80; /* no overlong form */
		hi = u[0] == 0xed ? 0x9f : 0xbf; /* no surrogate */
	} else if (u[0] >= 0xf0 && u[0] <= 0xf4) {
		n = 4;
		lo = u[0] == 0xf0 ? 0x90 : 0x80;
		hi = u[0] == 0xf4 ? 0x8f : 0xbf; /* nothing past U+10FFFF */
	} else {
		return 0;
	}
	if (u[1] < lo || u[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if (u[i] < 0x80 || u[i] > 0xbf)
			return 0;
	return n;
}

/* Is the character s starts with, of n bytes (utf8_char's), a control
 * character: C0, DEL, or C1 (U+0080..U+009F, which a terminal takes as
 * escapes: U+009B is CSI)? */
static inline int utf8_control(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;

	return (n == 1 && (u[0] < 0x20 || u[0] == 0x7f)) ||
	       (n == 2 && u[0] == 0xc2 && u[1] <= 0x9f);
}

#endif
