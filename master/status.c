/* The live scoreboard: the worker slots and counters already sit in the
 * shared segment, so `master --status PORT` maps it read-only and prints it,
 * and SIGUSR1 writes the same to the log. */
#include "master/status.h"
#include "master/log.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *const slot_states[] = { "empty", "idle", "hashing", "retiring" };

static const char *slot_state(const struct ring_slot *rs)
{
	return rs->state < 4 ? slot_states[rs->state] : "?";
}

static double uptime_s(const struct seg_header *h)
{
	struct timespec now;

	clock_gettime(CLOCK_REALTIME, &now);
	return ((double)now.tv_sec * 1e9 + (double)now.tv_nsec - (double)h->started_ns) / 1e9;
}

/* Jobs still searched, counted by weight (the sum of the priorities waiting
 * on each; 17 stands for "more than 16"). A snapshot read without the lock. */
static unsigned queued_by_weight(const struct ring *r, unsigned counts[18])
{
	unsigned n = 0;

	memset(counts, 0, 18 * sizeof counts[0]);
	for (unsigned i = 0; i < RING_JOBS; i++) {
		const struct ring_job *j = &r->jobs[i];
		if (j->state != JOB_ACTIVE || j->found)
			continue;
		counts[j->weight > 16 ? 17 : j->weight]++;
		n++;
	}
	return n;
}

static const char *const stage_names[STAGE_COUNT] = {
	"read", "dispatch", "wake", "hash", "notify", "reply"
};

static double mean_us(uint64_t ns, uint64_t n)
{
	return n ? (double)ns / (double)n / 1e3 : 0;
}

/* Where a request's time goes, on average (see enum seg_stage). */
static void print_stages(FILE *f, const struct seg_stages *s)
{
	fprintf(f, "stages, mean us over %llu searched requests:",
		(unsigned long long)s->timed);
	for (int i = 0; i < STAGE_COUNT; i++)
		fprintf(f, " %s %.1f%s", stage_names[i], mean_us(s->ns[i], s->timed),
			i < STAGE_COUNT - 1 ? "," : "");
	fprintf(f, "; %llu cache hits: read %.1f, reply %.1f\n",
		(unsigned long long)s->hits_timed, mean_us(s->hit_read_ns, s->hits_timed),
		mean_us(s->hit_reply_ns, s->hits_timed));
}

/* What the master does with the CPUs' idle states (enum power_state). */
static const char *low_latency_name(uint32_t state)
{
	static const char *const names[] = { "off", "released", "held" };

	return state < 3 ? names[state] : "?";
}

