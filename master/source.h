/* What epoll hands back: every descriptor the master watches starts with a
 * struct source, so the loop can tell a listener from a signal from a
 * connection before it knows which one it holds. Connections embed it as
 * their first member; the loop's own sources are plain ones. */
#ifndef REVHASH_SOURCE_H
#define REVHASH_SOURCE_H

enum source_kind { SRC_LISTEN = 1, SRC_SIGNAL, SRC_NOTIFY, SRC_CONN };

struct source {
	int fd;               /* -1 once closed */
	enum source_kind kind;
};

#endif
