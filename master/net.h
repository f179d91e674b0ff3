/* Sockets: the dual-stack listener, the balancer's Unix socket, accepting
 * under descriptor exhaustion, and the process's descriptor limit. */
#ifndef REVHASH_NET_H
#define REVHASH_NET_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

/* Bind a listener to port on ip (16 bytes, IPv4 as IPv4-mapped), or with
 * ip NULL on every address (IPv6 and IPv4, else IPv4 only); not yet
 * listening, so a port in use is found before anything else is set up.
 * 0 and *fd, or -errno. */
int net_bind(const uint8_t *ip, unsigned port, int *fd);
/* Bind a Unix stream socket (0600) at path, for the balancer alone: only
 * in a folder of this user's own, 0700 or narrower and no link; a dead
 * master's socket there is replaced, anything else refused. Not yet
 * listening. 0, *fd and its inode in *ino; or -errno (-EPERM: the folder,
 * said). */
int net_bind_unix(const char *path, int *fd, uint64_t *ino);
/* Remove the socket at path if it is still the one of inode ino. */
void net_unbind_unix(const char *path, uint64_t ino);
/* ip (16 bytes) as text into buf (INET6_ADDRSTRLEN), IPv4-mapped as IPv4. */
void net_address_text(const uint8_t ip[16], char *buf, size_t size);
/* Start listening on a bound fd. 0 or -errno. */
int net_open(int fd);
/* Raise RLIMIT_NOFILE to its hard limit; returns the soft limit in force. */
long net_raise_nofile(void);
/* Keep one descriptor in reserve for net_accept (call once at start). */
void net_reserve_init(void);
/* What net_accept did. */
enum net_accepted {
	NET_ACCEPTED = 0, /* *fd is a new connection */
	NET_NONE,         /* none was waiting */
	NET_TURNED_AWAY,  /* descriptors ran out: one was accepted with the
	                     reserve and closed */
	NET_EXHAUSTED,    /* ... and no reserve: stop accepting a while */
	NET_FAILED,       /* accept failed otherwise (*err: the errno) */
};

/* Accept one connection (non-blocking, close-on-exec, the listener's
 * options); its address into *peer (*len bytes). */
enum net_accepted net_accept(int listen_fd, int *fd, struct sockaddr_storage *peer,
			     socklen_t *len, int *err);

#endif