static void print_text(FILE *f, const struct seg *seg)
{
	const struct seg_header *h = seg->hdr;
	const struct seg_stats *st = &h->stats;
	const struct ring *r = seg->ring;
	uint64_t hashes = st->dead_hashes;
	unsigned counts[18], queued = queued_by_weight(r, counts);

	fprintf(f, "revhash master pid %d, port %u, kernel %s, schedule %s%s%s, "
		"low latency %s, up %.1f s\n",
		h->master_pid, h->port, h->kernel, rank_order_name(r->policy.order),
		r->policy.preempt ? "" : " no-preempt", r->policy.split ? "" : " no-split",
		low_latency_name(h->low_latency), uptime_s(h));
	fprintf(f, "%-5s %-8s %-9s %-6s %-44s %9s %8s\n", "slot", "pid", "state",
		"job", "lease", "Mhash/s", "deaths");
	for (unsigned i = 0; i < RING_WORKERS; i++) {
		const struct ring_slot *rs = &r->slots[i];
		char lease[64] = "-", job[16] = "-";
		if (!rs->pid && !rs->deaths)
			continue;
		hashes += rs->hashes;
		if (rs->has_lease) {
			snprintf(job, sizeof job, "%u", rs->lease_job);
			snprintf(lease, sizeof lease, "%llu..%llu",
				 (unsigned long long)rs->lease_lo,
				 (unsigned long long)rs->lease_hi);
		}
		fprintf(f, "%-5u %-8d %-9s %-6s %-44s %9.2f %8u\n", i, rs->pid,
			rs->pid ? slot_state(rs) : "dead", job, lease,
			(double)rs->rate / 1e6, rs->deaths);
	}
	fprintf(f, "workers wanted %u; jobs queued %u", h->workers, queued);
	for (unsigned w = 1, first = 1; w < 18; w++) {
		if (!counts[w])
			continue;
		fprintf(f, "%s%s%u: %u", first ? " (by priority " : ", ",
			w == 17 ? ">" : "", w == 17 ? 16 : w, counts[w]);
		first = 0;
	}
	fprintf(f, "%s; cache %llu/%llu answers\n",
		queued ? ")" : "",
		(unsigned long long)seg->cache->count,
		(unsigned long long)seg->cache->capacity);
	fprintf(f, "requests %llu, answered %llu, cache hits %llu, attached %llu, "
		"jobs %llu, not found %llu, cancelled %llu, dropped %llu (timeouts %llu)\n",
		(unsigned long long)st->requests, (unsigned long long)st->answered,
		(unsigned long long)st->cache_hits, (unsigned long long)st->attached,
		(unsigned long long)st->jobs, (unsigned long long)st->not_found,
		(unsigned long long)st->cancelled, (unsigned long long)st->dropped,
		(unsigned long long)st->timeouts);
	print_stages(f, &st->stages);
	fprintf(f, "worker deaths %llu (stalled %llu), respawns %llu, reloads %llu, "
		"lock repairs %u, hashes %llu\n", (unsigned long long)st->worker_deaths,
		(unsigned long long)st->stalls, (unsigned long long)st->respawns,
		(unsigned long long)st->reloads, r->repairs, (unsigned long long)hashes);
}

