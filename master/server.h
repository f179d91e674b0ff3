/* The master process: one epoll loop that owns the listener, every client
 * connection, the shared segment and the workers. */
#ifndef REVHASH_SERVER_H
#define REVHASH_SERVER_H

#include <stdint.h>
#include <sys/types.h>

#include "master/conn.h"
#include "master/options.h"
#include "shm/segment.h"
#include "worker/kernel.h"

/* The master's private view of a job: who waits on it. */
struct mjob {
	int in_use;
	int replied;             /* waiters answered (or all gone) */
	int cached;              /* answer stored in the cache */
	uint64_t weight;         /* sum of waiters' priorities */
	struct conn_list waiters;
	uint8_t digest[32];
	uint64_t start, end;
};

/* The master's private view of a worker slot. */
struct wslot {
	pid_t pid;               /* 0: empty */
	uint64_t started_ms;
	uint64_t respawn_at_ms;  /* 0: not waiting to respawn */
	unsigned quick_deaths;   /* deaths soon after start, for back-off */
	unsigned restarts;
};

struct server {
	struct options opt;
	struct seg seg;
	const struct kernel *kernel;
	pid_t pid;
	int epfd, listen_fd, signal_fd, notify_fd;
	unsigned target;                  /* workers wanted */
	struct wslot wslots[RING_WORKERS];
	struct mjob jobs[RING_JOBS];
	uint32_t live[RING_JOBS];         /* indices of in-use mjobs */
	uint32_t nlive;
	struct conn_list timed;           /* reading/writing: oldest deadline first */
	struct conn_list pending;         /* requests waiting for a free job entry */
	uint64_t nconns;
	int stopping;
	uint64_t stop_deadline_ms;
};

/* Set up everything (listener, segment, workers). 0 or -errno (logged). */
int server_init(struct server *s, const struct options *o);
/* Serve until stopped by a signal. Returns the process exit status. */
int server_run(struct server *s);

/* Monotonic milliseconds. */
uint64_t server_now_ms(void);
/* The counters in the shared segment. */
static inline struct seg_stats *server_stats(struct server *s)
{
	return &s->seg.hdr->stats;
}
/* Reply answer to c (it leaves any list; closed once written). */
void server_reply(struct server *s, struct conn *c, uint64_t answer);
/* Close c without an answer (timeout, error, early close), counted. */
void server_drop(struct server *s, struct conn *c);

/* jobs.c: a complete request: cache, attach, or new job (admitted: it comes
 * off the pending list, so it may not queue behind others). */
void jobs_dispatch(struct server *s, struct conn *c, int admitted);
/* jobs.c: let requests waiting for a free job entry in, oldest first. */
void jobs_admit_pending(struct server *s);
/* jobs.c: act on what workers did to one job; 1 when its entry was freed. */
int jobs_settle(struct server *s, uint32_t idx);
/* jobs.c: jobs_settle every live job (after a worker died). */
void jobs_scan(struct server *s);
/* jobs.c: the client of c left before its answer: detach, maybe cancel. */
void jobs_client_gone(struct server *s, struct conn *c);

/* workers.c: start the wanted number of workers. */
int workers_start(struct server *s);
/* workers.c: reap exited workers, give their leases back, plan respawns. */
void workers_reap(struct server *s);
/* workers.c: fork or retire so the live count meets s->target; respawn
 * slots whose back-off has passed. Returns ms until the next planned
 * respawn, or -1 when none is planned. */
int workers_adjust(struct server *s);
/* workers.c: stop every worker (graceful: wait up to wait_ms, then kill). */
void workers_stop(struct server *s, unsigned wait_ms);
/* workers.c: live workers. */
unsigned workers_alive(const struct server *s);

/* status.c: print the status of the master on port; 0 or exit status 1. */
int status_print(unsigned port, int json);
/* status.c: log this master's status (SIGUSR1). */
void status_log(struct server *s);

#endif
