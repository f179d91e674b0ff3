/* Sockets: the dual-stack listener, the balancer's Unix socket, accepting
 * under descriptor exhaustion, and the process's descriptor limit. */
#ifndef REVHASH_NET_H
#define REVHASH_NET_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

/* Bind a listener to port on address ip (16 bytes, IPv4 as IPv4-mapped),
 * or with ip NULL on every address, IPv6 and IPv4 alike where the host
 * allows (falls back to IPv4 only); not yet listening: a port another
 * master listens on is found before anything else is set up (two starting
 * at once both bind; the second fails at net_open). 0 and *fd, or -errno. */
int net_bind(const uint8_t *ip, unsigned port, int *fd);
/* Bind a Unix stream socket at path, for the balancer's connections
 * alone: only in a folder of this user's own that is for it alone (not a
 * link, mode 0700 or narrower), where nobody else can reach it; a socket
 * of this user's there that nobody listens on (a dead master's) is
 * replaced, anything else refused. The socket is 0600. Not yet listening.
 * 0, *fd and its inode in *ino; or -errno (-EPERM: the folder, said). */
int net_bind_unix(const char *path, int *fd, uint64_t *ino);
/* Remove the socket at path if it is still the one of inode ino. */
void net_unbind_unix(const char *path, uint64_t ino);
/* ip (16 bytes, IPv4 as IPv4-mapped) in words into buf (at least
 * INET6_ADDRSTRLEN bytes): an IPv4-mapped address as IPv4. */
void net_address_text(const uint8_t ip[16], char *buf, size_t size);
/* Start listening on a bound fd: from now on connections are accepted
 * into its queue. 0 or -errno. */
int net_open(int fd);
/* Both at once. 0 and *fd, or -errno. */
int net_listen(unsigned port, int *fd);
/* Raise RLIMIT_NOFILE to its hard limit; returns the soft limit in force. */
long net_raise_nofile(void);
/* Keep one descriptor in reserve for net_accept (call once at start). */
void net_reserve_init(void);
/* What net_accept did. */
enum net_accepted {
	NET_ACCEPTED = 0, /* *fd is a new connection */
	NET_NONE,         /* none was waiting */
	NET_TURNED_AWAY,  /* descriptors ran out: one waiting connection was
	                     accepted with the reserve and closed, so the
	                     listener does not stay readable for ever */
	NET_EXHAUSTED,    /* descriptors ran out and no reserve was there to
	                     turn it away: stop accepting for a while */
	NET_FAILED,       /* accept failed otherwise (*err: the errno) */
};

/* Accept one connection, non-blocking and close-on-exec, with TCP_NODELAY
 * and keepalive from the listener; its address goes to *peer (*len
 * bytes). */
enum net_accepted net_accept(int listen_fd, int *fd, struct sockaddr_storage *peer,
			     socklen_t *len, int *err);

#endif