static void print_json(FILE *f, const struct seg *seg)
{
	const struct seg_header *h = seg->hdr;
	const struct seg_stats *st = &h->stats;
	const struct ring *r = seg->ring;
	const char *sep = "";
	unsigned counts[18], queued = queued_by_weight(r, counts);
	double busy_rate = 0;
	unsigned busy = 0;

	fprintf(f, "{\"pid\":%d,\"port\":%u,\"kernel\":\"%s\",\"schedule\":\"%s\","
		"\"preempt\":%u,\"split\":%u,\"low_latency\":\"%s\",\"low_latency_holds\":%llu,"
		"\"uptime_s\":%.3f,\"workers_wanted\":%u,"
		"\"jobs_in_table\":%u,\"jobs_queued\":%u,\"jobs_by_priority\":[",
		h->master_pid, h->port, h->kernel, rank_order_name(r->policy.order),
		r->policy.preempt, r->policy.split, low_latency_name(h->low_latency),
		(unsigned long long)h->low_latency_holds, uptime_s(h), h->workers,
		ring_in_use(r), queued);
	for (unsigned w = 1; w < 18; w++)
		fprintf(f, "%u%s", counts[w], w < 17 ? "," : "");
	fprintf(f, "],\"cache_count\":%llu,\"cache_capacity\":%llu,\"workers\":[",
		(unsigned long long)seg->cache->count,
		(unsigned long long)seg->cache->capacity);
	for (unsigned i = 0; i < RING_WORKERS; i++) {
		const struct ring_slot *rs = &r->slots[i];
		if (!rs->pid && !rs->deaths)
			continue;
		fprintf(f, "%s{\"slot\":%u,\"pid\":%d,\"state\":\"%s\",\"hashes\":%llu,"
			"\"rate\":%llu,\"hash_cpu_ns\":%llu,\"deaths\":%u}", sep, i, rs->pid,
			rs->pid ? slot_state(rs) : "dead",
			(unsigned long long)rs->hashes, (unsigned long long)rs->rate,
			(unsigned long long)rs->hash_ns, rs->deaths);
		if (rs->pid && rs->hash_ns) {
			busy_rate += rs->hashes * 1e9 / rs->hash_ns;
			busy++;
		}
		sep = ",";
	}
	/* What the live workers hash together, each at its rate per second of
	 * CPU spent hashing: the server's own rate over its life, without the
	 * time anything else took from its CPUs. More workers than CPUs share
	 * them: then the CPUs' worth of the mean rate. */
	if (h->cpus && busy > h->cpus)
		busy_rate = busy_rate / busy * h->cpus;
	fprintf(f, "],\"busy_rate\":%.0f,\"stages_us\":{", busy_rate);
	for (int i = 0; i < STAGE_COUNT; i++)
		fprintf(f, "\"%s\":%.3f,", stage_names[i],
			mean_us(st->stages.ns[i], st->stages.timed));
	fprintf(f, "\"timed\":%llu,\"hit_read\":%.3f,\"hit_reply\":%.3f,\"hits_timed\":%llu}",
		(unsigned long long)st->stages.timed,
		mean_us(st->stages.hit_read_ns, st->stages.hits_timed),
		mean_us(st->stages.hit_reply_ns, st->stages.hits_timed),
		(unsigned long long)st->stages.hits_timed);
	fprintf(f, ",\"requests\":%llu,\"answered\":%llu,\"cache_hits\":%llu,"
		"\"attached\":%llu,\"jobs\":%llu,\"not_found\":%llu,\"cancelled\":%llu,"
		"\"dropped\":%llu,\"timeouts\":%llu,\"worker_deaths\":%llu,\"respawns\":%llu,"
		"\"reloads\":%llu,\"stalls\":%llu,\"lock_repairs\":%u,\"dead_hashes\":%llu}\n",
		(unsigned long long)st->requests, (unsigned long long)st->answered,
		(unsigned long long)st->cache_hits, (unsigned long long)st->attached,
		(unsigned long long)st->jobs, (unsigned long long)st->not_found,
		(unsigned long long)st->cancelled, (unsigned long long)st->dropped,
		(unsigned long long)st->timeouts, (unsigned long long)st->worker_deaths, (unsigned long long)st->respawns,
		(unsigned long long)st->reloads, (unsigned long long)st->stalls, r->repairs,
		(unsigned long long)st->dead_hashes);
}

/* Map the live master's segment on port, or say why there is none. */
static int find(const char *what, unsigned port, int rw, struct seg *seg)
{
	int rc = seg_open(port, rw, seg);

	if (rc == -EPROTO) {
		fprintf(stderr, "master %s: the shared segment of port %u is damaged "
			"or of another version\n", what, port);
		return rc;
	}
	if (rc < 0) {
		fprintf(stderr, "master %s: no master on port %u\n", what, port);
		return rc;
	}
	if (!seg->alive) {
		fprintf(stderr, "master %s: the master on port %u (pid %d) is gone; "
			"its shared segment /dev/shm%s is left over (a new master "
			"on the port removes it)\n", what, port,
			seg->hdr->master_pid, seg->name);
		seg_close(seg);
		return -ESRCH;
	}
	return 0;
}

int status_print(unsigned port, int json)
{
	struct seg seg = { .fd = -1 };
	int rc = find("--status", port, 0, &seg);

	if (rc == 0)
		(json ? print_json : print_text)(stdout, &seg);
	seg_close(&seg); /* a segment not found or already closed: nothing */
	return rc;
}

int status_arm_hook(unsigned port, int hook)
{
	struct seg seg = { .fd = -1 };
	int rc = find("--hook", port, 1, &seg);

	if (rc == 0 && (rc = ring_arm_hook(seg.ring, (enum ring_hook)hook, 1)) < 0)
		fprintf(stderr, "master --hook: the master on port %u was started "
			"without REVHASH_TEST_HOOKS\n", port);
	seg_close(&seg);
	return rc;
}

void status_log(const struct seg *seg)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return;
	print_text(f, seg);
	fclose(f);
	log_info("status:\n%s", buf);
	free(buf);
}
