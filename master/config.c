/* Reading the config file: whole, bounded, then line by line. */
#include "master/config.h"
#include "lib/log.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The file's bytes, NUL-terminated, into *text (to free). 0 or -errno. */
static int slurp(const char *path, char **text)
{
	struct stat st;
	size_t got = 0;
	char *buf = NULL;
	int rc = 0, fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0)
		rc = -errno;
	else if (!S_ISREG(st.st_mode))
		rc = -EINVAL;
	else if (st.st_size > CONFIG_MAX)
		rc = -EFBIG;
	else if (!(buf = malloc(CONFIG_MAX + 1)))
		rc = -ENOMEM;
	/* Read to the end, but never past the limit, even if it grows. */
	while (rc == 0) {
		ssize_t n = read(fd, buf + got, CONFIG_MAX + 1 - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			rc = -errno;
		else if (n == 0)
			break;
		else if ((got += (size_t)n) > CONFIG_MAX)
			rc = -EFBIG;
	}
	close(fd);
	if (rc == 0 && memchr(buf, '\0', got))
		rc = -EILSEQ; /* a binary file, not a config */
	if (rc < 0) {
		free(buf);
		return rc;
	}
	buf[got] = '\0';
	*text = buf;
	return 0;
}

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

/* Hand the `key = value` lines of text to set. */
static int parse(const char *path, char *text, config_set_fn set, void *ctx)
{
	unsigned lineno = 0;

	for (char *line = text, *next; line; line = next) {
		char *s, *eq;
		int rc;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		lineno++;
		s = trim(line);
		if (*s == '\0' || *s == '#')
			continue;
		if (!(eq = strchr(s, '='))) {
			log_error("config %s:%u: expected key = value", path, lineno);
			return -EINVAL;
		}
		*eq = '\0';
		rc = set(ctx, trim(s), trim(eq + 1));
		if (rc == -ENOENT)
			log_error("config %s:%u: unknown key '%s'", path, lineno, trim(s));
		else if (rc < 0)
			log_error("config %s:%u: bad value for '%s'", path, lineno, trim(s));
		if (rc < 0)
			return -EINVAL;
	}
	return 0;
}

int config_read(const char *path, config_set_fn set, void *ctx)
{
	char *text = NULL;
	int rc = slurp(path, &text);

	if (rc == -EINVAL)
		log_error("config %s: not a regular file", path);
	else if (rc == -EFBIG)
		log_error("config %s: larger than %d bytes", path, CONFIG_MAX);
	else if (rc == -EILSEQ)
		log_error("config %s: binary data, not `key = value` lines", path);
	else if (rc < 0)
		log_error("config %s: %s", path, strerror(-rc));
	if (rc < 0)
		return rc;
	rc = parse(path, text, set, ctx);
	free(text);
	return rc;
}
